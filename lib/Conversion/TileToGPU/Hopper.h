//===- Hopper.h - sm_90a building blocks shared by the wgmma emitters -----===//
//
// Internal to convert-tile-to-gpu: the pieces the Hopper kernels
// (MatmulWgmma.cpp, AttentionWgmma.cpp) build on: TMA descriptor
// parameters, the dynamic shared buffer, mbarrier waits, TMA loads and
// wgmma shared-memory descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_LIB_CONVERSION_TILETOGPU_HOPPER_H
#define NOVA_LIB_CONVERSION_TILETOGPU_HOPPER_H

#include "Emitter.h"

namespace mlir::nova::tile_to_gpu::hopper {

/// The constant bits of a wgmma shared-memory descriptor of a K-major,
/// 128-byte-swizzled tile: leading byte offset 16 (unused by swizzled
/// K-major layouts), stride byte offset 1024 between groups of 8 rows
/// (bits 32-45), 128-byte swizzle (bits 62-63). The start address >> 4
/// goes in bits 0-13.
inline constexpr int64_t kKMajorDescriptorBits =
    (int64_t(1) << 16) | (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);

/// A TMA descriptor parameter appended to `k.func` for kernel input
/// `input`, from byte `byteOffset` of it: `dims` and `box` innermost
/// first, `byteStrides` of the outer dims, `swizzle` bytes (0, 32, 64,
/// 128). The runtime encodes it at load time (nova_gpu.tma).
Value addTmaDescriptor(KernelContext &k, BlockArgument input,
                       int64_t byteOffset, ArrayRef<int64_t> dims,
                       ArrayRef<int64_t> byteStrides, ArrayRef<int64_t> box,
                       int64_t swizzle);

/// The dynamic shared buffer of `bytes` bytes (the launch gives it): an
/// external, 1024-byte aligned array (the alignment 128-byte swizzle
/// needs), as an address-space-3 pointer.
Value dynamicSharedMemory(KernelContext &k, int64_t bytes);

/// `byteOffset` (i64) bytes into the shared buffer `smem`.
Value sharedAt(ImplicitLocOpBuilder &b, Value smem, Value byteOffset);

/// A shared::cta address as the shared::cluster one TMA writes (this
/// block's own, no cluster).
Value toCluster(ImplicitLocOpBuilder &b, Value ptr);

/// Waits until the mbarrier at `barrier` completes the phase of parity
/// `phase` (i32).
void waitParity(ImplicitLocOpBuilder &b, Value barrier, Value phase);

/// A TMA tile load of the box at `coords` (i32, innermost first) of `desc`
/// into shared `dst`, completing on mbarrier `barrier`.
void tmaLoad(ImplicitLocOpBuilder &b, Value dst, Value desc, ValueRange coords,
             Value barrier);

/// The operands of a register-A wgmma.
enum class RegisterA {
  /// m64nNk16, A four bf16x2 registers, B N-major (the transpose bit).
  BF16NMajorB,
  /// m64nNk8, A four TF32 words, B K-major (TF32 has no transpose bit).
  TF32,
};

/// wgmma.mma_async with A from registers, as inline PTX (the NVVM dialect
/// has no register-A form): the m64 x n accumulators (`acc`, n / 2 f32 a
/// thread) = A B + (scaleD (i32) != 0 ? acc : 0) for one K step. A's
/// registers are mma.sync's A fragment of warp w's rows 16 w .. 16 w + 15
/// (register r of lane l: row l / 4 + 8 (r % 2), K column l % 4 + 4 (r / 2)
/// for TF32, pairs at 2 (l % 4) + 8 (r / 2) for bf16); B by the
/// shared-memory descriptor `desc`. Returns the accumulators' new values.
SmallVector<Value> wgmmaRegisterA(ImplicitLocOpBuilder &b, ArrayRef<Value> acc,
                                  ArrayRef<Value> a, Value desc, Value scaleD,
                                  RegisterA kind);

/// Declares that `k` runs one block per SM (.minnctapersm 1): with it beside
/// .maxntid, ptxas knows the register count at entry and gives warp
/// specialization's consumers the registers setmaxnreg raises them to
/// (else C7508: setmaxnreg ignored, consumers capped at 65536 / threads).
void declareOneBlockPerSM(KernelContext &k);

/// Says which path kernel `k` takes as an optimization remark (category
/// nova-wgmma; `nova-opt --remarks-filter=nova-wgmma
/// --remark-format=emitRemark`): [Missed] "stays on mma.sync: <whyNot>", or
/// [Passed] `how`.
void remarkPath(KernelContext &k, const std::optional<std::string> &whyNot,
                StringRef how);

/// What the wgmma emitters build with: the kernel, its builder and body
/// emitter, and the integer constants and casts of index arithmetic.
class EmitterBase {
protected:
  explicit EmitterBase(KernelContext &k) : k(k), b(k.b), body(k.body) {}
  Value idx(int64_t v) { return body.index(v); }
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(int32_t(v)));
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, b.getI64Type(), index);
  }
  // Index and float arithmetic (ints as index constants).
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32Type(), b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, idx(y)) : x; }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, x, idx(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, x, idx(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, x, idx(y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  /// Warp specialization: warpgroup 0 (the producer) lowers its register
  /// budget to 40 and runs `producer`; the others raise theirs to 232 and
  /// run `consumer` with their index (warpgroup - 1), each in a scope of
  /// its own.
  LogicalResult specialize(Value tid, function_ref<void()> producer,
                           function_ref<LogicalResult(Value)> consumer);

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
};

} // namespace mlir::nova::tile_to_gpu::hopper

#endif // NOVA_LIB_CONVERSION_TILETOGPU_HOPPER_H
