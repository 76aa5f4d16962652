// convert-tile-to-gpu on reductions. A row kernel: a block of threads per
// row (4096 columns: 256 threads, 8 warps), each lane's four fixed 16-byte
// chunks of the row loaded together, once, into registers (no loop, no
// other load of the row); the reductions that read no other one folded
// from them in one pass (an accumulator per reduction), then each through
// an XOR butterfly of warp shuffles, then the warps' partials through
// shared memory between barriers; float sums accumulate in f64 (split into
// two 32-bit shuffles). Full-row outputs come from the same registers, a
// vector.store per chunk, then the per-row output from lane 0. A column kernel: 16-byte
// column strips (8 bf16) x 16 row lanes per block, each lane's column sums in
// registers, the row lanes folded in order through shared memory into one
// total per column (the block is the columns' only one).
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[X:.*]]: memref<3x4096xf32>, %[[D:.*]]: memref<3x4096xf32>, %[[S:.*]]: memref<3xf32>) workgroup(%[[SH:.*]] : memref<16xf64, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 3, 1, 1>
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<3x4096xf32> into memref<12288xf32>
// CHECK: %[[DF:.*]] = memref.collapse_shape %[[D]] {{\[\[}}0, 1]] : memref<3x4096xf32> into memref<12288xf32>
// The row, once: four chunks (lane, lane + 256, ...), all loads first.
// CHECK-NOT: scf.for
// CHECK-COUNT-4: vector.load %[[XF]][{{.*}}] {alignment = 16 : i64} : memref<12288xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK-NOT: scf.for
// The max and the sum read nothing of each other: one pass folds both.
// CHECK: arith.maximumf
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-COUNT-5: gpu.shuffle xor %{{.*}} : f32
// CHECK-COUNT-10: gpu.shuffle xor %{{.*}} : i32
// CHECK-NOT: vector.load
// CHECK: memref.store %{{.*}}, %[[SH]]
// CHECK: memref.store %{{.*}}, %[[SH]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-16: memref.load %[[SH]]
// CHECK: gpu.barrier
// The full row from the registers (its chunks in 16-byte vectors), then,
// once every lane has read the row, the per-row output from lane 0.
// CHECK-NOT: vector.load
// CHECK-NOT: scf.for
// CHECK-COUNT-4: vector.store %{{.*}}, %[[DF]][%{{.*}}] {alignment = 16 : i64} : memref<12288xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[S]]

// CHECK-LABEL: gpu.func @column_reduction_
// CHECK-SAME: workgroup(%[[CSH:.*]] : memref<1024xf64, #gpu.address_space<workgroup>>, %[[TOT:.*]] : memref<64xf64, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: scf.for {{.*}} step %c16 iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64)
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<4000xbf16>, vector<8xbf16>
// CHECK-COUNT-8: arith.addf %{{.*}} : f64
// CHECK-COUNT-8: memref.store %{{.*}}, %[[CSH]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: memref.load %[[CSH]]
// CHECK: memref.store %{{.*}}, %[[TOT]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[TOT]]
// CHECK: arith.truncf %{{.*}} : f64 to bf16
func.func @rows(%x: tensor<3x4096xf32>) -> (tensor<3x4096xf32>, tensor<3xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%x) : (tensor<3x4096xf32>) -> (tensor<3x4096xf32>, tensor<3xf32>) {
  ^bb0(%xa: tensor<3x4096xf32>):
    %m = nova.reduce max %xa dims [1] keep_dims : tensor<3x4096xf32> -> tensor<3x1xf32>
    %d = nova.sub %xa, %m : tensor<3x4096xf32>, tensor<3x1xf32>
    %s = nova.reduce sum %xa dims [1] : tensor<3x4096xf32> -> tensor<3xf32>
    nova_tile.yield %d, %s : tensor<3x4096xf32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<3x4096xf32>, tensor<3xf32>
}
func.func @cols(%x: tensor<100x40xbf16>) -> tensor<40xbf16> {
  %r = nova_tile.fusion column_reduction (%x) : (tensor<100x40xbf16>) -> tensor<40xbf16> {
  ^bb0(%xa: tensor<100x40xbf16>):
    %s = nova.reduce sum %xa dims [0] : tensor<100x40xbf16> -> tensor<40xbf16>
    nova_tile.yield %s : tensor<40xbf16>
  }
  return %r : tensor<40xbf16>
}
