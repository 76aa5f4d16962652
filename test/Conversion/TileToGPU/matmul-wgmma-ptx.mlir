// The wgmma GEMMs through NVVM, PTX and ptxas for sm_90a: TMA descriptors
// are 128-byte by-value parameters, the dynamic shared buffer is external
// and 1024-byte aligned, and ptxas (run with -v through a wrapper that
// keeps its report) neither serializes the wgmma pipeline (no C7510-C7519
// warning) nor spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu -o %t/gpu.mlir
// RUN: printf '#!/bin/sh\n"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -v "$@" >> "%t/ptxas.log" 2>&1\n' > %t/ptxas-v
// RUN: chmod +x %t/ptxas-v
// RUN: nova-gpu-pack %t/gpu.mlir --ptxas %t/ptxas-v -o %t/k.nvx
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=C751 --implicit-check-not=warning < %t/ptxas.log
// The padded-row forms (GPU/Inputs/matmul_padded.mlir, planned: TMA
// strides from the pitch, the staged store at the pitch, the padded copies
// of unaligned operands) compile the same way: no serialization warning,
// no spill, no stack frame, in any of their kernels.
// RUN: printf '#!/bin/sh\n"$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -v "$@" >> "%t/padded.log" 2>&1\n' > %t/ptxas-padded
// RUN: chmod +x %t/ptxas-padded
// RUN: nova-opt %S/../../GPU/Inputs/matmul_padded.mlir --nova-fuse=single-gemms=true --convert-nova-to-tile --nova-configure=target=h200 --nova-outline-kernels --nova-bufferize --nova-plan-memory --convert-tile-to-gpu -o %t/padded.mlir
// RUN: nova-translate --nova-to-executable %t/padded.mlir --no-nova-cache --ptxas %t/ptxas-padded -o %t/padded.nvx
// RUN: FileCheck %s --check-prefix=PADDED --implicit-check-not=C751 --implicit-check-not=warning < %t/padded.log
// RUN: not grep -E "[1-9][0-9]* bytes (stack frame|spill)" %t/padded.log
// PADDED-COUNT-10: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// RUN: grep -a -o -E "wgmma.mma_async.sync.aligned.m64n[0-9]+k[0-9]+.f32.[a-z0-9]+|\.param \.align 64 \.b8 [a-z0-9_]+\[128\]|\.extern \.shared \.align 1024|cp.async.bulk.tensor.2d.[a-z:]*|setmaxnreg.[a-z]+.sync.aligned.u32[[:space:]]+[0-9]+|p, [01], +[01], [01], +[01];|add.s32[[:space:]]+%r[0-9]+, %r[0-9]+, 4096;|bar.sync[[:space:]]+[0-9]+, [0-9]+;|fence.proxy.async.shared::cta|bar.warp.sync -1;" %t/k.nvx | sed 's/matmul_[0-9a-f]*_param/P/; s/%r[0-9]*/R/g' | sort | uniq -c | FileCheck %s

// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'matmul_{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The packed kernels (all in one .nvx; PTX as text): two TMA descriptor
// parameters (three with a staged output) and one dynamic shared buffer
// each; bf16 (K = 1024, 16 K tiles in 2 splits of 8) has the first tile
// and the loop body, 4 wgmmas of k16 each; TF32 (K = 96, 3 tiles, on wgmma
// by default) too, 4 k8 register-A wgmmas per tile: each consumer thread
// rounds its 4 16-byte chunks of the 16 KB B tile in shared memory (an add
// of 4096 to each word, since wgmma truncates), then a proxy fence and the
// named barrier of both consumers (256 threads), then loads and rounds its
// 16 words of A; two TMA loads per K tile K-major (2 + 2 + 3 x 2 + 2), 2 +
// 4 when both operands are MN-major (bf16_mn: dW = x^T dy, 64-column
// boxes), its wgmmas with both transpose immediates set (the last two
// operands), bf16's and bf16_staged's with neither; bf16_staged (2048 x 768
// x 2304, one split) stores its 128 x 256 tiles through shared memory: four
// 64-column TMA stores. The TF32 products with MN-major operands (tf32_xw:
// x W, 2048 x 768 x 2304; tf32_dw: x^T dy, 768 x 4096 x 2304) run 256 x
// 128 tiles (two m64 groups a consumer, 32 words of A a thread), load B in
// 32 x 32 boxes and transpose it while rounding (1 block of 4 x 4 words a
// thread, a warp synchronisation each); their wgmmas are m64n128k8
// register-A ones, 8 per K tile, without transpose immediates (tf32 has
// none). tf32_dw_narrow (768 x 2048 x 3072) runs 128 x 160 tiles: 1.25
// blocks of B per thread (the quarter behind a guard), m64n160k8 wgmmas.
// The TF32 kernels with 128-column tiles and no split K (tf32, tf32_xw,
// tf32_dw) store their f32 output through shared memory: one more TMA
// descriptor and proxy fence each, 4 TMA stores of 32-column boxes. No
// C7513 (wgmmas serialized because A's registers are written while a group
// runs): the implicit checks above. With B rounded ahead (nova.rounded,
// tf32_rounded_b: 2048 x 768 x 2304) the consumers make no pass over B (no
// adds of its words, no barrier of both consumers, no proxy fence) and the
// tiles stay 128 x 256: one m64 group a consumer, 4 m64n256k8 wgmmas a K
// tile and 16 words of A a thread, the f32 output staged a 128-column
// half at a time (4 TMA stores of 32-column boxes each);
// with A rounded too (tf32_rounded_ab, 256^3) no word gets an add at all.
// CHECK-DAG: {{ +}}9 .extern .shared .align 1024
// CHECK-DAG: {{ +}}8 .param .align 64 .b8 P_3[128]
// CHECK-DAG: {{ +}}9 .param .align 64 .b8 P_4[128]
// CHECK-DAG: {{ +}}5 .param .align 64 .b8 P_5[128]
// CHECK-DAG: {{ +}}1 .param .align 64 .b8 P_6[128]
// CHECK-DAG: {{ +}}9 setmaxnreg.dec.sync.aligned.u32 40
// CHECK-DAG: {{ +}}9 setmaxnreg.inc.sync.aligned.u32 232
// CHECK-DAG: {{ +}}24 wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16
// CHECK-DAG: {{ +}}40 wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32
// CHECK-DAG: {{ +}}16 wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32
// CHECK-DAG: {{ +}}8 wgmma.mma_async.sync.aligned.m64n160k8.f32.tf32
// CHECK-DAG: {{ +}}384 add.s32 R, R, 4096;
// CHECK-DAG: {{ +}}8 bar.warp.sync -1;
// CHECK-DAG: {{ +}}8 bar.sync 3, 256;
// CHECK-DAG: {{ +}}16 fence.proxy.async.shared::cta
// CHECK-DAG: {{ +}}46 cp.async.bulk.tensor.2d.shared::cluster
// CHECK-DAG: {{ +}}32 cp.async.bulk.tensor.2d.global
// CHECK-DAG: {{ +}}16 p, 1, 1, 0, 0;
// CHECK-DAG: {{ +}}8 p, 1, 1, 1, 1;
func.func @bf16(%a: tensor<512x1024xbf16>, %b: tensor<1000x1024xbf16>) -> tensor<512x1000xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<512x1024xbf16>, tensor<1000x1024xbf16>) -> tensor<512x1000xbf16> {
  ^bb0(%x: tensor<512x1024xbf16>, %y: tensor<1000x1024xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<512x1024xbf16>, tensor<1000x1024xbf16> -> tensor<512x1000xbf16>
    nova_tile.yield %p : tensor<512x1000xbf16>
  }
  return %r : tensor<512x1000xbf16>
}

