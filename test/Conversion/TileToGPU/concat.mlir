// A concatenation reads each element from the one part that holds it: a
// chain of branches on the index along the axis, each part read at the
// index minus its offset.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @cat
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x1xf32>, %[[C:.*]]: memref<2x4xf32>, %[[Y:.*]]: memref<2x8xf32>)
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %c8
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %c8
// CHECK: %[[IN_A:.*]] = arith.cmpi ult, %[[J]], %c3
// CHECK: %[[V:.*]] = scf.if %[[IN_A]] -> (f32) {
// CHECK: %[[JA:.*]] = arith.subi %[[J]], %c0
// CHECK: memref.load %[[A]][%[[I]], %[[JA]]]
// CHECK: } else {
// CHECK: %[[IN_B:.*]] = arith.cmpi ult, %[[J]], %c4
// CHECK: scf.if %[[IN_B]] -> (f32) {
// CHECK: %[[JB:.*]] = arith.subi %[[J]], %c3
// CHECK: memref.load %[[B]][%[[I]], %[[JB]]]
// CHECK: } else {
// CHECK: %[[JC:.*]] = arith.subi %[[J]], %c4
// CHECK: memref.load %[[C]][%[[I]], %[[JC]]]
// CHECK: memref.store %[[V]], %[[Y]][%[[I]], %[[J]]]

nova_tile.kernel @cat pointwise schedule <tile = [256], threads = 256, stages = 1, vector = 1, split_k = 1> {
^bb0(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x4xf32>):
  %y = nova.concat %a, %b, %c dim 1 : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
  nova_tile.yield %y : tensor<2x8xf32>
}
