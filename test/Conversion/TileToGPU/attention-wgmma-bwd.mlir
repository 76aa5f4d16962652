// convert-tile-to-gpu lowers bf16 attention backwards with head dim 64 or
// 128 whose q, k, v, o and dO TMA can load to wgmma
// (AttentionBackwardWgmma.cpp): 384 threads, one block per 128 keys (dK,
// dV) and one per 128 queries (dQ) of each (batch, head), TMA descriptors
// of 64 x 64 boxes for Q, K, V, O and dO (not the log-sum-exp, read
// directly), S and dP as nvvm.wgmma.mma_async m64n64k16, the products with
// P or dS by inline register-A wgmma reading the streamed tile N-major;
// nvvm.minctasm = 1 (.minnctapersm, so ptxas honours setmaxnreg). It
// writes each gradient element from one block, so deterministic=true keeps
// it; f32 stays on mma.sync (a remark says why), as does wgmma=false.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false | FileCheck %s --check-prefix=OFF --implicit-check-not=nvvm.wgmma --implicit-check-not='"wgmma' --implicit-check-not=nova_gpu.tma
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu --remarks-filter=nova-wgmma --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=deterministic=true --remarks-filter=nova-wgmma --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=attention_backward_{{[0-9a-f]+}} | Remark="wgmma attention backward (deterministic: K/V- and Q-stationary blocks)"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=attention_backward_{{[0-9a-f]+}} | Reason="stays on mma.sync: operands are not bf16"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=attention_backward_{{[0-9a-f]+}} | Remark="wgmma attention backward

// B2 H3 T200 D64 causal: 2 x 3 x 2 key blocks + as many query blocks = 24;
// Q, K, V, O, dO (buffers 0, 1, 2, 3, 5) as 4-d boxes of 64 x 64 rows;
// two sets of three 16 KB stationary tiles, 4 stages of three 8 KB tiles
// and the stats (25 KB a stage), 16 mbarriers. Per streamed tile: S and dP (4 wgmmas
// each over the head dim), dV, dK or dQ (4 register-A wgmmas each over the
// 64 streamed rows; 3 calls in the code: dV, and dK/dQ in both kinds).
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @attention_backward_{{[0-9a-f]+}}(
// CHECK-SAME: %arg9: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 0 : i32, dims = array<i64: 64, 200, 3, 2>, offset = 0 : i64, strides = array<i64: 128, 25600, 76800>, swizzle = 128 : i32}}
// CHECK-SAME: %arg10: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 1 : i32,
// CHECK-SAME: %arg11: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 2 : i32,
// CHECK-SAME: %arg12: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 3 : i32,
// CHECK-SAME: %arg13: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 5 : i32,
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 24, 1, 1>, nova_gpu.dynamic_shared_bytes = 200832 : i64, nova_gpu.tma_params = array<i32: 9, 10, 11, 12, 13>, nvvm.minctasm = 1 : i32}
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;

// f32: the mma.sync backward (static shared tiles, no TMA).
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @attention_backward_{{[0-9a-f]+}}(%arg0: memref<2x3x200x64xf32>
// CHECK-NOT: nova_gpu.tma
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>

// Head dim 128, not causal: two 64-column chunks per tile, one stationary
// set, 2 stages (198720 bytes); the register-A products as m64n128k16.
// CHECK-LABEL: gpu.module
// CHECK: %arg9: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64, 1, 1>, buffer = 0 : i32, dims = array<i64: 128, 200, 3, 2>, offset = 0 : i64, strides = array<i64: 256, 51200, 153600>, swizzle = 128 : i32}}
// CHECK-SAME: known_grid_size = array<i32: 24, 1, 1>, nova_gpu.dynamic_shared_bytes = 198720 : i64, nova_gpu.tma_params = array<i32: 9, 10, 11, 12, 13>, nvvm.minctasm = 1 : i32}
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;

// OFF-COUNT-3: gpu.func @attention_backward_{{[0-9a-f]+}}({{.*}}known_block_size = array<i32: 128, 1, 1>

func.func @causal_d64(%q: tensor<2x3x200x64xbf16>, %k: tensor<2x3x200x64xbf16>, %v: tensor<2x3x200x64xbf16>, %o: tensor<2x3x200x64xbf16>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x64xbf16>)
    -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>) -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  ^bb0(%qa: tensor<2x3x200x64xbf16>, %ka: tensor<2x3x200x64xbf16>, %va: tensor<2x3x200x64xbf16>, %oa: tensor<2x3x200x64xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
}
func.func @f32_d64(%q: tensor<2x3x200x64xf32>, %k: tensor<2x3x200x64xf32>, %v: tensor<2x3x200x64xf32>, %o: tensor<2x3x200x64xf32>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x64xf32>)
    -> (tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200xf32>, tensor<2x3x200x64xf32>) -> (tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>) {
  ^bb0(%qa: tensor<2x3x200x64xf32>, %ka: tensor<2x3x200x64xf32>, %va: tensor<2x3x200x64xf32>, %oa: tensor<2x3x200x64xf32>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200xf32>, tensor<2x3x200x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>, tensor<2x3x200x64xf32>
}
func.func @full_d128(%q: tensor<2x3x200x128xbf16>, %k: tensor<2x3x200x128xbf16>, %v: tensor<2x3x200x128xbf16>, %o: tensor<2x3x200x128xbf16>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x128xbf16>)
    -> (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x128xbf16>) -> (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>) {
  ^bb0(%qa: tensor<2x3x200x128xbf16>, %ka: tensor<2x3x200x128xbf16>, %va: tensor<2x3x200x128xbf16>, %oa: tensor<2x3x200x128xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>
}
