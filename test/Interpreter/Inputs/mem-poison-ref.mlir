func.func @ref(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = nova.add %x, %x : tensor<4xf32>, tensor<4xf32>
  %b = nova.mul %y, %y : tensor<4xf32>, tensor<4xf32>
  %c = nova.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  %n = nova.neg %a : tensor<4xf32>
  return %c, %n : tensor<4xf32>, tensor<4xf32>
}
