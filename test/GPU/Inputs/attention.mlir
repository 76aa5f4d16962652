// Attention kernels with ragged sequence lengths (100, 257: no multiple of
// a tile) and the views the GPT-2 step fuses: q, k, v as strided windows of
// one qkv projection, the output written back as [B, T, C] through a
// transpose and reshape, the gradients as windows of one dqkv.

// f32 operands on TF32 tensor cores (the interpreter rounds the operands
// the same way), causal, T = 100, head dim 64; output and log-sum-exp.
func.func @fwd_f32(%q: tensor<2x2x100x64xf32>, %k: tensor<2x2x100x64xf32>,
                   %v: tensor<2x2x100x64xf32>)
    -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  %r:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal {nova.precision = "tf32"} : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
    nova_tile.yield %o, %lse : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
  }
  return %r#0, %r#1 : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
}

// bf16, causal, T = 257, two heads of 64 read from one [B, T, 3C] tensor;
// the output in [B, T, C] and the log-sum-exp.
func.func @fwd_bf16_qkv(%qkv: tensor<2x257x384xbf16>)
    -> (tensor<2x257x128xbf16>, tensor<2x2x257xf32>) {
  %r:2 = nova_tile.fusion attention_forward (%qkv)
      : (tensor<2x257x384xbf16>) -> (tensor<2x257x128xbf16>, tensor<2x2x257xf32>) {
  ^bb0(%x: tensor<2x257x384xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 257, 128] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %qr = nova.reshape %qs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %ks = nova.slice %x starts [0, 0, 128] limits [2, 257, 256] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %kr = nova.reshape %ks : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %vs = nova.slice %x starts [0, 0, 256] limits [2, 257, 384] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %vr = nova.reshape %vs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16> -> tensor<2x2x257x64xbf16>, tensor<2x2x257xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x257x64xbf16> -> tensor<2x257x2x64xbf16>
    %y = nova.reshape %ot : tensor<2x257x2x64xbf16> -> tensor<2x257x128xbf16>
    nova_tile.yield %y, %lse : tensor<2x257x128xbf16>, tensor<2x2x257xf32>
  }
  return %r#0, %r#1 : tensor<2x257x128xbf16>, tensor<2x2x257xf32>
}

// Not causal, 100 queries over 257 keys, head dim 128, f32 inputs cast to
// bf16 in the prologue and an epilogue on the output.
func.func @fwd_bf16_cross(%q: tensor<3x100x128xf32>, %k: tensor<3x257x128xf32>,
                          %v: tensor<3x257x128xf32>) -> tensor<3x100x128xf32> {
  %r = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>)
      -> tensor<3x100x128xf32> {
  ^bb0(%qa: tensor<3x100x128xf32>, %ka: tensor<3x257x128xf32>, %va: tensor<3x257x128xf32>):
    %qh = nova.cast %qa : tensor<3x100x128xf32> to tensor<3x100x128xbf16>
    %kh = nova.cast %ka : tensor<3x257x128xf32> to tensor<3x257x128xbf16>
    %vh = nova.cast %va : tensor<3x257x128xf32> to tensor<3x257x128xbf16>
    %o = nova.attention %qh, %kh, %vh scale 0.08838834764831845 : tensor<3x100x128xbf16>, tensor<3x257x128xbf16>, tensor<3x257x128xbf16> -> tensor<3x100x128xbf16>
    %of = nova.cast %o : tensor<3x100x128xbf16> to tensor<3x100x128xf32>
    %y = nova.mul %of, %of : tensor<3x100x128xf32>, tensor<3x100x128xf32>
    nova_tile.yield %y : tensor<3x100x128xf32>
  }
  return %r : tensor<3x100x128xf32>
}

// The backward after its forward (so P is a softmax), f32 as TF32, causal,
// T = 100, head dim 64: dq, dk, dv as they are.
func.func @bwd_f32(%q: tensor<2x2x100x64xf32>, %k: tensor<2x2x100x64xf32>,
                   %v: tensor<2x2x100x64xf32>, %dy: tensor<2x2x100x64xf32>)
    -> (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal {nova.precision = "tf32"} : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
    nova_tile.yield %o, %lse : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>, %oa: tensor<2x2x100x64xf32>, %la: tensor<2x2x100xf32>, %da: tensor<2x2x100x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal {nova.precision = "tf32"} : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100xf32>, tensor<2x2x100x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>
  }
  return %g#0, %g#1, %g#2 : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>
}

