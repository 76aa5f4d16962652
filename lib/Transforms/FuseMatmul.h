//===- FuseMatmul.h - nova-fuse's matmul and attention phase ----*- C++ -*-===//
//
// Internal to nova-fuse: the phase that runs after the pointwise (and
// reduction) groups of a block are formed.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_LIB_TRANSFORMS_FUSEMATMUL_H
#define NOVA_LIB_TRANSFORMS_FUSEMATMUL_H

#include "mlir/IR/Block.h"
#include "mlir/Support/LLVM.h"

namespace mlir::nova {

/// Forms the matmul and attention kernels of `block`: every matmul with the
/// casts and views of its operands (prologue) and the pointwise groups on
/// its product (epilogue), matmuls and column sums that read one operand as
/// one grouped GEMM, and every attention op with the views that make its
/// operands and that its results are written through. What a contract
/// cannot describe stays outside, unchanged. With `singleGemms`, a matmul
/// kernel holds one GEMM and no prologue cast (the wgmma path's form).
LogicalResult fuseMatmulsAndAttention(Block &block, bool singleGemms);

} // namespace mlir::nova

#endif // NOVA_LIB_TRANSFORMS_FUSEMATMUL_H
