// convert-tile-to-gpu lowers bf16 attention forwards with head dim 64 or
// 128 whose q, k, v TMA can load (contiguous head dim, 16-byte strides, no
// prologue) to wgmma (AttentionWgmma.cpp): 384 threads, TMA descriptors
// over (head dim, sequence, the batch dims that are not 1), S = Q K^T on
// nvvm.wgmma.mma_async m64n128k16 (scale-d 0 first), O += P V by inline
// wgmma with P from registers and V N-major (imm-trans-b 1). f32 (TF32),
// head dim 96, a prologue cast and wgmma=false stay on mma.sync.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false | FileCheck %s --check-prefix=OFF --implicit-check-not=nvvm.wgmma --implicit-check-not='"wgmma' --implicit-check-not=nova_gpu.tma
// Which path each attention forward takes, and why not wgmma, as remarks
// (the same category as the GEMMs').
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu --remarks-filter=nova-wgmma --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=attention_forward_{{[0-9a-f]+}} | Remark="wgmma attention forward"
// REMARK: remark: [Passed] wgmma
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=attention_forward_{{[0-9a-f]+}} | Reason="stays on mma.sync: operands are not bf16
// REMARK: remark: [Missed] wgmma {{.*}} Reason="stays on mma.sync: head dims other than 64 or 128"
// REMARK: remark: [Missed] wgmma {{.*}} Reason="stays on mma.sync: a prologue on an operand"

// q, k, v as windows of one packed qkv: 4-d boxes (64 x 128 rows x 1 head
// x 1 batch), rows 1152 bytes apart, heads 128, batches 345600; q, k, v
// 0, 384 and 768 bytes in; 2 x 3 x 3 = 18 blocks of 128 query rows; Q (16
// KB), 4 stages of K and V (32 KB each) and 14 mbarriers.
// CHECK-LABEL: gpu.module
// CHECK: llvm.mlir.global external @nova_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @{{.*}}(%arg0: memref<2x300x576xbf16>, %arg1: memref<2x300x192xbf16>, %arg2: memref<2x3x300xf32>,
// CHECK-SAME: %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128, 1, 1>, buffer = 0 : i32, dims = array<i64: 64, 300, 3, 2>, offset = 0 : i64, strides = array<i64: 1152, 128, 345600>, swizzle = 128 : i32}},
// CHECK-SAME: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128, 1, 1>, buffer = 0 : i32, dims = array<i64: 64, 300, 3, 2>, offset = 384 : i64, strides = array<i64: 1152, 128, 345600>, swizzle = 128 : i32}},
// CHECK-SAME: %arg5: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128, 1, 1>, buffer = 0 : i32, dims = array<i64: 64, 300, 3, 2>, offset = 768 : i64, strides = array<i64: 1152, 128, 345600>, swizzle = 128 : i32}})
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 18, 1, 1>, nova_gpu.dynamic_shared_bytes = 147568 : i64, nova_gpu.tma_params = array<i32: 3, 4, 5>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>]
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;

// Head dim 128 (two 64-column chunks per tile), 200 queries over 333 keys:
// 3-d boxes, 2 x 2 blocks, 3 stages (229464 bytes); P V as m64n128k16.
// CHECK-LABEL: gpu.module
// CHECK: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128, 1>, buffer = 0 : i32, dims = array<i64: 128, 200, 2>, offset = 0 : i64, strides = array<i64: 256, 51200>, swizzle = 128 : i32}}
// CHECK-SAME: known_grid_size = array<i32: 4, 1, 1>, nova_gpu.dynamic_shared_bytes = 229464 : i64
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;

// The rest stay on mma.sync.
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: nvvm.mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: nvvm.mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: nvvm.mma.sync

// OFF-COUNT-5: nvvm.mma.sync

