// Timing inputs (not kernel tests): y = x W^T at 4096^3, 8192^3 and the
// GPT-2 124M shapes (M = B*T = 16384; K x N = 768 x 2304, 768 x 3072,
// 3072 x 768), bf16 and TF32; in bf16 also the operands M/N-major as the
// GPT-2 step has them: the forward y = x W (W stored [K, N]), the weight
// gradient dW = x^T dy (contraction over the 16384 rows of both), and the
// classifier's logits x E^T (E [50304, 768]) and dX = dlogits E.
// scripts/gpu/wgmma-round.sh times them with nova-run --iterations next to
// torch.matmul on the same layouts.

func.func @bf16_4096(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  ^bb0(%x: tensor<4096x4096xbf16>, %y: tensor<4096x4096xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
    nova_tile.yield %p : tensor<4096x4096xbf16>
  }
  return %r : tensor<4096x4096xbf16>
}

func.func @bf16_8192(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  ^bb0(%x: tensor<8192x8192xbf16>, %y: tensor<8192x8192xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
    nova_tile.yield %p : tensor<8192x8192xbf16>
  }
  return %r : tensor<8192x8192xbf16>
}

func.func @bf16_gpt2_qkv(%a: tensor<16384x768xbf16>, %b: tensor<2304x768xbf16>) -> tensor<16384x2304xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<2304x768xbf16>) -> tensor<16384x2304xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<2304x768xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<16384x768xbf16>, tensor<2304x768xbf16> -> tensor<16384x2304xbf16>
    nova_tile.yield %p : tensor<16384x2304xbf16>
  }
  return %r : tensor<16384x2304xbf16>
}

func.func @bf16_gpt2_fc(%a: tensor<16384x768xbf16>, %b: tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<3072x768xbf16>) -> tensor<16384x3072xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<3072x768xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
    nova_tile.yield %p : tensor<16384x3072xbf16>
  }
  return %r : tensor<16384x3072xbf16>
}

func.func @bf16_gpt2_proj(%a: tensor<16384x3072xbf16>, %b: tensor<768x3072xbf16>) -> tensor<16384x768xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x3072xbf16>, tensor<768x3072xbf16>) -> tensor<16384x768xbf16> {
  ^bb0(%x: tensor<16384x3072xbf16>, %y: tensor<768x3072xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<16384x3072xbf16>, tensor<768x3072xbf16> -> tensor<16384x768xbf16>
    nova_tile.yield %p : tensor<16384x768xbf16>
  }
  return %r : tensor<16384x768xbf16>
}

func.func @tf32_4096(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  ^bb0(%x: tensor<4096x4096xf32>, %y: tensor<4096x4096xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
    nova_tile.yield %p : tensor<4096x4096xf32>
  }
  return %r : tensor<4096x4096xf32>
}

func.func @tf32_8192(%a: tensor<8192x8192xf32>, %b: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<8192x8192xf32>, tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  ^bb0(%x: tensor<8192x8192xf32>, %y: tensor<8192x8192xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<8192x8192xf32>, tensor<8192x8192xf32> -> tensor<8192x8192xf32>
    nova_tile.yield %p : tensor<8192x8192xf32>
  }
  return %r : tensor<8192x8192xf32>
}

func.func @tf32_gpt2_qkv(%a: tensor<16384x768xf32>, %b: tensor<2304x768xf32>) -> tensor<16384x2304xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xf32>, tensor<2304x768xf32>) -> tensor<16384x2304xf32> {
  ^bb0(%x: tensor<16384x768xf32>, %y: tensor<2304x768xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<16384x768xf32>, tensor<2304x768xf32> -> tensor<16384x2304xf32>
    nova_tile.yield %p : tensor<16384x2304xf32>
  }
  return %r : tensor<16384x2304xf32>
}

func.func @tf32_gpt2_fc(%a: tensor<16384x768xf32>, %b: tensor<3072x768xf32>) -> tensor<16384x3072xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xf32>, tensor<3072x768xf32>) -> tensor<16384x3072xf32> {
  ^bb0(%x: tensor<16384x768xf32>, %y: tensor<3072x768xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<16384x768xf32>, tensor<3072x768xf32> -> tensor<16384x3072xf32>
    nova_tile.yield %p : tensor<16384x3072xf32>
  }
  return %r : tensor<16384x3072xf32>
}

func.func @tf32_gpt2_proj(%a: tensor<16384x3072xf32>, %b: tensor<768x3072xf32>) -> tensor<16384x768xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x3072xf32>, tensor<768x3072xf32>) -> tensor<16384x768xf32> {
  ^bb0(%x: tensor<16384x3072xf32>, %y: tensor<768x3072xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<16384x3072xf32>, tensor<768x3072xf32> -> tensor<16384x768xf32>
    nova_tile.yield %p : tensor<16384x768xf32>
  }
  return %r : tensor<16384x768xf32>
}

