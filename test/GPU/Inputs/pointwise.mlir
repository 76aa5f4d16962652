// Pointwise kernels with ragged shapes: broadcast, transposed and sliced
// inputs, several outputs, bf16 / f32 / i32 / i1.
func.func @pointwise(%x: tensor<1000x1023xf32>, %b: tensor<1023xf32>,
                     %t: tensor<1023x1000xf32>, %s: tensor<1002x1030xf32>,
                     %h: tensor<1000x1023xbf16>, %n: tensor<1000x1023xi32>)
    -> (tensor<1000x1023xf32>, tensor<1000x1023xbf16>, tensor<1000x1023xi32>,
        tensor<1000x1023xi1>) {
  %r:4 = nova_tile.fusion pointwise (%x, %b, %t, %s, %h, %n)
      : (tensor<1000x1023xf32>, tensor<1023xf32>, tensor<1023x1000xf32>,
         tensor<1002x1030xf32>, tensor<1000x1023xbf16>, tensor<1000x1023xi32>)
      -> (tensor<1000x1023xf32>, tensor<1000x1023xbf16>, tensor<1000x1023xi32>,
          tensor<1000x1023xi1>) {
  ^bb0(%xa: tensor<1000x1023xf32>, %ba: tensor<1023xf32>,
       %ta: tensor<1023x1000xf32>, %sa: tensor<1002x1030xf32>,
       %ha: tensor<1000x1023xbf16>, %na: tensor<1000x1023xi32>):
    %tt = nova.transpose %ta [1, 0] : tensor<1023x1000xf32> -> tensor<1000x1023xf32>
    %ss = nova.slice %sa starts [1, 2] limits [1001, 1025] strides [1, 1] : tensor<1002x1030xf32> -> tensor<1000x1023xf32>
    %a = nova.add %xa, %ba : tensor<1000x1023xf32>, tensor<1023xf32>
    %g = nova.gelu tanh %a : tensor<1000x1023xf32>
    %m = nova.mul %tt, %ss : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %e = nova.exp %m : tensor<1000x1023xf32>
    %y = nova.sub %g, %e : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %hf = nova.cast %ha : tensor<1000x1023xbf16> to tensor<1000x1023xf32>
    %z = nova.mul %hf, %g : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %zh = nova.cast %z : tensor<1000x1023xf32> to tensor<1000x1023xbf16>
    %sig = nova.sigmoid %zh : tensor<1000x1023xbf16>
    %n2 = nova.mul %na, %na : tensor<1000x1023xi32>, tensor<1000x1023xi32>
    %xi = nova.cast %xa : tensor<1000x1023xf32> to tensor<1000x1023xi32>
    %ni = nova.sub %n2, %xi : tensor<1000x1023xi32>, tensor<1000x1023xi32>
    %c = nova.cmp gt, %y, %tt : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    nova_tile.yield %y, %sig, %ni, %c : tensor<1000x1023xf32>, tensor<1000x1023xbf16>, tensor<1000x1023xi32>, tensor<1000x1023xi1>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<1000x1023xf32>, tensor<1000x1023xbf16>, tensor<1000x1023xi32>, tensor<1000x1023xi1>
}
