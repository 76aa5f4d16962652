// A row kernel's column sums (LayerNorm's scale and shift gradients) fold
// across its blocks after the rows: nova-configure reads their count from
// the kernel's contract and prices the fold's latency-bound rounds (16384
// rows: 256 blocks; 2 x 384 items of two columns, folded by the last 48
// blocks, 16 each: one round of 16 loads a thread, then the 16 slices),
// beside one read and one write of the rows. A row kernel without them
// (the second) has no fold.
// RUN: nova-opt %s --nova-configure="target=h200 explain=true" -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: fusion #0 row_reduction
// CHECK: predicted 41.99 us, memory-bound
// CHECK: - 2 column sums folded across 256 blocks by the last 48 to finish in 2 latency-bound rounds
// CHECK-LABEL: fusion #1 row_reduction
// CHECK: predicted 32.09 us, memory-bound
// CHECK-NOT: folded
// CHECK-LABEL: fusion #2 column_reduction
func.func @ln_backward(%dy: tensor<16384x768xbf16>, %x: tensor<16384x768xf32>) -> (tensor<16384x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %r:3 = nova_tile.fusion row_reduction (%dy, %x) : (tensor<16384x768xbf16>, tensor<16384x768xf32>) -> (tensor<16384x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  ^bb0(%a: tensor<16384x768xbf16>, %b: tensor<16384x768xf32>):
    %d = nova.cast %a : tensor<16384x768xbf16> to tensor<16384x768xf32>
    %p = nova.mul %d, %b : tensor<16384x768xf32>, tensor<16384x768xf32>
    %m = nova.reduce sum %p dims [1] keep_dims : tensor<16384x768xf32> -> tensor<16384x1xf32>
    %o = nova.sub %b, %m : tensor<16384x768xf32>, tensor<16384x1xf32>
    %s1 = nova.reduce sum %d dims [0] : tensor<16384x768xf32> -> tensor<768xf32>
    %s2 = nova.reduce sum %p dims [0] : tensor<16384x768xf32> -> tensor<768xf32>
    nova_tile.yield %o, %s1, %s2 : tensor<16384x768xf32>, tensor<768xf32>, tensor<768xf32>
  }
  %n = nova_tile.fusion row_reduction (%x) : (tensor<16384x768xf32>) -> tensor<16384x768xf32> {
  ^bb0(%c: tensor<16384x768xf32>):
    %m = nova.reduce max %c dims [1] keep_dims : tensor<16384x768xf32> -> tensor<16384x1xf32>
    %o = nova.sub %c, %m : tensor<16384x768xf32>, tensor<16384x1xf32>
    nova_tile.yield %o : tensor<16384x768xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<16384x768xf32>, tensor<768xf32>, tensor<768xf32>
}

// A column kernel of totals alone (the loss's count of labels that are not
// ignored) is lowered by convert-tile-to-gpu as a row kernel over its
// [rows, last dim] space, so it is priced and scheduled as one: warps on
// rows of 1024, 8 rows a block (2 blocks), the blocks' partials of the
// total folded by the last in one round; 64 KB of labels in, a mask and the
// count out (81924 bytes: the DRAM round trip).
// RUN: nova-opt %s --nova-configure="target=h200 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTALS
// TOTALS-LABEL: fusion #2 column_reduction
// TOTALS-NEXT: row-reduction F32 batch 1 m 16 n 1024 k 1 totals 1
// TOTALS-NEXT: tile 8x1024x1, 256 threads, 1 stages, vector 4, split 1, grid [2, 1, 1]
// TOTALS-NEXT: predicted 7.48 us, memory-bound
// TOTALS: - 1 total(s) folded across 2 blocks by the last in one latency-bound round
func.func @label_count(%labels: tensor<16x1024xi32>) -> (tensor<16x1024xi1>, tensor<f32>) {
  %r:2 = nova_tile.fusion column_reduction (%labels) : (tensor<16x1024xi32>) -> (tensor<16x1024xi1>, tensor<f32>) {
  ^bb0(%l: tensor<16x1024xi32>):
    %ignore = nova.constant dense<-100> : tensor<i32>
    %keep = nova.cmp ne, %l, %ignore : tensor<16x1024xi32>, tensor<i32>
    %one = nova.cast %keep : tensor<16x1024xi1> to tensor<16x1024xf32>
    %n = nova.reduce sum %one dims [0, 1] : tensor<16x1024xf32> -> tensor<f32>
    nova_tile.yield %keep, %n : tensor<16x1024xi1>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<16x1024xi1>, tensor<f32>
}

// So is a column kernel with a total beside its column sums (over every
// leading dim): its sums fold as a row kernel's.
// RUN: nova-opt %s --nova-configure="target=h200 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED-LABEL: fusion #3 column_reduction
// MIXED-NEXT: row-reduction F32 batch 1 m 4096 n 768 k 1 column-sums 1 totals 1
// MIXED: column sums folded across
func.func @sum_and_total(%x: tensor<4096x768xf32>) -> (tensor<768xf32>, tensor<f32>) {
  %r:2 = nova_tile.fusion column_reduction (%x) : (tensor<4096x768xf32>) -> (tensor<768xf32>, tensor<f32>) {
  ^bb0(%a: tensor<4096x768xf32>):
    %s = nova.reduce sum %a dims [0] : tensor<4096x768xf32> -> tensor<768xf32>
    %t = nova.reduce sum %a dims [0, 1] : tensor<4096x768xf32> -> tensor<f32>
    nova_tile.yield %s, %t : tensor<768xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<768xf32>, tensor<f32>
}
