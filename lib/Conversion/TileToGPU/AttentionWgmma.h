//===- AttentionWgmma.h - the Hopper attention forward's interface --------===//
//
// Internal to convert-tile-to-gpu: what Attention.cpp hands the wgmma
// forward (AttentionWgmma.cpp) once it has read the kernel's contract.
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

/// An attention forward (nova.attention or nova.attention_fwd) ready to
/// lower: the shape, the operands, and how results reach the outputs.
struct AttentionForward {
  KernelContext &k;
  ArrayRef<int64_t> lead; // the batch dims (batch, heads, ...)
  int64_t tq, tk, d, dv;
  double scale;
  bool causal;
  Type element; // of q, k and v
  AttentionOperand q, key, value;
  bool withLogSumExp;
  /// Stores result 0 (col given) or 1 (the log-sum-exp, col null) at
  /// (lead index of `bh`, row, col) through the epilogue, when `valid`.
  function_ref<LogicalResult(unsigned result, Value bh, Value row, Value col,
                             Value x, Value valid)>
      store;
  /// Fills the constant windows of concatenated outputs with a grid of
  /// `grid` blocks of `threads` threads.
  function_ref<void(int64_t grid, int64_t threads)> fillConstants;
};

/// The forward on wgmma with TMA (sm_90a) when it applies (bf16, head dim
/// 64 or 128, TMA-compatible operands), else none: the caller keeps its
/// mma.sync path.
std::optional<FailureOr<Geometry>>
emitAttentionForwardWgmma(const AttentionForward &fwd);

} // namespace mlir::nova::tile_to_gpu

#endif // NOVA_LIB_CONVERSION_TILETOGPU_ATTENTIONWGMMA_H
