// The wgmma GEMM's tile width (nova::wgmma::tiling): the GPT-2 weight
// gradients (K = 16384, few output tiles) run 128 x 192 tiles where the
// 128 x 256 ones would leave SMs of the single wave idle; the forward
// products (many waves) keep 128 x 256.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// dW of the MLP's fc (768 x 3072): 6 x 16 = 96 tiles of 128 x 192 on 96
// blocks (72 of 256 before), the bf16 tile leaving in three 64-column TMA
// boxes per consumer; A (x, M-major) loaded in two 64-wide boxes, B (dy,
// N-major) in three.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  known_grid_size = array<i32: 96, 1, 1>
// CHECK-NOT:   nova_gpu.workspace_bytes
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       nvvm.wgmma.mma_async
// CHECK-SAME:  <m = 64, n = 192, k = 16>
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:   nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:       gpu.return
func.func @dw_fc(%x: tensor<16384x768xbf16>, %dy: tensor<16384x3072xbf16>) -> tensor<768x3072xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<16384x768xbf16>, tensor<16384x3072xbf16>) -> tensor<768x3072xbf16> {
  ^bb0(%a: tensor<16384x768xbf16>, %b: tensor<16384x3072xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<16384x768xbf16>, tensor<16384x3072xbf16> -> tensor<768x3072xbf16>
    nova_tile.yield %p : tensor<768x3072xbf16>
  }
  return %r : tensor<768x3072xbf16>
}

// dW of the attention projection (768 x 768): 192-wide tiles would need
// splits too, so 18 tiles of 128 x 256 in 4 splits (72 blocks) stay.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  known_grid_size = array<i32: 72, 1, 1>
// CHECK-SAME:  nova_gpu.workspace_bytes = 9437760
// CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// CHECK:       memref.view {{.*}} to memref<576x128x32xf32>
// CHECK:       gpu.return
func.func @dw_proj(%x: tensor<16384x768xbf16>, %dy: tensor<16384x768xbf16>) -> tensor<768x768xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<16384x768xbf16>, tensor<16384x768xbf16>) -> tensor<768x768xbf16> {
  ^bb0(%a: tensor<16384x768xbf16>, %b: tensor<16384x768xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<16384x768xbf16>, tensor<16384x768xbf16> -> tensor<768x768xbf16>
    nova_tile.yield %p : tensor<768x768xbf16>
  }
  return %r : tensor<768x768xbf16>
}

// The forward fc (16384 x 768 -> 3072): 1536 tiles over 12 waves keep
// 128 x 256 (2048 tiles of 192 would take 16 waves of three quarters).
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  known_grid_size = array<i32: 132, 1, 1>
// CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// CHECK:       gpu.return
func.func @fc(%x: tensor<16384x768xbf16>, %w: tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<16384x768xbf16>, tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  ^bb0(%a: tensor<16384x768xbf16>, %b: tensor<3072x768xbf16>):
    %p = nova.matmul %a, %b transpose_rhs : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
    nova_tile.yield %p : tensor<16384x3072xbf16>
  }
  return %r : tensor<16384x3072xbf16>
}
