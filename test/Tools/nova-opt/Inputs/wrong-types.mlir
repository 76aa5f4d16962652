func.func @f(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  %0 = nova.add %x, %y : tensor<4xf32>, tensor<4xi32>
  return %0 : tensor<4xf32>
}
