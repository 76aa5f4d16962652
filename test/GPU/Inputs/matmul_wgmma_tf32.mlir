// TF32 GEMMs on wgmma (both operands K-major) against the interpreter, which
// rounds TF32 operands to nearest: ragged M (999 rows over 3 batches) and N
// (1001), K = 520, with a bias + GELU epilogue. Compared norm-wise at 1e-4:
// rounded operands match the interpreter to about 1e-6, while operands
// with their low mantissa bits dropped (wgmma's own reading of f32) are
// about 1e-3 away on uniform random inputs, so a truncating kernel fails.
func.func @tf32_round_gelu(%x: tensor<3x333x520xf32>, %w: tensor<1001x520xf32>, %bias: tensor<1001xf32>) -> tensor<3x333x1001xf32> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<3x333x520xf32>, tensor<1001x520xf32>, tensor<1001xf32>) -> tensor<3x333x1001xf32> {
  ^bb0(%xa: tensor<3x333x520xf32>, %wa: tensor<1001x520xf32>, %ba: tensor<1001xf32>):
    %p = nova.matmul %xa, %wa transpose_rhs {nova.precision = "tf32"} : tensor<3x333x520xf32>, tensor<1001x520xf32> -> tensor<3x333x1001xf32>
    %h = nova.add %p, %ba : tensor<3x333x1001xf32>, tensor<1001xf32>
    %g = nova.gelu tanh %h : tensor<3x333x1001xf32>
    nova_tile.yield %g : tensor<3x333x1001xf32>
  }
  return %r : tensor<3x333x1001xf32>
}

// The plain product, 640 x 384 x 256: 5 x 2 tiles of 128 x 256 (the
// second tile column half outside N), 8 K tiles each.
func.func @tf32_round_plain(%a: tensor<640x256xf32>, %b: tensor<384x256xf32>) -> tensor<640x384xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<640x256xf32>, tensor<384x256xf32>) -> tensor<640x384xf32> {
  ^bb0(%x: tensor<640x256xf32>, %y: tensor<384x256xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<640x256xf32>, tensor<384x256xf32> -> tensor<640x384xf32>
    nova_tile.yield %p : tensor<640x384xf32>
  }
  return %r : tensor<640x384xf32>
}
