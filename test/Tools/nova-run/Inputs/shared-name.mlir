func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32> {nova.name = "x"}) -> tensor<4xf32> {
  %0 = nova.sub %x, %y : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
