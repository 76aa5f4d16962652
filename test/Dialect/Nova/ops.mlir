// Round trip of every nova op: the custom form prints, parses and prints the
// same, and the generic form parses back to the same custom form.
// RUN: nova-opt %s > %t.1.mlir && nova-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir
// RUN: nova-opt %s | FileCheck %s
// RUN: nova-opt %s --mlir-print-op-generic | nova-opt | FileCheck %s

// CHECK-LABEL: func.func @sources
func.func @sources() -> (tensor<2x2xf32>, tensor<4x8xi64>, tensor<3xbf16>, tensor<2xi1>) {
  // CHECK: nova.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %c = nova.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK: nova.iota dim 1 : tensor<4x8xi64>
  %i = nova.iota dim 1 : tensor<4x8xi64>
  // CHECK: nova.constant dense<5.000000e-01> : tensor<3xbf16>
  %h = nova.constant dense<0.5> : tensor<3xbf16>
  // CHECK: nova.constant dense<[true, false]> : tensor<2xi1>
  %b = nova.constant dense<[true, false]> : tensor<2xi1>
  return %c, %i, %h, %b : tensor<2x2xf32>, tensor<4x8xi64>, tensor<3xbf16>, tensor<2xi1>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %n: tensor<4xi32>, %h: tensor<4xf16>) {
  // CHECK: nova.neg %{{.*}} : tensor<4x8xf32>
  %0 = nova.neg %x : tensor<4x8xf32>
  // CHECK: nova.neg %{{.*}} : tensor<4xi32>
  %1 = nova.neg %n : tensor<4xi32>
  // CHECK: nova.abs %{{.*}} : tensor<4xi32>
  %2 = nova.abs %n : tensor<4xi32>
  // CHECK: nova.relu %{{.*}} : tensor<4x8xf32>
  %3 = nova.relu %x : tensor<4x8xf32>
  // CHECK: nova.exp %{{.*}} : tensor<4x8xf32>
  %4 = nova.exp %x : tensor<4x8xf32>
  // CHECK: nova.log %{{.*}} : tensor<4xf16>
  %5 = nova.log %h : tensor<4xf16>
  // CHECK: nova.tanh
  %6 = nova.tanh %x : tensor<4x8xf32>
  // CHECK: nova.sqrt
  %7 = nova.sqrt %x : tensor<4x8xf32>
  // CHECK: nova.rsqrt
  %8 = nova.rsqrt %x : tensor<4x8xf32>
  // CHECK: nova.sigmoid
  %9 = nova.sigmoid %x : tensor<4x8xf32>
  // CHECK: nova.reciprocal
  %10 = nova.reciprocal %x : tensor<4x8xf32>
  // CHECK: nova.erf
  %erf = nova.erf %x : tensor<4x8xf32>
  // CHECK: nova.gelu tanh %{{.*}} : tensor<4x8xf32>
  %11 = nova.gelu tanh %x : tensor<4x8xf32>
  // CHECK: nova.gelu erf %{{.*}} : tensor<4xf16>
  %12 = nova.gelu erf %h : tensor<4xf16>
  // CHECK: nova.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
  %13 = nova.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  // CHECK: nova.cast %{{.*}} : tensor<4xi32> to tensor<4xi1>
  %14 = nova.cast %n : tensor<4xi32> to tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>,
                  %i: tensor<3xi64>, %m: tensor<4x8xi1>) {
  // CHECK: nova.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %0 = nova.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nova.sub %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %1 = nova.sub %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: nova.mul %{{.*}}, %{{.*}} : tensor<3xi64>, tensor<3xi64>
  %2 = nova.mul %i, %i : tensor<3xi64>, tensor<3xi64>
  // CHECK: nova.div
  %3 = nova.div %a, %c : tensor<4x8xf32>, tensor<4x1xf32>
  // CHECK: nova.max
  %4 = nova.max %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nova.min
  %5 = nova.min %i, %i : tensor<3xi64>, tensor<3xi64>
  // CHECK: nova.pow
  %6 = nova.pow %a, %c : tensor<4x8xf32>, tensor<4x1xf32>
  // CHECK: nova.cmp le, %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %7 = nova.cmp le, %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: nova.cmp ne, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi1>
  %8 = nova.cmp ne, %m, %m : tensor<4x8xi1>, tensor<4x8xi1>
  // CHECK: nova.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>
  %9 = nova.select %7, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>
  // Inferred types are usable by later ops.
  // CHECK: nova.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
  %10 = nova.add %0, %9 : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8x16xf32>, %n: tensor<5xi32>) -> (tensor<4xf32>, tensor<4x1x1xf32>, tensor<i32>) {
  // CHECK: nova.reduce sum %{{.*}} dims [1, 2] : tensor<4x8x16xf32> -> tensor<4xf32>
  %0 = nova.reduce sum %x dims [1, 2] : tensor<4x8x16xf32> -> tensor<4xf32>
  // CHECK: nova.reduce max %{{.*}} dims [2, 1] keep_dims : tensor<4x8x16xf32> -> tensor<4x1x1xf32>
  %1 = nova.reduce max %x dims [2, 1] keep_dims : tensor<4x8x16xf32> -> tensor<4x1x1xf32>
  // CHECK: nova.reduce min %{{.*}} dims [0] : tensor<5xi32> -> tensor<i32>
  %2 = nova.reduce min %n dims [0] : tensor<5xi32> -> tensor<i32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4x1x1xf32>, tensor<i32>
}

// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<4x6xf32>, %y: tensor<4x2xf32>, %v: tensor<6xf32>) {
  // CHECK: nova.reshape %{{.*}} : tensor<4x6xf32> -> tensor<2x12xf32>
  %0 = nova.reshape %x : tensor<4x6xf32> -> tensor<2x12xf32>
  // CHECK: nova.transpose %{{.*}} [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %1 = nova.transpose %x [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  // CHECK: nova.broadcast %{{.*}} : tensor<6xf32> -> tensor<3x4x6xf32>
  %2 = nova.broadcast %v : tensor<6xf32> -> tensor<3x4x6xf32>
  // CHECK: nova.slice %{{.*}} starts [1, 0] limits [4, 6] strides [1, 2] : tensor<4x6xf32> -> tensor<3x3xf32>
  %3 = nova.slice %x starts [1, 0] limits [4, 6] strides [1, 2] : tensor<4x6xf32> -> tensor<3x3xf32>
  // CHECK: nova.concat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : tensor<4x6xf32>, tensor<4x2xf32>, tensor<4x6xf32> -> tensor<4x14xf32>
  %4 = nova.concat %x, %y, %x dim 1 : tensor<4x6xf32>, tensor<4x2xf32>, tensor<4x6xf32> -> tensor<4x14xf32>
  return
}

