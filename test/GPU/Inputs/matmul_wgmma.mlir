// GEMMs that convert-tile-to-gpu lowers to wgmma with TMA (both operands
// K-major: y = x W^T), against the interpreter: bf16 at 1024^3, ragged M, N
// and K (TMA zero fill past the edges, guarded stores), a linear layer
// with its batch folded into the rows and a bias + GELU epilogue, and TF32
// likewise. 257 x 383 x 129 cannot take TMA (rows of 258 bytes are not
// 16-byte multiples) and checks the mma.sync fallback next to it.
func.func @bf16_1024(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  ^bb0(%x: tensor<1024x1024xbf16>, %y: tensor<1024x1024xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<1024x1024xbf16>, tensor<1024x1024xbf16> -> tensor<1024x1024xbf16>
    %o = nova.cast %p : tensor<1024x1024xbf16> to tensor<1024x1024xf32>
    nova_tile.yield %o : tensor<1024x1024xf32>
  }
  return %r : tensor<1024x1024xf32>
}

func.func @bf16_ragged(%a: tensor<257x136xbf16>, %b: tensor<383x136xbf16>) -> tensor<257x383xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<257x136xbf16>, tensor<383x136xbf16>) -> tensor<257x383xbf16> {
  ^bb0(%x: tensor<257x136xbf16>, %y: tensor<383x136xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<257x136xbf16>, tensor<383x136xbf16> -> tensor<257x383xbf16>
    nova_tile.yield %p : tensor<257x383xbf16>
  }
  return %r : tensor<257x383xbf16>
}

func.func @bf16_fallback(%a: tensor<257x129xbf16>, %b: tensor<383x129xbf16>) -> tensor<257x383xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<257x129xbf16>, tensor<383x129xbf16>) -> tensor<257x383xbf16> {
  ^bb0(%x: tensor<257x129xbf16>, %y: tensor<383x129xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<257x129xbf16>, tensor<383x129xbf16> -> tensor<257x383xbf16>
    nova_tile.yield %p : tensor<257x383xbf16>
  }
  return %r : tensor<257x383xbf16>
}

// A linear layer: [4, 250, 768] x [1000, 768]^T + bias, GELU (tanh), the
// pre-activation kept too.
func.func @bf16_bias_gelu(%x: tensor<4x250x768xbf16>, %w: tensor<1000x768xbf16>, %bias: tensor<1000xbf16>)
    -> (tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x250x768xbf16>, tensor<1000x768xbf16>, tensor<1000xbf16>)
      -> (tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>) {
  ^bb0(%xa: tensor<4x250x768xbf16>, %wa: tensor<1000x768xbf16>, %ba: tensor<1000xbf16>):
    %p = nova.matmul %xa, %wa transpose_rhs : tensor<4x250x768xbf16>, tensor<1000x768xbf16> -> tensor<4x250x1000xbf16>
    %h = nova.add %p, %ba : tensor<4x250x1000xbf16>, tensor<1000xbf16>
    %g = nova.gelu tanh %h : tensor<4x250x1000xbf16>
    nova_tile.yield %h, %g : tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>
  }
  return %r#0, %r#1 : tensor<4x250x1000xbf16>, tensor<4x250x1000xbf16>
}

func.func @tf32_1000(%a: tensor<1000x1000xf32>, %b: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<1000x1000xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  ^bb0(%x: tensor<1000x1000xf32>, %y: tensor<1000x1000xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<1000x1000xf32>, tensor<1000x1000xf32> -> tensor<1000x1000xf32>
    nova_tile.yield %p : tensor<1000x1000xf32>
  }
  return %r : tensor<1000x1000xf32>
}

func.func @tf32_bias_gelu(%x: tensor<2x129x132xf32>, %w: tensor<383x132xf32>, %bias: tensor<383xf32>) -> tensor<2x129x383xf32> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<2x129x132xf32>, tensor<383x132xf32>, tensor<383xf32>) -> tensor<2x129x383xf32> {
  ^bb0(%xa: tensor<2x129x132xf32>, %wa: tensor<383x132xf32>, %ba: tensor<383xf32>):
    %p = nova.matmul %xa, %wa transpose_rhs {nova.precision = "tf32"} : tensor<2x129x132xf32>, tensor<383x132xf32> -> tensor<2x129x383xf32>
    %h = nova.add %p, %ba : tensor<2x129x383xf32>, tensor<383xf32>
    %g = nova.gelu tanh %h : tensor<2x129x383xf32>
    nova_tile.yield %g : tensor<2x129x383xf32>
  }
  return %r : tensor<2x129x383xf32>
}
