// bf16 attention forwards that convert-tile-to-gpu lowers to wgmma with
// TMA (AttentionWgmma.cpp), against the interpreter: ragged sequences (no
// multiple of the 128-row tiles: TMA zero fill and masked edges), head
// dims 64 and 128, causal and not, q/k/v as windows of one packed qkv
// tensor (4-d TMA boxes over batch and head) and as plain [B, H, T, D]
// tensors, a unit batch dim, an epilogue on the output, and nova.attention
// without the log-sum-exp.

// Causal, T = 300, three heads of 64 read from one [B, T, 3C] tensor.
func.func @qkv_causal_d64(%qkv: tensor<2x300x576xbf16>) -> (tensor<2x300x192xbf16>, tensor<2x3x300xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%qkv) : (tensor<2x300x576xbf16>) -> (tensor<2x300x192xbf16>, tensor<2x3x300xf32>) {
  ^bb0(%x: tensor<2x300x576xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [2, 300, 192] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %qr = nova.reshape %qs : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %ks = nova.slice %x starts [0, 0, 192] limits [2, 300, 384] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %kr = nova.reshape %ks : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %vs = nova.slice %x starts [0, 0, 384] limits [2, 300, 576] strides [1, 1, 1] : tensor<2x300x576xbf16> -> tensor<2x300x192xbf16>
    %vr = nova.reshape %vs : tensor<2x300x192xbf16> -> tensor<2x300x3x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x300x3x64xbf16> -> tensor<2x3x300x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<2x3x300x64xbf16>, tensor<2x3x300x64xbf16>, tensor<2x3x300x64xbf16> -> tensor<2x3x300x64xbf16>, tensor<2x3x300xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x3x300x64xbf16> -> tensor<2x300x3x64xbf16>
    %y = nova.reshape %ot : tensor<2x300x3x64xbf16> -> tensor<2x300x192xbf16>
    nova_tile.yield %y, %lse : tensor<2x300x192xbf16>, tensor<2x3x300xf32>
  }
  return %f#0, %f#1 : tensor<2x300x192xbf16>, tensor<2x3x300xf32>
}

// Not causal, 200 queries over 333 keys, head dim 128.
func.func @cross_d128(%q: tensor<2x2x200x128xbf16>, %k: tensor<2x2x333x128xbf16>, %v: tensor<2x2x333x128xbf16>) -> (tensor<2x2x200x128xbf16>, tensor<2x2x200xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x2x200x128xbf16>, tensor<2x2x333x128xbf16>, tensor<2x2x333x128xbf16>) -> (tensor<2x2x200x128xbf16>, tensor<2x2x200xf32>) {
  ^bb0(%qa: tensor<2x2x200x128xbf16>, %ka: tensor<2x2x333x128xbf16>, %va: tensor<2x2x333x128xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.08838834764831845 : tensor<2x2x200x128xbf16>, tensor<2x2x333x128xbf16>, tensor<2x2x333x128xbf16> -> tensor<2x2x200x128xbf16>, tensor<2x2x200xf32>
    nova_tile.yield %o, %lse : tensor<2x2x200x128xbf16>, tensor<2x2x200xf32>
  }
  return %f#0, %f#1 : tensor<2x2x200x128xbf16>, tensor<2x2x200xf32>
}

// Causal, T = 256, head dim 128, a unit batch dim, nova.attention (no
// log-sum-exp) with an f32 epilogue.
func.func @causal_d128_epilogue(%q: tensor<1x4x256x128xbf16>, %k: tensor<1x4x256x128xbf16>, %v: tensor<1x4x256x128xbf16>) -> tensor<1x4x256x128xf32> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16>) -> tensor<1x4x256x128xf32> {
  ^bb0(%qa: tensor<1x4x256x128xbf16>, %ka: tensor<1x4x256x128xbf16>, %va: tensor<1x4x256x128xbf16>):
    %o = nova.attention %qa, %ka, %va scale 0.08838834764831845 causal : tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16>, tensor<1x4x256x128xbf16> -> tensor<1x4x256x128xbf16>
    %of = nova.cast %o : tensor<1x4x256x128xbf16> to tensor<1x4x256x128xf32>
    %y = nova.mul %of, %of : tensor<1x4x256x128xf32>, tensor<1x4x256x128xf32>
    nova_tile.yield %y : tensor<1x4x256x128xf32>
  }
  return %f : tensor<1x4x256x128xf32>
}
