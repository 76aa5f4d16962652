// The reference interpreter on small programs with known answers.
// RUN: nova-run %s --entry elementwise --print | FileCheck %s --check-prefix=ELT
// RUN: nova-run %s --entry movement --print | FileCheck %s --check-prefix=MOVE
// RUN: nova-run %s --entry products --print | FileCheck %s --check-prefix=MM
// RUN: nova-run %s --entry composites --print | FileCheck %s --check-prefix=COMP
// RUN: nova-run %s --entry rounding --print | FileCheck %s --check-prefix=ROUND
// RUN: nova-run %s --entry rounding --f64 --print | FileCheck %s --check-prefix=F64
// RUN: nova-run %s --entry integers --print | FileCheck %s --check-prefix=INT
// RUN: nova-run %s --entry caller --print | FileCheck %s --check-prefix=CALL

// ELT: result0 = tensor<2x3xf32> [11, 22, 33, 14, 25, 36]
// ELT: result1 = tensor<2x3xi1> [0, 0, 1, 1, 1, 1]
// ELT: result2 = tensor<2x3xf32> [11, 22, 33, 4, 5, 6]
// ELT: result3 = tensor<3xf32> [25, 47, 69]
// ELT: result4 = tensor<2x1xf32> [33, 36]
func.func @elementwise() -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) {
  %a = nova.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = nova.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %s = nova.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %t = nova.constant dense<2.5> : tensor<f32>
  %m = nova.cmp gt, %a, %t : tensor<2x3xf32>, tensor<f32>
  %k = nova.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %sel = nova.select %k, %s, %a : tensor<2x1xi1>, tensor<2x3xf32>, tensor<2x3xf32>
  %r = nova.reduce sum %s dims [0] : tensor<2x3xf32> -> tensor<3xf32>
  %mx = nova.reduce max %s dims [1] keep_dims : tensor<2x3xf32> -> tensor<2x1xf32>
  return %s, %m, %sel, %r, %mx : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>
}

// MOVE: result0 = tensor<3x2xf32> [1, 4, 2, 5, 3, 6]
// MOVE: result1 = tensor<2x2xf32> [1, 3, 4, 6]
// MOVE: result2 = tensor<2x4xf32> [1, 2, 3, 7, 4, 5, 6, 8]
// MOVE: result3 = tensor<3x3xf32> [4, 5, 6, 1, 2, 3, 4, 5, 6]
// MOVE: result4 = tensor<2x3xf32> [5, 7, 9, 0, 0, 0]
// MOVE: result5 = tensor<2x2x3xf32> [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]
func.func @movement() -> (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>) {
  %a = nova.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = nova.transpose %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = nova.slice %a starts [0, 0] limits [2, 3] strides [1, 2] : tensor<2x3xf32> -> tensor<2x2xf32>
  %c1 = nova.constant dense<[[7.0], [8.0]]> : tensor<2x1xf32>
  %c = nova.concat %a, %c1 dim 1 : tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %idx = nova.constant dense<[1, 0, 1]> : tensor<3xi64>
  %g = nova.gather %a[%idx] axis 0 : tensor<2x3xf32>, tensor<3xi64> -> tensor<3x3xf32>
  %zero = nova.constant dense<[0, 0]> : tensor<2xi32>
  %sa = nova.scatter_add %a[%zero] axis 0 : tensor<2x3xf32>, tensor<2xi32> -> tensor<2x3xf32>
  %b = nova.reshape %a : tensor<2x3xf32> -> tensor<2x1x3xf32>
  %bb = nova.broadcast %b : tensor<2x1x3xf32> -> tensor<2x2x3xf32>
  return %t, %s, %c, %g, %sa, %bb : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x4xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>
}

// MM: result0 = tensor<2x2xf32> [14, 32, 32, 77]
// MM: result1 = tensor<3x3xf32> [17, 22, 27, 22, 29, 36, 27, 36, 45]
// MM: result2 = tensor<2x2x2xf32> [14, 32, 32, 77, 28, 64, 64, 154]
func.func @products() -> (tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x2x2xf32>) {
  %a = nova.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %aat = nova.matmul %a, %a transpose_rhs : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  %ata = nova.matmul %a, %a transpose_lhs : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
  %two = nova.constant dense<2.0> : tensor<f32>
  %a2 = nova.mul %a, %two : tensor<2x3xf32>, tensor<f32>
  %r = nova.reshape %a : tensor<2x3xf32> -> tensor<1x2x3xf32>
  %r2 = nova.reshape %a2 : tensor<2x3xf32> -> tensor<1x2x3xf32>
  %stack = nova.concat %r, %r2 dim 0 : tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<2x2x3xf32>
  %bat = nova.matmul %stack, %a transpose_rhs : tensor<2x2x3xf32>, tensor<2x3xf32> -> tensor<2x2x2xf32>
  return %aat, %ata, %bat : tensor<2x2xf32>, tensor<3x3xf32>, tensor<2x2x2xf32>
}

