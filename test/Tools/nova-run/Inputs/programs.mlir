func.func @scale(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = nova.constant dense<2.0> : tensor<f32>
  %y = nova.mul %x, %c : tensor<2x3xf32>, tensor<f32>
  return %y : tensor<2x3xf32>
}

func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @bad_index() -> tensor<2x3xf32> {
  %t = nova.constant dense<1.0> : tensor<4x3xf32>
  %i = nova.constant dense<[1, 7]> : tensor<2xi64>
  %g = nova.gather %t[%i] axis 0 : tensor<4x3xf32>, tensor<2xi64> -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

func.func @upstream_op(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

func.func @int_div_zero() -> tensor<2xi32> {
  %a = nova.constant dense<[4, 5]> : tensor<2xi32>
  %b = nova.constant dense<[2, 0]> : tensor<2xi32>
  %q = nova.div %a, %b : tensor<2xi32>, tensor<2xi32>
  return %q : tensor<2xi32>
}

func.func @forever(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = func.call @forever(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

func.func @huge() -> tensor<65536x65536x4xf32> {
  %c = nova.constant dense<1.0> : tensor<f32>
  %b = nova.broadcast %c : tensor<f32> -> tensor<65536x65536x4xf32>
  return %b : tensor<65536x65536x4xf32>
}
