// nova-fuse with single GEMMs gives the K-major B of a TF32 product a
// rounded copy (nova.round_tf32 in a pointwise kernel of its own) when the
// copy costs less than the GEMM kernel's rounding of each B tile in shared
// memory, which every row tile repeats (wgmma::roundedCopyPays: more row
// tiles than 132 x 128 B x 1.98 GHz / 4.1 TB/s, 8.2), and marks the product
// nova.rounded. One copy serves every product that reads the weight.
// RUN: nova-opt %s --nova-fuse=single-gemms=true -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Every group passes its contract.
// RUN: nova-opt %t.mlir --nova-print-hash -o /dev/null
// The rounding is the products' own, so the outputs are the same bits.
// RUN: for f in nine_row_tiles shared_weight through_transpose eight_row_tiles n_major bf16; do \
// RUN:   nova-run %s --entry $f --random-inputs 7 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 0 --atol 0 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match
// Without single GEMMs (mma.sync's grouped form) nothing is copied.
// RUN: nova-opt %s --nova-fuse | FileCheck %s --check-prefix=GROUPED --implicit-check-not=round_tf32

// 1152 rows of 128-column tiles: 9 row tiles, the copy pays.
// CHECK-LABEL: func.func @nine_row_tiles
// CHECK-SAME: (%[[X:.*]]: tensor<1152x32xf32>, %[[W:.*]]: tensor<128x32xf32>)
// CHECK: %[[C:.*]] = nova_tile.fusion pointwise(%[[W]])
// CHECK: nova.round_tf32 %{{.*}} : tensor<128x32xf32>
// CHECK: nova_tile.fusion matmul(%[[X]], %[[C]])
// CHECK: nova.matmul %{{.*}}, %{{.*}} transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>}
func.func @nine_row_tiles(%x: tensor<1152x32xf32>, %w: tensor<128x32xf32>) -> tensor<1152x128xf32> {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<1152x32xf32>, tensor<128x32xf32> -> tensor<1152x128xf32>
  return %y : tensor<1152x128xf32>
}

// x W^T and dy W read one weight: the first reads it K-major and takes the
// copy; the second reads it N-major (its tiles are transposed in shared
// memory anyway) and keeps the original.
// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: (%[[X:.*]]: tensor<1152x32xf32>, %[[W:.*]]: tensor<128x32xf32>, %[[DY:.*]]: tensor<1152x128xf32>)
// CHECK: %[[C:.*]] = nova_tile.fusion pointwise(%[[W]])
// CHECK: nova_tile.fusion matmul(%[[X]], %[[C]])
// CHECK: nova.rounded = array<i64: 1>
// CHECK: nova_tile.fusion matmul(%[[DY]], %[[W]])
// CHECK-NOT: nova.rounded
// CHECK: return
func.func @shared_weight(%x: tensor<1152x32xf32>, %w: tensor<128x32xf32>, %dy: tensor<1152x128xf32>) -> (tensor<1152x128xf32>, tensor<1152x32xf32>) {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<1152x32xf32>, tensor<128x32xf32> -> tensor<1152x128xf32>
  %dx = nova.matmul %dy, %w {nova.precision = "tf32"} : tensor<1152x128xf32>, tensor<128x32xf32> -> tensor<1152x32xf32>
  return %y, %dx : tensor<1152x128xf32>, tensor<1152x32xf32>
}

// A transpose of [N, K] read as the [K, N] rhs is K-major in memory: the
// copy is of the value before the view.
// CHECK-LABEL: func.func @through_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<1152x32xf32>, %[[W:.*]]: tensor<128x32xf32>)
// CHECK: nova_tile.fusion pointwise(%[[W]])
// CHECK: nova.round_tf32 %{{.*}} : tensor<128x32xf32>
// CHECK: nova.rounded = array<i64: 1>
func.func @through_transpose(%x: tensor<1152x32xf32>, %w: tensor<128x32xf32>) -> tensor<1152x128xf32> {
  %t = nova.transpose %w [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
  %y = nova.matmul %x, %t {nova.precision = "tf32"} : tensor<1152x32xf32>, tensor<32x128xf32> -> tensor<1152x128xf32>
  return %y : tensor<1152x128xf32>
}

// 1024 rows: 8 row tiles, the kernel's pass costs less than a copy.
// CHECK-LABEL: func.func @eight_row_tiles
// CHECK-NOT: round_tf32
// CHECK-NOT: nova.rounded
// CHECK: return
func.func @eight_row_tiles(%x: tensor<1024x32xf32>, %w: tensor<128x32xf32>) -> tensor<1024x128xf32> {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<1024x32xf32>, tensor<128x32xf32> -> tensor<1024x128xf32>
  return %y : tensor<1024x128xf32>
}

// B stored [K, N] (N-major): no copy.
// CHECK-LABEL: func.func @n_major
// CHECK-NOT: round_tf32
// CHECK: return
func.func @n_major(%x: tensor<1152x32xf32>, %w: tensor<32x128xf32>) -> tensor<1152x128xf32> {
  %y = nova.matmul %x, %w {nova.precision = "tf32"} : tensor<1152x32xf32>, tensor<32x128xf32> -> tensor<1152x128xf32>
  return %y : tensor<1152x128xf32>
}

// bf16 products read their operands as they are.
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: round_tf32
// CHECK: return
func.func @bf16(%x: tensor<1152x32xbf16>, %w: tensor<128x32xbf16>) -> tensor<1152x128xbf16> {
  %y = nova.matmul %x, %w transpose_rhs : tensor<1152x32xbf16>, tensor<128x32xbf16> -> tensor<1152x128xbf16>
  return %y : tensor<1152x128xbf16>
}

// GROUPED-LABEL: func.func @nine_row_tiles
