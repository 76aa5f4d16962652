// Random indices for a fusion group's gather and for a launched kernel's
// cross_entropy stay below the bound their use inside the body implies.
func.func @inline(%t: tensor<5x4xf32>, %i: tensor<64xi32>) -> tensor<64x4xf32> {
  %r = nova_tile.fusion gather (%t, %i) : (tensor<5x4xf32>, tensor<64xi32>) -> tensor<64x4xf32> {
  ^bb0(%ta: tensor<5x4xf32>, %ia: tensor<64xi32>):
    %g = nova.gather %ta[%ia] axis 0 : tensor<5x4xf32>, tensor<64xi32> -> tensor<64x4xf32>
    nova_tile.yield %g : tensor<64x4xf32>
  }
  return %r : tensor<64x4xf32>
}

func.func @launched(%l: tensor<64x3xf32>, %y: tensor<64xi32>) -> tensor<f32> {
  %r = nova_tile.launch @loss(%l, %y) : (tensor<64x3xf32>, tensor<64xi32>) -> tensor<f32>
  return %r : tensor<f32>
}
nova_tile.kernel @loss row_reduction {
^bb0(%la: tensor<64x3xf32>, %ya: tensor<64xi32>):
  %c = nova.cross_entropy %la, %ya : tensor<64x3xf32>, tensor<64xi32> -> tensor<f32>
  nova_tile.yield %c : tensor<f32>
}
