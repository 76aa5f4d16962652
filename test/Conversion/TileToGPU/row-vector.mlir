// Row kernels read and write full rows in 16-byte chunks. @ln: rows of 96
// f32 (a warp per row), 4 columns per chunk: each lane's one fixed chunk
// (lanes past the row's 24 chunks read the last one again and store
// nothing) is loaded once, before the first of the two dependent passes,
// and both passes and the bf16 output (one 8-byte vector.store) work from
// that register copy: no loop, no second load; no element of %x is loaded
// alone. @ragged: rows of 1003 bf16 (8 per chunk):
// row r starts at element 1003 r, so each row's columns before its first
// 16-byte boundary (head = (8 - 1003 r mod 8) mod 8) and after its last
// whole chunk are read and written one by one around the vector loop.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s --implicit-check-not="memref.load %arg0[%{{.*}}, %{{.*}}] : memref<16x96xf32>" --implicit-check-not="memref.load %arg0[%{{.*}}, %{{.*}}] : memref<64x768xf32>"

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[X:.*]]: memref<16x96xf32>, %[[Y:.*]]: memref<16x96xbf16>)
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]]
// CHECK: %[[YF:.*]] = memref.collapse_shape %[[Y]]
// CHECK-NOT: scf.for
// CHECK: arith.minui %{{.*}}, %c23
// CHECK: vector.load %[[XF]][%[[FIRST:.*]]] {alignment = 16 : i64} : memref<1536xf32>, vector<4xf32>
// CHECK-NOT: vector.load
// CHECK-NOT: scf.for
// CHECK: gpu.shuffle
// CHECK-NOT: vector.load
// CHECK: arith.subf
// CHECK-NOT: vector.load
// CHECK: gpu.shuffle
// CHECK-NOT: vector.load
// CHECK: scf.if
// CHECK-NEXT: %[[OUT:.*]] = vector.from_elements {{.*}} : vector<4xbf16>
// CHECK-NEXT: vector.store %[[OUT]], %[[YF]][%[[FIRST]]] {alignment = 8 : i64} : memref<1536xbf16>, vector<4xbf16>
// CHECK-NOT: vector.load
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[R:.*]]: memref<5x1003xbf16>, %[[P:.*]]: memref<5x1003xbf16>)
// CHECK: %[[RF:.*]] = memref.collapse_shape %[[R]]
// CHECK: %[[PF:.*]] = memref.collapse_shape %[[P]]
// The max: head, chunks, tail.
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %c1003
// CHECK: %[[MIS:.*]] = arith.remui %[[START]], %c8
// CHECK: %[[GAP:.*]] = arith.subi %c8, %[[MIS]]
// CHECK: %[[HEAD0:.*]] = arith.remui %[[GAP]], %c8
// CHECK: %[[HEAD:.*]] = arith.minui %[[HEAD0]], %c1003
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[HEAD]] step %{{.*}} iter_args
// CHECK: memref.load %[[R]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: vector.load %[[RF]][%{{.*}}] {alignment = 16 : i64} : memref<5015xbf16>, vector<8xbf16>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1003 step %{{.*}} iter_args
// CHECK: memref.load %[[R]]
// The outputs: head, chunks (16-byte vector stores), tail.
// CHECK: scf.if
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: scf.for
// CHECK: vector.load %[[RF]]
// CHECK: vector.store %{{.*}}, %[[PF]][%{{.*}}] {alignment = 16 : i64} : memref<5015xbf16>, vector<8xbf16>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: gpu.return

