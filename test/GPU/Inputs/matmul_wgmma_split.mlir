// Weight-gradient GEMMs (dW = x^T dy: few output tiles, long K) that the
// wgmma path splits over K across blocks, against the interpreter: 200 x
// 8192 x 512 with a bias is 4 tiles of 128 x 256 in 8 splits of 16 K
// tiles (ragged M: the last split's epilogue is guarded).
func.func @dw_split(%x: tensor<8192x200xbf16>, %dy: tensor<8192x512xbf16>, %bias: tensor<512xbf16>) -> tensor<200x512xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy, %bias) : (tensor<8192x200xbf16>, tensor<8192x512xbf16>, tensor<512xbf16>) -> tensor<200x512xbf16> {
  ^bb0(%a: tensor<8192x200xbf16>, %b: tensor<8192x512xbf16>, %c: tensor<512xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<8192x200xbf16>, tensor<8192x512xbf16> -> tensor<200x512xbf16>
    %h = nova.add %p, %c : tensor<200x512xbf16>, tensor<512xbf16>
    nova_tile.yield %h : tensor<200x512xbf16>
  }
  return %r : tensor<200x512xbf16>
}
