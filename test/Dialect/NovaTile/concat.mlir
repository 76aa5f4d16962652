// A pointwise kernel may join inputs and constants with nova.concat (a copy
// kernel: each output element is one element of one input); each input is
// read at its window of the space. A concat of a value the kernel computes
// is refused like any view of a computed value.
// RUN: nova-opt %s -split-input-file -verify-diagnostics --nova-print-hash -o /dev/null | FileCheck %s

// CHECK: fusion #0 pointwise {{[0-9a-f]+}} space 4x11 in [concatenated(1,3), concatenated(1,5)] out [elementwise]
func.func @join(%a: tensor<4x2xf32>, %b: tensor<4x6xf32>) -> tensor<4x11xf32> {
  %y = nova_tile.fusion pointwise (%a, %b) : (tensor<4x2xf32>, tensor<4x6xf32>) -> tensor<4x11xf32> {
  ^bb0(%x: tensor<4x2xf32>, %z: tensor<4x6xf32>):
    %pad = nova.constant dense<0.0> : tensor<4x3xf32>
    %c = nova.concat %pad, %x, %z dim 1 : tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x6xf32> -> tensor<4x11xf32>
    nova_tile.yield %c : tensor<4x11xf32>
  }
  return %y : tensor<4x11xf32>
}

// -----

func.func @computed(%a: tensor<4x1xf32>, %b: tensor<4x7xf32>) -> tensor<4x8xf32> {
  %y = nova_tile.fusion pointwise (%a, %b) : (tensor<4x1xf32>, tensor<4x7xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x1xf32>, %z: tensor<4x7xf32>):
    %e = nova.exp %x : tensor<4x1xf32>
    // expected-error @+1 {{pointwise contract: 'nova.concat' applies to kernel inputs only}}
    %c = nova.concat %e, %z dim 1 : tensor<4x1xf32>, tensor<4x7xf32> -> tensor<4x8xf32>
    nova_tile.yield %c : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}
