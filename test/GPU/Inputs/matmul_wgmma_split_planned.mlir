// Two split-K weight gradients in one planned entry (4096 x 256 by 4096 x
// 512 each: 4 tiles in 4 splits), one kernel launched twice on the same
// workspace: the second launch finds the tickets and partial slots the
// first left (zero) or its outputs stay poisoned.
func.func @dw_twice(%x1: tensor<4096x256xbf16>, %dy1: tensor<4096x512xbf16>,
                    %x2: tensor<4096x256xbf16>, %dy2: tensor<4096x512xbf16>)
    -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
  %g1 = nova.matmul %x1, %dy1 transpose_lhs : tensor<4096x256xbf16>, tensor<4096x512xbf16> -> tensor<256x512xbf16>
  %g2 = nova.matmul %x2, %dy2 transpose_lhs : tensor<4096x256xbf16>, tensor<4096x512xbf16> -> tensor<256x512xbf16>
  return %g1, %g2 : tensor<256x512xbf16>, tensor<256x512xbf16>
}
