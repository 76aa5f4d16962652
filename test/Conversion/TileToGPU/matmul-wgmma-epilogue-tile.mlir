// The wgmma GEMM's tile width follows its epilogue: an epilogue of two or
// more transcendentals (the GPT-2 fc GEMM's GELU and the tanh of its
// derivative) is code for each of a thread's BN / 2 accumulators, unrolled,
// so it runs 128 x 128 tiles (m64n128 wgmmas) where a GELU alone keeps
// 128 x 256 (m64n256): at 256 the TF32 fc GEMM's epilogue waited on
// instruction fetch a third of its cycles (bench/RESULTS.md).
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s --implicit-check-not=wgmma.mma_async
// CHECK-LABEL: gpu.func @matmul_
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>
// CHECK-LABEL: gpu.func @matmul_
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>

func.func @gelu(%x: tensor<16384x768xbf16>, %w: tensor<3072x768xbf16>, %b: tensor<3072xbf16>) -> tensor<16384x3072xbf16> {
  %r = nova_tile.fusion matmul (%x, %w, %b) : (tensor<16384x768xbf16>, tensor<3072x768xbf16>, tensor<3072xbf16>) -> tensor<16384x3072xbf16> {
  ^bb0(%xa: tensor<16384x768xbf16>, %wa: tensor<3072x768xbf16>, %ba: tensor<3072xbf16>):
    %p = nova.matmul %xa, %wa transpose_rhs : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
    %h = nova.add %p, %ba : tensor<16384x3072xbf16>, tensor<3072xbf16>
    %g = nova.gelu tanh %h : tensor<16384x3072xbf16>
    nova_tile.yield %g : tensor<16384x3072xbf16>
  }
  return %r : tensor<16384x3072xbf16>
}
func.func @gelu_and_tanh(%x: tensor<16384x768xbf16>, %w: tensor<3072x768xbf16>, %b: tensor<3072xbf16>) -> (tensor<16384x3072xbf16>, tensor<16384x3072xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %b) : (tensor<16384x768xbf16>, tensor<3072x768xbf16>, tensor<3072xbf16>) -> (tensor<16384x3072xbf16>, tensor<16384x3072xbf16>) {
  ^bb0(%xa: tensor<16384x768xbf16>, %wa: tensor<3072x768xbf16>, %ba: tensor<3072xbf16>):
    %p = nova.matmul %xa, %wa transpose_rhs : tensor<16384x768xbf16>, tensor<3072x768xbf16> -> tensor<16384x3072xbf16>
    %h = nova.add %p, %ba : tensor<16384x3072xbf16>, tensor<3072xbf16>
    %g = nova.gelu tanh %h : tensor<16384x3072xbf16>
    %t = nova.tanh %h : tensor<16384x3072xbf16>
    nova_tile.yield %g, %t : tensor<16384x3072xbf16>, tensor<16384x3072xbf16>
  }
  return %r#0, %r#1 : tensor<16384x3072xbf16>, tensor<16384x3072xbf16>
}
