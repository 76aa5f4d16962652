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
#include "nova/Runtime/Configurator.h"

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
  /// Matmul operand stored transposed relative to the product's layout.
  bool transposed = false;
};

struct Contract {
  Family family = Family::pointwise;
  /// Pointwise: the output shape. Row / column reduction: [rows, cols].
  /// Matmul: [batch, M, N, K]. Attention: [batch*heads, T, T, D]. Gather /
  /// scatter_add: [indices, width, table rows]. Optimizer: [elements of
  /// every updated tensor].
  SmallVector<int64_t> space;
  SmallVector<Access> inputs, results;
  /// Element type of the main computation (the matmul's operands, the
  /// reduced tensor, the first output otherwise).
  Type computeType;
  bool causal = false;
  /// Bytes read from streamed inputs (not broadcast, not scalar) plus bytes
  /// written, each at its own element type.
  int64_t streamedBytes = 0;
};

/// Whether `op` computes each output element from the same element of its
/// operands (NumPy broadcasting allowed): the ops a pointwise body holds
/// besides views of its inputs. Constants and iota count.
bool isElementwiseOp(Operation *op);

/// Checks `group`'s body against its family's contract and describes it.
/// With `emitErrors`, a broken rule is reported at the offending op as
/// "<family> contract: <rule>"; without, the result is just a failure.
FailureOr<Contract> computeContract(FusionGroupOpInterface group,
                                    bool emitErrors = true);

/// The configurator's problem for a contract (the optimizer update is a
/// pointwise problem over all its elements).
::nova::Problem toProblem(const Contract &contract);

} // namespace mlir::nova_tile

#endif // NOVA_DIALECT_NOVATILE_IR_CONTRACTS_H
