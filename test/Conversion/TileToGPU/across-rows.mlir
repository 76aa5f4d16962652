// convert-tile-to-gpu on row kernels that also reduce across their rows
// (a column sum next to the row's own sum, a total), as nova-fuse makes
// them for LayerNorm's scale and shift gradients and the cross-entropy
// loss. One launch: a bounded grid of blocks loops over the rows (a fixed
// set per block), keeping each thread's column sums in registers; each
// block writes its partials to the workspace (the function's last
// argument, its size in nova_gpu.workspace_bytes), fences, draws a ticket;
// the block that draws the last one fences again, folds the partials in
// block order (in two levels, groups of blocks then the groups, when the
// blocks are many), writes the results and resets the tickets.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s

// 5000 rows of 203 columns: one row per block at a time (256 threads, one
// column slot each), 256 blocks; partials: 256 x 203 f64 at byte 256, the
// 16 groups' 16 x 203 f64 at 416000, then 256 f32 maxima at 442112 and the
// groups' 16 at 443136 (each region 256-byte aligned).
// CHECK-LABEL: gpu.func @row_and_column
// CHECK-SAME: (%[[X:.*]]: memref<5000x203xf32>, %[[S:.*]]: memref<5000x1xf32>, %[[C:.*]]: memref<203xf32>, %[[T:.*]]: memref<f32>, %[[WS:.*]]: memref<443392xi8>)
// CHECK-SAME: workgroup({{.*}}, %[[WARPS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[FLAG:.*]] : memref<1xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>, nova_gpu.workspace_bytes = 443392 : i64
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[ACC:.*]]:2 = scf.for %{{.*}} = %[[BLOCK]] to %c5000 step %c256 iter_args({{.*}}) -> (f64, f32)
// The shares of the sums across the rows are folded before the row's
// outputs are stored (an output may be planned over an input it reads).
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: scf.yield
// CHECK: %[[PART:.*]] = memref.view %[[WS]][%c256][] : memref<443392xi8> to memref<256x203xf64>
// CHECK: memref.store %[[ACC]]#0, %[[PART]]
// CHECK: %[[MAXES:.*]] = memref.view %[[WS]][%c442112][] : memref<443392xi8> to memref<256x1xf32>
// CHECK: gpu.shuffle xor %[[ACC]]#1
// CHECK: memref.store %{{.*}}, %[[WARPS]]
// CHECK: memref.store %{{.*}}, %[[MAXES]]
// The 256 blocks fold in 16 groups of 16 blocks: the last block of each
// group (its ticket from the group's counter, slot 1 + group) folds the
// group's partials, 16 loads in flight per thread before any is combined,
// zeroes them, and writes the group's partials; the last of the groups'
// folders folds those in group order into the results.
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COUNTERS:.*]] = memref.view %[[WS]][%c0][] : memref<443392xi8> to memref<64xi32>
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[SLOT:.*]]]
// CHECK: arith.cmpi eq, %{{.*}}, %c15_i32
// CHECK: memref.store %{{.*}}, %[[FLAG]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[FLAG]]
// CHECK: scf.if
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNTERS]][%[[SLOT]]]
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: %[[BLOCKS:.*]] = memref.view %[[WS]][%c256][] : memref<443392xi8> to memref<256x203xf64>
// CHECK: %[[GROUPS:.*]] = memref.view %[[WS]][%c416000][] : memref<443392xi8> to memref<16x203xf64>
// CHECK: scf.for
// CHECK-COUNT-16: vector.load %[[BLOCKS]]
// CHECK-COUNT-16: vector.store %{{.*}}, %[[BLOCKS]]
// CHECK-COUNT-16: arith.addf
// CHECK: memref.store %{{.*}}, %[[GROUPS]]
// CHECK: memref.view %[[WS]][%c442112][] : memref<443392xi8> to memref<256x1xf32>
// CHECK-COUNT-16: arith.maximumf
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: gpu.barrier
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c0]
// CHECK: arith.cmpi eq, %{{.*}}, %c15_i32
// CHECK: scf.if
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: %[[GROUPS2:.*]] = memref.view %[[WS]][%c416000][] : memref<443392xi8> to memref<16x203xf64>
// CHECK: scf.for
// CHECK-COUNT-16: vector.load %[[GROUPS2]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-COUNT-16: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[T]][]
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNTERS]][%c0]
nova_tile.kernel @row_and_column row_reduction schedule <tile = [1, 203], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%x: tensor<5000x203xf32>):
  %s = nova.reduce sum %x dims [1] keep_dims : tensor<5000x203xf32> -> tensor<5000x1xf32>
  %c = nova.reduce sum %x dims [0] : tensor<5000x203xf32> -> tensor<203xf32>
  %t = nova.reduce max %x dims [0, 1] : tensor<5000x203xf32> -> tensor<f32>
  nova_tile.yield %s, %c, %t : tensor<5000x1xf32>, tensor<203xf32>, tensor<f32>
}

// A total alone keeps the schedule's rows per block (8 rows of 32 lanes);
// 37 rows need 5 blocks, each looping once.
// CHECK-LABEL: gpu.func @total
// CHECK-SAME: %{{.*}}: memref<512xi8>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 5, 1, 1>, nova_gpu.workspace_bytes = 512 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c5 step %c5 iter_args(%{{.*}}) -> (f64)
// CHECK: memref.atomic_rmw addi
nova_tile.kernel @total row_reduction schedule <tile = [8, 64], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%x: tensor<37x64xf32>):
  %t = nova.reduce sum %x dims [0, 1] : tensor<37x64xf32> -> tensor<f32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<37x64xf32> -> tensor<37x1xf32>
  nova_tile.yield %t, %m : tensor<f32>, tensor<37x1xf32>
}
