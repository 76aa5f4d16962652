// A column kernel whose width (1001) takes no vector: strips of one column,
// each element read once by a scalar load; 32 column lanes x 8 row lanes,
// 4 row chunks folded in order by the last block of each column block.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu \
// RUN:   | FileCheck %s --implicit-check-not=vector.

// CHECK-LABEL: gpu.func @column_reduction_
// CHECK-SAME: (%[[X:.*]]: memref<300x1001xf32>, %[[M:.*]]: memref<1001xf32>, %[[WS:.*]]: memref<32512xi8>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 128, 1, 1>
// CHECK: scf.for %{{.*}} step %c8 iter_args(%{{.*}}) -> (f32)
// CHECK: memref.load %[[X]]
// CHECK-NEXT: arith.maximumf
// CHECK: memref.view %[[WS]][%c256][] : memref<32512xi8> to memref<4x1001xf64>
// CHECK: memref.atomic_rmw addi
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK: arith.maximumf %{{.*}} : f64
// CHECK: memref.store %{{.*}}, %[[M]]
func.func @odd(%x: tensor<300x1001xf32>) -> tensor<1001xf32> {
  %r = nova_tile.fusion column_reduction (%x) : (tensor<300x1001xf32>) -> tensor<1001xf32> {
  ^bb0(%a: tensor<300x1001xf32>):
    %s = nova.reduce max %a dims [0] : tensor<300x1001xf32> -> tensor<1001xf32>
    nova_tile.yield %s : tensor<1001xf32>
  }
  return %r : tensor<1001xf32>
}
