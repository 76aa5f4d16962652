// A linear layer with a GELU epilogue, a residual add + LayerNorm row
// kernel and an outlined pointwise kernel (input of configure.test).
func.func @block(%x: tensor<1024x768xbf16>, %w: tensor<768x3072xbf16>, %b: tensor<3072xf32>,
                 %r: tensor<1024x768xf32>, %h: tensor<1024x768xf32>, %g: tensor<768xf32>,
                 %beta: tensor<768xf32>) -> (tensor<1024x3072xf32>, tensor<1024x768xf32>) {
  %y = nova_tile.fusion matmul (%x, %w, %b) : (tensor<1024x768xbf16>, tensor<768x3072xbf16>, tensor<3072xf32>) -> tensor<1024x3072xf32> {
  ^bb0(%xa: tensor<1024x768xbf16>, %wa: tensor<768x3072xbf16>, %ba: tensor<3072xf32>):
    %p = nova.matmul %xa, %wa : tensor<1024x768xbf16>, tensor<768x3072xbf16> -> tensor<1024x3072xbf16>
    %pf = nova.cast %p : tensor<1024x3072xbf16> to tensor<1024x3072xf32>
    %pb = nova.add %pf, %ba : tensor<1024x3072xf32>, tensor<3072xf32>
    %o = nova.gelu tanh %pb : tensor<1024x3072xf32>
    nova_tile.yield %o : tensor<1024x3072xf32>
  }
  %n = nova_tile.fusion row_reduction (%r, %h, %g, %beta) : (tensor<1024x768xf32>, tensor<1024x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1024x768xf32> {
  ^bb0(%ra: tensor<1024x768xf32>, %ha: tensor<1024x768xf32>, %ga: tensor<768xf32>, %bb: tensor<768xf32>):
    %s = nova.add %ra, %ha : tensor<1024x768xf32>, tensor<1024x768xf32>
    %l = nova.layer_norm %s, %ga, %bb eps 1.0e-05 : tensor<1024x768xf32>, tensor<768xf32>
    nova_tile.yield %l : tensor<1024x768xf32>
  }
  %z = nova_tile.launch @relu_kernel(%n) : (tensor<1024x768xf32>) -> tensor<1024x768xf32>
  return %y, %z : tensor<1024x3072xf32>, tensor<1024x768xf32>
}
nova_tile.kernel @relu_kernel pointwise {
^bb0(%a: tensor<1024x768xf32>):
  %q = nova.relu %a : tensor<1024x768xf32>
  nova_tile.yield %q : tensor<1024x768xf32>
}
