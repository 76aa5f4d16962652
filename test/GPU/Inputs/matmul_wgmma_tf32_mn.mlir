// TF32 GEMMs with M- or N-major operands on wgmma against the interpreter.
// wgmma reads 32-bit operands K-major only: TMA lands each tile as it lies
// and the consumers, as they round the stage to TF32, transpose it in
// shared memory into the K-major layout. Compared norm-wise at 1e-4, as
// the K-major TF32 cases: a tile transposed wrongly (or not at all) gives
// errors of the size of the outputs, one left unrounded about 1e-3.
//
// y = x W with W stored [K, N] (B N-major), ragged M (1000), N = 640 in
// 256-wide tiles.
func.func @tf32_xw(%x: tensor<1000x768xf32>, %w: tensor<768x640xf32>) -> tensor<1000x640xf32> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<1000x768xf32>, tensor<768x640xf32>) -> tensor<1000x640xf32> {
  ^bb0(%a: tensor<1000x768xf32>, %b: tensor<768x640xf32>):
    %p = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<1000x768xf32>, tensor<768x640xf32> -> tensor<1000x640xf32>
    nova_tile.yield %p : tensor<1000x640xf32>
  }
  return %r : tensor<1000x640xf32>
}

// dW = x^T dy: both operands MN-major (the contraction runs over the rows
// of both), K = 2048.
func.func @tf32_dw(%x: tensor<2048x384xf32>, %dy: tensor<2048x320xf32>) -> tensor<384x320xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x384xf32>, tensor<2048x320xf32>) -> tensor<384x320xf32> {
  ^bb0(%a: tensor<2048x384xf32>, %b: tensor<2048x320xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x384xf32>, tensor<2048x320xf32> -> tensor<384x320xf32>
    nova_tile.yield %p : tensor<384x320xf32>
  }
  return %r : tensor<384x320xf32>
}

// x W ragged everywhere: M = 333, K = 200 (6.25 K tiles), N = 412 (the
// last 32-column block of B's tile partly past N: TMA's zero fill, then
// transposed with the rest), with a bias + GELU epilogue.
func.func @tf32_xw_ragged(%x: tensor<333x200xf32>, %w: tensor<200x412xf32>, %bias: tensor<412xf32>) -> tensor<333x412xf32> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<333x200xf32>, tensor<200x412xf32>, tensor<412xf32>) -> tensor<333x412xf32> {
  ^bb0(%a: tensor<333x200xf32>, %b: tensor<200x412xf32>, %c: tensor<412xf32>):
    %p = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<333x200xf32>, tensor<200x412xf32> -> tensor<333x412xf32>
    %h = nova.add %p, %c : tensor<333x412xf32>, tensor<412xf32>
    %g = nova.gelu tanh %h : tensor<333x412xf32>
    nova_tile.yield %g : tensor<333x412xf32>
  }
  return %r : tensor<333x412xf32>
}

// x^T W^T (A M-major, B K-major) with ragged M = 264, N = 383, K = 136.
func.func @tf32_mk_ragged(%x: tensor<136x264xf32>, %w: tensor<383x136xf32>) -> tensor<264x383xf32> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<136x264xf32>, tensor<383x136xf32>) -> tensor<264x383xf32> {
  ^bb0(%a: tensor<136x264xf32>, %b: tensor<383x136xf32>):
    %p = nova.matmul %a, %b transpose_lhs transpose_rhs {nova.precision = "tf32"} : tensor<136x264xf32>, tensor<383x136xf32> -> tensor<264x383xf32>
    nova_tile.yield %p : tensor<264x383xf32>
  }
  return %r : tensor<264x383xf32>
}

// dW on 128 x 160 tiles (768 x 3072 with K = 2048: 120 tiles fill more
// SMs than 96 of 128 x 192 or 72 of 128 x 256): B's 160 columns are 320
// blocks of 4 x 4 words, transposed in one round of all 256 consumer
// threads and a second of the first 64; the last tile's 32 columns past N
// are TMA's zero fill.
func.func @tf32_dw_narrow(%x: tensor<2048x768xf32>, %dy: tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x768xf32>, tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  ^bb0(%a: tensor<2048x768xf32>, %b: tensor<2048x3072xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x768xf32>, tensor<2048x3072xf32> -> tensor<768x3072xf32>
    nova_tile.yield %p : tensor<768x3072xf32>
  }
  return %r : tensor<768x3072xf32>
}

// dW on 128 x 192 tiles (5760 x 384 with K = 2048: 45 x 2 = 90 tiles, where
// 160-wide ones would be 135, two waves): B's 384 blocks, a second round
// of the first 128 consumer threads.
func.func @tf32_dw_192(%x: tensor<2048x5760xf32>, %dy: tensor<2048x384xf32>) -> tensor<5760x384xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x5760xf32>, tensor<2048x384xf32>) -> tensor<5760x384xf32> {
  ^bb0(%a: tensor<2048x5760xf32>, %b: tensor<2048x384xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x5760xf32>, tensor<2048x384xf32> -> tensor<5760x384xf32>
    nova_tile.yield %p : tensor<5760x384xf32>
  }
  return %r : tensor<5760x384xf32>
}

// dW on 128 x 224 tiles (896 x 3584 with K = 2048: 7 x 16 = 112 tiles, where
// 256-wide ones would be 98 and 160-wide 161, two waves): B's 448 blocks, a
// second round of the first 192 consumer threads; m64n224k8 wgmmas.
func.func @tf32_dw_224(%x: tensor<2048x896xf32>, %dy: tensor<2048x3584xf32>) -> tensor<896x3584xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x896xf32>, tensor<2048x3584xf32>) -> tensor<896x3584xf32> {
  ^bb0(%a: tensor<2048x896xf32>, %b: tensor<2048x3584xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x896xf32>, tensor<2048x3584xf32> -> tensor<896x3584xf32>
    nova_tile.yield %p : tensor<896x3584xf32>
  }
  return %r : tensor<896x3584xf32>
}
