// The linear-layer backward GEMMs of GPT-2's bf16 step at the small model's
// aligned sizes (B4 T128 C128, MLP width 512), as nova-fuse groups them:
// the whole group (dX and dW in one launch), and dW and dX alone.
func.func @grouped(%dy: tensor<4x128x128xbf16>, %w: tensor<512x128xf32>, %x: tensor<4x128x512xbf16>)
    -> (tensor<4x128x512xbf16>, tensor<512x128xbf16>) {
  %r:2 = nova_tile.fusion matmul (%dy, %w, %x) : (tensor<4x128x128xbf16>, tensor<512x128xf32>, tensor<4x128x512xbf16>)
      -> (tensor<4x128x512xbf16>, tensor<512x128xbf16>) {
  ^bb0(%arg1: tensor<4x128x128xbf16>, %arg0: tensor<512x128xf32>, %arg2: tensor<4x128x512xbf16>):
    %0 = nova.cast %arg0 : tensor<512x128xf32> to tensor<512x128xbf16>
    %1 = nova.matmul %arg1, %0 transpose_rhs : tensor<4x128x128xbf16>, tensor<512x128xbf16> -> tensor<4x128x512xbf16>
    %2 = nova.reshape %arg2 : tensor<4x128x512xbf16> -> tensor<512x512xbf16>
    %3 = nova.reshape %arg1 : tensor<4x128x128xbf16> -> tensor<512x128xbf16>
    %4 = nova.matmul %2, %3 transpose_lhs : tensor<512x512xbf16>, tensor<512x128xbf16> -> tensor<512x128xbf16>
    nova_tile.yield %1, %4 : tensor<4x128x512xbf16>, tensor<512x128xbf16>
  }
  return %r#0, %r#1 : tensor<4x128x512xbf16>, tensor<512x128xbf16>
}

func.func @dw(%x: tensor<512x512xbf16>, %dy: tensor<512x128xbf16>) -> tensor<512x128xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<512x512xbf16>, tensor<512x128xbf16>) -> tensor<512x128xbf16> {
  ^bb0(%a: tensor<512x512xbf16>, %b: tensor<512x128xbf16>):
    %0 = nova.matmul %a, %b transpose_lhs : tensor<512x512xbf16>, tensor<512x128xbf16> -> tensor<512x128xbf16>
    nova_tile.yield %0 : tensor<512x128xbf16>
  }
  return %r : tensor<512x128xbf16>
}

func.func @dx(%dy: tensor<4x128x128xbf16>, %w: tensor<512x128xf32>) -> tensor<4x128x512xbf16> {
  %r = nova_tile.fusion matmul (%dy, %w) : (tensor<4x128x128xbf16>, tensor<512x128xf32>) -> tensor<4x128x512xbf16> {
  ^bb0(%a: tensor<4x128x128xbf16>, %b: tensor<512x128xf32>):
    %0 = nova.cast %b : tensor<512x128xf32> to tensor<512x128xbf16>
    %1 = nova.matmul %a, %0 transpose_rhs : tensor<4x128x128xbf16>, tensor<512x128xbf16> -> tensor<4x128x512xbf16>
    nova_tile.yield %1 : tensor<4x128x512xbf16>
  }
  return %r : tensor<4x128x512xbf16>
}
