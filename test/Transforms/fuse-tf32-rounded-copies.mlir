// nova-fuse with single GEMMs gives the K-major B of a TF32 product a
// rounded copy (nova.round_tf32 in a pointwise kernel of its own, placed
// before its first reader) when the copy, launch included, costs less than
// the GEMM kernel's rounding of each B tile in shared memory, which every
// row tile repeats (wgmma::roundedCopyPays), and marks the product
// nova.rounded. A copy serves every product that reads the weight; a view
// that something else reads too is not replaced (its readers would see
// rounded values).
// RUN: nova-opt %s --nova-fuse=single-gemms=true -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Every group passes its contract.
// RUN: nova-opt %t.mlir --nova-print-hash -o /dev/null
// The rounding is the products' own, so the outputs are the same bits (the
// interpreter also checks that the marked operands hold TF32 values).
// RUN: for f in weight shared_view; do \
// RUN:   nova-run %s --entry $f --random-inputs 7 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 0 --atol 0 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match
// Without single GEMMs (mma.sync's grouped form) nothing is copied.
// RUN: nova-opt %s --nova-fuse | FileCheck %s --check-prefix=GROUPED --implicit-check-not=round_tf32

// 16384 rows of 256-column tiles: 64 row tiles, each rounding W's 1 MB in
// shared memory (4 us over the SMs) against a 0.5 us copy and its launch.
// CHECK-LABEL: func.func @weight
// CHECK-SAME: (%[[X:.*]]: tensor<16384x1024xf32>, %[[W:.*]]: tensor<256x1024xf32>)
// CHECK: %[[C:.*]] = nova_tile.fusion pointwise(%[[W]])
// CHECK: nova.round_tf32 %{{.*}} : tensor<256x1024xf32>
// CHECK: nova_tile.fusion matmul(%[[X]], %[[C]])
// CHECK: nova.matmul %{{.*}}, %{{.*}} transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>}
func.func @weight(%x: tensor<16384x1024xf32>, %w: tensor<256x1024xf32>) -> tensor<16384x256xf32> {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<256x1024xf32> -> tensor<16384x256xf32>
  return %y : tensor<16384x256xf32>
}

// A 64 KB weight: the launch costs more than the pass.
// CHECK-LABEL: func.func @small_weight
// CHECK-NOT: round_tf32
// CHECK-NOT: nova.rounded
// CHECK: return
func.func @small_weight(%x: tensor<16384x64xf32>, %w: tensor<256x64xf32>) -> tensor<16384x256xf32> {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<16384x64xf32>, tensor<256x64xf32> -> tensor<16384x256xf32>
  return %y : tensor<16384x256xf32>
}

// 1024 rows: 4 row tiles, the kernel's pass costs less than a copy.
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: round_tf32
// CHECK-NOT: nova.rounded
// CHECK: return
func.func @few_rows(%x: tensor<1024x1024xf32>, %w: tensor<256x1024xf32>) -> tensor<1024x256xf32> {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<1024x1024xf32>, tensor<256x1024xf32> -> tensor<1024x256xf32>
  return %y : tensor<1024x256xf32>
}

// Two K-major readers and an N-major one (dy W) share one copy, placed
// before the first of them; all three are marked.
// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: (%[[X:.*]]: tensor<16384x1024xf32>, %[[W:.*]]: tensor<256x1024xf32>, %[[X2:.*]]: tensor<16384x1024xf32>, %[[DY:.*]]: tensor<16384x256xf32>)
// CHECK: %[[C:.*]] = nova_tile.fusion pointwise(%[[W]])
// CHECK: nova.round_tf32
// CHECK-NOT: round_tf32
// CHECK: nova_tile.fusion matmul(%[[X]], %[[C]])
// CHECK: nova.rounded = array<i64: 1>
// CHECK: nova_tile.fusion matmul(%[[X2]], %[[C]])
// CHECK: nova.rounded = array<i64: 1>
// CHECK: nova_tile.fusion matmul(%[[DY]], %[[C]])
// CHECK: nova.rounded = array<i64: 1>
// CHECK: return
func.func @shared_weight(%x: tensor<16384x1024xf32>, %w: tensor<256x1024xf32>, %x2: tensor<16384x1024xf32>, %dy: tensor<16384x256xf32>) -> (tensor<16384x256xf32>, tensor<16384x256xf32>, tensor<16384x1024xf32>) {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<256x1024xf32> -> tensor<16384x256xf32>
  %y2 = nova.matmul %x2, %w transpose_rhs {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<256x1024xf32> -> tensor<16384x256xf32>
  %dx = nova.matmul %dy, %w {nova.precision = "tf32"} : tensor<16384x256xf32>, tensor<256x1024xf32> -> tensor<16384x1024xf32>
  return %y, %y2, %dx : tensor<16384x256xf32>, tensor<16384x256xf32>, tensor<16384x1024xf32>
}

// A transpose of [N, K] read as the [K, N] rhs is K-major in memory: the
// copy is of the value before the view.
// CHECK-LABEL: func.func @through_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<16384x1024xf32>, %[[W:.*]]: tensor<256x1024xf32>)
// CHECK: nova_tile.fusion pointwise(%[[W]])
// CHECK: nova.round_tf32 %{{.*}} : tensor<256x1024xf32>
// CHECK: nova.rounded = array<i64: 1>
func.func @through_transpose(%x: tensor<16384x1024xf32>, %w: tensor<256x1024xf32>) -> tensor<16384x256xf32> {
  %t = nova.transpose %w [1, 0] : tensor<256x1024xf32> -> tensor<1024x256xf32>
  %y = nova.matmul %x, %t {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<1024x256xf32> -> tensor<16384x256xf32>
  return %y : tensor<16384x256xf32>
}

// The transpose is also returned: replacing its input would round what the
// caller gets (the interpreter comparison above would see it), so the walk
// stops at the view, which is N-major: no copy.
// CHECK-LABEL: func.func @shared_view
// CHECK-NOT: round_tf32
// CHECK-NOT: nova.rounded
// CHECK: return
func.func @shared_view(%x: tensor<16384x1024xf32>, %w: tensor<256x1024xf32>) -> (tensor<16384x256xf32>, tensor<1024x256xf32>) {
  %t = nova.transpose %w [1, 0] : tensor<256x1024xf32> -> tensor<1024x256xf32>
  %y = nova.matmul %x, %t {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<1024x256xf32> -> tensor<16384x256xf32>
  return %y, %t : tensor<16384x256xf32>, tensor<1024x256xf32>
}

// B stored [K, N] (N-major): no copy.
// CHECK-LABEL: func.func @n_major
// CHECK-NOT: round_tf32
// CHECK: return
func.func @n_major(%x: tensor<16384x1024xf32>, %w: tensor<1024x256xf32>) -> tensor<16384x256xf32> {
  %y = nova.matmul %x, %w {nova.precision = "tf32"} : tensor<16384x1024xf32>, tensor<1024x256xf32> -> tensor<16384x256xf32>
  return %y : tensor<16384x256xf32>
}

// bf16 products read their operands as they are.
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: round_tf32
// CHECK: return
func.func @bf16(%x: tensor<16384x1024xbf16>, %w: tensor<256x1024xbf16>) -> tensor<16384x256xbf16> {
  %y = nova.matmul %x, %w transpose_rhs : tensor<16384x1024xbf16>, tensor<256x1024xbf16> -> tensor<16384x256xbf16>
  return %y : tensor<16384x256xbf16>
}

// GROUPED-LABEL: func.func @weight
