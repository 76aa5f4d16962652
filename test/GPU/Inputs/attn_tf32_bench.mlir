// Causal TF32 attention (f32 operands, products in TF32: the mma.sync
// kernels) at the GPT-2 124M step's size, B16 H12 T1024 D64, forward alone
// and forward + backward; timed by scripts/gpu/attn-round.sh with
// ATTN_BENCH=tf32 against PyTorch SDPA on f32 with TF32 allowed.
func.func @fwd_tf32_d64(%q: tensor<16x12x1024x64xf32>, %k: tensor<16x12x1024x64xf32>, %v: tensor<16x12x1024x64xf32>) -> (tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>) -> (tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>) {
  ^bb0(%qa: tensor<16x12x1024x64xf32>, %ka: tensor<16x12x1024x64xf32>, %va: tensor<16x12x1024x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal {nova.precision = "tf32"} : tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32> -> tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>
    nova_tile.yield %o, %lse : tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>
  }
  return %f#0, %f#1 : tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>
}

func.func @fwdbwd_tf32_d64(%q: tensor<16x12x1024x64xf32>, %k: tensor<16x12x1024x64xf32>, %v: tensor<16x12x1024x64xf32>, %dy: tensor<16x12x1024x64xf32>) -> (tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>) -> (tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>) {
  ^bb0(%qa: tensor<16x12x1024x64xf32>, %ka: tensor<16x12x1024x64xf32>, %va: tensor<16x12x1024x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal {nova.precision = "tf32"} : tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32> -> tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>
    nova_tile.yield %o, %lse : tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy) : (tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>, tensor<16x12x1024x64xf32>) -> (tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>) {
  ^bb0(%qa: tensor<16x12x1024x64xf32>, %ka: tensor<16x12x1024x64xf32>, %va: tensor<16x12x1024x64xf32>, %oa: tensor<16x12x1024x64xf32>, %la: tensor<16x12x1024xf32>, %da: tensor<16x12x1024x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal {nova.precision = "tf32"} : tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024xf32>, tensor<16x12x1024x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>
  }
  return %g#0, %g#1, %g#2 : tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>, tensor<16x12x1024x64xf32>
}
