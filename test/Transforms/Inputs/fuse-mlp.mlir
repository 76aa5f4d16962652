// The two-layer perceptron of examples/mlp/mlp-loss.mlir with its weights
// and biases marked as trainable parameters.
func.func @loss(%x: tensor<8x16xf32>, %labels: tensor<8xi32>,
                %w1: tensor<16x32xf32> {nova.param}, %b1: tensor<32xf32> {nova.param},
                %w2: tensor<32x10xf32> {nova.param}, %b2: tensor<10xf32> {nova.param}) -> tensor<f32> {
  %h = nova.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %hb = nova.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %hs = nova.mul %hb, %one : tensor<8x32xf32>, tensor<f32>
  %a = nova.gelu tanh %hs : tensor<8x32xf32>
  %o = nova.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
  %ob = nova.add %o, %b2 : tensor<8x10xf32>, tensor<10xf32>
  %loss = nova.cross_entropy %ob, %labels : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
