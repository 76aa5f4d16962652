// A tiny step whose report is computed by hand in report.test: tanh of a
// product, the loss is its sum, and the "backward" reuses the saved
// activation %a after the loss.
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<f32>, tensor<8x8xf32>) {
  %h = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %a = nova.tanh %h : tensor<4x8xf32>
  %l = nova.reduce sum %a dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %sq = nova.mul %a, %a : tensor<4x8xf32>, tensor<4x8xf32>
  %one = nova.constant dense<1.0> : tensor<4x8xf32>
  %d = nova.sub %one, %sq : tensor<4x8xf32>, tensor<4x8xf32>
  %xt = nova.transpose %x [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %g = nova.matmul %xt, %d : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  return %l, %g : tensor<f32>, tensor<8x8xf32>
}

// No loss; two identical exp kernels.
func.func @twice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = nova.exp %x : tensor<4x8xf32>
  %b = nova.transpose %a [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %c = nova.transpose %b [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %d = nova.exp %c : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
