// The wgmma attention backward through NVVM, PTX and ptxas for sm_90a (as
// attention-wgmma-ptx.mlir does for the forward): ptxas (run with -v
// through a wrapper that keeps its report) does not serialize the wgmma
// pipeline (no C7510-C7519 warning) at head dims 64 and 128, and honours
// setmaxnreg (no C7508 "setmaxnreg ignored": the kernels declare
// .minnctapersm 1 beside .maxntid), so the d64 consumers, at 232 registers,
// spill nothing, with a block per work item (causal_d64) or on the
// persistent grid (persistent_d64, and persistent_d128 with its one
// stationary set). (With a block per item at d128 they still spill a few
// dozen bytes: dK, dV, S and dP live together; not checked here until that
// is fixed.)
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu -o %t/gpu.mlir
// RUN: printf '#!/bin/sh\n"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -v "$@" >> "%t/ptxas.log" 2>&1\n' > %t/ptxas-v
// RUN: chmod +x %t/ptxas-v
// RUN: nova-gpu-pack %t/gpu.mlir --ptxas %t/ptxas-v -o %t/k.nvx
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751 --implicit-check-not=C750 --implicit-check-not=warning < %t/ptxas.log
// RUN: grep -E "bytes spill stores" %t/ptxas.log | sed -E 's/^ +//' | sort | uniq -c | FileCheck %s --check-prefix=SPILLS
// RUN: grep -a -o -E "wgmma.mma_async.sync.aligned.m64n[0-9]+k[0-9]+.f32.[a-z0-9]+|setmaxnreg.[a-z]+.sync.aligned.u32[[:space:]]+[0-9]+" %t/k.nvx | sort | uniq -c | FileCheck %s

// PTXAS-COUNT-4: Compiling entry function 'attention_backward_{{[0-9a-f]+}}' for 'sm_90a'
// SPILLS: {{^ +}}3 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Four kernels in one .nvx, each with a producer and consumer split. S and
// dP: 4 m64n64k16 each over head dim 64, 8 over 128, in both kinds of
// blocks (16 and 32); the register-A products dV, dK and dQ: 4 each over
// the 64 streamed rows, m64n64k16 at d64 and m64n128k16 at d128 (12 each):
// twice 16 + 12 + 32 = 120 m64n64k16 and 24 m64n128k16.
// CHECK-DAG: {{ +}}4 setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: {{ +}}4 setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: {{ +}}24 wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16
// CHECK-DAG: {{ +}}120 wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16

func.func @causal_d64(%q: tensor<2x3x200x64xbf16>, %k: tensor<2x3x200x64xbf16>, %v: tensor<2x3x200x64xbf16>, %o: tensor<2x3x200x64xbf16>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x64xbf16>)
    -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>) -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  ^bb0(%qa: tensor<2x3x200x64xbf16>, %ka: tensor<2x3x200x64xbf16>, %va: tensor<2x3x200x64xbf16>, %oa: tensor<2x3x200x64xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
}
func.func @full_d128(%q: tensor<2x3x200x128xbf16>, %k: tensor<2x3x200x128xbf16>, %v: tensor<2x3x200x128xbf16>, %o: tensor<2x3x200x128xbf16>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x128xbf16>)
    -> (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x128xbf16>) -> (tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>) {
  ^bb0(%qa: tensor<2x3x200x128xbf16>, %ka: tensor<2x3x200x128xbf16>, %va: tensor<2x3x200x128xbf16>, %oa: tensor<2x3x200x128xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>, tensor<2x3x200x128xbf16>
}
func.func @persistent_d64(%q: tensor<4x132x200x64xbf16>, %k: tensor<4x132x200x64xbf16>, %v: tensor<4x132x200x64xbf16>, %o: tensor<4x132x200x64xbf16>, %lse: tensor<4x132x200xf32>, %dy: tensor<4x132x200x64xbf16>)
    -> (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200xf32>, tensor<4x132x200x64xbf16>) -> (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>) {
  ^bb0(%qa: tensor<4x132x200x64xbf16>, %ka: tensor<4x132x200x64xbf16>, %va: tensor<4x132x200x64xbf16>, %oa: tensor<4x132x200x64xbf16>, %la: tensor<4x132x200xf32>, %da: tensor<4x132x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200xf32>, tensor<4x132x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>
}
func.func @persistent_d128(%q: tensor<4x132x40x128xbf16>, %k: tensor<4x132x40x128xbf16>, %v: tensor<4x132x40x128xbf16>, %o: tensor<4x132x40x128xbf16>, %lse: tensor<4x132x40xf32>, %dy: tensor<4x132x40x128xbf16>)
    -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>) -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  ^bb0(%qa: tensor<4x132x40x128xbf16>, %ka: tensor<4x132x40x128xbf16>, %va: tensor<4x132x40x128xbf16>, %oa: tensor<4x132x40x128xbf16>, %la: tensor<4x132x40xf32>, %da: tensor<4x132x40x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
}
