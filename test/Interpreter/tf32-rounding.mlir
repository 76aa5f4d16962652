// nova.round_tf32 in the reference interpreter: 10 mantissa bits, ties to
// even (1 + 2^-11 lies halfway and rounds to the even 1, 1 + 3 * 2^-12
// rounds up to 1 + 2^-10), infinities kept; --f64 leaves the rounding out,
// as it does a TF32 product's. A product marked nova.rounded checks that
// those operands hold TF32 values (the GPU kernel would truncate others).
// RUN: nova-run %s --entry round --print | FileCheck %s --check-prefix=ROUND
// RUN: nova-run %s --entry round --f64 --print | FileCheck %s --check-prefix=F64
// RUN: nova-run %s --entry kept --print | FileCheck %s --check-prefix=KEPT
// RUN: not nova-run %s --entry broken 2>&1 | FileCheck %s --check-prefix=BROKEN

// ROUND: result0 = tensor<4xf32> [1, 1.00098, -3, inf]
// F64: result0 = tensor<4xf32> [1.00049, 1.00073, -3, inf]
func.func @round() -> tensor<4xf32> {
  %x = nova.constant dense<[1.00048828125, 1.000732421875, -3.0000002, 0x7F800000]> : tensor<4xf32>
  %r = nova.round_tf32 %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// The rounded copy feeds the marked product: [1, 1.00098] . [1, 1] =
// 2.00098, as the unmarked product that rounds the same operand itself.
// KEPT: result0 = tensor<1x1xf32> [2.00098]
// KEPT: result1 = tensor<1x1xf32> [2.00098]
func.func @kept() -> (tensor<1x1xf32>, tensor<1x1xf32>) {
  %a = nova.constant dense<[[1.0, 1.0]]> : tensor<1x2xf32>
  %w = nova.constant dense<[[1.00048828125, 1.000732421875]]> : tensor<1x2xf32>
  %r = nova.round_tf32 %w : tensor<1x2xf32>
  %p = nova.matmul %a, %r transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>} : tensor<1x2xf32>, tensor<1x2xf32> -> tensor<1x1xf32>
  %q = nova.matmul %a, %w transpose_rhs {nova.precision = "tf32"} : tensor<1x2xf32>, tensor<1x2xf32> -> tensor<1x1xf32>
  return %p, %q : tensor<1x1xf32>, tensor<1x1xf32>
}

// BROKEN: tf32-rounding.mlir:[[@LINE+4]]:8: error: operand 1 is marked nova.rounded but its element 1 is 1.000732e+00, not a TF32 value
func.func @broken() -> tensor<1x1xf32> {
  %a = nova.constant dense<[[1.0, 1.0]]> : tensor<1x2xf32>
  %w = nova.constant dense<[[1.0, 1.000732421875]]> : tensor<1x2xf32>
  %p = nova.matmul %a, %w transpose_rhs {nova.precision = "tf32", nova.rounded = array<i64: 1>} : tensor<1x2xf32>, tensor<1x2xf32> -> tensor<1x1xf32>
  return %p : tensor<1x1xf32>
}
