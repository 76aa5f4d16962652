// RUN: nova-opt %s --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 --nova-outline-kernels --nova-bufferize --nova-plan-memory | FileCheck %s --check-prefix=PLAN
// RUN: nova-opt %s --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 --nova-outline-kernels --nova-bufferize --nova-plan-memory --convert-tile-to-gpu | FileCheck %s

// t (the product) dies at the row kernel, so the planner puts y in place
// over it; z = bf16(y * t) must still read t. The row kernel evaluates both
// outputs at a column before it stores either: storing y first (one loop
// per output) made z read y * y. test/GPU/Inputs/in-place.mlir runs the same
// function on the GPU against the interpreter.

// PLAN: %[[T:.*]] = nova_mem.alloc at [[AT:[0-9]+]] : !nova_mem.buffer<64x96xf32>
// PLAN: nova_mem.launch @matmul_{{.*}} -> (%[[T]] :
// PLAN: %[[Y:.*]] = nova_mem.alloc at [[AT]] : !nova_mem.buffer<64x96xf32>
// PLAN: nova_mem.launch @row_reduction_{{.*}}(%[[T]] : {{.*}}) -> (%[[Y]], %{{.*}} :

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[IN:.*]]: memref<64x96xf32>, %[[YB:.*]]: memref<64x96xf32>, %[[ZB:.*]]: memref<64x96xbf16>)
// CHECK: %[[INF:.*]] = memref.collapse_shape %[[IN]]
// CHECK: %[[YF:.*]] = memref.collapse_shape %[[YB]]
// CHECK: %[[ZF:.*]] = memref.collapse_shape %[[ZB]]
// The lane's chunk of t loaded once (before the row sum), then both
// outputs' values from it, then both stores.
// CHECK-NOT: scf.for
// CHECK: %[[TV:.*]] = vector.load %[[INF]][%[[AT:.*]]]
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: gpu.shuffle
// CHECK-NOT: vector.store
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}}, %[[YF]][%[[AT]]]
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}}, %[[ZF]][%[[AT]]]
// CHECK-NOT: vector.load
// CHECK: gpu.return

func.func @row(%a: tensor<64x32xf32>, %b: tensor<32x96xf32>) -> (tensor<64x96xf32>, tensor<64x96xbf16>) {
  %t = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<64x32xf32>, tensor<32x96xf32> -> tensor<64x96xf32>
  %s = nova.reduce sum %t dims [1] keep_dims : tensor<64x96xf32> -> tensor<64x1xf32>
  %y = nova.sub %t, %s : tensor<64x96xf32>, tensor<64x1xf32>
  %p = nova.mul %y, %t : tensor<64x96xf32>, tensor<64x96xf32>
  %z = nova.cast %p : tensor<64x96xf32> to tensor<64x96xbf16>
  return %y, %z : tensor<64x96xf32>, tensor<64x96xbf16>
}
