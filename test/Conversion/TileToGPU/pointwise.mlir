// convert-tile-to-gpu on a pointwise kernel: one gpu.func with a memref per
// input and output, the launch geometry from the schedule, consecutive
// threads on consecutive elements, and views read by index arithmetic (a
// broadcast drops a dim, a transpose swaps the indices, a slice offsets
// them); two outputs stored from one evaluation of the body.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK: module attributes {gpu.container_module, nova.target = #nova.target<"h200", {{.*}}>}
// CHECK: nova_tile.kernel @[[K:pointwise_[0-9a-f]+]] pointwise
// CHECK: gpu.module @[[K]]_gpu {
// CHECK-NEXT: gpu.func @[[K]](%[[X:.*]]: memref<5x7xf32>, %[[B:.*]]: memref<7xf32>, %[[T:.*]]: memref<7x5xf32>, %[[S:.*]]: memref<6x9xf32>, %[[Y:.*]]: memref<5x7xf32>, %[[C:.*]]: memref<5x7xi1>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %c256
// CHECK: %[[FIRST:.*]] = arith.addi %[[BASE]], %[[TID]]
// CHECK: scf.for %[[STEP:.*]] = %c0 to %c256 step %c256
// CHECK: %[[E:.*]] = arith.addi %[[FIRST]], %[[STEP]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[E]], %c35
// CHECK: scf.if %[[IN]]
// CHECK: %[[J:.*]] = arith.remui %[[E]], %c7
// CHECK: %[[I:.*]] = arith.divui %[[E]], %c7
// CHECK: %[[XV:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: %[[BV:.*]] = memref.load %[[B]][%[[J]]]
// CHECK: %[[A:.*]] = arith.addf %[[XV]], %[[BV]]
// CHECK: %[[TV:.*]] = memref.load %[[T]][%[[J]], %[[I]]]
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[TV]]
// CHECK: %[[SI:.*]] = arith.addi %c1, %{{.*}}
// CHECK: %[[SJ:.*]] = arith.addi %c1, %{{.*}}
// CHECK: %[[SV:.*]] = memref.load %[[S]][%[[SI]], %[[SJ]]]
// CHECK: %[[D:.*]] = arith.subf %[[M]], %[[SV]]
// Both outputs are computed before either is stored (an output may be
// planned in place over an input the other reads).
// CHECK: %[[CMP:.*]] = arith.cmpf ogt, %[[D]], %[[XV]]
// CHECK: memref.store %[[D]], %[[Y]][%[[I]], %[[J]]]
// CHECK: memref.store %[[CMP]], %[[C]][%[[I]], %[[J]]]
// CHECK: gpu.return

func.func @f(%x: tensor<5x7xf32>, %b: tensor<7xf32>, %t: tensor<7x5xf32>, %s: tensor<6x9xf32>) -> (tensor<5x7xf32>, tensor<5x7xi1>) {
  %r:2 = nova_tile.fusion pointwise (%x, %b, %t, %s) : (tensor<5x7xf32>, tensor<7xf32>, tensor<7x5xf32>, tensor<6x9xf32>) -> (tensor<5x7xf32>, tensor<5x7xi1>) {
  ^bb0(%xa: tensor<5x7xf32>, %ba: tensor<7xf32>, %ta: tensor<7x5xf32>, %sa: tensor<6x9xf32>):
    %tt = nova.transpose %ta [1, 0] : tensor<7x5xf32> -> tensor<5x7xf32>
    %ss = nova.slice %sa starts [1, 1] limits [6, 8] strides [1, 1] : tensor<6x9xf32> -> tensor<5x7xf32>
    %a = nova.add %xa, %ba : tensor<5x7xf32>, tensor<7xf32>
    %m = nova.mul %a, %tt : tensor<5x7xf32>, tensor<5x7xf32>
    %y = nova.sub %m, %ss : tensor<5x7xf32>, tensor<5x7xf32>
    %c = nova.cmp gt, %y, %xa : tensor<5x7xf32>, tensor<5x7xf32>
    nova_tile.yield %y, %c : tensor<5x7xf32>, tensor<5x7xi1>
  }
  return %r#0, %r#1 : tensor<5x7xf32>, tensor<5x7xi1>
}
