// Training steps whose step, lr or loss is not one number: --train writes
// step and lr and reads loss as scalars (it used to index element 0 of an
// empty tensor). @good is the same step with scalar shapes.
func.func @empty_lr(%m: tensor<4xf32> {nova.name = "w.adam_m"}, %step: tensor<i64> {nova.name = "step"}, %lr: tensor<0xf32> {nova.name = "lr"}, %tok: tensor<2x4xi64> {nova.name = "tokens"}, %tgt: tensor<2x4xi64> {nova.name = "targets"}) -> (tensor<f32> {nova.name = "loss"}, tensor<4xf32> {nova.name = "w.adam_m", nova.alias = 0 : i64}) {
  %l = nova.reduce sum %m dims [0] : tensor<4xf32> -> tensor<f32>
  return %l, %m : tensor<f32>, tensor<4xf32>
}
func.func @empty_step(%m: tensor<4xf32> {nova.name = "w.adam_m"}, %step: tensor<0xi64> {nova.name = "step"}, %lr: tensor<f32> {nova.name = "lr"}, %tok: tensor<2x4xi64> {nova.name = "tokens"}, %tgt: tensor<2x4xi64> {nova.name = "targets"}) -> (tensor<f32> {nova.name = "loss"}, tensor<4xf32> {nova.name = "w.adam_m", nova.alias = 0 : i64}) {
  %l = nova.reduce sum %m dims [0] : tensor<4xf32> -> tensor<f32>
  return %l, %m : tensor<f32>, tensor<4xf32>
}
func.func @empty_loss(%m: tensor<4xf32> {nova.name = "w.adam_m"}, %step: tensor<i64> {nova.name = "step"}, %lr: tensor<f32> {nova.name = "lr"}, %tok: tensor<2x4xi64> {nova.name = "tokens"}, %tgt: tensor<2x4xi64> {nova.name = "targets"}) -> (tensor<0xf32> {nova.name = "loss"}, tensor<4xf32> {nova.name = "w.adam_m", nova.alias = 0 : i64}) {
  %l = nova.slice %m starts [0] limits [0] strides [1] : tensor<4xf32> -> tensor<0xf32>
  return %l, %m : tensor<0xf32>, tensor<4xf32>
}
func.func @good(%m: tensor<4xf32> {nova.name = "w.adam_m"}, %step: tensor<i64> {nova.name = "step"}, %lr: tensor<f32> {nova.name = "lr"}, %tok: tensor<2x4xi64> {nova.name = "tokens"}, %tgt: tensor<2x4xi64> {nova.name = "targets"}) -> (tensor<f32> {nova.name = "loss"}, tensor<4xf32> {nova.name = "w.adam_m", nova.alias = 0 : i64}) {
  %l = nova.reduce sum %m dims [0] : tensor<4xf32> -> tensor<f32>
  return %l, %m : tensor<f32>, tensor<4xf32>
}
