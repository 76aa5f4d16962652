// tile-flat.mlir with each kernel written by hand as a nova_tile fusion group.
func.func @step(%tokens: tensor<2x4xi32> {nova.name = "tokens"}, %wte: tensor<16x8xf32> {nova.name = "wte"},
                %wpe: tensor<4x8xf32> {nova.name = "wpe"}, %g: tensor<8xf32> {nova.name = "ln.g"},
                %b: tensor<8xf32> {nova.name = "ln.b"}, %w: tensor<8x16xf32> {nova.name = "w"},
                %bias: tensor<16xf32> {nova.name = "bias"}, %labels: tensor<2x4xi32> {nova.name = "labels"},
                %m: tensor<8x16xf32> {nova.name = "m"}, %v: tensor<8x16xf32> {nova.name = "v"})
    -> (tensor<f32>, tensor<2x4x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<16x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %h = nova_tile.fusion gather (%wte, %tokens, %wpe) : (tensor<16x8xf32>, tensor<2x4xi32>, tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  ^bb0(%t: tensor<16x8xf32>, %i: tensor<2x4xi32>, %pos: tensor<4x8xf32>):
    %e = nova.gather %t[%i] axis 0 : tensor<16x8xf32>, tensor<2x4xi32> -> tensor<2x4x8xf32>
    %s = nova.add %e, %pos : tensor<2x4x8xf32>, tensor<4x8xf32>
    nova_tile.yield %s : tensor<2x4x8xf32>
  }
  %n = nova_tile.fusion row_reduction (%h, %g, %b) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      schedule #nova_tile.schedule<tile = [4, 8], threads = 32, stages = 1, vector = 4, split_k = 1> {
  ^bb0(%x: tensor<2x4x8xf32>, %ga: tensor<8xf32>, %ba: tensor<8xf32>):
    %r = nova.layer_norm %x, %ga, %ba eps 1.0e-05 : tensor<2x4x8xf32>, tensor<8xf32>
    nova_tile.yield %r : tensor<2x4x8xf32>
  }
  %a = nova_tile.fusion matmul (%n, %w, %bias) : (tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32> {
  ^bb0(%x: tensor<2x4x8xf32>, %wa: tensor<8x16xf32>, %bi: tensor<16xf32>):
    %p = nova.matmul %x, %wa : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
    %pb = nova.add %p, %bi : tensor<2x4x16xf32>, tensor<16xf32>
    %ge = nova.gelu tanh %pb : tensor<2x4x16xf32>
    nova_tile.yield %ge : tensor<2x4x16xf32>
  }
  %loss = nova_tile.fusion row_reduction (%a, %labels) : (tensor<2x4x16xf32>, tensor<2x4xi32>) -> tensor<f32> {
  ^bb0(%x: tensor<2x4x16xf32>, %l: tensor<2x4xi32>):
    %c = nova.cross_entropy %x, %l : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<f32>
    nova_tile.yield %c : tensor<f32>
  }
  %colsum = nova_tile.fusion column_reduction (%a) : (tensor<2x4x16xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<2x4x16xf32>):
    %s = nova.reduce sum %x dims [0, 1] : tensor<2x4x16xf32> -> tensor<16xf32>
    nova_tile.yield %s : tensor<16xf32>
  }
  %pw:2 = nova_tile.fusion pointwise (%w, %loss, %v) : (tensor<8x16xf32>, tensor<f32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  ^bb0(%wa: tensor<8x16xf32>, %la: tensor<f32>, %va: tensor<8x16xf32>):
    %wg = nova.mul %wa, %la : tensor<8x16xf32>, tensor<f32>
    %v2 = nova.mul %va, %va : tensor<8x16xf32>, tensor<8x16xf32>
    nova_tile.yield %wg, %v2 : tensor<8x16xf32>, tensor<8x16xf32>
  }
  %u:3 = nova_tile.fusion optimizer (%w, %pw#0, %m, %pw#1) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  ^bb0(%wa: tensor<8x16xf32>, %ga: tensor<8x16xf32>, %ma: tensor<8x16xf32>, %va: tensor<8x16xf32>):
    %step = nova.constant dense<3> : tensor<i64>
    %lr = nova.constant dense<1.0e-2> : tensor<f32>
    %r:3 = nova.adamw %wa, %ga, %ma, %va, %step, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<8x16xf32>, tensor<i64>
    nova_tile.yield %r#0, %r#1, %r#2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  }
  %scat = nova_tile.fusion scatter_add (%h, %tokens) : (tensor<2x4x8xf32>, tensor<2x4xi32>) -> tensor<16x8xf32> {
  ^bb0(%x: tensor<2x4x8xf32>, %i: tensor<2x4xi32>):
    %s = nova.scatter_add %x[%i] axis 0 : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<16x8xf32>
    nova_tile.yield %s : tensor<16x8xf32>
  }
  %att = nova_tile.fusion attention_forward (%n, %n, %n) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  ^bb0(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %vv: tensor<2x4x8xf32>):
    %o = nova.attention %q, %k, %vv scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
    nova_tile.yield %o : tensor<2x4x8xf32>
  }
  %fw:2 = nova_tile.fusion attention_forward (%n, %h, %n) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>) {
  ^bb0(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %vv: tensor<2x4x8xf32>):
    %o, %l = nova.attention_fwd %q, %k, %vv scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
    nova_tile.yield %o, %l : tensor<2x4x8xf32>, tensor<2x4xf32>
  }
  %bw:3 = nova_tile.fusion attention_backward (%n, %h, %n, %fw#0, %fw#1, %att) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  ^bb0(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %vv: tensor<2x4x8xf32>, %o: tensor<2x4x8xf32>, %l: tensor<2x4xf32>, %d: tensor<2x4x8xf32>):
    %dq, %dk, %dv = nova.attention_bwd %q, %k, %vv, %o, %l, %d scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
  }
  return %loss, %n, %colsum, %u#0, %u#1, %u#2, %scat, %att, %fw#1, %bw#0, %bw#1, %bw#2
      : tensor<f32>, tensor<2x4x8xf32>, tensor<16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<16x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
