// A loss whose parameter is not marked {nova.param}.
func.func @loss(%w: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<f32> {
  %p = nova.mul %w, %x : tensor<4xf32>, tensor<4xf32>
  %l = nova.reduce sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
