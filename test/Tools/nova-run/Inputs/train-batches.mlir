// A training step whose loss is the sum of its tokens plus 100 x the sum of
// its targets, so the loss log shows which batch each step took; the state
// (a parameter and its first moment) moves by lr each step.
func.func @train_step(%w: tensor<2xf32> {nova.name = "w", nova.param}, %m: tensor<2xf32> {nova.name = "w.adam_m"}, %step: tensor<i64> {nova.name = "step"}, %lr: tensor<f32> {nova.name = "lr"}, %tok: tensor<2x3xi32> {nova.name = "tokens"}, %tgt: tensor<2x3xi32> {nova.name = "targets"}) -> (tensor<f32> {nova.name = "loss"}, tensor<2xf32> {nova.name = "w", nova.alias = 0 : i64}, tensor<2xf32> {nova.name = "w.adam_m", nova.alias = 1 : i64}) {
  %t = nova.cast %tok : tensor<2x3xi32> to tensor<2x3xf32>
  %g = nova.cast %tgt : tensor<2x3xi32> to tensor<2x3xf32>
  %st = nova.reduce sum %t dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %sg = nova.reduce sum %g dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %c = nova.constant dense<100.0> : tensor<f32>
  %sg100 = nova.mul %sg, %c : tensor<f32>, tensor<f32>
  %l = nova.add %st, %sg100 : tensor<f32>, tensor<f32>
  %w2 = nova.add %w, %lr : tensor<2xf32>, tensor<f32>
  %m2 = nova.sub %m, %lr : tensor<2xf32>, tensor<f32>
  return %l, %w2, %m2 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}
