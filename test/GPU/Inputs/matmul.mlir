// Matmul kernels on tensor cores against the interpreter: TF32 (the
// interpreter rounds the operands of a nova.precision = "tf32" product to
// TF32 as the tensor cores do, so what remains is the f32 accumulation) and
// bf16 at ragged sizes, batched with a broadcast batch dim and both operands
// transposed, a bias + GELU epilogue with several outputs, and the grouped
// dX / dW / bias-gradient GEMM that nova-fuse makes of a linear layer's
// backward (taken from GPT-2's step, at ragged sizes).
func.func @mm_tf32(%a: tensor<257x129xf32>, %b: tensor<129x383xf32>) -> tensor<257x383xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<257x129xf32>, tensor<129x383xf32>) -> tensor<257x383xf32> {
  ^bb0(%x: tensor<257x129xf32>, %y: tensor<129x383xf32>):
    %p = nova.matmul %x, %y {nova.precision = "tf32"} : tensor<257x129xf32>, tensor<129x383xf32> -> tensor<257x383xf32>
    nova_tile.yield %p : tensor<257x383xf32>
  }
  return %r : tensor<257x383xf32>
}

func.func @mm_bf16(%a: tensor<257x129xbf16>, %b: tensor<129x383xbf16>) -> tensor<257x383xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<257x129xbf16>, tensor<129x383xbf16>) -> tensor<257x383xbf16> {
  ^bb0(%x: tensor<257x129xbf16>, %y: tensor<129x383xbf16>):
    %p = nova.matmul %x, %y : tensor<257x129xbf16>, tensor<129x383xbf16> -> tensor<257x383xbf16>
    nova_tile.yield %p : tensor<257x383xbf16>
  }
  return %r : tensor<257x383xbf16>
}

// 1000^3 in bf16, the bf16 product widened to f32 in the epilogue.
func.func @mm_bf16_1000(%a: tensor<1000x1000xbf16>, %b: tensor<1000x1000xbf16>) -> tensor<1000x1000xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<1000x1000xbf16>, tensor<1000x1000xbf16>) -> tensor<1000x1000xf32> {
  ^bb0(%x: tensor<1000x1000xbf16>, %y: tensor<1000x1000xbf16>):
    %p = nova.matmul %x, %y : tensor<1000x1000xbf16>, tensor<1000x1000xbf16> -> tensor<1000x1000xbf16>
    %o = nova.cast %p : tensor<1000x1000xbf16> to tensor<1000x1000xf32>
    nova_tile.yield %o : tensor<1000x1000xf32>
  }
  return %r : tensor<1000x1000xf32>
}

// Batch dims [3, 2]: the lhs is shared along the second (broadcast) and
// stored K x M, the rhs along the first and stored N x K; both staged with
// 16-byte loads (along M for the lhs, along K for the rhs), M ragged
// against the block tile.
func.func @mm_batched_t(%a: tensor<3x1x64x72xf32>, %b: tensor<2x33x64xf32>) -> tensor<3x2x72x33xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<3x1x64x72xf32>, tensor<2x33x64xf32>) -> tensor<3x2x72x33xf32> {
  ^bb0(%x: tensor<3x1x64x72xf32>, %y: tensor<2x33x64xf32>):
    %p = nova.matmul %x, %y transpose_lhs transpose_rhs {nova.precision = "tf32"} : tensor<3x1x64x72xf32>, tensor<2x33x64xf32> -> tensor<3x2x72x33xf32>
    nova_tile.yield %p : tensor<3x2x72x33xf32>
  }
  return %r : tensor<3x2x72x33xf32>
}

// A linear layer's forward in bf16: the f32 weight cast on load, bias and
// GELU (tanh) in the epilogue, the pre-activation kept for the backward.
func.func @mm_bias_gelu(%x: tensor<4x50x96xbf16>, %w: tensor<96x200xf32>, %bias: tensor<200xf32>)
    -> (tensor<4x50x200xbf16>, tensor<4x50x200xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x50x96xbf16>, tensor<96x200xf32>, tensor<200xf32>)
      -> (tensor<4x50x200xbf16>, tensor<4x50x200xbf16>) {
  ^bb0(%xa: tensor<4x50x96xbf16>, %wa: tensor<96x200xf32>, %ba: tensor<200xf32>):
    %wb = nova.cast %wa : tensor<96x200xf32> to tensor<96x200xbf16>
    %p = nova.matmul %xa, %wb : tensor<4x50x96xbf16>, tensor<96x200xbf16> -> tensor<4x50x200xbf16>
    %bb = nova.cast %ba : tensor<200xf32> to tensor<200xbf16>
    %h = nova.add %p, %bb : tensor<4x50x200xbf16>, tensor<200xbf16>
    %g = nova.gelu tanh %h : tensor<4x50x200xbf16>
    nova_tile.yield %h, %g : tensor<4x50x200xbf16>, tensor<4x50x200xbf16>
  }
  return %r#0, %r#1 : tensor<4x50x200xbf16>, tensor<4x50x200xbf16>
}

// GPT-2's grouped backward of a linear layer (y = x W^T + b): the bias
// gradient (a column sum of dy), dx = dy W and dW = dy^T x, one launch.
func.func @mm_grouped(%dy: tensor<2x50x192xbf16>, %w: tensor<64x192xf32>, %x: tensor<2x50x64xbf16>)
    -> (tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>) {
  %r:3 = nova_tile.fusion matmul (%dy, %w, %x) : (tensor<2x50x192xbf16>, tensor<64x192xf32>, tensor<2x50x64xbf16>)
      -> (tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>) {
  ^bb0(%arg0: tensor<2x50x192xbf16>, %arg1: tensor<64x192xf32>, %arg2: tensor<2x50x64xbf16>):
    %0 = nova.cast %arg0 : tensor<2x50x192xbf16> to tensor<2x50x192xf32>
    %1 = nova.reduce sum %0 dims [0, 1] keep_dims : tensor<2x50x192xf32> -> tensor<1x1x192xf32>
    %2 = nova.cast %arg1 : tensor<64x192xf32> to tensor<64x192xbf16>
    %3 = nova.matmul %arg0, %2 transpose_rhs : tensor<2x50x192xbf16>, tensor<64x192xbf16> -> tensor<2x50x64xbf16>
    %4 = nova.reshape %arg2 : tensor<2x50x64xbf16> -> tensor<100x64xbf16>
    %5 = nova.reshape %arg0 : tensor<2x50x192xbf16> -> tensor<100x192xbf16>
    %6 = nova.matmul %4, %5 transpose_lhs : tensor<100x64xbf16>, tensor<100x192xbf16> -> tensor<64x192xbf16>
    nova_tile.yield %1, %3, %6 : tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>
  }
  return %r#0, %r#1, %r#2 : tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>
}

// f32 without nova.precision = "tf32": f32 accuracy (3xTF32) against the
// interpreter's f32 product; plain TF32 misses the bound by 100x.
func.func @mm_f32(%a: tensor<257x129xf32>, %b: tensor<129x383xf32>) -> tensor<257x383xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<257x129xf32>, tensor<129x383xf32>) -> tensor<257x383xf32> {
  ^bb0(%x: tensor<257x129xf32>, %y: tensor<129x383xf32>):
    %p = nova.matmul %x, %y : tensor<257x129xf32>, tensor<129x383xf32> -> tensor<257x383xf32>
    nova_tile.yield %p : tensor<257x383xf32>
  }
  return %r : tensor<257x383xf32>
}
