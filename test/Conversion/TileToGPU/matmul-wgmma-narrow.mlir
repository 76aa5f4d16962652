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

// TF32 tiles narrow in steps of 32 columns (a 128-byte row of f32): the
// MLP's weight gradient 3072 x 768 (K = 16384) runs 24 x 5 = 120 tiles of
// 128 x 160 on 120 blocks (96 of 192, 72 of 256 leave more SMs idle); B
// (dy, N-major) lands in five 32-wide boxes, A (x, M-major) in four.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  known_grid_size = array<i32: 120, 1, 1>
// CHECK-NOT:   nova_gpu.workspace_bytes
// CHECK-COUNT-9: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       wgmma.mma_async.sync.aligned.m64n160k8.f32.tf32
// CHECK:       gpu.return
func.func @tf32_dw_fc(%x: tensor<16384x3072xf32>, %dy: tensor<16384x768xf32>) -> tensor<3072x768xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<16384x3072xf32>, tensor<16384x768xf32>) -> tensor<3072x768xf32> {
  ^bb0(%a: tensor<16384x3072xf32>, %b: tensor<16384x768xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<16384x3072xf32>, tensor<16384x768xf32> -> tensor<3072x768xf32>
    nova_tile.yield %p : tensor<3072x768xf32>
  }
  return %r : tensor<3072x768xf32>
}

// TF32 with B rounded ahead keeps 128 x 256 tiles unless 256 x 128 ones
// take 10 % fewer waves: 3391 x 1087 is 27 x 5 = 135 tiles of 128 x 256
// (two waves on 132 SMs) or 14 x 9 = 126 of 256 x 128 (one), two m64
// groups a consumer; A's box 256 rows, B's 128.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  box = array<i64: 32, 256>
// CHECK-SAME:  box = array<i64: 32, 128>
// CHECK-SAME:  known_grid_size = array<i32: 126, 1, 1>
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32
// CHECK-NOT:   wgmma.mma_async
// CHECK:       gpu.return
func.func @tf32_rounded_tall(%a: tensor<3391x1024xf32>, %b: tensor<1087x1024xf32>) -> tensor<3391x1087xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<3391x1024xf32>, tensor<1087x1024xf32>) -> tensor<3391x1087xf32> {
  ^bb0(%x: tensor<3391x1024xf32>, %w: tensor<1087x1024xf32>):
    %p = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>} : tensor<3391x1024xf32>, tensor<1087x1024xf32> -> tensor<3391x1087xf32>
    nova_tile.yield %p : tensor<3391x1087xf32>
  }
  return %r : tensor<3391x1087xf32>
}

// The same product with 1023 rows of B: 27 x 4 = 108 tiles of 128 x 256
// fill one wave, and 128 x 256 stays.
// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  box = array<i64: 32, 128>
// CHECK-SAME:  box = array<i64: 32, 256>
// CHECK-SAME:  known_grid_size = array<i32: 108, 1, 1>
// CHECK:       wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32
// CHECK:       gpu.return
func.func @tf32_rounded_wide(%a: tensor<3391x1024xf32>, %b: tensor<1023x1024xf32>) -> tensor<3391x1023xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<3391x1024xf32>, tensor<1023x1024xf32>) -> tensor<3391x1023xf32> {
  ^bb0(%x: tensor<3391x1024xf32>, %w: tensor<1023x1024xf32>):
    %p = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>} : tensor<3391x1024xf32>, tensor<1023x1024xf32> -> tensor<3391x1023xf32>
    nova_tile.yield %p : tensor<3391x1023xf32>
  }
  return %r : tensor<3391x1023xf32>
}
