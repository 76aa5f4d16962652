func.func @g(%w: tensor<4xf32> {nova.param}, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32> {nova.grad_of = 0 : i64}, tensor<4xf32> {nova.grad_of = 0 : i64}) {
  %l = nova.reduce sum %w dims [0] : tensor<4xf32> -> tensor<f32>
  return %l, %x, %x : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
