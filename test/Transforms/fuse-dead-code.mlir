// RUN: nova-opt %s --nova-fuse | FileCheck %s --implicit-check-not=nova.exp
// A chain of elementwise ops that nothing reads is dead: nova-fuse drops it
// instead of forming a kernel without outputs (which its contract rejects).

// CHECK-LABEL: func.func @dead_chain
// CHECK: nova_tile.fusion pointwise
// CHECK: nova.tanh
// CHECK: return
func.func @dead_chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %dead = nova.exp %x : tensor<4x8xf32>
  %dead2 = nova.neg %dead : tensor<4x8xf32>
  %live = nova.tanh %x : tensor<4x8xf32>
  %live2 = nova.abs %live : tensor<4x8xf32>
  return %live2 : tensor<4x8xf32>
}
