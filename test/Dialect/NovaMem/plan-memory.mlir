// nova-bufferize and nova-plan-memory on small kernel programs: which
// buffers share bytes. Each program also runs to the same answer before and
// after (the RUN lines with nova-run).
// RUN: nova-opt %s --nova-bufferize --nova-plan-memory | FileCheck %s
// RUN: nova-opt %s --nova-bufferize --nova-plan-memory -o %t.plan.mlir
// RUN: nova-run %s --entry chain --random-inputs 1 --save-inputs %t.in1 -o %t.out1
// RUN: nova-run %t.plan.mlir --entry chain --inputs %t.in1 --compare %t.out1 --rtol 0 --atol 0
// RUN: nova-run %s --entry product --random-inputs 2 --save-inputs %t.in2 -o %t.out2
// RUN: nova-run %t.plan.mlir --entry product --inputs %t.in2 --compare %t.out2 --rtol 0 --atol 0
// RUN: nova-run %s --entry update --random-inputs 3 --save-inputs %t.in3 -o %t.out3
// RUN: nova-run %t.plan.mlir --entry update --inputs %t.in3 --compare %t.out3 --rtol 0 --atol 0

// A pointwise kernel writes its output over its input, whose live range
// ends there.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = nova_mem.alloc at [[OFF:[0-9]+]] : !nova_mem.buffer<64xf32>
// CHECK: nova_mem.launch @pointwise_{{.*}} -> (%[[A]] :
// CHECK: %[[B:.*]] = nova_mem.alloc at [[OFF]] : !nova_mem.buffer<64xf32>
// CHECK: nova_mem.launch @pointwise_{{.*}}(%[[A]] : !nova_mem.buffer<64xf32>) -> (%[[B]] :
func.func @chain(%x: tensor<64xf32>) -> tensor<f32> {
  %a = nova_tile.fusion pointwise (%x) : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%xa: tensor<64xf32>):
    %r = nova.add %xa, %xa : tensor<64xf32>, tensor<64xf32>
    nova_tile.yield %r : tensor<64xf32>
  }
  %b = nova_tile.fusion pointwise (%a) : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%aa: tensor<64xf32>):
    %r = nova.exp %aa : tensor<64xf32>
    nova_tile.yield %r : tensor<64xf32>
  }
  %s = nova_tile.fusion row_reduction (%b) : (tensor<64xf32>) -> tensor<f32> {
  ^bb0(%ba: tensor<64xf32>):
    %r = nova.reduce sum %ba dims [0] : tensor<64xf32> -> tensor<f32>
    nova_tile.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// A matmul's output never takes an operand's bytes, even one that dies
// there: other threads still read it.
// CHECK-LABEL: func.func @product
// CHECK: %[[A:.*]] = nova_mem.alloc at [[OFF:[0-9]+]] : !nova_mem.buffer<8x8xf32>
// CHECK-NOT: nova_mem.alloc at [[OFF]] :
// CHECK: return
func.func @product(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = nova_tile.fusion pointwise (%x) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%xa: tensor<8x8xf32>):
    %r = nova.tanh %xa : tensor<8x8xf32>
    nova_tile.yield %r : tensor<8x8xf32>
  }
  %p = nova_tile.fusion matmul (%a, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%aa: tensor<8x8xf32>, %wa: tensor<8x8xf32>):
    %r = nova.matmul %aa, %wa : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    nova_tile.yield %r : tensor<8x8xf32>
  }
  return %p : tensor<8x8xf32>
}

// The update of %w comes first in program order, but %w is read again by the
// product: nova-bufferize moves the update after that read, and the new %w
// takes the old one's bytes.
// CHECK-LABEL: func.func @update
// CHECK: %[[W:.*]] = nova_mem.input %arg0 at [[WOFF:[0-9]+]] : tensor<8x8xf32>
// CHECK: nova_mem.launch @matmul_{{.*}}(%{{.*}}, %[[W]] :
// CHECK: %[[NW:.*]] = nova_mem.alloc at [[WOFF]] : !nova_mem.buffer<8x8xf32>
// CHECK-NEXT: nova_mem.launch @pointwise_{{.*}}(%[[W]], %{{.*}}) -> (%[[NW]] :
// CHECK-NOT: %[[W]]{{[ ,)]}}
// CHECK: return
func.func @update(%w: tensor<8x8xf32> {nova.param}, %g: tensor<8x8xf32>, %x: tensor<8x8xf32>)
    -> (tensor<8x8xf32> {nova.alias = 0 : i64}, tensor<8x8xf32>) {
  %nw = nova_tile.fusion pointwise (%w, %g) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%wa: tensor<8x8xf32>, %ga: tensor<8x8xf32>):
    %r = nova.sub %wa, %ga : tensor<8x8xf32>, tensor<8x8xf32>
    nova_tile.yield %r : tensor<8x8xf32>
  }
  %p = nova_tile.fusion matmul (%x, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%xa: tensor<8x8xf32>, %wa: tensor<8x8xf32>):
    %r = nova.matmul %xa, %wa : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    nova_tile.yield %r : tensor<8x8xf32>
  }
  return %nw, %p : tensor<8x8xf32>, tensor<8x8xf32>
}
