// convert-tile-to-gpu on a column kernel with many rows (the MLP bias
// gradient with an element-wise backward fused): one pass. Each thread
// takes a 16-byte strip of columns (8 bf16) of a chunk of the rows, reads
// each row's strip once per input (vector.load), keeps its 8 column sums
// in registers (f64) and writes the element-wise output with one
// vector.store; the block's 8 row lanes fold in order through shared
// memory into the workspace (one f64 row per row chunk); the last block of
// each column strip to draw its ticket folds the 32 chunks in order (zeroing
// them), stores the bias gradient and resets its ticket. 3072 columns: 12 column
// blocks of 256 x 32 row chunks of 64 rows. No element is read or written
// one by one.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu \
// RUN:   | FileCheck %s --implicit-check-not='memref.load %arg0[' \
// RUN:       --implicit-check-not='memref.load %arg1[' \
// RUN:       --implicit-check-not='memref.store %{{.*}}, %arg2['

// CHECK-LABEL: gpu.func @column_reduction_
// CHECK-SAME: (%[[DH:.*]]: memref<4x512x3072xbf16>, %[[PRE:.*]]: memref<4x512x3072xbf16>, %[[DPRE:.*]]: memref<4x512x3072xbf16>, %[[DB:.*]]: memref<3072xf32>, %[[WS:.*]]: memref<786688xi8>)
// CHECK-SAME: workgroup(%[[LANES:.*]] : memref<2048xf64, #gpu.address_space<workgroup>>, %[[FLAG:.*]] : memref<1xi32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 384, 1, 1>, nova_gpu.workspace_bytes = 786688
// CHECK: %[[DHF:.*]] = memref.collapse_shape %[[DH]]
// CHECK: %[[PREF:.*]] = memref.collapse_shape %[[PRE]]
// CHECK: %[[DPREF:.*]] = memref.collapse_shape %[[DPRE]]
// CHECK: %[[SUMS:.*]]:8 = scf.for %{{.*}} step %c8 iter_args({{.*}}) -> (f64, f64, f64, f64, f64, f64, f64, f64)
// CHECK: %[[AT:.*]] = arith.addi
// CHECK: vector.load %[[DHF]][%[[AT]]] {alignment = 16 : i64} : memref<6291456xbf16>, vector<8xbf16>
// CHECK: vector.load %[[PREF]][%[[AT]]] {alignment = 16 : i64} : memref<6291456xbf16>, vector<8xbf16>
// CHECK-COUNT-8: llvm.inline_asm "tanh.approx.f32 $0, $1;"
// CHECK: vector.store %{{.*}}, %[[DPREF]][%[[AT]]] {alignment = 16 : i64} : memref<6291456xbf16>, vector<8xbf16>
// CHECK: %[[PARTS:.*]] = memref.view %[[WS]][%c256][] : memref<786688xi8> to memref<32x3072xf64>
// CHECK: memref.store %[[SUMS]]#0, %[[LANES]]
// CHECK: memref.store %[[SUMS]]#7, %[[LANES]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: memref.load %[[LANES]]
// CHECK: memref.store %{{.*}}, %[[PARTS]]
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: gpu.barrier
// CHECK: %[[TICKETS:.*]] = memref.view %[[WS]][%c0][] : memref<786688xi8> to memref<12xi32>
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[TICKETS]]
// CHECK: arith.cmpi eq, %{{.*}}, %c31_i32
// CHECK: gpu.barrier
// CHECK: memref.load %[[FLAG]]
// CHECK: scf.if
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1
// CHECK: %[[AT_PART:.*]] = memref.load %[[PARTS]][%[[CHUNK:.*]], %[[COL:.*]]]
// The partials are left zeroed (the executable's workspace contract), by the
// thread that owns the column.
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[PARTS]][%[[CHUNK]], %[[COL]]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: memref.store %{{.*}}, %[[DB]]
// CHECK: memref.store %c0_i32{{.*}}, %[[TICKETS]]
func.func @gelu_bias_grad(%dh: tensor<4x512x3072xbf16>, %pre: tensor<4x512x3072xbf16>)
    -> (tensor<4x512x3072xbf16>, tensor<3072xf32>) {
  %r:2 = nova_tile.fusion column_reduction (%dh, %pre)
      : (tensor<4x512x3072xbf16>, tensor<4x512x3072xbf16>)
      -> (tensor<4x512x3072xbf16>, tensor<3072xf32>) {
  ^bb0(%g: tensor<4x512x3072xbf16>, %x: tensor<4x512x3072xbf16>):
    %t = nova.tanh %x : tensor<4x512x3072xbf16>
    %d = nova.mul %g, %t : tensor<4x512x3072xbf16>, tensor<4x512x3072xbf16>
    %df = nova.cast %d : tensor<4x512x3072xbf16> to tensor<4x512x3072xf32>
    %db = nova.reduce sum %df dims [0, 1] : tensor<4x512x3072xf32> -> tensor<3072xf32>
    nova_tile.yield %d, %db : tensor<4x512x3072xbf16>, tensor<3072xf32>
  }
  return %r#0, %r#1 : tensor<4x512x3072xbf16>, tensor<3072xf32>
}