func.func @bf16_xw_qkv(%a: tensor<16384x768xbf16>, %b: tensor<768x2304xbf16>) -> tensor<16384x2304xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<768x2304xbf16>) -> tensor<16384x2304xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<768x2304xbf16>):
    %p = nova.matmul %x, %y : tensor<16384x768xbf16>, tensor<768x2304xbf16> -> tensor<16384x2304xbf16>
    nova_tile.yield %p : tensor<16384x2304xbf16>
  }
  return %r : tensor<16384x2304xbf16>
}

func.func @bf16_xw_fc(%a: tensor<16384x768xbf16>, %b: tensor<768x3072xbf16>) -> tensor<16384x3072xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<768x3072xbf16>) -> tensor<16384x3072xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<768x3072xbf16>):
    %p = nova.matmul %x, %y : tensor<16384x768xbf16>, tensor<768x3072xbf16> -> tensor<16384x3072xbf16>
    nova_tile.yield %p : tensor<16384x3072xbf16>
  }
  return %r : tensor<16384x3072xbf16>
}

func.func @bf16_xw_proj(%a: tensor<16384x3072xbf16>, %b: tensor<3072x768xbf16>) -> tensor<16384x768xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x3072xbf16>, tensor<3072x768xbf16>) -> tensor<16384x768xbf16> {
  ^bb0(%x: tensor<16384x3072xbf16>, %y: tensor<3072x768xbf16>):
    %p = nova.matmul %x, %y : tensor<16384x3072xbf16>, tensor<3072x768xbf16> -> tensor<16384x768xbf16>
    nova_tile.yield %p : tensor<16384x768xbf16>
  }
  return %r : tensor<16384x768xbf16>
}

func.func @bf16_dw_qkv(%a: tensor<16384x768xbf16>, %b: tensor<16384x2304xbf16>) -> tensor<768x2304xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<16384x2304xbf16>) -> tensor<768x2304xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<16384x2304xbf16>):
    %p = nova.matmul %x, %y transpose_lhs : tensor<16384x768xbf16>, tensor<16384x2304xbf16> -> tensor<768x2304xbf16>
    nova_tile.yield %p : tensor<768x2304xbf16>
  }
  return %r : tensor<768x2304xbf16>
}

func.func @bf16_dw_fc(%a: tensor<16384x768xbf16>, %b: tensor<16384x3072xbf16>) -> tensor<768x3072xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<16384x3072xbf16>) -> tensor<768x3072xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<16384x3072xbf16>):
    %p = nova.matmul %x, %y transpose_lhs : tensor<16384x768xbf16>, tensor<16384x3072xbf16> -> tensor<768x3072xbf16>
    nova_tile.yield %p : tensor<768x3072xbf16>
  }
  return %r : tensor<768x3072xbf16>
}

func.func @bf16_dw_proj(%a: tensor<16384x3072xbf16>, %b: tensor<16384x768xbf16>) -> tensor<3072x768xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x3072xbf16>, tensor<16384x768xbf16>) -> tensor<3072x768xbf16> {
  ^bb0(%x: tensor<16384x3072xbf16>, %y: tensor<16384x768xbf16>):
    %p = nova.matmul %x, %y transpose_lhs : tensor<16384x3072xbf16>, tensor<16384x768xbf16> -> tensor<3072x768xbf16>
    nova_tile.yield %p : tensor<3072x768xbf16>
  }
  return %r : tensor<3072x768xbf16>
}

func.func @bf16_logits(%a: tensor<16384x768xbf16>, %b: tensor<50304x768xbf16>) -> tensor<16384x50304xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x768xbf16>, tensor<50304x768xbf16>) -> tensor<16384x50304xbf16> {
  ^bb0(%x: tensor<16384x768xbf16>, %y: tensor<50304x768xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<16384x768xbf16>, tensor<50304x768xbf16> -> tensor<16384x50304xbf16>
    nova_tile.yield %p : tensor<16384x50304xbf16>
  }
  return %r : tensor<16384x50304xbf16>
}

func.func @bf16_dlogits(%a: tensor<16384x50304xbf16>, %b: tensor<50304x768xbf16>) -> tensor<16384x768xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<16384x50304xbf16>, tensor<50304x768xbf16>) -> tensor<16384x768xbf16> {
  ^bb0(%x: tensor<16384x50304xbf16>, %y: tensor<50304x768xbf16>):
    %p = nova.matmul %x, %y : tensor<16384x50304xbf16>, tensor<50304x768xbf16> -> tensor<16384x768xbf16>
    nova_tile.yield %p : tensor<16384x768xbf16>
  }
  return %r : tensor<16384x768xbf16>
}
