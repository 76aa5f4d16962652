// log(0) = -inf is the first non-finite value; -inf * 0 then makes NaN.
func.func @first_nan(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = nova.exp %x : tensor<4xf32>
  %z = nova.sub %x, %x : tensor<4xf32>, tensor<4xf32>
  %l = nova.log %z : tensor<4xf32>
  %m = nova.mul %l, %z : tensor<4xf32>, tensor<4xf32>
  %y = nova.add %e, %m : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @finite(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = nova.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

func.func @grid(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = nova.exp %x : tensor<2x2xf32>
  return %e : tensor<2x2xf32>
}
