// convert-tile-to-gpu on row kernels that also reduce across their rows
// (a column sum next to the row's own sum, a total), as nova-fuse makes
// them for LayerNorm's scale and shift gradients and the cross-entropy
// loss. One launch: a bounded grid of blocks loops over the rows (a fixed
// set per block), keeping each thread's column sums in registers; each
// block writes its partials to the workspace (the function's last
// argument, its size in nova_gpu.workspace_bytes), fences and draws a
// ticket. The last blocks to draw one (nova_gpu.co_resident_blocks of
// them: the runtime checks the device holds them at once) wait until every
// block has drawn, then each folds its share of the partials' columns in
// block order (row slices a thread each, then the slices in order), writes
// the results, and zeroes the partials; the last of them past the wait
// resets the counters.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s

// 5000 rows of 203 columns: one row per block at a time (256 threads, one
// column slot each), 256 blocks; partials: 256 x 203 f64 at byte 256, then
// 256 f32 maxima at 416000 (each region 256-byte aligned). The fold's 204
// items (203 f64 columns, the max) go to the last 13 blocks, 16 each: 16
// slices of 16 blocks per item.
// CHECK-LABEL: gpu.func @row_and_column
// CHECK-SAME: (%[[X:.*]]: memref<5000x203xf32>, %[[S:.*]]: memref<5000x1xf32>, %[[C:.*]]: memref<203xf32>, %[[T:.*]]: memref<f32>, %[[WS:.*]]: memref<417024xi8>)
// CHECK-SAME: workgroup({{.*}}, %[[WARPS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[TICKET:.*]] : memref<1xi32, #gpu.address_space<workgroup>>, %[[SUMS:.*]] : memref<256xf64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[MAXS:.*]] : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>, nova_gpu.co_resident_blocks = 13 : i64, nova_gpu.workspace_bytes = 417024 : i64
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[ACC:.*]]:2 = scf.for %{{.*}} = %[[BLOCK]] to %c5000 step %c256 iter_args({{.*}}) -> (f64, f32)
// The shares of the sums across the rows are folded before the row's
// outputs are stored (an output may be planned over an input it reads).
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: scf.yield
// CHECK: %[[PART:.*]] = memref.view %[[WS]][%c256][] : memref<417024xi8> to memref<256x203xf64>
// CHECK: memref.store %[[ACC]]#0, %[[PART]]
// CHECK: %[[MAXES:.*]] = memref.view %[[WS]][%c416000][] : memref<417024xi8> to memref<256x1xf32>
// CHECK: gpu.shuffle xor %[[ACC]]#1
// CHECK: memref.store %{{.*}}, %[[WARPS]]
// CHECK: memref.store %{{.*}}, %[[MAXES]]
// Every block draws a ticket from counter 0; the last 13 (tickets 243 and
// up) fold. Thread 0 waits for the 256th ticket by acquire loads of the
// counter, then counts itself past the wait on counter 1; the 13th to do
// so resets both.
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[COUNTERS:.*]] = memref.view %[[WS]][%c0][] : memref<417024xi8> to memref<64xi32>
// CHECK: %[[DRAWN:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c0]
// CHECK: memref.store %[[DRAWN]], %[[TICKET]]
// CHECK: gpu.barrier
// CHECK: %[[MINE:.*]] = memref.load %[[TICKET]]
// CHECK: arith.cmpi sge, %[[MINE]], %c243_i32
// CHECK: scf.while
// CHECK-NEXT: llvm.inline_asm has_side_effects "ld.acquire.gpu.global.u32 $0, [$1];"
// CHECK: arith.cmpi slt, %{{.*}}, %c256_i32
// CHECK: nvvm.nanosleep
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: %[[PAST:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c1]
// CHECK: arith.cmpi eq, %[[PAST]], %c12_i32
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNTERS]][%c0]
// CHECK: memref.store %c0_i32{{.*}}, %[[COUNTERS]][%c1]
// CHECK: gpu.barrier
// A thread's slice: 16 blocks' partials loaded before any is combined,
// then zeroed, folded in block order into the slice totals.
// CHECK: %[[BLOCKS:.*]] = memref.view %[[WS]][%c256][] : memref<417024xi8> to memref<256x203xf64>
// CHECK-COUNT-16: vector.load %[[BLOCKS]]
// CHECK-COUNT-16: vector.store %{{.*}}, %[[BLOCKS]]
// CHECK-COUNT-16: arith.addf
// CHECK: memref.store %{{.*}}, %[[SUMS]]
// CHECK: memref.view %[[WS]][%c416000][] : memref<417024xi8> to memref<256x1xf32>
// CHECK-COUNT-16: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[MAXS]]
// CHECK: gpu.barrier
// Slice 0's threads combine the 16 slices in order into the results.
// CHECK-COUNT-16: memref.load %[[SUMS]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-COUNT-16: memref.load %[[MAXS]]
// CHECK: memref.store %{{.*}}, %[[T]][]
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
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 5, 1, 1>, nova_gpu.co_resident_blocks = 1 : i64, nova_gpu.workspace_bytes = 512 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c5 step %c5 iter_args(%{{.*}}) -> (f64)
// CHECK: memref.atomic_rmw addi
nova_tile.kernel @total row_reduction schedule <tile = [8, 64], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%x: tensor<37x64xf32>):
  %t = nova.reduce sum %x dims [0, 1] : tensor<37x64xf32> -> tensor<f32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<37x64xf32> -> tensor<37x1xf32>
  nova_tile.yield %t, %m : tensor<f32>, tensor<37x1xf32>
}
