// The matmul kernels reach PTX as tensor-core instructions: mma.sync
// m16n8k16 on bf16 and m16n8k8 on TF32, f32 accumulators, and ptxas
// compiles them for sm_90a (the mma.sync path: wgmma off, which would
// take the bf16 product).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false -o %t/gpu.mlir
// RUN: nova-gpu-pack %t/gpu.mlir --ptx-only -o %t/ptx.nvx
// RUN: grep -a -o "mma.sync.aligned.m16n8k[0-9]*.row.col.f32.[a-z0-9]*.[a-z0-9]*.f32" %t/ptx.nvx | sort | uniq -c | FileCheck %s
// RUN: nova-gpu-pack %t/gpu.mlir -o %t/cubin.nvx
// RUN: grep -c "sm_90a" %t/cubin.nvx | FileCheck %s --check-prefix=ARCH

// A 64 x 128 block of 8 warps, each 32 x 32: 2 x 4 tiles of 16 x 8, so 8
// m16n8k16 per 16 of K, twice per 32-wide K step (bf16), and 8 m16n8k8 per
// 8 of K, four times per step (TF32): 32 for the TF32 product and three
// times as many for the f32 one (3xTF32: lo*hi, hi*lo, hi*hi), 128 in all.
// CHECK: 16 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: 128 mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// ARCH: {{[1-9]}}
func.func @bf16(%a: tensor<100x64xbf16>, %b: tensor<64x200xbf16>) -> tensor<100x200xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xbf16>, tensor<64x200xbf16>) -> tensor<100x200xbf16> {
  ^bb0(%x: tensor<100x64xbf16>, %y: tensor<64x200xbf16>):
    %p = nova.matmul %x, %y : tensor<100x64xbf16>, tensor<64x200xbf16> -> tensor<100x200xbf16>
    nova_tile.yield %p : tensor<100x200xbf16>
  }
  return %r : tensor<100x200xbf16>
}

func.func @tf32(%a: tensor<100x64xf32>, %b: tensor<64x200xf32>) -> tensor<100x200xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xf32>, tensor<64x200xf32>) -> tensor<100x200xf32> {
  ^bb0(%x: tensor<100x64xf32>, %y: tensor<64x200xf32>):
    %p = nova.matmul %x, %y {nova.precision = "tf32"} : tensor<100x64xf32>, tensor<64x200xf32> -> tensor<100x200xf32>
    nova_tile.yield %p : tensor<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}

func.func @f32(%a: tensor<100x64xf32>, %b: tensor<64x200xf32>) -> tensor<100x200xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xf32>, tensor<64x200xf32>) -> tensor<100x200xf32> {
  ^bb0(%x: tensor<100x64xf32>, %y: tensor<64x200xf32>):
    %p = nova.matmul %x, %y : tensor<100x64xf32>, tensor<64x200xf32> -> tensor<100x200xf32>
    nova_tile.yield %p : tensor<100x200xf32>
  }
  return %r : tensor<100x200xf32>
}
