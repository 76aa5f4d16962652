//===- Contracts.h - what each kernel family's body may be ------*- C++ -*-===//
//
// One contract per kernel family: the iteration space of a fusion group and
// how the kernel reads each input and writes each output. The verifier
// checks it, the configurator's problem is derived from it and the GPU
// emitters generate index arithmetic from it, so all three agree on what a
// family can hold.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVATILE_IR_CONTRACTS_H
#define NOVA_DIALECT_NOVATILE_IR_CONTRACTS_H

#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/CostModel/Configurator.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::nova_tile {

/// How a kernel touches one input or output, relative to its iteration
/// space.
enum class AccessKind {
  Elementwise,  // one element per point of the space, same layout
  Broadcast,    // repeated along `dims` of the space (NumPy alignment)
  Transposed,   // read through `dims` = the permutation, then elementwise
  Reshaped,     // same elements in the same linear order, another shape
  Sliced,       // a strided window (`dims` = starts, limits, strides)
  Concatenated, // fills a window of the space: along dim `dims[0]` from
                // index `dims[1]` (an operand of a concat)
  PerRow,       // one element per row of a rows x cols space
  PerColumn,    // one element per column, shared by every row
  Scalar,       // one element for the whole kernel
  MatmulLhs,    // the GEMM's A operand (`transposed`: stored K x M)
  MatmulRhs,    // the GEMM's B operand (`transposed`: stored N x K)
  Query,        // attention's Q, K and V (batch*heads x T x D tiles); in
  Key,          // attention_backward also the layouts of dQ, dK and dV
  Value,
  AttentionOutput, // attention_backward's O and dO (batch*heads x T x D)
  GradOutput,
  LogSumExp, // one f32 per query row (attention_fwd's second result)
  Table,     // gather's table: whole rows read at data-dependent indices
  Indices,   // the index vector of gather / scatter_add
  Scattered  // scatter_add's output: rows accumulated at the indices
};

const char *accessKindName(AccessKind kind);

struct Access {
  AccessKind kind = AccessKind::Elementwise;
  /// Broadcast dims, a permutation or a slice (see AccessKind).
  SmallVector<int64_t> dims;
  /// Matmul operand stored transposed relative to the product's layout
  /// (lhs: M varies fastest; rhs: K varies fastest).
  bool transposed = false;
  /// Matmul and attention operands (and attention results written through
  /// a view): the operand as the main op sees it is a strided view of the
  /// kernel's input (output), element (i0, ..., in) at `offset` + sum of
  /// i_d * strides[d] of its row-major storage. Empty strides: contiguous.
  int64_t offset = 0;
  SmallVector<int64_t> strides;
};

/// One problem of a matmul or attention kernel: a matmul, a column sum of a
/// grouped GEMM, or the attention op, and which inputs it reads how.
struct MainProblem {
  /// Matmul: [batch, M, N, K]. Column sum of an R x N operand: [1, 1, N, R]
  /// (the GEMM ones(1 x R) . X). Attention: [batch*heads, T, T, D].
  SmallVector<int64_t> space;
  bool columnSum = false;
  /// (block argument number, how it is read), one per operand of the main
  /// op: lhs then rhs ([batch..., M, K] and [batch..., K, N] views over the
  /// product's batch dims, 0 strides where broadcast); a column sum's only
  /// operand is the rhs; attention's in operand order.
  SmallVector<std::pair<unsigned, Access>> operands;
  /// TF32 matmul: the rhs holds TF32 values already (`nova.rounded`).
  bool rhsRounded = false;
  /// Attention: (output number, where) for every result the kernel writes:
  /// `where` has the result's kind and gives the output's elements the
  /// result's elements land on (an output concatenated from several
  /// results, dQ, dK and dV into dQKV, is one window per result).
  SmallVector<std::pair<unsigned, Access>> writes;
};

struct Contract {
  Family family = Family::pointwise;
  /// Pointwise: the output shape. Row / column reduction: [rows, cols]
  /// (a row reduction's rows are every dim of the reduced tensor but the
  /// last; a column reduction's are the dims its column sums reduce). Both
  /// may yield reductions across their rows (per column, or a scalar total),
  /// complete only at the end of the kernel: per-block partials combined
  /// after the last row.
  /// Matmul: [batch, M, N, K] (of the first problem when grouped). Attention: [batch*heads, T, T, D]. Gather /
  /// scatter_add: [indices, width, table rows]. Optimizer: [elements of
  /// every updated tensor] (or, for a global norm's sums over whole tensors,
  /// of every summed tensor).
  SmallVector<int64_t> space;
  SmallVector<Access> inputs, results;
  /// Matmul and attention kernels: every main op. A matmul kernel with more
  /// than one is a grouped GEMM: one launch whose tile space is the
  /// concatenation of its problems' tile spaces (matmuls and column sums that
  /// do not depend on each other, typically reading one shared operand);
  /// every epilogue value follows exactly one problem. `inputs` then gives
  /// an input read by several problems as its first read.
  SmallVector<MainProblem, 1> problems;
  /// Element type of the main computation (the matmul's operands, the
  /// reduced tensor, the first output otherwise).
  Type computeType;
  bool causal = false;
  /// Bytes read from streamed inputs (not broadcast, not scalar) plus bytes
  /// written, each at its own element type.
  int64_t streamedBytes = 0;
  /// Of those, the bytes written (every output).
  int64_t writtenBytes = 0;
  /// Row reductions (and column ones with a total): the sums across the
  /// rows that keep the last dim (column sums), folded across the kernel's
  /// blocks after its rows.
  int64_t columnSums = 0;
  /// Row and column reductions: the sums across every dim (a loss, a count
  /// of labels), folded across the kernel's blocks after its rows.
  int64_t totals = 0;
  /// A column reduction with a total: convert-tile-to-gpu lowers it as a
  /// row reduction of its space [rows, last dim] (refusing reductions of
  /// other shapes and column sums over only some leading dims), and the
  /// configurator prices it so.
  bool rowsOfTotals = false;
  /// Transcendental ops of the body (GELU, tanh, exp, erf, sigmoid): in a
  /// matmul kernel, the weight of its epilogue (nova::wgmma::heavyEpilogue).
  int64_t transcendentals = 0;
};

/// Whether `op` computes each output element from the same element of its
/// operands (NumPy broadcasting allowed): the ops a pointwise body holds
/// besides views of its inputs. Constants and iota count.
bool isElementwiseOp(Operation *op);

/// Whether the kernels of `family` read and write their buffers at a padded
/// row pitch (nova_mem.buffer's ld): pointwise kernels, GEMMs (TMA strides,
/// or the pitch in mma.sync's addresses) and row kernels (16-byte chunks
/// from each row's start at the pitch). Column reductions, gather,
/// attention and the optimizer index their buffers as packed.
bool honoursRowPitch(Family family);

/// Checks `group`'s body against its family's contract and describes it.
/// With `emitErrors`, a broken rule is reported at the offending op as
/// "<family> contract: <rule>"; without, the result is just a failure.
FailureOr<Contract> computeContract(FusionGroupOpInterface group,
                                    bool emitErrors = true);

/// The configurator's problem for a contract (the optimizer update is a
/// pointwise problem over all its elements; a grouped GEMM is the single
/// GEMM of equal FLOPs with its largest problem's N and K, so the tile
/// count and the work of the concatenated tile space are kept).
::nova::Problem toProblem(const Contract &contract);

} // namespace mlir::nova_tile

#endif // NOVA_DIALECT_NOVATILE_IR_CONTRACTS_H
