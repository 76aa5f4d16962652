// Row kernels with ragged rows: a decomposed layer norm (two sums per row,
// per-row and full-row outputs, per-column weight and bias) and a
// decomposed softmax over a GPT-2 vocabulary row (a max, then a sum).
func.func @layer_norm(%x: tensor<1000x1023xf32>, %w: tensor<1023xf32>,
                      %b: tensor<1023xf32>)
    -> (tensor<1000x1023xf32>, tensor<1000x1xf32>, tensor<1000xf32>) {
  %r:3 = nova_tile.fusion row_reduction (%x, %w, %b)
      : (tensor<1000x1023xf32>, tensor<1023xf32>, tensor<1023xf32>)
      -> (tensor<1000x1023xf32>, tensor<1000x1xf32>, tensor<1000xf32>) {
  ^bb0(%xa: tensor<1000x1023xf32>, %wa: tensor<1023xf32>, %ba: tensor<1023xf32>):
    %n = nova.constant dense<1023.0> : tensor<f32>
    %eps = nova.constant dense<1.0e-5> : tensor<f32>
    %s = nova.reduce sum %xa dims [1] keep_dims : tensor<1000x1023xf32> -> tensor<1000x1xf32>
    %mean = nova.div %s, %n : tensor<1000x1xf32>, tensor<f32>
    %d = nova.sub %xa, %mean : tensor<1000x1023xf32>, tensor<1000x1xf32>
    %d2 = nova.mul %d, %d : tensor<1000x1023xf32>, tensor<1000x1023xf32>
    %s2 = nova.reduce sum %d2 dims [1] keep_dims : tensor<1000x1023xf32> -> tensor<1000x1xf32>
    %var = nova.div %s2, %n : tensor<1000x1xf32>, tensor<f32>
    %ve = nova.add %var, %eps : tensor<1000x1xf32>, tensor<f32>
    %rs = nova.rsqrt %ve : tensor<1000x1xf32>
    %y0 = nova.mul %d, %rs : tensor<1000x1023xf32>, tensor<1000x1xf32>
    %y1 = nova.mul %y0, %wa : tensor<1000x1023xf32>, tensor<1023xf32>
    %y = nova.add %y1, %ba : tensor<1000x1023xf32>, tensor<1023xf32>
    %rsf = nova.reshape %rs : tensor<1000x1xf32> -> tensor<1000xf32>
    nova_tile.yield %y, %mean, %rsf : tensor<1000x1023xf32>, tensor<1000x1xf32>, tensor<1000xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1000x1023xf32>, tensor<1000x1xf32>, tensor<1000xf32>
}

func.func @softmax(%x: tensor<24x50257xf32>) -> (tensor<24x50257xf32>, tensor<24xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%x)
      : (tensor<24x50257xf32>) -> (tensor<24x50257xf32>, tensor<24xf32>) {
  ^bb0(%xa: tensor<24x50257xf32>):
    %m = nova.reduce max %xa dims [1] keep_dims : tensor<24x50257xf32> -> tensor<24x1xf32>
    %d = nova.sub %xa, %m : tensor<24x50257xf32>, tensor<24x1xf32>
    %e = nova.exp %d : tensor<24x50257xf32>
    %s = nova.reduce sum %e dims [1] keep_dims : tensor<24x50257xf32> -> tensor<24x1xf32>
    %p = nova.div %e, %s : tensor<24x50257xf32>, tensor<24x1xf32>
    %l = nova.log %s : tensor<24x1xf32>
    %lse = nova.add %l, %m : tensor<24x1xf32>, tensor<24x1xf32>
    %lsef = nova.reshape %lse : tensor<24x1xf32> -> tensor<24xf32>
    nova_tile.yield %p, %lsef : tensor<24x50257xf32>, tensor<24xf32>
  }
  return %r#0, %r#1 : tensor<24x50257xf32>, tensor<24xf32>
}
