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

// LayerNorm forward at the 124M width as the bf16 step has it (the residual
// stream f32 plus a bf16 projection and its bias; the new stream, x - mean,
// rstd and the bf16 normalized row out) and all in f32, on 602 rows (not a
// multiple of the block's rows): each row read once into registers.
func.func @layer_norm_c768(%h: tensor<2x301x768xbf16>, %bias: tensor<768xf32>, %res: tensor<2x301x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>)
    -> (tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xbf16>) {
  %r:4 = nova_tile.fusion row_reduction (%h, %bias, %res, %w, %b)
      : (tensor<2x301x768xbf16>, tensor<768xf32>, tensor<2x301x768xf32>, tensor<768xf32>, tensor<768xf32>)
      -> (tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xbf16>) {
  ^bb0(%arg0: tensor<2x301x768xbf16>, %arg1: tensor<768xf32>, %arg2: tensor<2x301x768xf32>, %arg3: tensor<768xf32>, %arg4: tensor<768xf32>):
    %0 = nova.cast %arg1 : tensor<768xf32> to tensor<768xbf16>
    %1 = nova.add %arg0, %0 : tensor<2x301x768xbf16>, tensor<768xbf16>
    %2 = nova.cast %1 : tensor<2x301x768xbf16> to tensor<2x301x768xf32>
    %3 = nova.add %arg2, %2 : tensor<2x301x768xf32>, tensor<2x301x768xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<2x301x768xf32> -> tensor<2x301x1xf32>
    %5 = nova.constant dense<0.00130208337> : tensor<f32>
    %6 = nova.mul %4, %5 : tensor<2x301x1xf32>, tensor<f32>
    %7 = nova.sub %3, %6 : tensor<2x301x768xf32>, tensor<2x301x1xf32>
    %8 = nova.mul %7, %7 : tensor<2x301x768xf32>, tensor<2x301x768xf32>
    %9 = nova.reduce sum %8 dims [2] keep_dims : tensor<2x301x768xf32> -> tensor<2x301x1xf32>
    %10 = nova.mul %9, %5 : tensor<2x301x1xf32>, tensor<f32>
    %11 = nova.constant dense<9.99999974E-6> : tensor<f32>
    %12 = nova.add %10, %11 : tensor<2x301x1xf32>, tensor<f32>
    %13 = nova.rsqrt %12 : tensor<2x301x1xf32>
    %14 = nova.mul %7, %13 : tensor<2x301x768xf32>, tensor<2x301x1xf32>
    %15 = nova.mul %14, %arg3 : tensor<2x301x768xf32>, tensor<768xf32>
    %16 = nova.add %15, %arg4 : tensor<2x301x768xf32>, tensor<768xf32>
    %17 = nova.cast %16 : tensor<2x301x768xf32> to tensor<2x301x768xbf16>
    nova_tile.yield %3, %7, %13, %17 : tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xbf16>
}

func.func @layer_norm_c768_f32(%h: tensor<2x301x768xf32>, %bias: tensor<768xf32>, %res: tensor<2x301x768xf32>, %w: tensor<768xf32>, %b: tensor<768xf32>)
    -> (tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xf32>) {
  %r:4 = nova_tile.fusion row_reduction (%h, %bias, %res, %w, %b)
      : (tensor<2x301x768xf32>, tensor<768xf32>, tensor<2x301x768xf32>, tensor<768xf32>, tensor<768xf32>)
      -> (tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xf32>) {
  ^bb0(%arg0: tensor<2x301x768xf32>, %arg1: tensor<768xf32>, %arg2: tensor<2x301x768xf32>, %arg3: tensor<768xf32>, %arg4: tensor<768xf32>):
    %2 = nova.add %arg0, %arg1 : tensor<2x301x768xf32>, tensor<768xf32>
    %3 = nova.add %arg2, %2 : tensor<2x301x768xf32>, tensor<2x301x768xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<2x301x768xf32> -> tensor<2x301x1xf32>
    %5 = nova.constant dense<0.00130208337> : tensor<f32>
    %6 = nova.mul %4, %5 : tensor<2x301x1xf32>, tensor<f32>
    %7 = nova.sub %3, %6 : tensor<2x301x768xf32>, tensor<2x301x1xf32>
    %8 = nova.mul %7, %7 : tensor<2x301x768xf32>, tensor<2x301x768xf32>
    %9 = nova.reduce sum %8 dims [2] keep_dims : tensor<2x301x768xf32> -> tensor<2x301x1xf32>
    %10 = nova.mul %9, %5 : tensor<2x301x1xf32>, tensor<f32>
    %11 = nova.constant dense<9.99999974E-6> : tensor<f32>
    %12 = nova.add %10, %11 : tensor<2x301x1xf32>, tensor<f32>
    %13 = nova.rsqrt %12 : tensor<2x301x1xf32>
    %14 = nova.mul %7, %13 : tensor<2x301x768xf32>, tensor<2x301x1xf32>
    %15 = nova.mul %14, %arg3 : tensor<2x301x768xf32>, tensor<768xf32>
    %16 = nova.add %15, %arg4 : tensor<2x301x768xf32>, tensor<768xf32>
    nova_tile.yield %3, %7, %13, %16 : tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x301x768xf32>, tensor<2x301x768xf32>, tensor<2x301x1xf32>, tensor<2x301x768xf32>
}
