// The attention pair of a GPT-2 124M layer (batch 2, 12 heads of 64,
// T = 1024, bf16, causal) as the step fuses it: q, k, v read from the qkv
// projection, dq, dk, dv written into one dqkv. A large-shape case of
// scripts/gpu/kernel-tests.sh; @gpt2_124m_forward is its forward alone
// (for timing it with nova-run --iterations).

func.func @gpt2_124m(%qkv: tensor<2x1024x2304xbf16>, %dy: tensor<2x1024x768xbf16>)
    -> tensor<2x1024x2304xbf16> {
  %f:2 = nova_tile.fusion attention_forward (%qkv)
      : (tensor<2x1024x2304xbf16>) -> (tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>) {
  ^bb0(%x: tensor<2x1024x2304xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 1024, 768] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %qr = nova.reshape %qs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %ks = nova.slice %x starts [0, 0, 768] limits [2, 1024, 1536] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %kr = nova.reshape %ks : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %vs = nova.slice %x starts [0, 0, 1536] limits [2, 1024, 2304] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %vr = nova.reshape %vs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16> -> tensor<2x12x1024x64xbf16>, tensor<2x12x1024xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x12x1024x64xbf16> -> tensor<2x1024x12x64xbf16>
    %y = nova.reshape %ot : tensor<2x1024x12x64xbf16> -> tensor<2x1024x768xbf16>
    nova_tile.yield %y, %lse : tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>
  }
  %g = nova_tile.fusion attention_backward (%qkv, %f#0, %f#1, %dy)
      : (tensor<2x1024x2304xbf16>, tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>, tensor<2x1024x768xbf16>)
      -> tensor<2x1024x2304xbf16> {
  ^bb0(%x: tensor<2x1024x2304xbf16>, %ya: tensor<2x1024x768xbf16>, %la: tensor<2x12x1024xf32>, %dya: tensor<2x1024x768xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 1024, 768] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %qr = nova.reshape %qs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %ks = nova.slice %x starts [0, 0, 768] limits [2, 1024, 1536] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %kr = nova.reshape %ks : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %vs = nova.slice %x starts [0, 0, 1536] limits [2, 1024, 2304] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %vr = nova.reshape %vs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %yr = nova.reshape %ya : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %o = nova.transpose %yr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %dr = nova.reshape %dya : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %do = nova.transpose %dr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %la, %do scale 0.125 causal : tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16>, tensor<2x12x1024xf32>, tensor<2x12x1024x64xbf16>
    %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x12x1024x64xbf16> -> tensor<2x1024x12x64xbf16>
    %dqr = nova.reshape %dqt : tensor<2x1024x12x64xbf16> -> tensor<2x1024x768xbf16>
    %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x12x1024x64xbf16> -> tensor<2x1024x12x64xbf16>
    %dkr = nova.reshape %dkt : tensor<2x1024x12x64xbf16> -> tensor<2x1024x768xbf16>
    %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x12x1024x64xbf16> -> tensor<2x1024x12x64xbf16>
    %dvr = nova.reshape %dvt : tensor<2x1024x12x64xbf16> -> tensor<2x1024x768xbf16>
    %dqkv = nova.concat %dqr, %dkr, %dvr dim 2 : tensor<2x1024x768xbf16>, tensor<2x1024x768xbf16>, tensor<2x1024x768xbf16> -> tensor<2x1024x2304xbf16>
    nova_tile.yield %dqkv : tensor<2x1024x2304xbf16>
  }
  return %g : tensor<2x1024x2304xbf16>
}

func.func @gpt2_124m_forward(%qkv: tensor<2x1024x2304xbf16>)
    -> (tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%qkv)
      : (tensor<2x1024x2304xbf16>) -> (tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>) {
  ^bb0(%x: tensor<2x1024x2304xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 1024, 768] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %qr = nova.reshape %qs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %ks = nova.slice %x starts [0, 0, 768] limits [2, 1024, 1536] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %kr = nova.reshape %ks : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %vs = nova.slice %x starts [0, 0, 1536] limits [2, 1024, 2304] strides [1, 1, 1] : tensor<2x1024x2304xbf16> -> tensor<2x1024x768xbf16>
    %vr = nova.reshape %vs : tensor<2x1024x768xbf16> -> tensor<2x1024x12x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x1024x12x64xbf16> -> tensor<2x12x1024x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16>, tensor<2x12x1024x64xbf16> -> tensor<2x12x1024x64xbf16>, tensor<2x12x1024xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x12x1024x64xbf16> -> tensor<2x1024x12x64xbf16>
    %y = nova.reshape %ot : tensor<2x1024x12x64xbf16> -> tensor<2x1024x768xbf16>
    nova_tile.yield %y, %lse : tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>
  }
  return %f#0, %f#1 : tensor<2x1024x768xbf16>, tensor<2x12x1024xf32>
}
