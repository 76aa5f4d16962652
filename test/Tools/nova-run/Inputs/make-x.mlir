func.func @g() -> (tensor<4xf32> {nova.name = "x"}) {
  %0 = nova.iota dim 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
