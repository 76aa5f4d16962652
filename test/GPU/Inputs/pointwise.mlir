// Pointwise kernels with ragged shapes: broadcast, transposed and sliced
// inputs, several outputs of f32 / i32 / i1, and a bf16 chain (compared
// against its own, looser, bound).
func.func @pointwise(%x: tensor<1000x1023xf32>, %b: tensor<1023xf32>,
                     %t: tensor<1023x1000xf32>, %s: tensor<1002x1030xf32>,
                     %n: tensor<1000x1023xi32>)
    -> (tensor<1000x1023xf32>, tensor<1000x1023xi32>, tensor<1000x1023xi1>) {
  %r:3 = nova_tile.fusion pointwise (%x, %b, %t, %s, %n)
      : (tensor<1000x1023xf32>, tensor<1023xf32>, tensor<1023x1000xf32>,
         tensor<1002x1030xf32>, tensor<1000x1023xi32>)
      -> (tensor<1000x1023xf32>, tensor<1000x1023xi32>, tensor<1000x1023xi1>) {
  ^bb0(%xa: tensor<1000x1023xf32>, %ba: tensor<1023xf32>,
       %ta: tensor<1023x1000xf32>, %sa: tensor<1002x1030xf32>,
       %na: tensor<1000x1023xi32>):
    %tt = nova.transpose %ta [1, 0] : tensor<1023x1000xf32> -> tensor<1000x1023xf32>
    %ss = nova.slice %sa starts [1, 2] limits [1001, 1025] strides [1, 1] : tensor<1002x1030xf32> -> tensor<1000x1023xf32>
    %a = nova.add %xa, %ba : tensor<1000x1023xf32>, tensor<1023xf32>
    %g = nova.gelu tanh %a : tensor<1000x1023xf32>
    %m = nova.mul %tt, %ss : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %e = nova.exp %m : tensor<1000x1023xf32>
    %y = nova.mul %g, %e : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %n2 = nova.mul %na, %na : tensor<1000x1023xi32>, tensor<1000x1023xi32>
    %xi = nova.cast %m : tensor<1000x1023xf32> to tensor<1000x1023xi32>
    %ni = nova.sub %n2, %xi : tensor<1000x1023xi32>, tensor<1000x1023xi32>
    %c = nova.cmp gt, %y, %tt : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    nova_tile.yield %y, %ni, %c : tensor<1000x1023xf32>, tensor<1000x1023xi32>, tensor<1000x1023xi1>
  }
  return %r#0, %r#1, %r#2 : tensor<1000x1023xf32>, tensor<1000x1023xi32>, tensor<1000x1023xi1>
}

func.func @pointwise_bf16(%h: tensor<999x1021xbf16>, %w: tensor<999x1xbf16>)
    -> tensor<999x1021xbf16> {
  %r = nova_tile.fusion pointwise (%h, %w)
      : (tensor<999x1021xbf16>, tensor<999x1xbf16>) -> tensor<999x1021xbf16> {
  ^bb0(%ha: tensor<999x1021xbf16>, %wa: tensor<999x1xbf16>):
    %p = nova.mul %ha, %wa : tensor<999x1021xbf16>, tensor<999x1xbf16>
    %g = nova.gelu erf %p : tensor<999x1021xbf16>
    %s = nova.sigmoid %g : tensor<999x1021xbf16>
    nova_tile.yield %s : tensor<999x1021xbf16>
  }
  return %r : tensor<999x1021xbf16>
}

// A copy kernel: three parts concatenated along the ragged inner dim (each
// element read from the one part that holds it), then scaled.
func.func @concat(%a: tensor<1000x500xf32>, %b: tensor<1000x1xf32>,
                  %c: tensor<1000x522xf32>) -> tensor<1000x1023xf32> {
  %r = nova_tile.fusion pointwise (%a, %b, %c)
      : (tensor<1000x500xf32>, tensor<1000x1xf32>, tensor<1000x522xf32>)
      -> tensor<1000x1023xf32> {
  ^bb0(%aa: tensor<1000x500xf32>, %ba: tensor<1000x1xf32>, %ca: tensor<1000x522xf32>):
    %j = nova.concat %aa, %ba, %ca dim 1 : tensor<1000x500xf32>, tensor<1000x1xf32>, tensor<1000x522xf32> -> tensor<1000x1023xf32>
    %two = nova.constant dense<2.0> : tensor<f32>
    %y = nova.mul %j, %two : tensor<1000x1023xf32>, tensor<f32>
    nova_tile.yield %y : tensor<1000x1023xf32>
  }
  return %r : tensor<1000x1023xf32>
}
