// A training loss built only from the families convert-tile-to-gpu lowers:
// its train step is one column-reduction kernel (the loss and the
// parameter's gradient) and the AdamW update. Used by nova-compile's tests.
func.func @loss(%w: tensor<203xf32> {nova.name = "w", nova.param},
                %x: tensor<37x203xf32> {nova.name = "x"},
                %t: tensor<37x203xf32> {nova.name = "t"}) -> tensor<f32> {
  %y = nova.mul %x, %w : tensor<37x203xf32>, tensor<203xf32>
  %d = nova.sub %y, %t : tensor<37x203xf32>, tensor<37x203xf32>
  %e = nova.tanh %d : tensor<37x203xf32>
  %e2 = nova.mul %e, %e : tensor<37x203xf32>, tensor<37x203xf32>
  %s = nova.reduce sum %e2 dims [0, 1] : tensor<37x203xf32> -> tensor<f32>
  return %s : tensor<f32>
}
