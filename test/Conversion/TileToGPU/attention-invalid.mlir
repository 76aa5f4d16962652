// Attention kernels convert-tile-to-gpu refuses are located errors naming
// the kernel and the reason.
// RUN: nova-opt %s --convert-tile-to-gpu -split-input-file -verify-diagnostics

// expected-error @below {{convert-tile-to-gpu: kernel @odd_head (attention_forward): head dim 40 of the query/key is not lowered (a multiple of 16, at most 128)}}
nova_tile.kernel @odd_head attention_forward schedule <tile = [128, 128, 32], threads = 256, stages = 2, vector = 8, split_k = 1> {
^bb0(%q: tensor<2x32x40xbf16>, %k: tensor<2x32x40xbf16>, %v: tensor<2x32x40xbf16>):
  %o = nova.attention %q, %k, %v scale 0.125 : tensor<2x32x40xbf16>, tensor<2x32x40xbf16>, tensor<2x32x40xbf16> -> tensor<2x32x40xbf16>
  nova_tile.yield %o : tensor<2x32x40xbf16>
}

// -----

// expected-error @below {{convert-tile-to-gpu: kernel @wide_value (attention_forward): head dim 256 of the value is not lowered (a multiple of 16, at most 128)}}
nova_tile.kernel @wide_value attention_forward schedule <tile = [128, 128, 32], threads = 256, stages = 2, vector = 8, split_k = 1> {
^bb0(%q: tensor<2x32x64xbf16>, %k: tensor<2x32x64xbf16>, %v: tensor<2x32x256xbf16>):
  %o = nova.attention %q, %k, %v scale 0.125 : tensor<2x32x64xbf16>, tensor<2x32x64xbf16>, tensor<2x32x256xbf16> -> tensor<2x32x256xbf16>
  nova_tile.yield %o : tensor<2x32x256xbf16>
}

// -----

// expected-error @below {{convert-tile-to-gpu: kernel @half (attention_backward): f16 operands are not lowered (bf16, or f32 as TF32)}}
nova_tile.kernel @half attention_backward schedule <tile = [128, 128, 32], threads = 256, stages = 2, vector = 8, split_k = 1> {
^bb0(%q: tensor<2x32x64xf16>, %k: tensor<2x32x64xf16>, %v: tensor<2x32x64xf16>, %o: tensor<2x32x64xf16>, %lse: tensor<2x32xf32>, %dy: tensor<2x32x64xf16>):
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %dy scale 0.125 : tensor<2x32x64xf16>, tensor<2x32x64xf16>, tensor<2x32x64xf16>, tensor<2x32x64xf16>, tensor<2x32xf32>, tensor<2x32x64xf16>
  nova_tile.yield %dq, %dk, %dv : tensor<2x32x64xf16>, tensor<2x32x64xf16>, tensor<2x32x64xf16>
}


// -----

// expected-error @below {{convert-tile-to-gpu: kernel @no_keys (attention_forward): empty attention (no batch, queries or keys) is not lowered}}
nova_tile.kernel @no_keys attention_forward schedule <tile = [128, 128, 32], threads = 256, stages = 2, vector = 8, split_k = 1> {
^bb0(%q: tensor<2x8x32xbf16>, %k: tensor<2x0x32xbf16>, %v: tensor<2x0x32xbf16>):
  %o = nova.attention %q, %k, %v scale 0.125 : tensor<2x8x32xbf16>, tensor<2x0x32xbf16>, tensor<2x0x32xbf16> -> tensor<2x8x32xbf16>
  nova_tile.yield %o : tensor<2x8x32xbf16>
}
