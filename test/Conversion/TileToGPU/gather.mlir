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

// scatter_add: a block per tile of output rows (here 7 rows of 64 f32
// sums in shared memory, zeroed first); per chunk of 128 indices a ballot
// per warp and the warps' counts compact the matching positions in index
// order; the matches' (row, column) pairs are added with shared-memory
// float atomics; the tile is stored at the end, every element once.
// CHECK-LABEL: gpu.func @hot
// CHECK-SAME: workgroup(%[[ACC:.*]] : memref<448xf32, #gpu.address_space<workgroup>>, %[[M:.*]] : memref<128xi32, #gpu.address_space<workgroup>>, %[[MR:.*]] : memref<128xi32, #gpu.address_space<workgroup>>, %[[WC:.*]] : memref<4xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: memref.store %cst{{.*}}, %[[ACC]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c4000 step %c128
// CHECK: nvvm.vote.sync ballot
// CHECK: llvm.intr.ctpop
// CHECK: memref.store %{{.*}}, %[[WC]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[WC]]
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK: memref.store %{{.*}}, %[[MR]]
// CHECK: gpu.barrier
// CHECK: arith.mulf
// CHECK: memref.atomic_rmw addf %{{.*}}, %[[ACC]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[ACC]]
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<7x64xf32>

// deterministic=true: no float atomics; each thread owns columns of the
// tile and adds the matches in index order, in f64.
// DET-LABEL: gpu.func @hot
// DET-SAME: workgroup(%[[ACC:.*]] : memref<448xf64, #gpu.address_space<workgroup>>
// DET: nvvm.vote.sync ballot
// DET: scf.for %[[C:.*]] = %thread_id_x to %c64 step %c128
// DET: scf.for %[[MATCH:.*]] = %c0 to %{{.*}} step %c1
// DET: memref.load %[[ACC]]
// DET: arith.addf %{{.*}} : f64
// DET: memref.store %{{.*}}, %[[ACC]]
// DET: arith.truncf %{{.*}} : f64 to f32
nova_tile.kernel @hot scatter_add schedule <tile = [8, 64], threads = 128, stages = 1, vector = 4, split_k = 1> {
^bb0(%u: tensor<4x1000x64xf32>, %i: tensor<4x1000xi32>, %s: tensor<f32>):
  %m = nova.mul %u, %s : tensor<4x1000x64xf32>, tensor<f32>
  %g = nova.scatter_add %m[%i] axis 0 : tensor<4x1000x64xf32>, tensor<4x1000xi32> -> tensor<7x64xf32>
  nova_tile.yield %g : tensor<7x64xf32>
}
