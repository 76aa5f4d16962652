// nova_tile's family contracts are checked inside upstream mlir-opt too.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-tile-plugin%shlibext -verify-diagnostics

func.func @bad(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %y = nova_tile.fusion pointwise (%x) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{pointwise contract: 'nova.reduce' is not allowed here}}
    %s = nova.reduce sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