// CHECK-LABEL: func.func @embeddings
func.func @embeddings(%wte: tensor<256x32xf32>, %tok: tensor<2x8xi32>, %d: tensor<2x8x32xf32>) {
  // CHECK: nova.gather %{{.*}}[%{{.*}}] axis 0 : tensor<256x32xf32>, tensor<2x8xi32> -> tensor<2x8x32xf32>
  %0 = nova.gather %wte[%tok] axis 0 : tensor<256x32xf32>, tensor<2x8xi32> -> tensor<2x8x32xf32>
  // CHECK: nova.scatter_add %{{.*}}[%{{.*}}] axis 0 : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<256x32xf32>
  %1 = nova.scatter_add %d[%tok] axis 0 : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<256x32xf32>
  return
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%x: tensor<2x8x32xf32>, %w: tensor<32x64xf32>, %q: tensor<2x4x8x16xbf16>) {
  // CHECK: nova.matmul %{{.*}}, %{{.*}} : tensor<2x8x32xf32>, tensor<32x64xf32> -> tensor<2x8x64xf32>
  %0 = nova.matmul %x, %w : tensor<2x8x32xf32>, tensor<32x64xf32> -> tensor<2x8x64xf32>
  // CHECK: nova.matmul %{{.*}}, %{{.*}} transpose_rhs : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16> -> tensor<2x4x8x8xbf16>
  %1 = nova.matmul %q, %q transpose_rhs : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16> -> tensor<2x4x8x8xbf16>
  // CHECK: nova.matmul %{{.*}}, %{{.*}} transpose_lhs transpose_rhs : tensor<32x64xf32>, tensor<2x8x32xf32> -> tensor<2x64x8xf32>
  %2 = nova.matmul %w, %x transpose_lhs transpose_rhs : tensor<32x64xf32>, tensor<2x8x32xf32> -> tensor<2x64x8xf32>
  return
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<2x8x32xf32>, %g: tensor<32xf32>, %labels: tensor<2x8xi64>,
                      %q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>,
                      %step: tensor<i64>) {
  // CHECK: nova.softmax %{{.*}} dim 2 : tensor<2x8x32xf32>
  %0 = nova.softmax %x dim 2 : tensor<2x8x32xf32>
  // CHECK: nova.log_softmax %{{.*}} dim 0 : tensor<2x8x32xf32>
  %1 = nova.log_softmax %x dim 0 : tensor<2x8x32xf32>
  // CHECK: nova.layer_norm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 : tensor<2x8x32xf32>, tensor<32xf32>
  %2 = nova.layer_norm %x, %g, %g eps 1.0e-05 : tensor<2x8x32xf32>, tensor<32xf32>
  // CHECK: nova.cross_entropy %{{.*}}, %{{.*}} : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  %3 = nova.cross_entropy %x, %labels : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  // The default ignore_index (-100) is not printed; another one is.
  // CHECK: nova.cross_entropy %{{.*}}, %{{.*}} : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  %ce_default = nova.cross_entropy %x, %labels ignore_index -100 : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  // CHECK: nova.cross_entropy %{{.*}}, %{{.*}} ignore_index 0 : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  %ce_zero = nova.cross_entropy %x, %labels ignore_index 0 : tensor<2x8x32xf32>, tensor<2x8xi64> -> tensor<f32>
  // CHECK: nova.check_labels %{{.*}} classes 32 ignore_index -100 : tensor<2x8xi64>
  %checked = nova.check_labels %labels classes 32 ignore_index -100 : tensor<2x8xi64>
  // CHECK: nova.attention %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %4 = nova.attention %q, %k, %v scale 0.25 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  // CHECK: nova.attention %{{.*}}, %{{.*}}, %{{.*}} scale 1.000000e+00 : tensor<2x4x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x4x4x8xf32> -> tensor<2x4x8x8xf32>
  %kk = nova.slice %k starts [0, 0, 0, 0] limits [2, 4, 4, 16] strides [1, 1, 1, 1] : tensor<2x4x8x16xf32> -> tensor<2x4x4x16xf32>
  %vv = nova.slice %v starts [0, 0, 0, 0] limits [2, 4, 4, 8] strides [1, 1, 1, 1] : tensor<2x4x8x16xf32> -> tensor<2x4x4x8xf32>
  %5 = nova.attention %q, %kk, %vv scale 1.0 : tensor<2x4x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x4x4x8xf32> -> tensor<2x4x8x8xf32>
  // CHECK: nova.attention_fwd %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.25 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
  // CHECK: nova.attention_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<2x4x8x16xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %o scale 0.25 causal : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8xf32>, tensor<2x4x8x16xf32>
  // The statistic stays f32 for bf16 operands.
  // CHECK: nova.attention_fwd %{{.*}}, %{{.*}}, %{{.*}} scale 5.000000e-01 : tensor<3x4xbf16>, tensor<5x4xbf16>, tensor<5x2xbf16> -> tensor<3x2xbf16>, tensor<3xf32>
  %qh = nova.constant dense<1.0> : tensor<3x4xbf16>
  %kh = nova.constant dense<1.0> : tensor<5x4xbf16>
  %vh = nova.constant dense<1.0> : tensor<5x2xbf16>
  %oh, %lseh = nova.attention_fwd %qh, %kh, %vh scale 0.5 : tensor<3x4xbf16>, tensor<5x4xbf16>, tensor<5x2xbf16> -> tensor<3x2xbf16>, tensor<3xf32>
  // CHECK: nova.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} beta1 9.000000e-01 beta2 0.94999999999999996 eps 1.000000e-08 weight_decay 1.000000e-01 : tensor<32xf32>, tensor<i64>
  %lr = nova.constant dense<3.0e-4> : tensor<f32>
  %p, %m, %s = nova.adamw %g, %g, %g, %g, %step, %lr beta1 0.9 beta2 0.95 eps 1.0e-8 weight_decay 0.1 : tensor<32xf32>, tensor<i64>
  return
}

// Trainable parameters are marked on the function's arguments.
// CHECK-LABEL: func.func @params
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16x4xf32> {nova.param}, %{{.*}}: tensor<4xbf16> {nova.param}, %{{.*}}: tensor<8xi32>)
func.func @params(%x: tensor<8x16xf32>, %w: tensor<16x4xf32> {nova.param}, %b: tensor<4xbf16> {nova.param}, %labels: tensor<8xi32>) {
  return
}

// An argument and a result may share a name (an updated parameter does).
// CHECK-LABEL: func.func @shared_name
// CHECK-SAME: {nova.name = "w"}) -> (tensor<4xf32> {nova.alias = 0 : i64, nova.name = "w"})
func.func @shared_name(%w: tensor<4xf32> {nova.name = "w"}) -> (tensor<4xf32> {nova.alias = 0, nova.name = "w"}) {
  return %w : tensor<4xf32>
}
