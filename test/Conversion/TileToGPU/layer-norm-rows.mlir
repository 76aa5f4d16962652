// LayerNorm forward at the 124M width as the bf16 step fuses it (a bf16
// projection plus its bias added to the f32 residual stream; out: the new
// stream, x - mean, rstd and the bf16 normalized row), on 20 rows: a warp
// per row (8 rows a block), each lane's 6 fixed chunks of 4 columns of both
// row inputs loaded once, all 12 loads before any use, with no loop; the
// two dependent row sums and the three full-row outputs (18 vector stores)
// work from those registers, with no further load of the rows. A row
// kernel with more row inputs than that budget of registers keeps the
// per-pass loops (below).
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>
// CHECK-NOT: scf.for
// CHECK-COUNT-12: vector.load
// CHECK-NOT: vector.load
// CHECK-NOT: scf.for
// CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : i32
// CHECK-NOT: vector.load
// CHECK: arith.subf
// CHECK-NOT: vector.load
// CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : i32
// CHECK-NOT: vector.load
// CHECK-COUNT-18: vector.store
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: gpu.return

func.func @layer_norm_c768(%h: tensor<4x5x768xbf16>, %bias: tensor<768xf32>, %res: tensor<4x5x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>)
    -> (tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x1xf32>, tensor<4x5x768xbf16>) {
  %r:4 = nova_tile.fusion row_reduction (%h, %bias, %res, %w, %b)
      : (tensor<4x5x768xbf16>, tensor<768xf32>, tensor<4x5x768xf32>, tensor<768xf32>, tensor<768xf32>)
      -> (tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x1xf32>, tensor<4x5x768xbf16>) {
  ^bb0(%arg0: tensor<4x5x768xbf16>, %arg1: tensor<768xf32>, %arg2: tensor<4x5x768xf32>, %arg3: tensor<768xf32>, %arg4: tensor<768xf32>):
    %0 = nova.cast %arg1 : tensor<768xf32> to tensor<768xbf16>
    %1 = nova.add %arg0, %0 : tensor<4x5x768xbf16>, tensor<768xbf16>
    %2 = nova.cast %1 : tensor<4x5x768xbf16> to tensor<4x5x768xf32>
    %3 = nova.add %arg2, %2 : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<4x5x768xf32> -> tensor<4x5x1xf32>
    %5 = nova.constant dense<0.00130208337> : tensor<f32>
    %6 = nova.mul %4, %5 : tensor<4x5x1xf32>, tensor<f32>
    %7 = nova.sub %3, %6 : tensor<4x5x768xf32>, tensor<4x5x1xf32>
    %8 = nova.mul %7, %7 : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %9 = nova.reduce sum %8 dims [2] keep_dims : tensor<4x5x768xf32> -> tensor<4x5x1xf32>
    %10 = nova.mul %9, %5 : tensor<4x5x1xf32>, tensor<f32>
    %11 = nova.constant dense<9.99999974E-6> : tensor<f32>
    %12 = nova.add %10, %11 : tensor<4x5x1xf32>, tensor<f32>
    %13 = nova.rsqrt %12 : tensor<4x5x1xf32>
    %14 = nova.mul %7, %13 : tensor<4x5x768xf32>, tensor<4x5x1xf32>
    %15 = nova.mul %14, %arg3 : tensor<4x5x768xf32>, tensor<768xf32>
    %16 = nova.add %15, %arg4 : tensor<4x5x768xf32>, tensor<768xf32>
    %17 = nova.cast %16 : tensor<4x5x768xf32> to tensor<4x5x768xbf16>
    nova_tile.yield %3, %7, %13, %17 : tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x1xf32>, tensor<4x5x768xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x1xf32>, tensor<4x5x768xbf16>
}

// Five f32 row inputs at 768 columns: 6 chunks x 5 x 4 = 120 registers a
// lane, over the budget for keeping the row, so each pass loops over the
// chunks and loads them again (no spill of a whole row's registers).
// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[A:.*]]: memref<4x5x768xf32>, %{{.*}}: memref<4x5x768xf32>, %{{.*}}: memref<4x5x768xf32>, %{{.*}}: memref<4x5x768xf32>, %{{.*}}: memref<4x5x768xf32>, %{{.*}}: memref<4x5x768xf32>)
// CHECK: scf.for
// CHECK-COUNT-5: vector.load
// CHECK: gpu.shuffle
// CHECK: scf.for
// CHECK-COUNT-5: vector.load
// CHECK: vector.store
// CHECK: gpu.return
func.func @many_inputs(%a: tensor<4x5x768xf32>, %b: tensor<4x5x768xf32>, %c: tensor<4x5x768xf32>, %d: tensor<4x5x768xf32>, %e: tensor<4x5x768xf32>) -> tensor<4x5x768xf32> {
  %r = nova_tile.fusion row_reduction (%a, %b, %c, %d, %e)
      : (tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x768xf32>, tensor<4x5x768xf32>) -> tensor<4x5x768xf32> {
  ^bb0(%xa: tensor<4x5x768xf32>, %xb: tensor<4x5x768xf32>, %xc: tensor<4x5x768xf32>, %xd: tensor<4x5x768xf32>, %xe: tensor<4x5x768xf32>):
    %0 = nova.add %xa, %xb : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %1 = nova.add %0, %xc : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %2 = nova.add %1, %xd : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %3 = nova.add %2, %xe : tensor<4x5x768xf32>, tensor<4x5x768xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<4x5x768xf32> -> tensor<4x5x1xf32>
    %5 = nova.sub %3, %4 : tensor<4x5x768xf32>, tensor<4x5x1xf32>
    nova_tile.yield %5 : tensor<4x5x768xf32>
  }
  return %r : tensor<4x5x768xf32>
}
