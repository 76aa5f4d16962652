// Outlining dedups by structural hash: three identical groups (other SSA
// names, another function) and one that differs in an attribute give two
// kernels and four launches. A second run finds nothing new to outline.
// RUN: nova-opt %s --nova-outline-kernels | FileCheck %s --implicit-check-not=nova_tile.fusion --implicit-check-not=nova_tile.launch
// RUN: nova-opt %s --nova-outline-kernels --nova-outline-kernels | FileCheck %s --implicit-check-not=nova_tile.fusion --implicit-check-not=nova_tile.launch
// RUN: nova-opt %s --nova-outline-kernels --nova-print-hash -o /dev/null | FileCheck %s --check-prefix=HASH

// CHECK-LABEL: func.func @block0
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[Y:.*]] = nova_tile.launch @[[K:pointwise_[0-9a-f]+]](%[[X]], %[[B]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: %[[Z:.*]] = nova_tile.launch @[[K]](%[[Y]], %[[B]])
// CHECK: %[[W:.*]] = nova_tile.launch @[[K2:pointwise_[0-9a-f]+]](%[[Z]], %[[B]])
// CHECK: return %[[W]]
// CHECK-LABEL: func.func @block1
// CHECK: nova_tile.launch @[[K]](
// CHECK: module @inner
// CHECK: nova_tile.fusion pointwise
// CHECK: nova_tile.kernel @[[K]] pointwise {
// CHECK: nova.gelu tanh
// CHECK: nova_tile.kernel @[[K2]] pointwise {
// CHECK: nova.gelu erf
// CHECK-NOT: nova_tile.kernel

// HASH-COUNT-2: kernel @pointwise_{{.*}}
// HASH-NOT: {{.}}

func.func @block0(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = nova_tile.fusion pointwise (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
    %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32>
    %g = nova.gelu tanh %s : tensor<4x8xf32>
    nova_tile.yield %g : tensor<4x8xf32>
  }
  %z = nova_tile.fusion pointwise (%y, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x8xf32>, %q: tensor<8xf32>):
    %t = nova.add %p, %q : tensor<4x8xf32>, tensor<8xf32>
    %u = nova.gelu tanh %t : tensor<4x8xf32>
    nova_tile.yield %u : tensor<4x8xf32>
  }
  %w = nova_tile.fusion pointwise (%z, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
    %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32>
    %g = nova.gelu erf %s : tensor<4x8xf32>
    nova_tile.yield %g : tensor<4x8xf32>
  }
  return %w : tensor<4x8xf32>
}

func.func @block1(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = nova_tile.fusion pointwise (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
    %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32> loc("block1.py":2:2)
    %g = nova.gelu tanh %s : tensor<4x8xf32>
    nova_tile.yield %g : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}

// A group in a nested module stays inline: a launch there could not name a
// kernel of the outer module.
module @inner {
  func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = nova_tile.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %n = nova.neg %a : tensor<4xf32>
      nova_tile.yield %n : tensor<4xf32>
    }
    return %y : tensor<4xf32>
  }
}
