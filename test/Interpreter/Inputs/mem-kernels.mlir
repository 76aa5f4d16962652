// Kernels and a reference function shared by mem-poison.test's programs.
nova_tile.kernel @twice pointwise {
^bb0(%a: tensor<4xf32>):
  %r = nova.add %a, %a : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
nova_tile.kernel @square pointwise {
^bb0(%a: tensor<4xf32>):
  %r = nova.mul %a, %a : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
nova_tile.kernel @negate pointwise {
^bb0(%a: tensor<4xf32>):
  %r = nova.neg %a : tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
nova_tile.kernel @minus pointwise {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %r = nova.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