func.func @tf32(%a: tensor<4x50x96xf32>, %b: tensor<120x96xf32>, %bias: tensor<120xf32>) -> tensor<4x50x120xf32> {
  %r = nova_tile.fusion matmul (%a, %b, %bias) : (tensor<4x50x96xf32>, tensor<120x96xf32>, tensor<120xf32>) -> tensor<4x50x120xf32> {
  ^bb0(%x: tensor<4x50x96xf32>, %y: tensor<120x96xf32>, %c: tensor<120xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<4x50x96xf32>, tensor<120x96xf32> -> tensor<4x50x120xf32>
    %h = nova.add %p, %c : tensor<4x50x120xf32>, tensor<120xf32>
    %g = nova.gelu tanh %h : tensor<4x50x120xf32>
    nova_tile.yield %g : tensor<4x50x120xf32>
  }
  return %r : tensor<4x50x120xf32>
}

func.func @bf16_mn(%x: tensor<1024x512xbf16>, %dy: tensor<1024x1000xbf16>) -> tensor<512x1000xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<1024x512xbf16>, tensor<1024x1000xbf16>) -> tensor<512x1000xbf16> {
  ^bb0(%a: tensor<1024x512xbf16>, %b: tensor<1024x1000xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<1024x512xbf16>, tensor<1024x1000xbf16> -> tensor<512x1000xbf16>
    nova_tile.yield %p : tensor<512x1000xbf16>
  }
  return %r : tensor<512x1000xbf16>
}

func.func @bf16_staged(%x: tensor<2048x768xbf16>, %w: tensor<2304x768xbf16>) -> tensor<2048x2304xbf16> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<2048x768xbf16>, tensor<2304x768xbf16>) -> tensor<2048x2304xbf16> {
  ^bb0(%a: tensor<2048x768xbf16>, %b: tensor<2304x768xbf16>):
    %p = nova.matmul %a, %b transpose_rhs : tensor<2048x768xbf16>, tensor<2304x768xbf16> -> tensor<2048x2304xbf16>
    nova_tile.yield %p : tensor<2048x2304xbf16>
  }
  return %r : tensor<2048x2304xbf16>
}

func.func @tf32_xw(%x: tensor<2048x768xf32>, %w: tensor<768x2304xf32>) -> tensor<2048x2304xf32> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<2048x768xf32>, tensor<768x2304xf32>) -> tensor<2048x2304xf32> {
  ^bb0(%a: tensor<2048x768xf32>, %b: tensor<768x2304xf32>):
    %p = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<2048x768xf32>, tensor<768x2304xf32> -> tensor<2048x2304xf32>
    nova_tile.yield %p : tensor<2048x2304xf32>
  }
  return %r : tensor<2048x2304xf32>
}

func.func @tf32_dw(%x: tensor<4096x768xf32>, %dy: tensor<4096x2304xf32>) -> tensor<768x2304xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<4096x768xf32>, tensor<4096x2304xf32>) -> tensor<768x2304xf32> {
  ^bb0(%a: tensor<4096x768xf32>, %b: tensor<4096x2304xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<4096x768xf32>, tensor<4096x2304xf32> -> tensor<768x2304xf32>
    nova_tile.yield %p : tensor<768x2304xf32>
  }
  return %r : tensor<768x2304xf32>
}

func.func @tf32_dw_narrow(%x: tensor<2048x768xf32>, %dy: tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x768xf32>, tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  ^bb0(%a: tensor<2048x768xf32>, %b: tensor<2048x3072xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x768xf32>, tensor<2048x3072xf32> -> tensor<768x3072xf32>
    nova_tile.yield %p : tensor<768x3072xf32>
  }
  return %r : tensor<768x3072xf32>
}

func.func @tf32_rounded_b(%x: tensor<2048x768xf32>, %w: tensor<2304x768xf32>) -> tensor<2048x2304xf32> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<2048x768xf32>, tensor<2304x768xf32>) -> tensor<2048x2304xf32> {
  ^bb0(%a: tensor<2048x768xf32>, %b: tensor<2304x768xf32>):
    %p = nova.matmul %a, %b transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>} : tensor<2048x768xf32>, tensor<2304x768xf32> -> tensor<2048x2304xf32>
    nova_tile.yield %p : tensor<2048x2304xf32>
  }
  return %r : tensor<2048x2304xf32>
}

func.func @tf32_rounded_ab(%x: tensor<256x256xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = nova_tile.fusion matmul (%x, %w) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32> {
  ^bb0(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>):
    %p = nova.matmul %a, %b transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 0, 1>} : tensor<256x256xf32>, tensor<256x256xf32> -> tensor<256x256xf32>
    nova_tile.yield %p : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}
