// LayerNorm's backward as autodiff writes it, from nova ops, at ragged
// sizes (3 x 37 rows of 200): the `planned` kernel test builds it through
// nova-fuse, whose row-sum distribution rewrites its second row sum
// (test/Transforms/fuse-row-sums.mlir), down to the GPU kernel, and
// compares it with the interpreter on the unfused function.
func.func @ln_backward(%dy: tensor<3x37x200xf32>, %gamma: tensor<200xf32>, %rstd: tensor<3x37x1xf32>, %xc: tensor<3x37x200xf32>, %dres: tensor<3x37x200xf32>) -> (tensor<1x1x200xf32>, tensor<1x1x200xf32>, tensor<3x37x200xf32>) {
  %half = nova.constant dense<-5.000000e-01> : tensor<f32>
  %inv = nova.constant dense<5.000000e-03> : tensor<f32>
  %r2 = nova.mul %rstd, %rstd : tensor<3x37x1xf32>, tensor<3x37x1xf32>
  %r3 = nova.mul %rstd, %r2 : tensor<3x37x1xf32>, tensor<3x37x1xf32>
  %k = nova.mul %r3, %half : tensor<3x37x1xf32>, tensor<f32>
  %xhat = nova.mul %xc, %rstd : tensor<3x37x200xf32>, tensor<3x37x1xf32>
  %dbeta = nova.reduce sum %dy dims [0, 1] keep_dims : tensor<3x37x200xf32> -> tensor<1x1x200xf32>
  %g = nova.mul %dy, %gamma : tensor<3x37x200xf32>, tensor<200xf32>
  %dyx = nova.mul %dy, %xhat : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %dgamma = nova.reduce sum %dyx dims [0, 1] keep_dims : tensor<3x37x200xf32> -> tensor<1x1x200xf32>
  %gr = nova.mul %g, %rstd : tensor<3x37x200xf32>, tensor<3x37x1xf32>
  %gx = nova.mul %g, %xc : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %s1 = nova.reduce sum %gx dims [2] keep_dims : tensor<3x37x200xf32> -> tensor<3x37x1xf32>
  %c0 = nova.mul %s1, %k : tensor<3x37x1xf32>, tensor<3x37x1xf32>
  %c = nova.mul %c0, %inv : tensor<3x37x1xf32>, tensor<f32>
  %cb = nova.broadcast %c : tensor<3x37x1xf32> -> tensor<3x37x200xf32>
  %cx = nova.mul %cb, %xc : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %t = nova.add %gr, %cx : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %dxhat = nova.add %t, %cx : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %negd = nova.neg %dxhat : tensor<3x37x200xf32>
  %s2 = nova.reduce sum %negd dims [2] keep_dims : tensor<3x37x200xf32> -> tensor<3x37x1xf32>
  %acc = nova.add %dres, %dxhat : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  %m = nova.mul %s2, %inv : tensor<3x37x1xf32>, tensor<f32>
  %mb = nova.broadcast %m : tensor<3x37x1xf32> -> tensor<3x37x200xf32>
  %dx = nova.add %acc, %mb : tensor<3x37x200xf32>, tensor<3x37x200xf32>
  return %dbeta, %dgamma, %dx : tensor<1x1x200xf32>, tensor<1x1x200xf32>, tensor<3x37x200xf32>
}
