// Pointwise with vector = 4: each thread takes 4 adjacent elements; a whole
// chunk reads contiguous f32 inputs with one 16-byte vector.load each and
// writes f32 outputs with one vector.store, while the broadcast input is
// read element by element and the i1 output (bytes in memory, bits in a
// vector) is stored element by element. The ragged last chunk (10 = 2 x 4 +
// 2) takes the scalar path with a bounds check per element.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @add
// CHECK-SAME: (%[[X:.*]]: memref<2x5xf32>, %[[B:.*]]: memref<5xf32>, %[[Y:.*]]: memref<2x5xf32>, %[[C:.*]]: memref<2x5xi1>)
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<2x5xf32> into memref<10xf32>
// CHECK: %[[YF:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1]] : memref<2x5xf32> into memref<10xf32>
// CHECK-NOT: memref.collapse_shape %[[C]]
// CHECK: scf.for
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[WHOLE:.*]] = arith.cmpi ult, %{{.*}}, %c2 :
// CHECK: scf.if %[[WHOLE]] {
// CHECK: %[[V:.*]] = vector.load %[[XF]][%[[FIRST]]] {alignment = 16 : i64} : memref<10xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[C]][
// CHECK: %[[OUT:.*]] = vector.from_elements
// CHECK: vector.store %[[OUT]], %[[YF]][%[[FIRST]]] {alignment = 16 : i64} : memref<10xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: arith.cmpi ult, %{{.*}}, %c10 :
// CHECK-NOT: vector.
// CHECK: gpu.return

nova_tile.kernel @add pointwise schedule <tile = [128], threads = 32, stages = 1, vector = 4, split_k = 1> {
^bb0(%x: tensor<2x5xf32>, %b: tensor<5xf32>):
  %y = nova.add %x, %b : tensor<2x5xf32>, tensor<5xf32>
  %c = nova.cmp gt, %y, %x : tensor<2x5xf32>, tensor<2x5xf32>
  nova_tile.yield %y, %c : tensor<2x5xf32>, tensor<2x5xi1>
}
