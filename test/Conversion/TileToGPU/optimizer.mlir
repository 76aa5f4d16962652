// The optimizer family: adamw ops whose elements compute the same way share
// one loop body. @a and @c (f32 gradients scaled by the same scalar, same
// hyperparameters) form one group: a loop over the two members whose
// scf.index_switch yields each member's flat buffers (dynamic size) and its
// element count, then a grid-stride loop of 16-byte vector loads of p, g, m
// and v and vector stores of the three results, then a scalar loop for the
// ragged rest (769 = 192 x 4 + 1). @b (another weight decay) has a loop of
// its own over static buffers. The bias corrections (pow) are computed once
// per group, outside the element loops, and the scalars are read once.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s --implicit-check-not=math.powf --implicit-check-not=scf.index_switch

// CHECK-LABEL: gpu.func @adamw
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: memref.load %{{.*}}[] : memref<i64>
// CHECK: memref.load %{{.*}}[] : memref<f32>
// The group {a, c}.
// CHECK: math.powf
// CHECK: math.powf
// CHECK: scf.for %[[M:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[PICK:.*]]:8 = scf.index_switch %[[M]] -> memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, memref<?xf32>, index
// CHECK: case 1 {
// CHECK: memref.cast %{{.*}} : memref<1650xf32> to memref<?xf32>
// CHECK: scf.yield {{.*}}, %c1650
// CHECK: default {
// CHECK: memref.cast %{{.*}} : memref<769xf32> to memref<?xf32>
// CHECK: scf.yield {{.*}}, %c769
// CHECK: %[[CHUNKS:.*]] = arith.divui %[[PICK]]#7, %c4
// CHECK: scf.for %[[CH:.*]] = %{{.*}} to %[[CHUNKS]] step %c256 {
// CHECK: %[[FIRST:.*]] = arith.muli %[[CH]], %c4
// CHECK-COUNT-4: vector.load %[[PICK]]#{{[0-3]}}[%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// Per lane one f64 square root and one f64 division (the bias corrections
// enter as reciprocals computed before the loops).
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divf
// CHECK: math.sqrt {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK: arith.divf {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divf
// CHECK: math.sqrt {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK: arith.divf {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divf
// CHECK: math.sqrt {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK: arith.divf {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divf
// CHECK: math.sqrt {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK: arith.divf {{.*}} : f64
// CHECK-NOT: memref.load
// CHECK-NOT: arith.divf
// CHECK-COUNT-3: vector.store %{{.*}}, %[[PICK]]#{{[4-6]}}[%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %[[PICK]]#7 step %c256 {
// CHECK-COUNT-4: memref.load %[[PICK]]#{{[0-3]}}[%[[E]]] : memref<?xf32>
// CHECK-COUNT-3: memref.store %{{.*}}, %[[PICK]]#{{[4-6]}}[%[[E]]] : memref<?xf32>
// @b alone, over its static buffers.
// CHECK: math.powf
// CHECK: math.powf
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<1200xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.store %{{.*}} {alignment = 16 : i64} : memref<1200xf32>, vector<4xf32>
// CHECK: gpu.return

nova_tile.kernel @adamw optimizer schedule <tile = [1024], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%pa: tensor<769xf32>, %ga: tensor<769xf32>, %ma: tensor<769xf32>, %va: tensor<769xf32>,
     %pb: tensor<40x30xf32>, %gb: tensor<40x30xf32>, %mb: tensor<40x30xf32>, %vb: tensor<40x30xf32>,
     %pc: tensor<33x50xf32>, %gc: tensor<33x50xf32>, %mc: tensor<33x50xf32>, %vc: tensor<33x50xf32>,
     %s: tensor<f32>, %t: tensor<i64>, %l: tensor<f32>):
  %sa = nova.mul %ga, %s : tensor<769xf32>, tensor<f32>
  %a:3 = nova.adamw %pa, %sa, %ma, %va, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1 : tensor<769xf32>, tensor<i64>
  %sb = nova.mul %gb, %s : tensor<40x30xf32>, tensor<f32>
  %b:3 = nova.adamw %pb, %sb, %mb, %vb, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.0 : tensor<40x30xf32>, tensor<i64>
  %sc = nova.mul %gc, %s : tensor<33x50xf32>, tensor<f32>
  %c:3 = nova.adamw %pc, %sc, %mc, %vc, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1 : tensor<33x50xf32>, tensor<i64>
  nova_tile.yield %a#0, %a#1, %a#2, %b#0, %b#1, %b#2, %c#0, %c#1, %c#2
      : tensor<769xf32>, tensor<769xf32>, tensor<769xf32>, tensor<40x30xf32>, tensor<40x30xf32>, tensor<40x30xf32>, tensor<33x50xf32>, tensor<33x50xf32>, tensor<33x50xf32>
}
