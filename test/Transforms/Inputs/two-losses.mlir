// Two losses with parameters.
func.func @loss_a(%w: tensor<4xf32> {nova.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %p = nova.mul %w, %x : tensor<4xf32>, tensor<4xf32>
  %l = nova.reduce sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @loss_b(%w: tensor<4xf32> {nova.param}) -> tensor<f32> {
  %l = nova.reduce sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
