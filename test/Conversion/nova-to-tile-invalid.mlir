// What convert-nova-to-tile cannot put in a kernel is a located error; the
// pass never leaves a nova op outside a kernel.
// RUN: nova-opt %s -split-input-file -verify-diagnostics --convert-nova-to-tile

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{convert-nova-to-tile: a gather along axis 1 has no kernel family (gather kernels take whole rows, axis 0)}}
  %r = nova.gather %x[%i] axis 1 : tensor<2x3xf32>, tensor<4xi32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

func.func @f(%u: tensor<2x4xf32>, %i: tensor<4xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{convert-nova-to-tile: a scatter_add along axis 1 has no kernel family}}
  %r = nova.scatter_add %u[%i] axis 1 : tensor<2x4xf32>, tensor<4xi32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

func.func private @g(tensor<2xf32>) -> tensor<2xf32>
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{convert-nova-to-tile: 'func.call' is not a nova op of a kernel; a function body holds nova ops, kernels and its return only}}
  %r = func.call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
