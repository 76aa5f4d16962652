// Gradients of data-movement ops are O(1) in IR size: a slice's gradient puts
// the window back with splat zero blocks, not with an index constant as long
// as the slice (which made a 10^8-element slice's gradient 1.6 GB of IR).
// RUN: nova-opt %s --nova-autodiff -o %t.mlir
// RUN: test $(wc -c < %t.mlir) -lt 8000
// RUN: FileCheck %s --implicit-check-not='dense<[' < %t.mlir
// The same rules on small shapes are checked numerically in
// autodiff-gradcheck.mlir (@slice, @slice_3d, @concat, @gather, ...).

// CHECK-LABEL: func.func @big_slice
// CHECK: nova.concat
// CHECK: return
func.func @big_slice(%x: tensor<3000000xf32> {nova.param}) -> tensor<f32> {
  %y = nova.slice %x starts [1] limits [2999999] strides [2] : tensor<3000000xf32> -> tensor<1499999xf32>
  %l = nova.reduce sum %y dims [0] : tensor<1499999xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @big_slice_2d
// CHECK: return
func.func @big_slice_2d(%x: tensor<2000x1000xf32> {nova.param}) -> tensor<f32> {
  %y = nova.slice %x starts [0, 3] limits [2000, 1000] strides [3, 1] : tensor<2000x1000xf32> -> tensor<667x997xf32>
  %l = nova.reduce sum %y dims [0, 1] : tensor<667x997xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// The gradient of gather, broadcast, concat, transpose and reshape.
// CHECK-LABEL: func.func @other_movement
// CHECK: return
func.func @other_movement(%t: tensor<100000x4xf32> {nova.param}, %i: tensor<200000xi32>, %b: tensor<4xf32> {nova.param}) -> tensor<f32> {
  %g = nova.gather %t[%i] axis 0 : tensor<100000x4xf32>, tensor<200000xi32> -> tensor<200000x4xf32>
  %bb = nova.broadcast %b : tensor<4xf32> -> tensor<200000x4xf32>
  %c = nova.concat %g, %bb dim 0 : tensor<200000x4xf32>, tensor<200000x4xf32> -> tensor<400000x4xf32>
  %tr = nova.transpose %c [1, 0] : tensor<400000x4xf32> -> tensor<4x400000xf32>
  %r = nova.reshape %tr : tensor<4x400000xf32> -> tensor<1600000xf32>
  %l = nova.reduce sum %r dims [0] : tensor<1600000xf32> -> tensor<f32>
  return %l : tensor<f32>
}