// softmax of [0, ln 3] is [1/4, 3/4]; cross-entropy of those logits against
// label 1 is -ln(3/4); layer_norm of [1, 3] is [-1, 1] (eps tiny); causal
// attention's first query sees only the first key.
// COMP: result0 = tensor<1x2xf32> [0.25, 0.75]
// COMP: result1 = tensor<f32> [0.287682]
// COMP: result2 = tensor<1x2xf32> [-1, 1]
// COMP: result3 = tensor<2x1xf32> [5, 6]
func.func @composites() -> (tensor<1x2xf32>, tensor<f32>, tensor<1x2xf32>, tensor<2x1xf32>) {
  %x = nova.constant dense<[[0.0, 1.0986122886681098]]> : tensor<1x2xf32>
  %s = nova.softmax %x dim 1 : tensor<1x2xf32>
  %label = nova.constant dense<[1]> : tensor<1xi32>
  %ce = nova.cross_entropy %x, %label : tensor<1x2xf32>, tensor<1xi32> -> tensor<f32>
  %v = nova.constant dense<[[1.0, 3.0]]> : tensor<1x2xf32>
  %w = nova.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = nova.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %ln = nova.layer_norm %v, %w, %b eps 1.0e-12 : tensor<1x2xf32>, tensor<2xf32>
  %q = nova.constant dense<[[0.0], [0.0]]> : tensor<2x1xf32>
  %vals = nova.constant dense<[[5.0], [7.0]]> : tensor<2x1xf32>
  %o = nova.attention %q, %q, %vals scale 1.0 causal : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  return %s, %ce, %ln, %o : tensor<1x2xf32>, tensor<f32>, tensor<1x2xf32>, tensor<2x1xf32>
}

// bf16 keeps 8 significant bits: 1 + 2^-8 lies halfway and rounds to the
// even 1, 1 + 3 * 2^-8 halfway and rounds to the even 1 + 2^-6; and
// f16 overflows to infinity past 65504; --f64 keeps everything.
// ROUND: result0 = tensor<2xbf16> [1, 1.01562]
// ROUND: result1 = tensor<f16> [inf]
// F64: result0 = tensor<2xbf16> [1.00391, 1.01172]
// F64: result1 = tensor<f16> [70000]
func.func @rounding() -> (tensor<2xbf16>, tensor<f16>) {
  %x = nova.constant dense<[1.0, 1.0078125]> : tensor<2xf32>
  %tiny = nova.constant dense<0.00390625> : tensor<f32>
  %x2 = nova.add %x, %tiny : tensor<2xf32>, tensor<f32>
  %b = nova.cast %x2 : tensor<2xf32> to tensor<2xbf16>
  %big = nova.constant dense<70000.0> : tensor<f32>
  %h = nova.cast %big : tensor<f32> to tensor<f16>
  return %b, %h : tensor<2xbf16>, tensor<f16>
}

// Integer division truncates; casts from float truncate toward zero and
// saturate; i32 arithmetic wraps.
// INT: result0 = tensor<3xi32> [-3, 3, 2]
// INT: result1 = tensor<3xi32> [-2, 2147483647, 0]
// INT: result2 = tensor<i32> [-2147483648]
func.func @integers() -> (tensor<3xi32>, tensor<3xi32>, tensor<i32>) {
  %a = nova.constant dense<[-7, 7, 5]> : tensor<3xi32>
  %b = nova.constant dense<[2, 2, 2]> : tensor<3xi32>
  %q = nova.div %a, %b : tensor<3xi32>, tensor<3xi32>
  %f = nova.constant dense<[-2.7, 1.0e10, 0.5]> : tensor<3xf32>
  %c = nova.cast %f : tensor<3xf32> to tensor<3xi32>
  %max = nova.constant dense<2147483647> : tensor<i32>
  %one = nova.constant dense<1> : tensor<i32>
  %w = nova.add %max, %one : tensor<i32>, tensor<i32>
  return %q, %c, %w : tensor<3xi32>, tensor<3xi32>, tensor<i32>
}

// Calls run the callee in the same module.
// CALL: result0 = tensor<2xf32> [2, 4]
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = nova.add %x, %x : tensor<2xf32>, tensor<2xf32>
  return %y : tensor<2xf32>
}

func.func @caller() -> tensor<2xf32> {
  %c = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = func.call @twice(%c) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
