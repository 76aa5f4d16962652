// Inputs for mlp-loss.mlir under the names of its arguments (x, labels, w1,
// b1, w2, b2), which have no nova.name, so nova-run matches their SSA names:
//   nova-run examples/mlp/inputs.mlir -o mlp-inputs.safetensors
// The output layer starts at zero, so every class gets the same logit and
// the loss is ln 10 whatever x and w1 are.
func.func @inputs() -> (tensor<8x16xf32> {nova.name = "x"},
                        tensor<8xi32> {nova.name = "labels"},
                        tensor<16x32xf32> {nova.name = "w1"},
                        tensor<32xf32> {nova.name = "b1"},
                        tensor<32x10xf32> {nova.name = "w2"},
                        tensor<10xf32> {nova.name = "b2"}) {
  %col = nova.iota dim 1 : tensor<8x16xf32>
  %step = nova.constant dense<0.125> : tensor<f32>
  %x = nova.mul %col, %step : tensor<8x16xf32>, tensor<f32>
  %labels = nova.iota dim 0 : tensor<8xi32>
  %w1 = nova.constant dense<0.05> : tensor<16x32xf32>
  %b1 = nova.constant dense<0.0> : tensor<32xf32>
  %w2 = nova.constant dense<0.0> : tensor<32x10xf32>
  %b2 = nova.constant dense<0.0> : tensor<10xf32>
  return %x, %labels, %w1, %b1, %w2, %b2
      : tensor<8x16xf32>, tensor<8xi32>, tensor<16x32xf32>, tensor<32xf32>,
        tensor<32x10xf32>, tensor<10xf32>
}
