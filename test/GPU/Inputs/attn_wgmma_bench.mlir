// Causal bf16 attention at the sizes the benchmark round times against
// PyTorch SDPA (scripts/gpu/attn-round.sh): B16 H12 T1024 D64 and the same
// work at T4096 D128 (B2 H3), forward alone and forward + backward. q, k, v
// are [B, H, T, D] as SDPA takes them.

func.func @fwd_d64(%q: tensor<16x12x1024x64xbf16>, %k: tensor<16x12x1024x64xbf16>, %v: tensor<16x12x1024x64xbf16>) -> (tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>) -> (tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>) {
  ^bb0(%qa: tensor<16x12x1024x64xbf16>, %ka: tensor<16x12x1024x64xbf16>, %va: tensor<16x12x1024x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16> -> tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>
    nova_tile.yield %o, %lse : tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>
  }
  return %f#0, %f#1 : tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>
}

func.func @fwdbwd_d64(%q: tensor<16x12x1024x64xbf16>, %k: tensor<16x12x1024x64xbf16>, %v: tensor<16x12x1024x64xbf16>, %dy: tensor<16x12x1024x64xbf16>) -> (tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>) -> (tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>) {
  ^bb0(%qa: tensor<16x12x1024x64xbf16>, %ka: tensor<16x12x1024x64xbf16>, %va: tensor<16x12x1024x64xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16> -> tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>
    nova_tile.yield %o, %lse : tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy) : (tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>, tensor<16x12x1024x64xbf16>) -> (tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>) {
  ^bb0(%qa: tensor<16x12x1024x64xbf16>, %ka: tensor<16x12x1024x64xbf16>, %va: tensor<16x12x1024x64xbf16>, %oa: tensor<16x12x1024x64xbf16>, %la: tensor<16x12x1024xf32>, %da: tensor<16x12x1024x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024xf32>, tensor<16x12x1024x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>, tensor<16x12x1024x64xbf16>
}

func.func @fwd_d128(%q: tensor<2x3x4096x128xbf16>, %k: tensor<2x3x4096x128xbf16>, %v: tensor<2x3x4096x128xbf16>) -> (tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>) -> (tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>) {
  ^bb0(%qa: tensor<2x3x4096x128xbf16>, %ka: tensor<2x3x4096x128xbf16>, %va: tensor<2x3x4096x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831843 causal : tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16> -> tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>
    nova_tile.yield %o, %lse : tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>
  }
  return %f#0, %f#1 : tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>
}

func.func @fwdbwd_d128(%q: tensor<2x3x4096x128xbf16>, %k: tensor<2x3x4096x128xbf16>, %v: tensor<2x3x4096x128xbf16>, %dy: tensor<2x3x4096x128xbf16>) -> (tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>) -> (tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>) {
  ^bb0(%qa: tensor<2x3x4096x128xbf16>, %ka: tensor<2x3x4096x128xbf16>, %va: tensor<2x3x4096x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831843 causal : tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16> -> tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>
    nova_tile.yield %o, %lse : tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy) : (tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>, tensor<2x3x4096x128xbf16>) -> (tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>) {
  ^bb0(%qa: tensor<2x3x4096x128xbf16>, %ka: tensor<2x3x4096x128xbf16>, %va: tensor<2x3x4096x128xbf16>, %oa: tensor<2x3x4096x128xbf16>, %la: tensor<2x3x4096xf32>, %da: tensor<2x3x4096x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831843 causal : tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096xf32>, tensor<2x3x4096x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>, tensor<2x3x4096x128xbf16>
}
