// The wgmma attention backward through NVVM, PTX and ptxas for sm_90a (as
// attention-wgmma-ptx.mlir does for the forward): ptxas (run with -v
// through a wrapper that keeps its report) does not serialize the wgmma
// pipeline (no C7510-C7519 warning) at head dims 64 (dQ by f32 atomics,
// every block K/V-stationary) and 128 (query blocks for dQ), and honours
// setmaxnreg (no C7508: the kernels declare .minnctapersm 1 beside
// .maxntid), so the d64 consumers, at 232 registers, do not spill. (At
// d128 they still spill a few dozen bytes: dK, dV, S and dP; not checked
// here until that is fixed.)
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu -o %t/gpu.mlir
// RUN: printf '#!/bin/sh\n"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -v "$@" >> "%t/ptxas.log" 2>&1\n' > %t/ptxas-v
// RUN: chmod +x %t/ptxas-v
// RUN: nova-gpu-pack %t/gpu.mlir --entry causal_d64 --ptxas %t/ptxas-v -o %t/k.nvx
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751 --implicit-check-not=C750 --implicit-check-not=warning < %t/ptxas.log
// RUN: grep -a -o -E "wgmma.mma_async.sync.aligned.m64n[0-9]+k[0-9]+.f32.[a-z0-9]+|setmaxnreg.[a-z]+.sync.aligned.u32[[:space:]]+[0-9]+" %t/k.nvx | sort | uniq -c | FileCheck %s
// RUN: grep -a -o -E "(red|atom)\.global[a-z.0-9]*|bar\.sync[^;]*|fence\.proxy[^;]*" %t/k.nvx | sort | uniq -c | FileCheck %s --check-prefix=ATOMICS --implicit-check-not=atom --implicit-check-not=red --implicit-check-not=bar.sync --implicit-check-not=fence

// PTXAS: Compiling entry function 'attention_backward_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS-NEXT: Function properties for attention_backward_
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'attention_backward_{{[0-9a-f]+}}' for 'sm_90a'

// Both kernels in one .nvx, each with a producer and consumer split. At
// d64, key blocks only: S and dP (4 m64n64k16 each), dV (4 register-A), dK
// and dQ from the dS^T buffer (4 each): 20; the dQ rows by 16 8-byte
// red.global.add.v2.f32 a thread, a ticket (one u32 atomic), after the
// warpgroup's named barrier and the async-proxy fence. At d128, both
// kinds of blocks: S and dP (8 each, 32) and dV, dK, dQ by register-A
// m64n128k16 (12): 20 + 32 = 52 m64n64k16 and 12 m64n128k16.
// CHECK-DAG: {{ +}}2 setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: {{ +}}2 setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: {{ +}}12 wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16
// CHECK-DAG: {{ +}}52 wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16
// ATOMICS: {{^ +}}1 atom.global.add.u32
// ATOMICS-NEXT: {{^ +}}2 bar.sync 0
// ATOMICS-NEXT: {{^ +}}1 bar.sync %r{{[0-9]+}}, 128
// ATOMICS-NEXT: {{^ +}}1 fence.proxy.async.shared::cta
// ATOMICS-NEXT: {{^ +}}16 red.global.add.v2.f32

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
