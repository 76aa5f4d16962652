// Every nova folder, through upstream canonicalize and through the
// dialect-scoped nova-canonicalize (which leaves other dialects alone).
// RUN: nova-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: nova-opt %s -nova-canonicalize -split-input-file | FileCheck %s

// x + -0 is x for every float x; x + +0 is not (it is +0 for x = -0), so
// only integer zeros and -0.0 are identities of add.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[N:.*]]: tensor<4xi32>)
// CHECK-NEXT: %[[PZ:.*]] = nova.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[KEPT:.*]] = nova.add %[[X]], %[[PZ]]
// CHECK-NEXT: return %[[X]], %[[X]], %[[N]], %[[KEPT]]
func.func @add_zero(%x: tensor<4x8xf32>, %n: tensor<4xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xi32>, tensor<4x8xf32>) {
  %z = nova.constant dense<-0.0> : tensor<8xf32>
  %0 = nova.add %x, %z : tensor<4x8xf32>, tensor<8xf32>
  %1 = nova.add %z, %x : tensor<8xf32>, tensor<4x8xf32>
  %iz = nova.constant dense<0> : tensor<i32>
  %2 = nova.add %n, %iz : tensor<4xi32>, tensor<i32>
  %pz = nova.constant dense<0.0> : tensor<8xf32>
  %3 = nova.add %x, %pz : tensor<4x8xf32>, tensor<8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xi32>, tensor<4x8xf32>
}

// -----

// Adding zeros that broadcast x to a bigger shape is not an identity.
// CHECK-LABEL: func.func @add_zero_that_broadcasts
// CHECK: nova.add
func.func @add_zero_that_broadcasts(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %z = nova.constant dense<0.0> : tensor<4x8xf32>
  %0 = nova.add %x, %z : tensor<8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @sub_zero_mul_one_div_one_pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[N]], %[[N]], %[[X]], %[[X]]
