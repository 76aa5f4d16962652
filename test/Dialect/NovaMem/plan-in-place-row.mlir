// nova-plan-memory lets a row-reduction kernel write a per-element output
// over a per-element input that dies there only when the output depends on
// every reduction along the row: the kernel writes it in its last pass over
// the row, after the earlier passes have read the row (the cross-entropy
// kernel writes the logits' gradient over the logits). An output that does
// not wait for the row's reductions gets its own bytes. Both programs run to
// the same answer before and after planning.
// RUN: nova-opt %s --nova-bufferize --nova-plan-memory | FileCheck %s
// RUN: nova-opt %s --nova-bufferize --nova-plan-memory -o %t.plan.mlir
// RUN: nova-run %s --entry softmax_grad --random-inputs 1 --save-inputs %t.in1 -o %t.out1
// RUN: nova-run %t.plan.mlir --entry softmax_grad --inputs %t.in1 --compare %t.out1 --rtol 0 --atol 0
// RUN: nova-run %s --entry early_output --random-inputs 2 --save-inputs %t.in2 -o %t.out2
// RUN: nova-run %t.plan.mlir --entry early_output --inputs %t.in2 --compare %t.out2 --rtol 0 --atol 0

// CHECK-LABEL: func.func @softmax_grad
// CHECK: %[[L:.*]] = nova_mem.alloc at [[OFF:[0-9]+]] : !nova_mem.buffer<4x16xf32>
// CHECK: %[[G:.*]] = nova_mem.alloc at [[OFF]] : !nova_mem.buffer<4x16xf32>
// CHECK: nova_mem.launch @row_reduction_{{.*}}(%[[L]] : !nova_mem.buffer<4x16xf32>) -> (%{{.*}}, %[[G]] :
func.func @softmax_grad(%x: tensor<4x16xf32>) -> (tensor<f32>, tensor<4x16xf32>) {
  %l = nova_tile.fusion pointwise (%x) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%xa: tensor<4x16xf32>):
    %r = nova.tanh %xa : tensor<4x16xf32>
    nova_tile.yield %r : tensor<4x16xf32>
  }
  %loss, %g = nova_tile.fusion row_reduction (%l) : (tensor<4x16xf32>) -> (tensor<f32>, tensor<4x16xf32>) {
  ^bb0(%la: tensor<4x16xf32>):
    %m = nova.reduce max %la dims [1] keep_dims : tensor<4x16xf32> -> tensor<4x1xf32>
    %c = nova.sub %la, %m : tensor<4x16xf32>, tensor<4x1xf32>
    %e = nova.exp %c : tensor<4x16xf32>
    %s = nova.reduce sum %e dims [1] keep_dims : tensor<4x16xf32> -> tensor<4x1xf32>
    %p = nova.div %e, %s : tensor<4x16xf32>, tensor<4x1xf32>
    %t = nova.reduce sum %c dims [0, 1] : tensor<4x16xf32> -> tensor<f32>
    nova_tile.yield %t, %p : tensor<f32>, tensor<4x16xf32>
  }
  return %loss, %g : tensor<f32>, tensor<4x16xf32>
}

// %y is computed before the row's sum is known: it gets other bytes.
// CHECK-LABEL: func.func @early_output
// CHECK: %[[L:.*]] = nova_mem.alloc at [[OFF:[0-9]+]] : !nova_mem.buffer<4x16xf32>
// CHECK-NOT: nova_mem.alloc at [[OFF]] :
// CHECK: return
func.func @early_output(%x: tensor<4x16xf32>) -> (tensor<4x1xf32>, tensor<4x16xf32>) {
  %l = nova_tile.fusion pointwise (%x) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%xa: tensor<4x16xf32>):
    %r = nova.tanh %xa : tensor<4x16xf32>
    nova_tile.yield %r : tensor<4x16xf32>
  }
  %s, %y = nova_tile.fusion row_reduction (%l) : (tensor<4x16xf32>) -> (tensor<4x1xf32>, tensor<4x16xf32>) {
  ^bb0(%la: tensor<4x16xf32>):
    %s = nova.reduce sum %la dims [1] keep_dims : tensor<4x16xf32> -> tensor<4x1xf32>
    %y = nova.exp %la : tensor<4x16xf32>
    nova_tile.yield %s, %y : tensor<4x1xf32>, tensor<4x16xf32>
  }
  return %s, %y : tensor<4x1xf32>, tensor<4x16xf32>
}
