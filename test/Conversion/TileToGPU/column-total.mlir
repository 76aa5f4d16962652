// A column_reduction kernel whose reduce also runs along the last dim (a
// total: the count of labels the cross-entropy mean divides by) spans the
// columns of every block: it goes through the combine across blocks (a
// workspace, the last block folds the partials), not the per-column path,
// which would yield one column's sum.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @column_reduction_
// CHECK-SAME: memref<{{[0-9]+}}xi8>
// CHECK-SAME: nova_gpu.workspace_bytes =
// CHECK: gpu.barrier
func.func @label_count(%labels: tensor<16x1024xi32>) -> tensor<f32> {
  %r = nova_tile.fusion column_reduction (%labels) : (tensor<16x1024xi32>) -> tensor<f32> {
  ^bb0(%l: tensor<16x1024xi32>):
    %c = nova.constant dense<-100> : tensor<i32>
    %keep = nova.cmp ne, %l, %c : tensor<16x1024xi32>, tensor<i32>
    %f = nova.cast %keep : tensor<16x1024xi1> to tensor<16x1024xf32>
    %n = nova.reduce sum %f dims [0, 1] : tensor<16x1024xf32> -> tensor<f32>
    nova_tile.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// A sum over the batch only keeps T x C = 9600 columns: 2400 strips of 4,
// 256 column lanes (4 rows leave one row lane): 10 blocks of 1024 columns
// (the last dim alone would be one block).
// CHECK-LABEL: gpu.func @column_reduction_
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 10, 1, 1>
func.func @batch_sum(%x: tensor<4x100x96xf32>) -> tensor<1x100x96xf32> {
  %r = nova_tile.fusion column_reduction (%x) : (tensor<4x100x96xf32>) -> tensor<1x100x96xf32> {
  ^bb0(%a: tensor<4x100x96xf32>):
    %s = nova.reduce sum %a dims [0] keep_dims : tensor<4x100x96xf32> -> tensor<1x100x96xf32>
    nova_tile.yield %s : tensor<1x100x96xf32>
  }
  return %r : tensor<1x100x96xf32>
}