func.func @sub_zero_mul_one_div_one_pow_one(%x: tensor<4xf32>, %n: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
  %z = nova.constant dense<0.0> : tensor<4xf32>
  %one = nova.constant dense<1> : tensor<i32>
  %onef = nova.constant dense<1.0> : tensor<f32>
  %0 = nova.sub %x, %z : tensor<4xf32>, tensor<4xf32>
  %1 = nova.mul %one, %n : tensor<i32>, tensor<4xi32>
  %2 = nova.div %n, %one : tensor<4xi32>, tensor<i32>
  %3 = nova.mul %x, %onef : tensor<4xf32>, tensor<f32>
  %4 = nova.pow %x, %onef : tensor<4xf32>, tensor<f32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Constant folding computes in double and rounds to the result type, with
// NumPy broadcasting.
// CHECK-LABEL: func.func @fold_binary_constants
// CHECK-DAG: nova.constant dense<{{\[}}[1.100000e+01, 2.300000e+01], [1.300000e+01, 2.500000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: nova.constant dense<[2, 0, -2]> : tensor<3xi32>
// CHECK-DAG: nova.constant dense<6.000000e+00> : tensor<4xbf16>
// CHECK-NOT: nova.add
// CHECK-NOT: nova.sub
// CHECK-NOT: nova.mul
func.func @fold_binary_constants() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<4xbf16>) {
  %a = nova.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = nova.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c = nova.constant dense<[[0.0, 2.0]]> : tensor<1x2xf32>
  %ab = nova.add %a, %b : tensor<2x1xf32>, tensor<2xf32>
  %0 = nova.add %ab, %c : tensor<2x2xf32>, tensor<1x2xf32>
  %i = nova.constant dense<[3, 1, -1]> : tensor<3xi32>
  %j = nova.constant dense<1> : tensor<3xi32>
  %1 = nova.sub %i, %j : tensor<3xi32>, tensor<3xi32>
  %h = nova.constant dense<2.0> : tensor<4xbf16>
  %k = nova.constant dense<3.0> : tensor<4xbf16>
  %2 = nova.mul %h, %k : tensor<4xbf16>, tensor<4xbf16>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<3xi32>, tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @fold_more_binary
// CHECK-DAG: nova.constant dense<[2.500000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[3, -2]> : tensor<2xi64>
// CHECK-DAG: nova.constant dense<true> : tensor<2xi1>
// CHECK-DAG: nova.constant dense<[9.000000e+00, 1.600000e+01]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @fold_more_binary() -> (tensor<2xf32>, tensor<2xi64>, tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) {
  %a = nova.constant dense<[5.0, 8.0]> : tensor<2xf32>
  %two = nova.constant dense<2.0> : tensor<f32>
  %0 = nova.div %a, %two : tensor<2xf32>, tensor<f32>
  %i = nova.constant dense<[7, -5]> : tensor<2xi64>
  %d = nova.constant dense<2> : tensor<i64>
  %1 = nova.div %i, %d : tensor<2xi64>, tensor<i64>
  %2 = nova.cmp gt, %a, %0 : tensor<2xf32>, tensor<2xf32>
  %b = nova.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %3 = nova.pow %b, %two : tensor<2xf32>, tensor<f32>
  %m = nova.constant dense<[1.0, 9.0]> : tensor<2xf32>
  %mx = nova.max %m, %two : tensor<2xf32>, tensor<f32>
  %4 = nova.min %mx, %b : tensor<2xf32>, tensor<2xf32>
  %5 = nova.sub %4, %two : tensor<2xf32>, tensor<f32>
  %6 = nova.abs %5 : tensor<2xf32>
  %7 = nova.add %6, %6 : tensor<2xf32>, tensor<2xf32>
  %8 = nova.div %7, %two : tensor<2xf32>, tensor<f32>
  return %0, %1, %2, %3, %8 : tensor<2xf32>, tensor<2xi64>, tensor<2xi1>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Integer division by zero is left for run time.
// CHECK-LABEL: func.func @no_fold_int_div_by_zero
// CHECK: nova.div
func.func @no_fold_int_div_by_zero() -> tensor<2xi32> {
  %a = nova.constant dense<[1, 2]> : tensor<2xi32>
  %z = nova.constant dense<0> : tensor<2xi32>
  %0 = nova.div %a, %z : tensor<2xi32>, tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_unary
// CHECK-DAG: nova.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[2.71828175, 7.3890562]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0.000000e+00, 0.693147182]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[1.000000e+00, 0.707106769]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0.731058597, 0.880797088]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0.761594176, 0.964027583]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[1.000000e+00, 1.41421354]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[8.411920e-01, 1.95459771]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0.841344773, 1.95449972]> : tensor<2xf32>
// CHECK-DAG: nova.constant dense<[0, 3]> : tensor<2xi32>
// CHECK-DAG: nova.constant dense<3> : tensor<2xi32>
func.func @fold_unary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                            tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                            tensor<2xf32>, tensor<2xi32>, tensor<2xi32>) {
  %x = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = nova.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %n = nova.constant dense<[-3, 3]> : tensor<2xi32>
  %0 = nova.neg %y : tensor<2xf32>
  %1 = nova.relu %y : tensor<2xf32>
  %2 = nova.exp %x : tensor<2xf32>
  %3 = nova.log %x : tensor<2xf32>
  %4 = nova.rsqrt %x : tensor<2xf32>
  %5 = nova.sigmoid %x : tensor<2xf32>
  %6 = nova.reciprocal %x : tensor<2xf32>
  %7 = nova.tanh %x : tensor<2xf32>
  %8 = nova.sqrt %x : tensor<2xf32>
  %9 = nova.gelu tanh %x : tensor<2xf32>
  %10 = nova.gelu erf %x : tensor<2xf32>
  %11 = nova.relu %n : tensor<2xi32>
  %12 = nova.abs %n : tensor<2xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
      : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Large non-splat constants are left alone; splats of any size fold.
// CHECK-LABEL: func.func @fold_limit
// CHECK-DAG: nova.exp %{{.*}} : tensor<2048xf32>
// CHECK-DAG: nova.constant dense<1.000000e+00> : tensor<4096x4096xf32>
func.func @fold_limit(%big: tensor<2048xf32>) -> (tensor<2048xf32>, tensor<4096x4096xf32>) {
  %c = nova.constant dense<0.0> : tensor<2048xf32>
  %d = nova.add %c, %big : tensor<2048xf32>, tensor<2048xf32>
  %i = nova.iota dim 0 : tensor<2048xf32>
  %s = nova.add %i, %d : tensor<2048xf32>, tensor<2048xf32>
  %0 = nova.exp %s : tensor<2048xf32>
  %z = nova.constant dense<0.0> : tensor<4096x4096xf32>
  %1 = nova.exp %z : tensor<4096x4096xf32>
  return %0, %1 : tensor<2048xf32>, tensor<4096x4096xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: nova.constant dense<[1.500000e+00, -2.500000e+00]> : tensor<2xbf16>
// CHECK-DAG: nova.constant dense<[1, -2]> : tensor<2xi32>
// CHECK-DAG: nova.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: nova.constant dense<[7.000000e+00, 0.000000e+00]> : tensor<2xf16>
// CHECK: return %[[X]],
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xbf16>, tensor<2xi32>, tensor<2xi1>, tensor<2xf16>) {
  %0 = nova.cast %x : tensor<4xf32> to tensor<4xf32>
  %c = nova.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %1 = nova.cast %c : tensor<2xf32> to tensor<2xbf16>
  %2 = nova.cast %c : tensor<2xf32> to tensor<2xi32>
  %n = nova.constant dense<[7, 0]> : tensor<2xi64>
  %3 = nova.cast %n : tensor<2xi64> to tensor<2xi1>
  %4 = nova.cast %n : tensor<2xi64> to tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<2xbf16>, tensor<2xi32>, tensor<2xi1>, tensor<2xf16>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<4xi1>)
// CHECK-NEXT: return %[[A]], %[[B]], %[[A]]
func.func @select(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = nova.constant dense<true> : tensor<i1>
  %f = nova.constant dense<false> : tensor<4xi1>
  %0 = nova.select %t, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %1 = nova.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %2 = nova.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cmp_integers
// CHECK: nova.constant dense<[true, false, false]> : tensor<3xi1>
func.func @cmp_integers() -> tensor<3xi1> {
  %a = nova.constant dense<[1, 5, 3]> : tensor<3xi32>
  %b = nova.constant dense<3> : tensor<i32>
  %0 = nova.cmp ne, %a, %b : tensor<3xi32>, tensor<i32>
  %1 = nova.cmp le, %a, %b : tensor<3xi32>, tensor<i32>
  %2 = nova.cmp eq, %0, %1 : tensor<3xi1>, tensor<3xi1>
  return %2 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-DAG: %[[R:.*]] = nova.reshape %[[X]] : tensor<4x6xf32> -> tensor<24xf32>
// CHECK-DAG: %[[C:.*]] = nova.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: return %[[R]], %[[X]], %[[C]]
func.func @reshape(%x: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<4x6xf32>, tensor<2x2xf32>) {
  %0 = nova.reshape %x : tensor<4x6xf32> -> tensor<2x12xf32>
  %1 = nova.reshape %0 : tensor<2x12xf32> -> tensor<24xf32>
  %2 = nova.reshape %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %c = nova.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %3 = nova.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %1, %2, %3 : tensor<24xf32>, tensor<4x6xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[T:.*]] = nova.transpose %[[X]] [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK-DAG: %[[S:.*]] = nova.constant dense<2.000000e+00> : tensor<4x2x3xf32>
// CHECK: return %[[X]], %[[T]], %[[X]], %[[S]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x2x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  // transpose(transpose(x, p1), p2) = transpose(x, p1[p2])
  %0 = nova.transpose %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = nova.transpose %0 [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  %2 = nova.transpose %0 [2, 1, 0] : tensor<4x2x3xf32> -> tensor<3x2x4xf32>
  %3 = nova.transpose %x [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %s = nova.constant dense<2.0> : tensor<2x3x4xf32>
  %4 = nova.transpose %s [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %1, %2, %3, %4 : tensor<2x3x4xf32>, tensor<3x2x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[B:.*]] = nova.broadcast %[[X]] : tensor<4xf32> -> tensor<2x3x4xf32>
// CHECK-DAG: %[[S:.*]] = nova.constant dense<5.000000e-01> : tensor<8x4xf32>
// CHECK: return %[[X]], %[[B]], %[[S]]
func.func @broadcast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x3x4xf32>, tensor<8x4xf32>) {
  %0 = nova.broadcast %x : tensor<4xf32> -> tensor<4xf32>
  %1 = nova.broadcast %x : tensor<4xf32> -> tensor<3x4xf32>
  %2 = nova.broadcast %1 : tensor<3x4xf32> -> tensor<2x3x4xf32>
  %h = nova.constant dense<0.5> : tensor<1xf32>
  %3 = nova.broadcast %h : tensor<1xf32> -> tensor<8x4xf32>
  return %0, %2, %3 : tensor<4xf32>, tensor<2x3x4xf32>, tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_and_concat
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[S:.*]] = nova.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[S]]
func.func @slice_and_concat(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x3xf32>) {
  %0 = nova.slice %x starts [0, 0] limits [4, 6] strides [1, 1] : tensor<4x6xf32> -> tensor<4x6xf32>
  %1 = nova.concat %x dim 1 : tensor<4x6xf32> -> tensor<4x6xf32>
  %c = nova.constant dense<3.0> : tensor<4x6xf32>
  %2 = nova.slice %c starts [0, 0] limits [4, 6] strides [2, 2] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x3xf32>
}

// -----

// Rounding to TF32 is idempotent, and folds constants (1 + 3 * 2^-12 to
// 1 + 2^-10).
// CHECK-LABEL: func.func @round_tf32
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[C:.*]] = nova.constant dense<1.00097656> : tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = nova.round_tf32 %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]], %[[C]]
func.func @round_tf32(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %0 = nova.round_tf32 %x : tensor<4xf32>
  %1 = nova.round_tf32 %0 : tensor<4xf32>
  %c = nova.constant dense<1.000732421875> : tensor<2xf32>
  %2 = nova.round_tf32 %c : tensor<2xf32>
  return %1, %2 : tensor<4xf32>, tensor<2xf32>
}
