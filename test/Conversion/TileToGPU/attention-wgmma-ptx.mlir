// The wgmma attention forwards through NVVM, PTX and ptxas for sm_90a (as
// matmul-wgmma-ptx.mlir does for the GEMM): ptxas (run with -v through a
// wrapper that keeps its report) neither serializes the wgmma pipeline (no
// C7510-C7519 warning: P is packed to bf16 only after the P V group that
// reads the previous P retires, and each group has its own fence) nor
// spills, at head dims 64 and 128.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu -o %t/gpu.mlir
// RUN: printf '#!/bin/sh\n"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -v "$@" >> "%t/ptxas.log" 2>&1\n' > %t/ptxas-v
// RUN: chmod +x %t/ptxas-v
// RUN: nova-gpu-pack %t/gpu.mlir --ptxas %t/ptxas-v -o %t/k.nvx
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751 --implicit-check-not=warning < %t/ptxas.log
// RUN: grep -a -o -E "wgmma.mma_async.sync.aligned.m64n[0-9]+k[0-9]+.f32.[a-z0-9]+|\.param \.align 64 \.b8 [a-z0-9_]+\[128\]|cp.async.bulk.tensor.[0-9]d|setmaxnreg.[a-z]+.sync.aligned.u32[[:space:]]+[0-9]+" %t/k.nvx | sed 's/attention_forward_[0-9a-f]*_param/P/' | sort | uniq -c | FileCheck %s

// PTXAS: Compiling entry function 'attention_forward_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'attention_forward_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Both kernels in one .nvx: three TMA descriptors each (parameters 3-5
// after d64's qkv and two outputs, 4-6 after d128's q, k, v and output),
// 4-d boxes (head dim, rows, head, batch), one load each of Q, K and V at
// d64 and two (64-column chunks) at d128; S = Q K^T as m64n128k16 (4 per
// key tile at d64, 8 at d128, in the first tile and the pipelined loop),
// P V as m64n64k16 at d64 and m64n128k16 at d128 (8 per key tile, in the
// loop and after it).
// CHECK-DAG: {{ +}}1 .param .align 64 .b8 P_3[128]
// CHECK-DAG: {{ +}}2 .param .align 64 .b8 P_4[128]
// CHECK-DAG: {{ +}}2 .param .align 64 .b8 P_5[128]
// CHECK-DAG: {{ +}}1 .param .align 64 .b8 P_6[128]
// CHECK-DAG: {{ +}}2 setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: {{ +}}2 setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: {{ +}}9 cp.async.bulk.tensor.4d
// CHECK-DAG: {{ +}}40 wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16
// CHECK-DAG: {{ +}}16 wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16
func.func @d64(%qkv: tensor<4x1024x768xbf16>) -> (tensor<4x1024x256xbf16>, tensor<4x4x1024xf32>) {
  %f:2 = nova_tile.fusion attention_forward (%qkv) : (tensor<4x1024x768xbf16>) -> (tensor<4x1024x256xbf16>, tensor<4x4x1024xf32>) {
  ^bb0(%x: tensor<4x1024x768xbf16>):
    %qs = nova.slice %x starts [0, 0, 0] limits [4, 1024, 256] strides [1, 1, 1] : tensor<4x1024x768xbf16> -> tensor<4x1024x256xbf16>
    %qr = nova.reshape %qs : tensor<4x1024x256xbf16> -> tensor<4x1024x4x64xbf16>
    %q = nova.transpose %qr [0, 2, 1, 3] : tensor<4x1024x4x64xbf16> -> tensor<4x4x1024x64xbf16>
    %ks = nova.slice %x starts [0, 0, 256] limits [4, 1024, 512] strides [1, 1, 1] : tensor<4x1024x768xbf16> -> tensor<4x1024x256xbf16>
    %kr = nova.reshape %ks : tensor<4x1024x256xbf16> -> tensor<4x1024x4x64xbf16>
    %k = nova.transpose %kr [0, 2, 1, 3] : tensor<4x1024x4x64xbf16> -> tensor<4x4x1024x64xbf16>
    %vs = nova.slice %x starts [0, 0, 512] limits [4, 1024, 768] strides [1, 1, 1] : tensor<4x1024x768xbf16> -> tensor<4x1024x256xbf16>
    %vr = nova.reshape %vs : tensor<4x1024x256xbf16> -> tensor<4x1024x4x64xbf16>
    %v = nova.transpose %vr [0, 2, 1, 3] : tensor<4x1024x4x64xbf16> -> tensor<4x4x1024x64xbf16>
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal : tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16>, tensor<4x4x1024x64xbf16> -> tensor<4x4x1024x64xbf16>, tensor<4x4x1024xf32>
    %ot = nova.transpose %o [0, 2, 1, 3] : tensor<4x4x1024x64xbf16> -> tensor<4x1024x4x64xbf16>
    %y = nova.reshape %ot : tensor<4x1024x4x64xbf16> -> tensor<4x1024x256xbf16>
    nova_tile.yield %y, %lse : tensor<4x1024x256xbf16>, tensor<4x4x1024xf32>
  }
  return %f#0, %f#1 : tensor<4x1024x256xbf16>, tensor<4x4x1024xf32>
}

func.func @d128(%q: tensor<2x4x512x128xbf16>, %k: tensor<2x4x512x128xbf16>, %v: tensor<2x4x512x128xbf16>) -> tensor<2x4x512x128xbf16> {
  %f = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x4x512x128xbf16>, tensor<2x4x512x128xbf16>, tensor<2x4x512x128xbf16>) -> tensor<2x4x512x128xbf16> {
  ^bb0(%qa: tensor<2x4x512x128xbf16>, %ka: tensor<2x4x512x128xbf16>, %va: tensor<2x4x512x128xbf16>):
    %o = nova.attention %qa, %ka, %va scale 0.08838834764831845 causal : tensor<2x4x512x128xbf16>, tensor<2x4x512x128xbf16>, tensor<2x4x512x128xbf16> -> tensor<2x4x512x128xbf16>
    nova_tile.yield %o : tensor<2x4x512x128xbf16>
  }
  return %f : tensor<2x4x512x128xbf16>
}