func.func @qkv_causal_d64(%qkv: tensor<2x300x576xbf16>) -> (tensor<2x300x192xbf16>, tensor<2x3x300xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%qkv) : (tensor<2x300x576xbf16>) -> (tensor<2x300x192xbf16>, tensor<2x3x300xf32>) {
  ^bb0(%x: tensor<2x300x576xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 300, 192] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %qr = nova.reshape %qs : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %ks = nova.slice %x starts [0, 0, 192] limits [2, 300, 384] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %kr = nova.reshape %ks : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %vs = nova.slice %x starts [0, 0, 384] limits [2, 300, 576] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %vr = nova.reshape %vs : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<2x3x300x64xbf16>, tensor<2x3x300x64xbf16>, tensor<2x3x300x64xbf16> -> tensor<2x3x300x64xbf16>, tensor<2x3x300xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x3x300x64xbf16> -> tensor<2x300x3x64xbf16>
    %y = nova.reshape %ot : tensor<2x300x3x64xbf16> -> tensor<2x300x192xbf16>
    nova_tile.yield %y, %lse : tensor<2x300x192xbf16>, tensor<2x3x300xf32>
  }
  return %f#0, %f#1 : tensor<2x300x192xbf16>, tensor<2x3x300xf32>
}

func.func @cross_d128(%q: tensor<2x200x128xbf16>, %k: tensor<2x333x128xbf16>, %v: tensor<2x333x128xbf16>) -> tensor<2x200x128xbf16> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x200x128xbf16>, tensor<2x333x128xbf16>, tensor<2x333x128xbf16>) -> tensor<2x200x128xbf16> {
  ^bb0(%qa: tensor<2x200x128xbf16>, %ka: tensor<2x333x128xbf16>, %va: tensor<2x333x128xbf16>):
    %o = nova.attention %qa, %ka, %va scale 0.08838834764831845 : tensor<2x200x128xbf16>, tensor<2x333x128xbf16>, tensor<2x333x128xbf16> -> tensor<2x200x128xbf16>
    nova_tile.yield %o : tensor<2x200x128xbf16>
  }
  return %f : tensor<2x200x128xbf16>
}

// f32 marked TF32: TF32 wgmma cannot read V N-major.
func.func @tf32(%q: tensor<2x2x100x64xf32>, %k: tensor<2x2x100x64xf32>, %v: tensor<2x2x100x64xf32>) -> tensor<2x2x100x64xf32> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>) -> tensor<2x2x100x64xf32> {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>):
    %o = nova.attention %qa, %ka, %va scale 0.125 causal {nova.precision = "tf32"} : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x2x100x64xf32>
    nova_tile.yield %o : tensor<2x2x100x64xf32>
  }
  return %f : tensor<2x2x100x64xf32>
}

// Head dim 96.
func.func @d96(%q: tensor<2x100x96xbf16>, %k: tensor<2x100x96xbf16>, %v: tensor<2x100x96xbf16>) -> tensor<2x100x96xbf16> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x100x96xbf16>, tensor<2x100x96xbf16>, tensor<2x100x96xbf16>) -> tensor<2x100x96xbf16> {
  ^bb0(%qa: tensor<2x100x96xbf16>, %ka: tensor<2x100x96xbf16>, %va: tensor<2x100x96xbf16>):
    %o = nova.attention %qa, %ka, %va scale 0.125 causal : tensor<2x100x96xbf16>, tensor<2x100x96xbf16>, tensor<2x100x96xbf16> -> tensor<2x100x96xbf16>
    nova_tile.yield %o : tensor<2x100x96xbf16>
  }
  return %f : tensor<2x100x96xbf16>
}

// f32 inputs cast to bf16 in the prologue.
func.func @cast(%q: tensor<2x100x64xf32>, %k: tensor<2x100x64xf32>, %v: tensor<2x100x64xf32>) -> tensor<2x100x64xbf16> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x100x64xf32>, tensor<2x100x64xf32>, tensor<2x100x64xf32>) -> tensor<2x100x64xbf16> {
  ^bb0(%qa: tensor<2x100x64xf32>, %ka: tensor<2x100x64xf32>, %va: tensor<2x100x64xf32>):
    %qh = nova.cast %qa : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
    %kh = nova.cast %ka : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
    %vh = nova.cast %va : tensor<2x100x64xf32> to tensor<2x100x64xbf16>
    %o = nova.attention %qh, %kh, %vh scale 0.125 causal : tensor<2x100x64xbf16>, tensor<2x100x64xbf16>, tensor<2x100x64xbf16> -> tensor<2x100x64xbf16>
    nova_tile.yield %o : tensor<2x100x64xbf16>
  }
  return %f : tensor<2x100x64xbf16>
}
