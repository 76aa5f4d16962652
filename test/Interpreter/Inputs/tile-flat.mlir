// A small step of plain nova ops: embedding, layer norm, linear + GELU,
// loss, a column sum, attention, an AdamW update and an embedding gradient.
// tile-grouped.mlir is the same program with every kernel in a nova_tile
// fusion group.
func.func @step(%tokens: tensor<2x4xi32> {nova.name = "tokens"}, %wte: tensor<16x8xf32> {nova.name = "wte"},
                %wpe: tensor<4x8xf32> {nova.name = "wpe"}, %g: tensor<8xf32> {nova.name = "ln.g"},
                %b: tensor<8xf32> {nova.name = "ln.b"}, %w: tensor<8x16xf32> {nova.name = "w"},
                %bias: tensor<16xf32> {nova.name = "bias"}, %labels: tensor<2x4xi32> {nova.name = "labels"},
                %m: tensor<8x16xf32> {nova.name = "m"}, %v: tensor<8x16xf32> {nova.name = "v"})
    -> (tensor<f32>, tensor<2x4x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<16x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %e = nova.gather %wte[%tokens] axis 0 : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
  %h = nova.add %e, %wpe : tensor<2x4x8xf32>, tensor<4x8xf32>
  %n = nova.layer_norm %h, %g, %b eps 1.0e-05 : tensor<2x4x8xf32>, tensor<8xf32>
  %p = nova.matmul %n, %w : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %pb = nova.add %p, %bias : tensor<2x4x16xf32>, tensor<16xf32>
  %a = nova.gelu tanh %pb : tensor<2x4x16xf32>
  %loss = nova.cross_entropy %a, %labels : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
  %colsum = nova.reduce sum %a dims [0, 1] : tensor<2x4x16xf32> -> tensor<16xf32>
  %wg = nova.mul %w, %loss : tensor<8x16xf32>, tensor<f32>
  %v2 = nova.mul %v, %v : tensor<8x16xf32>, tensor<8x16xf32>
  %step = nova.constant dense<3> : tensor<i64>
  %lr = nova.constant dense<1.0e-2> : tensor<f32>
  %u:3 = nova.adamw %w, %wg, %m, %v2, %step, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<8x16xf32>, tensor<i64>
  %scat = nova.scatter_add %h[%tokens] axis 0 : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<16x8xf32>
  %att = nova.attention %n, %n, %n scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %fw:2 = nova.attention_fwd %n, %h, %n scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %bw:3 = nova.attention_bwd %n, %h, %n, %fw#0, %fw#1, %att scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>
  return %loss, %n, %colsum, %u#0, %u#1, %u#2, %scat, %att, %fw#1, %bw#0, %bw#1, %bw#2
      : tensor<f32>, tensor<2x4x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<16x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
