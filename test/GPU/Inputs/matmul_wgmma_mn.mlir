// GEMMs whose bf16 operands TMA loads M- or N-major (wgmma's transposed
// shared-memory layouts), against the interpreter: the GPT-2 step's forms
// at small sizes. y = x W with W stored [K, N] (B N-major, M ragged);
// dW = x^T dy (A M-major, B N-major: the contraction runs over the rows of
// both); x^T W^T (A M-major, B K-major) with ragged M, N and K; and a
// linear layer x W + bias, GELU with the batch of x folded into the rows.
func.func @xw(%x: tensor<1000x768xbf16>, %w: tensor<768x2304xbf16>) -> tensor<1000x2304xbf16> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<1000x768xbf16>, tensor<768x2304xbf16>) -> tensor<1000x2304xbf16> {
  ^bb0(%a: tensor<1000x768xbf16>, %b: tensor<768x2304xbf16>):
    %p = nova.matmul %a, %b : tensor<1000x768xbf16>, tensor<768x2304xbf16> -> tensor<1000x2304xbf16>
    nova_tile.yield %p : tensor<1000x2304xbf16>
  }
  return %r : tensor<1000x2304xbf16>
}

func.func @dw(%x: tensor<2048x768xbf16>, %dy: tensor<2048x1000xbf16>) -> tensor<768x1000xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x768xbf16>, tensor<2048x1000xbf16>) -> tensor<768x1000xf32> {
  ^bb0(%a: tensor<2048x768xbf16>, %b: tensor<2048x1000xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<2048x768xbf16>, tensor<2048x1000xbf16> -> tensor<768x1000xbf16>
    %o = nova.cast %p : tensor<768x1000xbf16> to tensor<768x1000xf32>
    nova_tile.yield %o : tensor<768x1000xf32>
  }
  return %r : tensor<768x1000xf32>
}

func.func @mk_ragged(%x: tensor<136x264xbf16>, %w: tensor<383x136xbf16>) -> tensor<264x383xbf16> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<136x264xbf16>, tensor<383x136xbf16>) -> tensor<264x383xbf16> {
  ^bb0(%a: tensor<136x264xbf16>, %b: tensor<383x136xbf16>):
    %p = nova.matmul %a, %b transpose_lhs transpose_rhs : tensor<136x264xbf16>, tensor<383x136xbf16> -> tensor<264x383xbf16>
    nova_tile.yield %p : tensor<264x383xbf16>
  }
  return %r : tensor<264x383xbf16>
}

// [4, 250, 768] x [768, 1000] + bias, GELU (tanh), the pre-activation kept.
func.func @xw_bias_gelu(%x: tensor<4x250x768xbf16>, %w: tensor<768x1000xbf16>, %bias: tensor<1000xbf16>)
    -> (tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x250x768xbf16>, tensor<768x1000xbf16>, tensor<1000xbf16>)
      -> (tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>) {
  ^bb0(%xa: tensor<4x250x768xbf16>, %wa: tensor<768x1000xbf16>, %ba: tensor<1000xbf16>):
    %p = nova.matmul %xa, %wa : tensor<4x250x768xbf16>, tensor<768x1000xbf16> -> tensor<4x250x1000xbf16>
    %h = nova.add %p, %ba : tensor<4x250x1000xbf16>, tensor<1000xbf16>
    %g = nova.gelu tanh %h : tensor<4x250x1000xbf16>
    nova_tile.yield %h, %g : tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>
  }
  return %r#0, %r#1 : tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>
}

// One bf16 output of the product's shape: the epilogue stages the tile in
// shared memory and TMA stores it (clipping the ragged rows and columns).
func.func @xw_gelu_staged(%x: tensor<4x250x768xbf16>, %w: tensor<768x1000xbf16>, %bias: tensor<1000xbf16>)
    -> tensor<4x250x1000xbf16> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x250x768xbf16>, tensor<768x1000xbf16>, tensor<1000xbf16>)
      -> tensor<4x250x1000xbf16> {
  ^bb0(%xa: tensor<4x250x768xbf16>, %wa: tensor<768x1000xbf16>, %ba: tensor<1000xbf16>):
    %p = nova.matmul %xa, %wa : tensor<4x250x768xbf16>, tensor<768x1000xbf16> -> tensor<4x250x1000xbf16>
    %h = nova.add %p, %ba : tensor<4x250x1000xbf16>, tensor<1000xbf16>
    %g = nova.gelu tanh %h : tensor<4x250x1000xbf16>
    nova_tile.yield %g : tensor<4x250x1000xbf16>
  }
  return %r : tensor<4x250x1000xbf16>
}

// The tiles cover [1024, 1024] exactly: the two-output GELU epilogue runs
// with no per-element guards (the GPT-2 MLP's fc form).
func.func @xw_bias_gelu_exact(%x: tensor<4x256x768xbf16>, %w: tensor<768x1024xbf16>, %bias: tensor<1024xbf16>)
    -> (tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x256x768xbf16>, tensor<768x1024xbf16>, tensor<1024xbf16>)
      -> (tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>) {
  ^bb0(%xa: tensor<4x256x768xbf16>, %wa: tensor<768x1024xbf16>, %ba: tensor<1024xbf16>):
    %p = nova.matmul %xa, %wa : tensor<4x256x768xbf16>, tensor<768x1024xbf16> -> tensor<4x256x1024xbf16>
    %h = nova.add %p, %ba : tensor<4x256x1024xbf16>, tensor<1024xbf16>
    %g = nova.gelu tanh %h : tensor<4x256x1024xbf16>
    nova_tile.yield %h, %g : tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>
  }
  return %r#0, %r#1 : tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>
}

// N = 301: output rows of 602 bytes, which TMA cannot store, so the staged
// tile is copied out by the consumer threads (a row at a time, coalesced);
// the batch folds into the rows and the last tile overhangs M and N.
func.func @x_wt_bias_odd_n(%x: tensor<2x100x64xbf16>, %w: tensor<301x64xbf16>, %bias: tensor<301xbf16>)
    -> tensor<2x100x301xbf16> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<2x100x64xbf16>, tensor<301x64xbf16>, tensor<301xbf16>)
      -> tensor<2x100x301xbf16> {
  ^bb0(%xa: tensor<2x100x64xbf16>, %wa: tensor<301x64xbf16>, %ba: tensor<301xbf16>):
    %p = nova.matmul %xa, %wa transpose_rhs : tensor<2x100x64xbf16>, tensor<301x64xbf16> -> tensor<2x100x301xbf16>
    %h = nova.add %p, %ba : tensor<2x100x301xbf16>, tensor<301xbf16>
    nova_tile.yield %h : tensor<2x100x301xbf16>
  }
  return %r : tensor<2x100x301xbf16>
}
