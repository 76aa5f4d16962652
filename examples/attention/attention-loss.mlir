// One causal self-attention layer written only from primitive ops, as a
// model ported op by op would have it: q, k, v projections, two heads split
// by reshape + transpose, scores scaled after the product, the causal mask
// by select on compared iotas, softmax spelled out, heads merged again.
// `nova-opt --nova-collapse-attention` turns the attention into one
// nova.attention (see README, "nova-collapse-attention").
func.func @attention_loss(%x: tensor<2x7x8xf32> {nova.name = "x"},
                          %wq: tensor<8x8xf32> {nova.param, nova.name = "wq"},
                          %wk: tensor<8x8xf32> {nova.param, nova.name = "wk"},
                          %wv: tensor<8x8xf32> {nova.param, nova.name = "wv"},
                          %target: tensor<2x7x8xf32> {nova.name = "target"})
    -> (tensor<f32> {nova.name = "loss"}) {
  %q0 = nova.matmul %x, %wq : tensor<2x7x8xf32>, tensor<8x8xf32> -> tensor<2x7x8xf32>
  %k0 = nova.matmul %x, %wk : tensor<2x7x8xf32>, tensor<8x8xf32> -> tensor<2x7x8xf32>
  %v0 = nova.matmul %x, %wv : tensor<2x7x8xf32>, tensor<8x8xf32> -> tensor<2x7x8xf32>
  %q1 = nova.reshape %q0 : tensor<2x7x8xf32> -> tensor<2x7x2x4xf32>
  %k1 = nova.reshape %k0 : tensor<2x7x8xf32> -> tensor<2x7x2x4xf32>
  %v1 = nova.reshape %v0 : tensor<2x7x8xf32> -> tensor<2x7x2x4xf32>
  %q = nova.transpose %q1 [0, 2, 1, 3] : tensor<2x7x2x4xf32> -> tensor<2x2x7x4xf32>
  %k = nova.transpose %k1 [0, 2, 1, 3] : tensor<2x7x2x4xf32> -> tensor<2x2x7x4xf32>
  %v = nova.transpose %v1 [0, 2, 1, 3] : tensor<2x7x2x4xf32> -> tensor<2x2x7x4xf32>
  %s = nova.matmul %q, %k transpose_rhs : tensor<2x2x7x4xf32>, tensor<2x2x7x4xf32> -> tensor<2x2x7x7xf32>
  %scale = nova.constant dense<0.5> : tensor<f32>
  %ss = nova.mul %s, %scale : tensor<2x2x7x7xf32>, tensor<f32>
  %row = nova.iota dim 0 : tensor<7x7xi64>
  %col = nova.iota dim 1 : tensor<7x7xi64>
  %keep = nova.cmp le, %col, %row : tensor<7x7xi64>, tensor<7x7xi64>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %keep, %ss, %ninf : tensor<7x7xi1>, tensor<2x2x7x7xf32>, tensor<f32>
  %mx = nova.reduce max %m dims [3] keep_dims : tensor<2x2x7x7xf32> -> tensor<2x2x7x1xf32>
  %sh = nova.sub %m, %mx : tensor<2x2x7x7xf32>, tensor<2x2x7x1xf32>
  %e = nova.exp %sh : tensor<2x2x7x7xf32>
  %sum = nova.reduce sum %e dims [3] keep_dims : tensor<2x2x7x7xf32> -> tensor<2x2x7x1xf32>
  %p = nova.div %e, %sum : tensor<2x2x7x7xf32>, tensor<2x2x7x1xf32>
  %o = nova.matmul %p, %v : tensor<2x2x7x7xf32>, tensor<2x2x7x4xf32> -> tensor<2x2x7x4xf32>
  %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x7x4xf32> -> tensor<2x7x2x4xf32>
  %y = nova.reshape %ot : tensor<2x7x2x4xf32> -> tensor<2x7x8xf32>
  %d = nova.sub %y, %target : tensor<2x7x8xf32>, tensor<2x7x8xf32>
  %d2 = nova.mul %d, %d : tensor<2x7x8xf32>, tensor<2x7x8xf32>
  %l = nova.reduce sum %d2 dims [0, 1, 2] : tensor<2x7x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
