// RUN: nova-opt %s --nova-explicit-broadcast | FileCheck %s
// RUN: nova-opt %s --nova-explicit-broadcast --nova-explicit-broadcast | FileCheck %s

// CHECK-LABEL: func.func @bias_and_mask
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x1xf32>, %[[M:.*]]: tensor<i1>)
func.func @bias_and_mask(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>, %m: tensor<i1>)
    -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf32>) {
  // CHECK: %[[BB:.*]] = nova.broadcast %[[B]] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: %[[Y:.*]] = nova.add %[[X]], %[[BB]] : tensor<4x8xf32>, tensor<4x8xf32>
  %y = nova.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  // Both operands grow: [4, 1] and [8] meet at [4, 8].
  // CHECK: %[[CB:.*]] = nova.broadcast %[[C]] : tensor<4x1xf32> -> tensor<4x8xf32>
  // CHECK: %[[BB2:.*]] = nova.broadcast %[[B]] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: nova.cmp lt, %[[CB]], %[[BB2]] : tensor<4x8xf32>, tensor<4x8xf32>
  %l = nova.cmp lt, %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // The condition keeps its i1 element type.
  // CHECK: %[[MB:.*]] = nova.broadcast %[[M]] : tensor<i1> -> tensor<4x8xi1>
  // CHECK: nova.select %[[MB]], %[[Y]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>
  %s = nova.select %m, %y, %x : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>
  return %y, %l, %s : tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xf32>
}

// Ops whose operands already have the result shape are untouched.
// CHECK-LABEL: func.func @same_shape
// CHECK-NOT: nova.broadcast
func.func @same_shape(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nova.mul %x, %x : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
