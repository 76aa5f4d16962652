// Two identical MLP blocks (linear + bias + GELU, then a residual layer norm)
// as nova_tile kernels: four fusion groups, two distinct kernels.
//   nova-opt examples/tile/mlp-blocks.mlir --nova-print-hash -o /dev/null
//   nova-opt examples/tile/mlp-blocks.mlir --nova-outline-kernels
//   nova-run examples/tile/mlp-blocks.mlir --random-inputs 1 --print
func.func @mlp(%x: tensor<8x16xf32> {nova.name = "x"}, %w: tensor<16x16xf32> {nova.name = "w"},
               %bias: tensor<16xf32> {nova.name = "b"}, %g: tensor<16xf32> {nova.name = "ln.g"},
               %beta: tensor<16xf32> {nova.name = "ln.b"}) -> tensor<8x16xf32> {
  %h0 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%xa: tensor<8x16xf32>, %wa: tensor<16x16xf32>, %ba: tensor<16xf32>):
    %p = nova.matmul %xa, %wa : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %pb = nova.add %p, %ba : tensor<8x16xf32>, tensor<16xf32>
    %a = nova.gelu tanh %pb : tensor<8x16xf32>
    nova_tile.yield %a : tensor<8x16xf32>
  }
  %y0 = nova_tile.fusion row_reduction (%x, %h0, %g, %beta) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%r: tensor<8x16xf32>, %h: tensor<8x16xf32>, %ga: tensor<16xf32>, %ba: tensor<16xf32>):
    %s = nova.add %r, %h : tensor<8x16xf32>, tensor<8x16xf32>
    %n = nova.layer_norm %s, %ga, %ba eps 1.0e-05 : tensor<8x16xf32>, tensor<16xf32>
    nova_tile.yield %n : tensor<8x16xf32>
  }
  %h1 = nova_tile.fusion matmul (%y0, %w, %bias) : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%xa: tensor<8x16xf32>, %wa: tensor<16x16xf32>, %ba: tensor<16xf32>):
    %p = nova.matmul %xa, %wa : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
    %pb = nova.add %p, %ba : tensor<8x16xf32>, tensor<16xf32>
    %a = nova.gelu tanh %pb : tensor<8x16xf32>
    nova_tile.yield %a : tensor<8x16xf32>
  }
  %y1 = nova_tile.fusion row_reduction (%y0, %h1, %g, %beta) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32> {
  ^bb0(%r: tensor<8x16xf32>, %h: tensor<8x16xf32>, %ga: tensor<16xf32>, %ba: tensor<16xf32>):
    %s = nova.add %r, %h : tensor<8x16xf32>, tensor<8x16xf32>
    %n = nova.layer_norm %s, %ga, %ba eps 1.0e-05 : tensor<8x16xf32>, tensor<16xf32>
    nova_tile.yield %n : tensor<8x16xf32>
  }
  return %y1 : tensor<8x16xf32>
}
