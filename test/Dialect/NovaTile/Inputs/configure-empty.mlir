// Kernels whose outputs are empty (input of configure.test).
func.func @empty(%y: tensor<0xf32>, %a: tensor<0x8xf32>, %w: tensor<8x0xf32>) -> (tensor<0xf32>, tensor<0x0xf32>) {
  %p = nova_tile.fusion pointwise (%y) : (tensor<0xf32>) -> tensor<0xf32> {
  ^bb0(%ya: tensor<0xf32>):
    %e = nova.exp %ya : tensor<0xf32>
    nova_tile.yield %e : tensor<0xf32>
  }
  %m = nova_tile.fusion matmul (%a, %w) : (tensor<0x8xf32>, tensor<8x0xf32>) -> tensor<0x0xf32> {
  ^bb0(%aa: tensor<0x8xf32>, %wa: tensor<8x0xf32>):
    %q = nova.matmul %aa, %wa : tensor<0x8xf32>, tensor<8x0xf32> -> tensor<0x0xf32>
    nova_tile.yield %q : tensor<0x0xf32>
  }
  return %p, %m : tensor<0xf32>, tensor<0x0xf32>
}
