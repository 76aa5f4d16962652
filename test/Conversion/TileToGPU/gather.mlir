// convert-tile-to-gpu on the gather and scatter_add families.
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s
// RUN: nova-opt %s --convert-tile-to-gpu=deterministic=true | FileCheck %s --check-prefix=DET --implicit-check-not='atomic_rmw addf'

// gather: 4 adjacent elements of a row per thread (16-byte loads of the
// table row and stores of the output), the row from the index; an index
// outside the table (either end: one unsigned compare) reads row 0, yields
// zeros and is reported in the status record (the last parameter, bit 8),
// once per index by the thread of its first chunk: the bit, the first bad
// position and value in word 4 (as check_labels records labels in word 1)
// and the table's rows in word 5. The epilogue runs on the gathered
// elements.
// CHECK-LABEL: gpu.func @embed
// CHECK-SAME: (%[[TABLE:.*]]: memref<50257x96xf32>, %[[IDX:.*]]: memref<3x5xi32>, %[[POS:.*]]: memref<5x96xf32>, %[[OUT:.*]]: memref<3x5x96xf32>, %[[S:.*]]: memref<6xi64> {nova_gpu.status_bits = 8 : i32})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 3, 1, 1>
// CHECK: %[[FT:.*]] = memref.collapse_shape %[[TABLE]]
// CHECK: %[[FI:.*]] = memref.collapse_shape %[[IDX]]
// CHECK: %[[FO:.*]] = memref.collapse_shape %[[OUT]]
// CHECK: scf.for
// CHECK: %[[J:.*]] = arith.divui
// CHECK: %[[COL:.*]] = arith.muli
// CHECK: %[[RAW:.*]] = memref.load %[[FI]][%[[J]]]
// CHECK: %[[ROW:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c50257
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[COL]], %c0
// CHECK: %[[OUTSIDE:.*]] = arith.xori %[[IN]], %true
// CHECK: %[[REPORT:.*]] = arith.andi %[[OUTSIDE]], %[[FIRST]]
// CHECK: scf.if %[[REPORT]] {
// CHECK: memref.atomic_rmw ori %c8_i64, %[[S]][%c0]
// CHECK: %[[POSITION:.*]] = arith.index_castui %[[J]] : index to i64
// CHECK: %[[VALUE:.*]] = arith.extsi %[[RAW]] : i32 to i64
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[S]][%c4]
// CHECK: memref.store %c50257_i64, %[[S]][%c5]
// CHECK-NEXT: }
// CHECK: arith.select %[[IN]], %[[ROW]], %c0
// CHECK: vector.load %[[FT]][%{{.*}}] {alignment = 16 : i64} : memref<4824672xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.load %[[POS]]
// CHECK: vector.store %{{.*}}, %[[FO]][%{{.*}}] {alignment = 16 : i64} : memref<1440xf32>, vector<4xf32>
nova_tile.kernel @embed gather schedule <tile = [8, 64], threads = 128, stages = 1, vector = 4, split_k = 1> {
^bb0(%t: tensor<50257x96xf32>, %i: tensor<3x5xi32>, %q: tensor<5x96xf32>):
  %g = nova.gather %t[%i] axis 0 : tensor<50257x96xf32>, tensor<3x5xi32> -> tensor<3x5x96xf32>
  %s = nova.add %g, %q : tensor<3x5x96xf32>, tensor<5x96xf32>
  nova_tile.yield %s : tensor<3x5x96xf32>
}

