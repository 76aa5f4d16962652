// Cases for the wgmma attention backward (AttentionBackwardWgmma.cpp),
// listed in scripts/gpu/kernel-tests.sh: the forward (wgmma too) gives O
// and the log-sum-exp, the backward's dQ, dK and dV are compared with the
// interpreter's. Sequences that are not a multiple of the 64- or 128-row
// tiles (zero fill and masks past the end, rows not stored), several
// (batch, head) pairs, causal and not, head dims 64 and 128; the GPT
// layout (Q, K, V as views of one qkv tensor) is attention.mlir's
// bwd_bf16_qkv. The *_long entries stream many tiles per block (6 and 5
// key blocks, 11 and 9 query blocks per (batch, head)). The persistent_*
// entries have enough work items (at least 8 per SM) for the persistent
// grid: 132 blocks walking 16 (persistent_c64: 4 items of 1 to 3 tiles per
// (batch, head)) and 8 items each, across both stationary sets (d64) or
// the one set (d128).

func.func @causal_d64(%q: tensor<2x3x200x64xbf16>, %k: tensor<2x3x200x64xbf16>, %v: tensor<2x3x200x64xbf16>, %dy: tensor<2x3x200x64xbf16>)
    -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) -> (tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>) {
  ^bb0(%qa: tensor<2x3x200x64xbf16>, %ka: tensor<2x3x200x64xbf16>, %va: tensor<2x3x200x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16> -> tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>
    nova_tile.yield %o, %lse : tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>) -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  ^bb0(%qa: tensor<2x3x200x64xbf16>, %ka: tensor<2x3x200x64xbf16>, %va: tensor<2x3x200x64xbf16>, %oa: tensor<2x3x200x64xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
}

func.func @full_d64(%q: tensor<1x2x130x64xbf16>, %k: tensor<1x2x130x64xbf16>, %v: tensor<1x2x130x64xbf16>, %dy: tensor<1x2x130x64xbf16>)
    -> (tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>) -> (tensor<1x2x130x64xbf16>, tensor<1x2x130xf32>) {
  ^bb0(%qa: tensor<1x2x130x64xbf16>, %ka: tensor<1x2x130x64xbf16>, %va: tensor<1x2x130x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 : tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16> -> tensor<1x2x130x64xbf16>, tensor<1x2x130xf32>
    nova_tile.yield %o, %lse : tensor<1x2x130x64xbf16>, tensor<1x2x130xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130xf32>, tensor<1x2x130x64xbf16>) -> (tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>) {
  ^bb0(%qa: tensor<1x2x130x64xbf16>, %ka: tensor<1x2x130x64xbf16>, %va: tensor<1x2x130x64xbf16>, %oa: tensor<1x2x130x64xbf16>, %la: tensor<1x2x130xf32>, %da: tensor<1x2x130x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 : tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130xf32>, tensor<1x2x130x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>, tensor<1x2x130x64xbf16>
}

func.func @causal_d128(%q: tensor<2x2x190x128xbf16>, %k: tensor<2x2x190x128xbf16>, %v: tensor<2x2x190x128xbf16>, %dy: tensor<2x2x190x128xbf16>)
    -> (tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>) -> (tensor<2x2x190x128xbf16>, tensor<2x2x190xf32>) {
  ^bb0(%qa: tensor<2x2x190x128xbf16>, %ka: tensor<2x2x190x128xbf16>, %va: tensor<2x2x190x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 causal : tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16> -> tensor<2x2x190x128xbf16>, tensor<2x2x190xf32>
    nova_tile.yield %o, %lse : tensor<2x2x190x128xbf16>, tensor<2x2x190xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190xf32>, tensor<2x2x190x128xbf16>) -> (tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>) {
  ^bb0(%qa: tensor<2x2x190x128xbf16>, %ka: tensor<2x2x190x128xbf16>, %va: tensor<2x2x190x128xbf16>, %oa: tensor<2x2x190x128xbf16>, %la: tensor<2x2x190xf32>, %da: tensor<2x2x190x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 causal : tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190xf32>, tensor<2x2x190x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>, tensor<2x2x190x128xbf16>
}

func.func @full_d128(%q: tensor<1x3x300x128xbf16>, %k: tensor<1x3x300x128xbf16>, %v: tensor<1x3x300x128xbf16>, %dy: tensor<1x3x300x128xbf16>)
    -> (tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>) -> (tensor<1x3x300x128xbf16>, tensor<1x3x300xf32>) {
  ^bb0(%qa: tensor<1x3x300x128xbf16>, %ka: tensor<1x3x300x128xbf16>, %va: tensor<1x3x300x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 : tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16> -> tensor<1x3x300x128xbf16>, tensor<1x3x300xf32>
    nova_tile.yield %o, %lse : tensor<1x3x300x128xbf16>, tensor<1x3x300xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300xf32>, tensor<1x3x300x128xbf16>) -> (tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>) {
  ^bb0(%qa: tensor<1x3x300x128xbf16>, %ka: tensor<1x3x300x128xbf16>, %va: tensor<1x3x300x128xbf16>, %oa: tensor<1x3x300x128xbf16>, %la: tensor<1x3x300xf32>, %da: tensor<1x3x300x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300xf32>, tensor<1x3x300x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>, tensor<1x3x300x128xbf16>
}

func.func @causal_d64_long(%q: tensor<1x3x700x64xbf16>, %k: tensor<1x3x700x64xbf16>, %v: tensor<1x3x700x64xbf16>, %dy: tensor<1x3x700x64xbf16>)
    -> (tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>) -> (tensor<1x3x700x64xbf16>, tensor<1x3x700xf32>) {
  ^bb0(%qa: tensor<1x3x700x64xbf16>, %ka: tensor<1x3x700x64xbf16>, %va: tensor<1x3x700x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16> -> tensor<1x3x700x64xbf16>, tensor<1x3x700xf32>
    nova_tile.yield %o, %lse : tensor<1x3x700x64xbf16>, tensor<1x3x700xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700xf32>, tensor<1x3x700x64xbf16>) -> (tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>) {
  ^bb0(%qa: tensor<1x3x700x64xbf16>, %ka: tensor<1x3x700x64xbf16>, %va: tensor<1x3x700x64xbf16>, %oa: tensor<1x3x700x64xbf16>, %la: tensor<1x3x700xf32>, %da: tensor<1x3x700x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700xf32>, tensor<1x3x700x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>, tensor<1x3x700x64xbf16>
}
func.func @full_d64_long(%q: tensor<2x2x520x64xbf16>, %k: tensor<2x2x520x64xbf16>, %v: tensor<2x2x520x64xbf16>, %dy: tensor<2x2x520x64xbf16>)
    -> (tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>) -> (tensor<2x2x520x64xbf16>, tensor<2x2x520xf32>) {
  ^bb0(%qa: tensor<2x2x520x64xbf16>, %ka: tensor<2x2x520x64xbf16>, %va: tensor<2x2x520x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 : tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16> -> tensor<2x2x520x64xbf16>, tensor<2x2x520xf32>
    nova_tile.yield %o, %lse : tensor<2x2x520x64xbf16>, tensor<2x2x520xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520xf32>, tensor<2x2x520x64xbf16>) -> (tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>) {
  ^bb0(%qa: tensor<2x2x520x64xbf16>, %ka: tensor<2x2x520x64xbf16>, %va: tensor<2x2x520x64xbf16>, %oa: tensor<2x2x520x64xbf16>, %la: tensor<2x2x520xf32>, %da: tensor<2x2x520x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 : tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520xf32>, tensor<2x2x520x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>, tensor<2x2x520x64xbf16>
}
func.func @persistent_c64(%q: tensor<2x132x130x64xbf16>, %k: tensor<2x132x130x64xbf16>, %v: tensor<2x132x130x64xbf16>, %dy: tensor<2x132x130x64xbf16>)
    -> (tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>) -> (tensor<2x132x130x64xbf16>, tensor<2x132x130xf32>) {
  ^bb0(%qa: tensor<2x132x130x64xbf16>, %ka: tensor<2x132x130x64xbf16>, %va: tensor<2x132x130x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16> -> tensor<2x132x130x64xbf16>, tensor<2x132x130xf32>
    nova_tile.yield %o, %lse : tensor<2x132x130x64xbf16>, tensor<2x132x130xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130xf32>, tensor<2x132x130x64xbf16>) -> (tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>) {
  ^bb0(%qa: tensor<2x132x130x64xbf16>, %ka: tensor<2x132x130x64xbf16>, %va: tensor<2x132x130x64xbf16>, %oa: tensor<2x132x130x64xbf16>, %la: tensor<2x132x130xf32>, %da: tensor<2x132x130x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130xf32>, tensor<2x132x130x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>, tensor<2x132x130x64xbf16>
}
func.func @persistent_f128(%q: tensor<4x132x40x128xbf16>, %k: tensor<4x132x40x128xbf16>, %v: tensor<4x132x40x128xbf16>, %dy: tensor<4x132x40x128xbf16>)
    -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) -> (tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>) {
  ^bb0(%qa: tensor<4x132x40x128xbf16>, %ka: tensor<4x132x40x128xbf16>, %va: tensor<4x132x40x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16> -> tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>
    nova_tile.yield %o, %lse : tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>) -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  ^bb0(%qa: tensor<4x132x40x128xbf16>, %ka: tensor<4x132x40x128xbf16>, %va: tensor<4x132x40x128xbf16>, %oa: tensor<4x132x40x128xbf16>, %la: tensor<4x132x40xf32>, %da: tensor<4x132x40x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
}