func.func @ln(%x: tensor<16x96xf32>) -> tensor<16x96xbf16> {
  %r = nova_tile.fusion row_reduction (%x) : (tensor<16x96xf32>) -> tensor<16x96xbf16> {
  ^bb0(%xa: tensor<16x96xf32>):
    %s = nova.reduce sum %xa dims [1] keep_dims : tensor<16x96xf32> -> tensor<16x1xf32>
    %c = nova.sub %xa, %s : tensor<16x96xf32>, tensor<16x1xf32>
    %q = nova.mul %c, %c : tensor<16x96xf32>, tensor<16x96xf32>
    %v = nova.reduce sum %q dims [1] keep_dims : tensor<16x96xf32> -> tensor<16x1xf32>
    %n = nova.mul %c, %v : tensor<16x96xf32>, tensor<16x1xf32>
    %y = nova.cast %n : tensor<16x96xf32> to tensor<16x96xbf16>
    nova_tile.yield %y : tensor<16x96xbf16>
  }
  return %r : tensor<16x96xbf16>
}
func.func @ragged(%x: tensor<5x1003xbf16>) -> tensor<5x1003xbf16> {
  %r = nova_tile.fusion row_reduction (%x) : (tensor<5x1003xbf16>) -> tensor<5x1003xbf16> {
  ^bb0(%xa: tensor<5x1003xbf16>):
    %m = nova.reduce max %xa dims [1] keep_dims : tensor<5x1003xbf16> -> tensor<5x1xbf16>
    %d = nova.sub %xa, %m : tensor<5x1003xbf16>, tensor<5x1xbf16>
    nova_tile.yield %d : tensor<5x1003xbf16>
  }
  return %r : tensor<5x1003xbf16>
}

// @colsum: a LayerNorm-backward-like row kernel with a column sum of its
// input. 768 f32 columns (192 chunks of 4) start on chunk boundaries. A
// warp a row would take 6 chunks a lane, but the eight rows of a 256-thread
// block would need 8 x 768 f64 sums to combine, more than the shared buffer
// holds; so two warps take a row (four rows per block, their 4 x 768 f64
// sums in the buffer) and each lane its 3 fixed chunks, all loaded before
// any is used. The lane sums exactly the columns of its chunks (12 f64
// carried over the rows), reusing the loaded values: no element of the row
// is loaded alone (the implicit check above). The row's sum crosses its two
// warps through shared memory before the second read; no barrier separates
// that read from its stores, since each lane stores only the columns it
// read. The block's rows then combine in row order through shared memory.
// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: (%[[CX:.*]]: memref<64x768xf32>, %{{.*}}: memref<64x768xf32>, %[[CY:.*]]: memref<64x768xf32>, %[[CS:.*]]: memref<768xf32>, %[[CWS:.*]]: memref<98560xi8>) workgroup(%{{.*}} : memref<8xf64, #gpu.address_space<workgroup>>, %[[SUMS:.*]] : memref<3072xf64, #gpu.address_space<workgroup>>
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 16, 1, 1>
// CHECK: %[[ACC:.*]]:12 = scf.for
// CHECK-COUNT-6: vector.load %{{.*}} : memref<49152xf32>, vector<4xf32>
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-COUNT-6: vector.load %{{.*}} : memref<49152xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: arith.addf %{{.*}} : f64
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<49152xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: memref.view %[[CWS]][%c256][] : memref<98560xi8> to memref<16x768xf64>
// CHECK: memref.store %[[ACC]]#0, %[[SUMS]]
// CHECK: memref.store %[[ACC]]#11, %[[SUMS]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-COUNT-4: memref.load %[[SUMS]]
func.func @colsum(%x: tensor<64x768xf32>, %z: tensor<64x768xf32>) -> (tensor<64x768xf32>, tensor<768xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%x, %z) : (tensor<64x768xf32>, tensor<64x768xf32>) -> (tensor<64x768xf32>, tensor<768xf32>) {
  ^bb0(%xa: tensor<64x768xf32>, %za: tensor<64x768xf32>):
    %m = nova.reduce sum %xa dims [1] keep_dims : tensor<64x768xf32> -> tensor<64x1xf32>
    %d = nova.sub %za, %m : tensor<64x768xf32>, tensor<64x1xf32>
    %s = nova.reduce sum %xa dims [0] : tensor<64x768xf32> -> tensor<768xf32>
    nova_tile.yield %d, %s : tensor<64x768xf32>, tensor<768xf32>
  }
  return %r#0, %r#1 : tensor<64x768xf32>, tensor<768xf32>
}
