// nova_mem round-trips through the printer and the generic form, and a
// planned program verifies (in-place update of a parameter, a view, padded
// rows), and the interpreter runs it on its arena to the answer of @ref, the
// same computation on tensors.
// RUN: nova-opt %s | nova-opt | FileCheck %s
// RUN: nova-opt %s --mlir-print-op-generic | nova-opt | FileCheck %s
// RUN: nova-run %s --entry ref --random-inputs 4 --save-inputs %t.in -o %t.out
// RUN: nova-run %s --entry step --inputs %t.in --compare %t.out --rtol 0 --atol 0

// CHECK-LABEL: func.func @step
// CHECK-SAME: nova_mem.naive_bytes = 528 : i64, nova_mem.peak_bytes = 384 : i64
// CHECK: nova_mem.input %arg0 at 0 : tensor<4x8xf32> -> !nova_mem.buffer<4x8xf32>
// CHECK: nova_mem.alloc at 256 : !nova_mem.buffer<4x5xf32, ld 8>
// CHECK: nova_mem.launch @scale(%{{.*}}, %{{.*}} : !nova_mem.buffer<4x8xf32>, !nova_mem.buffer<f32>) -> (%{{.*}} : !nova_mem.buffer<4x8xf32>)
// CHECK: nova_mem.view %{{.*}} : !nova_mem.buffer<4x8xf32> -> !nova_mem.buffer<32xf32>
// CHECK: nova_mem.output %{{.*}} : !nova_mem.buffer<32xf32> -> tensor<32xf32>
nova_tile.kernel @scale pointwise {
^bb0(%a: tensor<4x8xf32>, %s: tensor<f32>):
  %r = nova.mul %a, %s : tensor<4x8xf32>, tensor<f32>
  nova_tile.yield %r : tensor<4x8xf32>
}
nova_tile.kernel @head pointwise {
^bb0(%a: tensor<4x8xf32>):
  %r = nova.slice %a starts [0, 0] limits [4, 5] strides [1, 1] : tensor<4x8xf32> -> tensor<4x5xf32>
  nova_tile.yield %r : tensor<4x5xf32>
}
nova_tile.kernel @sum pointwise {
^bb0(%a: tensor<4x5xf32>):
  %r = nova.add %a, %a : tensor<4x5xf32>, tensor<4x5xf32>
  nova_tile.yield %r : tensor<4x5xf32>
}
func.func @step(%w: tensor<4x8xf32> {nova.param}, %s: tensor<f32>)
    -> (tensor<4x8xf32> {nova.alias = 0 : i64}, tensor<32xf32>, tensor<4x5xf32>)
    attributes {nova_mem.peak_bytes = 384 : i64, nova_mem.naive_bytes = 528 : i64} {
  %bw = nova_mem.input %w at 0 : tensor<4x8xf32> -> !nova_mem.buffer<4x8xf32>
  %bs = nova_mem.input %s at 128 : tensor<f32> -> !nova_mem.buffer<f32>
  %h = nova_mem.alloc at 256 : !nova_mem.buffer<4x5xf32, ld 8>
  nova_mem.launch @head(%bw : !nova_mem.buffer<4x8xf32>) -> (%h : !nova_mem.buffer<4x5xf32, ld 8>)
  %t = nova_mem.alloc at 144 : !nova_mem.buffer<4x5xf32>
  nova_mem.launch @sum(%h : !nova_mem.buffer<4x5xf32, ld 8>) -> (%t : !nova_mem.buffer<4x5xf32>)
  // The new parameter takes the old one's bytes: its last reader is @scale.
  %nw = nova_mem.alloc at 0 : !nova_mem.buffer<4x8xf32>
  nova_mem.launch @scale(%bw, %bs : !nova_mem.buffer<4x8xf32>, !nova_mem.buffer<f32>) -> (%nw : !nova_mem.buffer<4x8xf32>)
  %flat = nova_mem.view %nw : !nova_mem.buffer<4x8xf32> -> !nova_mem.buffer<32xf32>
  %r0 = nova_mem.output %nw : !nova_mem.buffer<4x8xf32> -> tensor<4x8xf32>
  %r1 = nova_mem.output %flat : !nova_mem.buffer<32xf32> -> tensor<32xf32>
  %r2 = nova_mem.output %t : !nova_mem.buffer<4x5xf32> -> tensor<4x5xf32>
  return %r0, %r1, %r2 : tensor<4x8xf32>, tensor<32xf32>, tensor<4x5xf32>
}

func.func @ref(%w: tensor<4x8xf32> {nova.param}, %s: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<32xf32>, tensor<4x5xf32>) {
  %h = nova.slice %w starts [0, 0] limits [4, 5] strides [1, 1] : tensor<4x8xf32> -> tensor<4x5xf32>
  %t = nova.add %h, %h : tensor<4x5xf32>, tensor<4x5xf32>
  %nw = nova.mul %w, %s : tensor<4x8xf32>, tensor<f32>
  %flat = nova.reshape %nw : tensor<4x8xf32> -> tensor<32xf32>
  return %nw, %flat, %t : tensor<4x8xf32>, tensor<32xf32>, tensor<4x5xf32>
}
