//===- AttentionWgmma.h - the Hopper attention kernels' interface ---------===//
//
// Internal to convert-tile-to-gpu: what Attention.cpp hands the wgmma
// forward (AttentionWgmma.cpp) and backward (AttentionBackwardWgmma.cpp)
// once it has read the kernel's contract, and the pieces the two share.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMA_H
#define NOVA_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMA_H

#include "Emitter.h"

namespace mlir::nova::tile_to_gpu {

/// An attention operand as the kernel reads it: element (lead..., row,
/// col) of kernel input `input` at offset + sum(index * strides);
/// `converted` when a prologue cast stands between the input and the op.
struct AttentionOperand {
  BlockArgument input;
  int64_t offset = 0;
  ArrayRef<int64_t> strides;
  bool converted = false;
};

/// What a wgmma attention forward and backward both need: the shape, q, k
/// and v, and how results reach the outputs.
struct AttentionCommon {
  KernelContext &k;
  ArrayRef<int64_t> lead; // the batch dims (batch, heads, ...)
  int64_t tq, tk, d, dv;
  double scale;
  bool causal;
  Type element; // of q, k and v
  AttentionOperand q, key, value;
  /// Stores result `result` at (lead index of `bh`, row, col) through the
  /// epilogue, when `valid`: the forward's output (0) and log-sum-exp (1,
  /// col null), the backward's dQ (0), dK (1) and dV (2).
  function_ref<LogicalResult(unsigned result, Value bh, Value row, Value col,
                             Value x, Value valid)>
      store;
  /// Fills the constant windows of concatenated outputs with a grid of
  /// `grid` blocks of `threads` threads.
  function_ref<void(int64_t grid, int64_t threads)> fillConstants;
};

/// An attention forward (nova.attention or nova.attention_fwd) ready to
/// lower.
struct AttentionForward : AttentionCommon {
  bool withLogSumExp;
};

/// The forward on wgmma with TMA (sm_90a) when it applies (bf16, head dim
/// 64 or 128, TMA-compatible operands), else none: the caller keeps its
/// mma.sync path.
std::optional<FailureOr<Geometry>>
emitAttentionForwardWgmma(const AttentionForward &fwd);

/// An attention backward (nova.attention_bwd) ready to lower: O and dO
/// (for D = rowsum(dO * O)) and which gradients the kernel writes.
struct AttentionBackward : AttentionCommon {
  AttentionOperand out, outGrad;
  bool wantQ, wantKV;
  /// The log-sum-exp (f32, natural log) of query `row` of batch `bh`; 0
  /// past the last query.
  function_ref<Value(Value bh, Value row)> logSumExp;
};

/// The backward on wgmma with TMA (sm_90a) when it applies (bf16, head dim
/// 64 or 128, TMA-compatible operands), else none: the caller keeps its
/// mma.sync path.
std::optional<FailureOr<Geometry>>
emitAttentionBackwardWgmma(const AttentionBackward &bwd);

/// Pieces the wgmma forward and backward share.
namespace attention_wgmma {

/// Work items per SM from which a kernel's grid is persistent (a block per
/// SM walking its items); with fewer, a block per item.
inline constexpr int64_t kPersistentItemsPerSM = 8;

/// Why TMA cannot load `op` (bf16, batch dims `lead`), or nothing.
std::optional<std::string> operandWhyNot(const AttentionOperand &op,
                                         ArrayRef<int64_t> lead);
/// A TMA descriptor of `op` (`cols` wide, `rows` long): dims (cols, rows,
/// the batch dims that are not 1, innermost first), boxes of 64 x
/// `boxRows`, 128-byte swizzle.
Value descriptor(KernelContext &k, const AttentionOperand &op,
                 ArrayRef<int64_t> lead, int64_t cols, int64_t rows,
                 int64_t boxRows);
/// The TMA coordinates (i32) of column `col`, row `row` of batch `bh`.
SmallVector<Value> coordinates(KernelContext &k, ArrayRef<int64_t> lead,
                               int64_t col, Value row, Value bh);
/// f32 values as bf16x2 words (i32), pairs in order: the A fragment of a
/// register-A wgmma from the accumulators of an m64 wgmma.
SmallVector<Value> packBF16(ImplicitLocOpBuilder &b, ArrayRef<Value> values);

} // namespace attention_wgmma

} // namespace mlir::nova::tile_to_gpu

#endif // NOVA_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMA_H
