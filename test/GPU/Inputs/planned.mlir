// Programs built only from the families convert-tile-to-gpu lowers:
// LayerNorm (scaled and shifted) of ragged rows, then softmax cross-entropy
// against soft targets per row and its gradient with respect to the logits
// (@ln_xent), and the same with the gradients of the scale and shift
// (@ln_xent_grads).
func.func @ln_xent(%x: tensor<37x203xf32>, %w: tensor<203xf32>,
                   %b: tensor<203xf32>, %t: tensor<37x203xf32>)
    -> (tensor<37xf32>, tensor<37x203xf32>) {
  %n = nova.constant dense<203.0> : tensor<f32>
  %eps = nova.constant dense<1.0e-5> : tensor<f32>
  %rows = nova.constant dense<37.0> : tensor<f32>
  %s = nova.reduce sum %x dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %mean = nova.div %s, %n : tensor<37x1xf32>, tensor<f32>
  %d = nova.sub %x, %mean : tensor<37x203xf32>, tensor<37x1xf32>
  %d2 = nova.mul %d, %d : tensor<37x203xf32>, tensor<37x203xf32>
  %s2 = nova.reduce sum %d2 dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %var = nova.div %s2, %n : tensor<37x1xf32>, tensor<f32>
  %ve = nova.add %var, %eps : tensor<37x1xf32>, tensor<f32>
  %rs = nova.rsqrt %ve : tensor<37x1xf32>
  %y0 = nova.mul %d, %rs : tensor<37x203xf32>, tensor<37x1xf32>
  %y1 = nova.mul %y0, %w : tensor<37x203xf32>, tensor<203xf32>
  %y = nova.add %y1, %b : tensor<37x203xf32>, tensor<203xf32>
  %m = nova.reduce max %y dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %z = nova.sub %y, %m : tensor<37x203xf32>, tensor<37x1xf32>
  %e = nova.exp %z : tensor<37x203xf32>
  %se = nova.reduce sum %e dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %lse = nova.log %se : tensor<37x1xf32>
  %logp = nova.sub %z, %lse : tensor<37x203xf32>, tensor<37x1xf32>
  %tl = nova.mul %t, %logp : tensor<37x203xf32>, tensor<37x203xf32>
  %nl = nova.reduce sum %tl dims [1] : tensor<37x203xf32> -> tensor<37xf32>
  %loss = nova.neg %nl : tensor<37xf32>
  %p = nova.exp %logp : tensor<37x203xf32>
  %pt = nova.sub %p, %t : tensor<37x203xf32>, tensor<37x203xf32>
  %grad = nova.div %pt, %rows : tensor<37x203xf32>, tensor<f32>
  return %loss, %grad : tensor<37xf32>, tensor<37x203xf32>
}

// @ln_xent with the gradients of the scale and shift besides: column sums
// over the rows that nova-fuse puts into the same row kernel, which then
// combines its blocks' partials in the workspace.
func.func @ln_xent_grads(%x: tensor<37x203xf32>, %w: tensor<203xf32>,
                         %b: tensor<203xf32>, %t: tensor<37x203xf32>)
    -> (tensor<37xf32>, tensor<37x203xf32>, tensor<203xf32>, tensor<203xf32>) {
  %n = nova.constant dense<203.0> : tensor<f32>
  %eps = nova.constant dense<1.0e-5> : tensor<f32>
  %rows = nova.constant dense<37.0> : tensor<f32>
  %s = nova.reduce sum %x dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %mean = nova.div %s, %n : tensor<37x1xf32>, tensor<f32>
  %d = nova.sub %x, %mean : tensor<37x203xf32>, tensor<37x1xf32>
  %d2 = nova.mul %d, %d : tensor<37x203xf32>, tensor<37x203xf32>
  %s2 = nova.reduce sum %d2 dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %var = nova.div %s2, %n : tensor<37x1xf32>, tensor<f32>
  %ve = nova.add %var, %eps : tensor<37x1xf32>, tensor<f32>
  %rs = nova.rsqrt %ve : tensor<37x1xf32>
  %y0 = nova.mul %d, %rs : tensor<37x203xf32>, tensor<37x1xf32>
  %y1 = nova.mul %y0, %w : tensor<37x203xf32>, tensor<203xf32>
  %y = nova.add %y1, %b : tensor<37x203xf32>, tensor<203xf32>
  %m = nova.reduce max %y dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %z = nova.sub %y, %m : tensor<37x203xf32>, tensor<37x1xf32>
  %e = nova.exp %z : tensor<37x203xf32>
  %se = nova.reduce sum %e dims [1] keep_dims : tensor<37x203xf32> -> tensor<37x1xf32>
  %lse = nova.log %se : tensor<37x1xf32>
  %logp = nova.sub %z, %lse : tensor<37x203xf32>, tensor<37x1xf32>
  %tl = nova.mul %t, %logp : tensor<37x203xf32>, tensor<37x203xf32>
  %nl = nova.reduce sum %tl dims [1] : tensor<37x203xf32> -> tensor<37xf32>
  %loss = nova.neg %nl : tensor<37xf32>
  %p = nova.exp %logp : tensor<37x203xf32>
  %pt = nova.sub %p, %t : tensor<37x203xf32>, tensor<37x203xf32>
  %grad = nova.div %pt, %rows : tensor<37x203xf32>, tensor<f32>
  %gy = nova.mul %grad, %y0 : tensor<37x203xf32>, tensor<37x203xf32>
  %dw = nova.reduce sum %gy dims [0] : tensor<37x203xf32> -> tensor<203xf32>
  %db = nova.reduce sum %grad dims [0] : tensor<37x203xf32> -> tensor<203xf32>
  return %loss, %grad, %dw, %db : tensor<37xf32>, tensor<37x203xf32>, tensor<203xf32>, tensor<203xf32>
}