// bf16, not causal, T = 257, two heads of 64 in one qkv tensor: dq, dk, dv
// written as the three windows of one dqkv (the GPT-2 step's backward).
func.func @bwd_bf16_qkv(%qkv: tensor<2x257x384xbf16>, %dy: tensor<2x257x128xbf16>)
    -> tensor<2x257x384xbf16> {
  %f:2 = nova_tile.fusion attention_forward (%qkv)
      : (tensor<2x257x384xbf16>) -> (tensor<2x257x128xbf16>, tensor<2x2x257xf32>) {
  ^bb0(%x: tensor<2x257x384xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 257, 128] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %qr = nova.reshape %qs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %ks = nova.slice %x starts [0, 0, 128] limits [2, 257, 256] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %kr = nova.reshape %ks : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %vs = nova.slice %x starts [0, 0, 256] limits [2, 257, 384] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %vr = nova.reshape %vs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 : tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16> -> tensor<2x2x257x64xbf16>, tensor<2x2x257xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x257x64xbf16> -> tensor<2x257x2x64xbf16>
    %y = nova.reshape %ot : tensor<2x257x2x64xbf16> -> tensor<2x257x128xbf16>
    nova_tile.yield %y, %lse : tensor<2x257x128xbf16>, tensor<2x2x257xf32>
  }
  %g = nova_tile.fusion attention_backward (%qkv, %f#0, %f#1, %dy)
      : (tensor<2x257x384xbf16>, tensor<2x257x128xbf16>, tensor<2x2x257xf32>, tensor<2x257x128xbf16>)
      -> tensor<2x257x384xbf16> {
  ^bb0(%x: tensor<2x257x384xbf16>, %ya: tensor<2x257x128xbf16>, %la: tensor<2x2x257xf32>, %dya: tensor<2x257x128xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 257, 128] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %qr = nova.reshape %qs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %ks = nova.slice %x starts [0, 0, 128] limits [2, 257, 256] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %kr = nova.reshape %ks : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %vs = nova.slice %x starts [0, 0, 256] limits [2, 257, 384] strides [1, 1, 1] : tensor<2x257x384xbf16> -> tensor<2x257x128xbf16>
    %vr = nova.reshape %vs : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %yr = nova.reshape %ya : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %o = nova.transpose %yr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %dr = nova.reshape %dya : tensor<2x257x128xbf16> -> tensor<2x257x2x64xbf16>
    %do = nova.transpose %dr [0, 2, 1, 3] : tensor<2x257x2x64xbf16> -> tensor<2x2x257x64xbf16>
    %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %la, %do scale 0.125 : tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16>, tensor<2x2x257x64xbf16>, tensor<2x2x257xf32>, tensor<2x2x257x64xbf16>
    %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x2x257x64xbf16> -> tensor<2x257x2x64xbf16>
    %dqr = nova.reshape %dqt : tensor<2x257x2x64xbf16> -> tensor<2x257x128xbf16>
    %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x2x257x64xbf16> -> tensor<2x257x2x64xbf16>
    %dkr = nova.reshape %dkt : tensor<2x257x2x64xbf16> -> tensor<2x257x128xbf16>
    %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x2x257x64xbf16> -> tensor<2x257x2x64xbf16>
    %dvr = nova.reshape %dvt : tensor<2x257x2x64xbf16> -> tensor<2x257x128xbf16>
    %dqkv = nova.concat %dqr, %dkr, %dvr dim 2 : tensor<2x257x128xbf16>, tensor<2x257x128xbf16>, tensor<2x257x128xbf16> -> tensor<2x257x384xbf16>
    nova_tile.yield %dqkv : tensor<2x257x384xbf16>
  }
  return %g : tensor<2x257x384xbf16>
}

// The GPT-2 step's attention pair as nova-gpt2 --heads 2 --embd 64 --seq 32
// --batch 2 fuses it: bf16, causal, two heads of 32 in one qkv tensor.
func.func @gpt_small(%qkv: tensor<2x32x192xbf16>, %dy: tensor<2x32x64xbf16>)
    -> tensor<2x32x192xbf16> {
  %f:2 = nova_tile.fusion attention_forward (%qkv)
      : (tensor<2x32x192xbf16>) -> (tensor<2x32x64xbf16>, tensor<2x2x32xf32>) {
  ^bb0(%x: tensor<2x32x192xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 32, 64] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %qr = nova.reshape %qs : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %ks = nova.slice %x starts [0, 0, 64] limits [2, 32, 128] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %kr = nova.reshape %ks : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %vs = nova.slice %x starts [0, 0, 128] limits [2, 32, 192] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %vr = nova.reshape %vs : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.17677669529663687 causal : tensor<2x2x32x32xbf16>, tensor<2x2x32x32xbf16>, tensor<2x2x32x32xbf16> -> tensor<2x2x32x32xbf16>, tensor<2x2x32xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x32x32xbf16> -> tensor<2x32x2x32xbf16>
    %y = nova.reshape %ot : tensor<2x32x2x32xbf16> -> tensor<2x32x64xbf16>
    nova_tile.yield %y, %lse : tensor<2x32x64xbf16>, tensor<2x2x32xf32>
  }
  %g = nova_tile.fusion attention_backward (%qkv, %f#0, %f#1, %dy)
      : (tensor<2x32x192xbf16>, tensor<2x32x64xbf16>, tensor<2x2x32xf32>, tensor<2x32x64xbf16>)
      -> tensor<2x32x192xbf16> {
  ^bb0(%x: tensor<2x32x192xbf16>, %ya: tensor<2x32x64xbf16>, %la: tensor<2x2x32xf32>, %dya: tensor<2x32x64xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 32, 64] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %qr = nova.reshape %qs : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %ks = nova.slice %x starts [0, 0, 64] limits [2, 32, 128] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %kr = nova.reshape %ks : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %vs = nova.slice %x starts [0, 0, 128] limits [2, 32, 192] strides [1, 1, 1] : tensor<2x32x192xbf16> -> tensor<2x32x64xbf16>
    %vr = nova.reshape %vs : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %yr = nova.reshape %ya : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %o = nova.transpose %yr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %dr = nova.reshape %dya : tensor<2x32x64xbf16> -> tensor<2x32x2x32xbf16>
    %do = nova.transpose %dr [0, 2, 1, 3] : tensor<2x32x2x32xbf16> -> tensor<2x2x32x32xbf16>
    %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %la, %do scale 0.17677669529663687 causal : tensor<2x2x32x32xbf16>, tensor<2x2x32x32xbf16>, tensor<2x2x32x32xbf16>, tensor<2x2x32x32xbf16>, tensor<2x2x32xf32>, tensor<2x2x32x32xbf16>
    %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x2x32x32xbf16> -> tensor<2x32x2x32xbf16>
    %dqr = nova.reshape %dqt : tensor<2x32x2x32xbf16> -> tensor<2x32x64xbf16>
    %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x2x32x32xbf16> -> tensor<2x32x2x32xbf16>
    %dkr = nova.reshape %dkt : tensor<2x32x2x32xbf16> -> tensor<2x32x64xbf16>
    %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x2x32x32xbf16> -> tensor<2x32x2x32xbf16>
    %dvr = nova.reshape %dvt : tensor<2x32x2x32xbf16> -> tensor<2x32x64xbf16>
    %dqkv = nova.concat %dqr, %dkr, %dvr dim 2 : tensor<2x32x64xbf16>, tensor<2x32x64xbf16>, tensor<2x32x64xbf16> -> tensor<2x32x192xbf16>
    nova_tile.yield %dqkv : tensor<2x32x192xbf16>
  }
  return %g : tensor<2x32x192xbf16>
}

// Head dim 128, bf16, causal, T = 100: the backward's gradients each
// zero-padded to the [B, T, 3D] tensor they were sliced from, as autodiff
// writes them (the kernel also fills the zero windows).
func.func @bwd_bf16_padded(%q: tensor<2x100x128xbf16>, %k: tensor<2x100x128xbf16>,
                           %v: tensor<2x100x128xbf16>, %dy: tensor<2x100x128xbf16>)
    -> (tensor<2x100x384xbf16>, tensor<2x100x384xbf16>, tensor<2x100x384xbf16>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16>)
      -> (tensor<2x100x128xbf16>, tensor<2x100xf32>) {
  ^bb0(%qa: tensor<2x100x128xbf16>, %ka: tensor<2x100x128xbf16>, %va: tensor<2x100x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 causal : tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16> -> tensor<2x100x128xbf16>, tensor<2x100xf32>
    nova_tile.yield %o, %lse : tensor<2x100x128xbf16>, tensor<2x100xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100xf32>, tensor<2x100x128xbf16>)
      -> (tensor<2x100x384xbf16>, tensor<2x100x384xbf16>, tensor<2x100x384xbf16>) {
  ^bb0(%qa: tensor<2x100x128xbf16>, %ka: tensor<2x100x128xbf16>, %va: tensor<2x100x128xbf16>, %oa: tensor<2x100x128xbf16>, %la: tensor<2x100xf32>, %da: tensor<2x100x128xbf16>):
    %z128 = nova.constant dense<0.0> : tensor<2x100x128xbf16>
    %z256 = nova.constant dense<0.0> : tensor<2x100x256xbf16>
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 causal : tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100xf32>, tensor<2x100x128xbf16>
    %pq = nova.concat %dq, %z256 dim 2 : tensor<2x100x128xbf16>, tensor<2x100x256xbf16> -> tensor<2x100x384xbf16>
    %pk = nova.concat %z128, %dk, %z128 dim 2 : tensor<2x100x128xbf16>, tensor<2x100x128xbf16>, tensor<2x100x128xbf16> -> tensor<2x100x384xbf16>
    %pv = nova.concat %z256, %dv dim 2 : tensor<2x100x256xbf16>, tensor<2x100x128xbf16> -> tensor<2x100x384xbf16>
    nova_tile.yield %pq, %pk, %pv : tensor<2x100x384xbf16>, tensor<2x100x384xbf16>, tensor<2x100x384xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x100x384xbf16>, tensor<2x100x384xbf16>, tensor<2x100x384xbf16>
}

// f32 as TF32, head dim 128 (16-row tiles), not causal, 100 queries over
// 257 keys: both sequence lengths ragged.
func.func @bwd_f32_cross(%q: tensor<3x100x128xf32>, %k: tensor<3x257x128xf32>,
                         %v: tensor<3x257x128xf32>, %dy: tensor<3x100x128xf32>)
    -> (tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>)
      -> (tensor<3x100x128xf32>, tensor<3x100xf32>) {
  ^bb0(%qa: tensor<3x100x128xf32>, %ka: tensor<3x257x128xf32>, %va: tensor<3x257x128xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 {nova.precision = "tf32"} : tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32> -> tensor<3x100x128xf32>, tensor<3x100xf32>
    nova_tile.yield %o, %lse : tensor<3x100x128xf32>, tensor<3x100xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>, tensor<3x100x128xf32>, tensor<3x100xf32>, tensor<3x100x128xf32>)
      -> (tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>) {
  ^bb0(%qa: tensor<3x100x128xf32>, %ka: tensor<3x257x128xf32>, %va: tensor<3x257x128xf32>, %oa: tensor<3x100x128xf32>, %la: tensor<3x100xf32>, %da: tensor<3x100x128xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 {nova.precision = "tf32"} : tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>, tensor<3x100x128xf32>, tensor<3x100xf32>, tensor<3x100x128xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>
  }
  return %g#0, %g#1, %g#2 : tensor<3x100x128xf32>, tensor<3x257x128xf32>, tensor<3x257x128xf32>
}

// f32 without nova.precision = "tf32": f32 accuracy (3xTF32 products), so
// the bound is 100x tighter than TF32 could meet.
func.func @fwd_f32_exact(%q: tensor<2x2x100x64xf32>, %k: tensor<2x2x100x64xf32>,
                   %v: tensor<2x2x100x64xf32>)
    -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  %r:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
    nova_tile.yield %o, %lse : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
  }
  return %r#0, %r#1 : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
}

func.func @bwd_f32_exact(%q: tensor<2x2x100x64xf32>, %k: tensor<2x2x100x64xf32>,
                   %v: tensor<2x2x100x64xf32>, %dy: tensor<2x2x100x64xf32>)
    -> (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32> -> tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
    nova_tile.yield %o, %lse : tensor<2x2x100x64xf32>, tensor<2x2x100xf32>
  }
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %f#0, %f#1, %dy)
      : (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100xf32>, tensor<2x2x100x64xf32>)
      -> (tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>) {
  ^bb0(%qa: tensor<2x2x100x64xf32>, %ka: tensor<2x2x100x64xf32>, %va: tensor<2x2x100x64xf32>, %oa: tensor<2x2x100x64xf32>, %la: tensor<2x2x100xf32>, %da: tensor<2x2x100x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100xf32>, tensor<2x2x100x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>
  }
  return %g#0, %g#1, %g#2 : tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>, tensor<2x2x100x64xf32>
}

