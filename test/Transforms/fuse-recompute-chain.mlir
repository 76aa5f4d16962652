// RUN: nova-opt %s --nova-fuse | FileCheck %s
// RUN: nova-opt %s --nova-fuse -o %t.fused.mlir
// RUN: nova-run %s --random-inputs 3 --save-inputs %t.in -o %t.out
// RUN: nova-run %t.fused.mlir --inputs %t.in --compare %t.out --rtol 1e-6 --atol 0 \
// RUN:   | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// A value a later kernel reads (%t = tanh(h * h)) is recomputed there from
// what that kernel reads anyway (%h) instead of being saved: a short chain of
// elementwise ops, not only one (GELU written from primitives keeps its tanh
// term this way). The first kernel writes h and u only; the second computes
// tanh again.
// CHECK-LABEL: func.func @chain
// CHECK: nova_tile.fusion matmul(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: nova_tile.fusion matmul
// CHECK: nova.mul
// CHECK: nova.tanh
// CHECK: return
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %hh = nova.mul %h, %h : tensor<4x8xf32>, tensor<4x8xf32>
  %t = nova.tanh %hh : tensor<4x8xf32>
  %u = nova.mul %t, %h : tensor<4x8xf32>, tensor<4x8xf32>
  %v = nova.matmul %u, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %d = nova.mul %v, %t : tensor<4x8xf32>, tensor<4x8xf32>
  %e = nova.add %d, %h : tensor<4x8xf32>, tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
