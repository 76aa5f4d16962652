// Buffers take their element's real size (f32 4 bytes, bf16 2, i1 1), each
// rounded up to 16 bytes; an internal bf16 buffer with 24-byte rows gets
// rows of 32 bytes (ld 16). The planned program computes what the kernels
// on tensors do, through those bytes.
// RUN: nova-opt %s --nova-bufferize --nova-plan-memory -o %t.plan.mlir
// RUN: FileCheck %s < %t.plan.mlir
// RUN: nova-run %s --random-inputs 2 --save-inputs %t.in -o %t.out
// RUN: nova-run %t.plan.mlir --inputs %t.in --compare %t.out --rtol 0 --atol 0

// x 144 bytes, h 3 x 16 x 2 = 96 (padded), r 72 -> 80, c 36 -> 48.
// CHECK: nova_mem.naive_bytes = 368 : i64
// CHECK: nova_mem.input %arg0 at {{[0-9]+}} : tensor<3x12xf32> -> !nova_mem.buffer<3x12xf32>
// CHECK: nova_mem.alloc at {{[0-9]+}} : !nova_mem.buffer<3x12xbf16, ld 16>
// CHECK: nova_mem.alloc at {{[0-9]+}} : !nova_mem.buffer<3x12xbf16>
// CHECK: nova_mem.alloc at {{[0-9]+}} : !nova_mem.buffer<3x12xi1>
func.func @sizes(%x: tensor<3x12xf32>) -> (tensor<3x12xbf16>, tensor<3x12xi1>) {
  %h = nova_tile.fusion pointwise (%x) : (tensor<3x12xf32>) -> tensor<3x12xbf16> {
  ^bb0(%xa: tensor<3x12xf32>):
    %c = nova.cast %xa : tensor<3x12xf32> to tensor<3x12xbf16>
    nova_tile.yield %c : tensor<3x12xbf16>
  }
  %r = nova_tile.fusion pointwise (%h) : (tensor<3x12xbf16>) -> tensor<3x12xbf16> {
  ^bb0(%ha: tensor<3x12xbf16>):
    %s = nova.add %ha, %ha : tensor<3x12xbf16>, tensor<3x12xbf16>
    nova_tile.yield %s : tensor<3x12xbf16>
  }
  %c = nova_tile.fusion pointwise (%x) : (tensor<3x12xf32>) -> tensor<3x12xi1> {
  ^bb0(%xa: tensor<3x12xf32>):
    %z = nova.constant dense<0.0> : tensor<f32>
    %p = nova.cmp gt, %xa, %z : tensor<3x12xf32>, tensor<f32>
    nova_tile.yield %p : tensor<3x12xi1>
  }
  return %r, %c : tensor<3x12xbf16>, tensor<3x12xi1>
}
