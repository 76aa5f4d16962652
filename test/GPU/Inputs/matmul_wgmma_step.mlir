// The GPT-2 step's wgmma GEMM forms at test sizes (scripts/gpu/kernel-tests.sh).
// dw_narrow: the weight gradient's layout (x^T dy: A M-major, B N-major),
// 768 x 3072 with K 4096: 72 tiles of 128 x 256 would leave 60 of the 132
// SMs idle, so it runs 96 tiles of 128 x 192, the bf16 output staged.
func.func @dw_narrow(%x: tensor<4096x768xbf16>, %dy: tensor<4096x3072xbf16>) -> tensor<768x3072xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<4096x768xbf16>, tensor<4096x3072xbf16>) -> tensor<768x3072xbf16> {
  ^bb0(%a: tensor<4096x768xbf16>, %b: tensor<4096x3072xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<4096x768xbf16>, tensor<4096x3072xbf16> -> tensor<768x3072xbf16>
    nova_tile.yield %p : tensor<768x3072xbf16>
  }
  return %r : tensor<768x3072xbf16>
}

// Ragged M (704) and N (1000), K 2000 (32 K tiles: too short for the
// narrow tiles): 24 tiles of 128 x 256 in 4 splits, the f32 output stored
// from registers.
func.func @dw_narrow_split(%x: tensor<2000x704xbf16>, %dy: tensor<2000x1000xbf16>) -> tensor<704x1000xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2000x704xbf16>, tensor<2000x1000xbf16>) -> tensor<704x1000xf32> {
  ^bb0(%a: tensor<2000x704xbf16>, %b: tensor<2000x1000xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<2000x704xbf16>, tensor<2000x1000xbf16> -> tensor<704x1000xbf16>
    %o = nova.cast %p : tensor<704x1000xbf16> to tensor<704x1000xf32>
    nova_tile.yield %o : tensor<704x1000xf32>
  }
  return %r : tensor<704x1000xf32>
}

// The MLP's fc GEMM as the step fuses it: bias (f32, cast), then GELU and
// its derivative (tanh, the step's bf16 constants) as two bf16 outputs,
// 128 x 256 tiles covering the output exactly (no guards), the
// transcendentals as ex2.approx and tanh.approx.
func.func @fc_gelu_dgelu(%x: tensor<2x1024x768xbf16>, %w: tensor<768x1024xbf16>, %bias: tensor<1024xf32>)
    -> (tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<2x1024x768xbf16>, tensor<768x1024xbf16>, tensor<1024xf32>)
      -> (tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>) {
  ^bb0(%arg0: tensor<2x1024x768xbf16>, %arg1: tensor<768x1024xbf16>, %arg2: tensor<1024xf32>):
    %0 = nova.matmul %arg0, %arg1 : tensor<2x1024x768xbf16>, tensor<768x1024xbf16> -> tensor<2x1024x1024xbf16>
    %1 = nova.cast %arg2 : tensor<1024xf32> to tensor<1024xbf16>
    %2 = nova.add %0, %1 : tensor<2x1024x1024xbf16>, tensor<1024xbf16>
    %3 = nova.gelu tanh %2 : tensor<2x1024x1024xbf16>
    %4 = nova.mul %2, %2 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    %5 = nova.constant dense<4.467770e-02> : tensor<bf16>
    %6 = nova.mul %4, %5 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %7 = nova.constant dense<1.000000e+00> : tensor<bf16>
    %8 = nova.add %6, %7 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %9 = nova.mul %2, %8 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    %10 = nova.constant dense<7.968750e-01> : tensor<bf16>
    %11 = nova.mul %9, %10 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %12 = nova.tanh %11 : tensor<2x1024x1024xbf16>
    %13 = nova.add %12, %7 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %14 = nova.constant dense<5.000000e-01> : tensor<bf16>
    %15 = nova.mul %13, %14 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %16 = nova.constant dense<1.337890e-01> : tensor<bf16>
    %17 = nova.mul %4, %16 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %18 = nova.add %17, %7 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %19 = nova.mul %12, %12 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    %20 = nova.sub %7, %19 : tensor<bf16>, tensor<2x1024x1024xbf16>
    %21 = nova.mul %2, %20 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    %22 = nova.mul %21, %18 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    %23 = nova.constant dense<3.984380e-01> : tensor<bf16>
    %24 = nova.mul %22, %23 : tensor<2x1024x1024xbf16>, tensor<bf16>
    %25 = nova.add %15, %24 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
    nova_tile.yield %3, %25 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
  }
  return %r#0, %r#1 : tensor<2x1024x1024xbf16>, tensor<2x1024x1024xbf16>
}

// x W^T with N = 3071 (rows of 6142 bytes: no TMA store) and K 4096: 96
// tiles of 128 x 192, the staged tile copied out a row at a time, the
// second round of 128 columns by the first 64 threads only.
func.func @xwt_narrow_odd(%x: tensor<768x4096xbf16>, %w: tensor<3071x4096xbf16>) -> tensor<768x3071xbf16> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<768x4096xbf16>, tensor<3071x4096xbf16>) -> tensor<768x3071xbf16> {
  ^bb0(%a: tensor<768x4096xbf16>, %b: tensor<3071x4096xbf16>):
    %p = nova.matmul %a, %b transpose_rhs : tensor<768x4096xbf16>, tensor<3071x4096xbf16> -> tensor<768x3071xbf16>
    nova_tile.yield %p : tensor<768x3071xbf16>
  }
  return %r : tensor<768x3071xbf16>
}