// scatter_add by buckets (4000 indices fit in shared memory): a block per
// output row here (7 blocks of 16 warps), its dynamic shared buffer holding
// 16 counters (row x warp) and the 4000 sorted positions. Each warp counts
// its segment's matches (shared atomics; 8 index loads in flight a lane),
// a prefix sum over the counters (shuffle-up scan, the warps' totals in
// order), each warp places its matches in index order (steps without a
// match skipped on a ballot; match.any ranks, the last lane of a group
// advancing the counter between warp barriers); then a warp per row sums
// the update rows (16-byte loads, the prologue on the loaded elements) and
// stores the row once with 16-byte stores. No float atomics, no tile of
// sums in shared memory.
// CHECK-LABEL: gpu.func @hot
// CHECK-SAME: (%[[U:.*]]: memref<4x1000x64xf32>, %[[I:.*]]: memref<4x1000xi32>, %[[SC:.*]]: memref<f32>, %[[O:.*]]: memref<7x64xf32>) workgroup(%[[WT:.*]] : memref<16xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>, known_grid_size = array<i32: 7, 1, 1>, nova_gpu.dynamic_shared_bytes = 16064 : i64
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @nova_dynamic_shared
// CHECK: %[[FI:.*]] = memref.collapse_shape %[[I]]
// CHECK: llvm.store %c0_i32{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256
// CHECK-COUNT-8: memref.load %[[FI]]
// CHECK: llvm.atomicrmw add
// CHECK: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: memref.store %{{.*}}, %[[WT]]
// CHECK: gpu.barrier
// CHECK-COUNT-15: memref.load %[[WT]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[FI]]
// CHECK: %[[BALLOT:.*]] = nvvm.vote.sync  ballot
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[BALLOT]], %c0_i32
// CHECK: scf.if %[[ANY]] {
// CHECK: nvvm.match.sync  any
// CHECK: llvm.intr.ctpop
// CHECK: llvm.store
// CHECK: nvvm.bar.warp.sync
// CHECK: gpu.barrier
// CHECK: %[[FO:.*]] = memref.collapse_shape %[[O]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1 step %c16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<256000xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.mulf
// CHECK: vector.store %{{.*}}, %[[FO]][%{{.*}}] {alignment = 16 : i64} : memref<448xf32>, vector<4xf32>
// CHECK: gpu.return

// deterministic=true: the same buckets, the sums in f64, narrowed once.
// DET-LABEL: gpu.func @hot
// DET: nvvm.match.sync  any
// DET: iter_args({{.*}}) -> (f64, f64, f64, f64)
// DET: arith.addf %{{.*}} : f64
// DET: arith.truncf %{{.*}} : f64 to f32
// DET: vector.store
// DET: gpu.return
nova_tile.kernel @hot scatter_add schedule <tile = [8, 64], threads = 128, stages = 1, vector = 4, split_k = 1> {
^bb0(%u: tensor<4x1000x64xf32>, %i: tensor<4x1000xi32>, %s: tensor<f32>):
  %m = nova.mul %u, %s : tensor<4x1000x64xf32>, tensor<f32>
  %g = nova.scatter_add %m[%i] axis 0 : tensor<4x1000x64xf32>, tensor<4x1000xi32> -> tensor<7x64xf32>
  nova_tile.yield %g : tensor<7x64xf32>
}

// scatter_add by tiles (40000 indices do not fit in shared memory): a block
// per tile of output rows (here 7 rows of 64 f32 sums in shared memory,
// zeroed first); per chunk of 128 indices a ballot per warp and the warps'
// counts compact the matching positions in index order; the matches'
// (row, column) pairs are added with shared-memory float atomics; the tile
// is stored at the end, every element once.
// CHECK-LABEL: gpu.func @many
// CHECK-SAME: workgroup(%[[ACC:.*]] : memref<448xf32, #gpu.address_space<workgroup>>, %[[M:.*]] : memref<128xi32, #gpu.address_space<workgroup>>, %[[MR:.*]] : memref<128xi32, #gpu.address_space<workgroup>>, %[[WC:.*]] : memref<4xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK-NOT: dynamic_shared_bytes
// CHECK: memref.store %cst{{.*}}, %[[ACC]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c40000 step %c128
// CHECK: nvvm.vote.sync ballot
// CHECK: llvm.intr.ctpop
// CHECK: memref.store %{{.*}}, %[[WC]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[WC]]
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK: memref.store %{{.*}}, %[[MR]]
// CHECK: gpu.barrier
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[ACC]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[ACC]]
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<7x64xf32>

// deterministic=true: no float atomics; each thread owns columns of the
// tile and adds the matches in index order, in f64.
// DET-LABEL: gpu.func @many
// DET-SAME: workgroup(%[[ACC:.*]] : memref<448xf64, #gpu.address_space<workgroup>>
// DET: nvvm.vote.sync ballot
// DET: scf.for %[[C:.*]] = %thread_id_x to %c64 step %c128
// DET: scf.for %[[MATCH:.*]] = %c0 to %{{.*}} step %c1
// DET: memref.load %[[ACC]]
// DET: arith.addf %{{.*}} : f64
// DET: memref.store %{{.*}}, %[[ACC]]
// DET: arith.truncf %{{.*}} : f64 to f32
nova_tile.kernel @many scatter_add schedule <tile = [8, 64], threads = 128, stages = 1, vector = 4, split_k = 1> {
^bb0(%u: tensor<40000x64xf32>, %i: tensor<40000xi32>):
  %g = nova.scatter_add %u[%i] axis 0 : tensor<40000x64xf32>, tensor<40000xi32> -> tensor<7x64xf32>
  nova_tile.yield %g : tensor<7x64xf32>
}
