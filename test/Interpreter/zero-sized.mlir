// Zero-sized dimensions are valid, as in PyTorch: every op runs on them.
// Reductions over an empty dimension give the reduction's identity (sum 0,
// max -inf or the integer minimum, min +inf or the integer maximum; PyTorch's
// amax raises instead), a product over K = 0 is 0, attention with no keys
// gives 0 and with head size 0 averages the values, cross_entropy over 0 rows
// is NaN (a mean over nothing, as PyTorch). Each entry also runs after
// --nova-decompose and --nova-canonicalize against the unchanged program.
//
// RUN: nova-opt %s --nova-decompose -o %t.decomposed.mlir
// RUN: nova-opt %s --nova-canonicalize -o %t.canonical.mlir
// RUN: nova-run %s --entry unary --random-inputs 1 -o %t.unary --print | FileCheck %s --check-prefix=UNARY
// RUN: nova-run %t.decomposed.mlir --entry unary --random-inputs 1 --compare %t.unary --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry unary --random-inputs 1 --compare %t.unary --rtol 0 --atol 0
// RUN: nova-run %s --entry binary --random-inputs 1 -o %t.binary --print | FileCheck %s --check-prefix=BINARY
// RUN: nova-run %t.decomposed.mlir --entry binary --random-inputs 1 --compare %t.binary --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry binary --random-inputs 1 --compare %t.binary --rtol 0 --atol 0
// RUN: nova-run %s --entry reduce --random-inputs 1 -o %t.reduce --print | FileCheck %s --check-prefix=REDUCE
// RUN: nova-run %t.decomposed.mlir --entry reduce --random-inputs 1 --compare %t.reduce --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry reduce --random-inputs 1 --compare %t.reduce --rtol 0 --atol 0
// RUN: nova-run %s --entry movement --random-inputs 1 -o %t.movement --print | FileCheck %s --check-prefix=MOVEMENT
// RUN: nova-run %t.decomposed.mlir --entry movement --random-inputs 1 --compare %t.movement --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry movement --random-inputs 1 --compare %t.movement --rtol 0 --atol 0
// RUN: nova-run %s --entry gather --random-inputs 1 -o %t.gather --print | FileCheck %s --check-prefix=GATHER
// RUN: nova-run %t.decomposed.mlir --entry gather --random-inputs 1 --compare %t.gather --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry gather --random-inputs 1 --compare %t.gather --rtol 0 --atol 0
// RUN: nova-run %s --entry matmul --random-inputs 1 -o %t.matmul --print | FileCheck %s --check-prefix=MATMUL
// RUN: nova-run %t.decomposed.mlir --entry matmul --random-inputs 1 --compare %t.matmul --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry matmul --random-inputs 1 --compare %t.matmul --rtol 0 --atol 0
// RUN: nova-run %s --entry normalize --random-inputs 1 -o %t.normalize --print | FileCheck %s --check-prefix=NORMALIZE
// RUN: nova-run %t.decomposed.mlir --entry normalize --random-inputs 1 --compare %t.normalize --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry normalize --random-inputs 1 --compare %t.normalize --rtol 0 --atol 0
// RUN: nova-run %s --entry ce --random-inputs 1 -o %t.ce --print | FileCheck %s --check-prefix=CE
// RUN: nova-run %t.decomposed.mlir --entry ce --random-inputs 1 --compare %t.ce --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry ce --random-inputs 1 --compare %t.ce --rtol 0 --atol 0
// RUN: nova-run %s --entry attention --random-inputs 1 -o %t.attention --print | FileCheck %s --check-prefix=ATTENTION
// RUN: nova-run %t.decomposed.mlir --entry attention --random-inputs 1 --compare %t.attention --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry attention --random-inputs 1 --compare %t.attention --rtol 0 --atol 0
// RUN: nova-run %s --entry adamw --random-inputs 1 -o %t.adamw --print | FileCheck %s --check-prefix=ADAMW
// RUN: nova-run %t.decomposed.mlir --entry adamw --random-inputs 1 --compare %t.adamw --rtol 1e-6 --atol 1e-6
// RUN: nova-run %t.canonical.mlir --entry adamw --random-inputs 1 --compare %t.adamw --rtol 0 --atol 0

// UNARY: result0 = tensor<0x3xf32> []
// UNARY: result1 = tensor<0x3xf32> []
// UNARY: result2 = tensor<0x3xf32> []
// UNARY: result3 = tensor<2x0xi32> []
// UNARY: result4 = tensor<2x0xi32> []
// UNARY: result5 = tensor<0x3xbf16> []
// UNARY: result6 = tensor<2x0xf32> []
func.func @unary(%x: tensor<0x3xf32>, %i: tensor<2x0xi32>) -> (tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<2x0xi32>, tensor<2x0xi32>, tensor<0x3xbf16>, tensor<2x0xf32>) {
  %a = nova.exp %x : tensor<0x3xf32>
  %b = nova.gelu tanh %x : tensor<0x3xf32>
  %c = nova.neg %x : tensor<0x3xf32>
  %d = nova.abs %i : tensor<2x0xi32>
  %e = nova.relu %i : tensor<2x0xi32>
  %f = nova.cast %x : tensor<0x3xf32> to tensor<0x3xbf16>
  %g = nova.cast %i : tensor<2x0xi32> to tensor<2x0xf32>
  return %a, %b, %c, %d, %e, %f, %g : tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<2x0xi32>, tensor<2x0xi32>, tensor<0x3xbf16>, tensor<2x0xf32>
}

// BINARY: result0 = tensor<0x3xf32> []
// BINARY: result1 = tensor<0x3xf32> []
// BINARY: result2 = tensor<0x4xi64> []
// BINARY: result3 = tensor<0x3xi1> []
// BINARY: result4 = tensor<0x3xf32> []
func.func @binary(%x: tensor<0x3xf32>, %y: tensor<1x3xf32>, %i: tensor<0x1xi64>, %j: tensor<4xi64>) -> (tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x4xi64>, tensor<0x3xi1>, tensor<0x3xf32>) {
  %a = nova.add %x, %y : tensor<0x3xf32>, tensor<1x3xf32>
  %b = nova.pow %y, %x : tensor<1x3xf32>, tensor<0x3xf32>
  %c = nova.div %j, %i : tensor<4xi64>, tensor<0x1xi64>
  %d = nova.cmp lt, %x, %y : tensor<0x3xf32>, tensor<1x3xf32>
  %e = nova.select %d, %x, %y : tensor<0x3xi1>, tensor<0x3xf32>, tensor<1x3xf32>
  return %a, %b, %c, %d, %e : tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x4xi64>, tensor<0x3xi1>, tensor<0x3xf32>
}

// REDUCE: result0 = tensor<3xf32> [0, 0, 0]
// REDUCE: result1 = tensor<3xf32> [-inf, -inf, -inf]
// REDUCE: result2 = tensor<3xf32> [inf, inf, inf]
// REDUCE: result3 = tensor<3xi32> [0, 0, 0]
// REDUCE: result4 = tensor<3xi32> [-2147483648, -2147483648, -2147483648]
// REDUCE: result5 = tensor<3xi32> [2147483647, 2147483647, 2147483647]
// REDUCE: result6 = tensor<4xf32> [-inf, -inf, -inf, -inf]
// REDUCE: result7 = tensor<0xf32> []
// REDUCE: result8 = tensor<f32> [0]
func.func @reduce(%x: tensor<3x0xf32>, %i: tensor<3x0xi32>, %e: tensor<0x4xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<4xf32>, tensor<0xf32>, tensor<f32>) {
  %a = nova.reduce sum %x dims [1] : tensor<3x0xf32> -> tensor<3xf32>
  %b = nova.reduce max %x dims [1] : tensor<3x0xf32> -> tensor<3xf32>
  %c = nova.reduce min %x dims [1] : tensor<3x0xf32> -> tensor<3xf32>
  %d = nova.reduce sum %i dims [1] : tensor<3x0xi32> -> tensor<3xi32>
  %f = nova.reduce max %i dims [1] : tensor<3x0xi32> -> tensor<3xi32>
  %g = nova.reduce min %i dims [1] : tensor<3x0xi32> -> tensor<3xi32>
  %h = nova.reduce max %e dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  %k = nova.reduce sum %e dims [1] : tensor<0x4xf32> -> tensor<0xf32>
  %l = nova.reduce sum %e dims [0, 1] : tensor<0x4xf32> -> tensor<f32>
  return %a, %b, %c, %d, %f, %g, %h, %k, %l : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<4xf32>, tensor<0xf32>, tensor<f32>
}

// MOVEMENT: result0 = tensor<3x2x0xf32> []
// MOVEMENT: result1 = tensor<0x6xf32> []
// MOVEMENT: result2 = tensor<2x4x3xf32> [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
// MOVEMENT: result3 = tensor<2x0x3xf32> []
// MOVEMENT: result4 = tensor<0x3xf32> []
// MOVEMENT: result5 = tensor<2x0x3xf32> []
func.func @movement(%x: tensor<2x0x3xf32>, %z: tensor<1x3xf32>) -> (tensor<3x2x0xf32>, tensor<0x6xf32>, tensor<2x4x3xf32>, tensor<2x0x3xf32>, tensor<0x3xf32>, tensor<2x0x3xf32>) {
  %y = nova.iota dim 1 : tensor<2x4x3xf32>
  %a = nova.transpose %x [2, 0, 1] : tensor<2x0x3xf32> -> tensor<3x2x0xf32>
  %b = nova.reshape %x : tensor<2x0x3xf32> -> tensor<0x6xf32>
  %c = nova.concat %x, %y, %x dim 1 : tensor<2x0x3xf32>, tensor<2x4x3xf32>, tensor<2x0x3xf32> -> tensor<2x4x3xf32>
  %d = nova.slice %y starts [0, 2, 0] limits [2, 2, 3] strides [1, 1, 1] : tensor<2x4x3xf32> -> tensor<2x0x3xf32>
  %e = nova.broadcast %z : tensor<1x3xf32> -> tensor<0x3xf32>
  %f = nova.slice %x starts [0, 0, 0] limits [2, 0, 3] strides [1, 1, 2] : tensor<2x0x3xf32> -> tensor<2x0x2xf32>
  %g = nova.iota dim 1 : tensor<2x0x3xf32>
  return %a, %b, %c, %d, %e, %g : tensor<3x2x0xf32>, tensor<0x6xf32>, tensor<2x4x3xf32>, tensor<2x0x3xf32>, tensor<0x3xf32>, tensor<2x0x3xf32>
}

// GATHER: result0 = tensor<0x3xf32> []
// GATHER: result1 = tensor<2x0xf32> []
// GATHER: result2 = tensor<5x3xf32> [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @gather(%t: tensor<5x3xf32>, %n: tensor<0xi64>, %t0: tensor<5x0xf32>, %idx: tensor<2xi64>, %u: tensor<0x3xf32>) -> (tensor<0x3xf32>, tensor<2x0xf32>, tensor<5x3xf32>) {
  %a = nova.gather %t[%n] axis 0 : tensor<5x3xf32>, tensor<0xi64> -> tensor<0x3xf32>
  %b = nova.gather %t0[%idx] axis 0 : tensor<5x0xf32>, tensor<2xi64> -> tensor<2x0xf32>
  %c = nova.scatter_add %u[%n] axis 0 : tensor<0x3xf32>, tensor<0xi64> -> tensor<5x3xf32>
  return %a, %b, %c : tensor<0x3xf32>, tensor<2x0xf32>, tensor<5x3xf32>
}

// MATMUL: result0 = tensor<2x3xf32> [0, 0, 0, 0, 0, 0]
// MATMUL: result1 = tensor<0x5xf32> []
// MATMUL: result2 = tensor<2x2xf32> [0, 0, 0, 0]
// MATMUL: result3 = tensor<0x2x5xf32> []
func.func @matmul(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>, %c: tensor<0x4xf32>, %d: tensor<4x5xf32>, %e: tensor<0x2x4xf32>) -> (tensor<2x3xf32>, tensor<0x5xf32>, tensor<2x2xf32>, tensor<0x2x5xf32>) {
  %r0 = nova.matmul %a, %b : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
  %r1 = nova.matmul %c, %d : tensor<0x4xf32>, tensor<4x5xf32> -> tensor<0x5xf32>
  %r2 = nova.matmul %a, %a transpose_lhs : tensor<2x0xf32>, tensor<2x0xf32> -> tensor<0x0xf32>
  %r3 = nova.matmul %e, %d : tensor<0x2x4xf32>, tensor<4x5xf32> -> tensor<0x2x5xf32>
  %r4 = nova.matmul %a, %a transpose_rhs : tensor<2x0xf32>, tensor<2x0xf32> -> tensor<2x2xf32>
  return %r0, %r1, %r4, %r3 : tensor<2x3xf32>, tensor<0x5xf32>, tensor<2x2xf32>, tensor<0x2x5xf32>
}

// NORMALIZE: result0 = tensor<3x0xf32> []
// NORMALIZE: result1 = tensor<0x4xf32> []
// NORMALIZE: result2 = tensor<3x0xf32> []
// NORMALIZE: result3 = tensor<0x4xf32> []
// NORMALIZE: result4 = tensor<3x0xf32> []
func.func @normalize(%x: tensor<3x0xf32>, %y: tensor<0x4xf32>, %w0: tensor<0xf32>, %w4: tensor<4xf32>) -> (tensor<3x0xf32>, tensor<0x4xf32>, tensor<3x0xf32>, tensor<0x4xf32>, tensor<3x0xf32>) {
  %a = nova.softmax %x dim 1 : tensor<3x0xf32>
  %b = nova.log_softmax %y dim 1 : tensor<0x4xf32>
  %c = nova.softmax %x dim 0 : tensor<3x0xf32>
  %d = nova.layer_norm %y, %w4, %w4 eps 1.0e-05 : tensor<0x4xf32>, tensor<4xf32>
  %e = nova.layer_norm %x, %w0, %w0 eps 1.0e-05 : tensor<3x0xf32>, tensor<0xf32>
  return %a, %b, %c, %d, %e : tensor<3x0xf32>, tensor<0x4xf32>, tensor<3x0xf32>, tensor<0x4xf32>, tensor<3x0xf32>
}

// CE: result0 = tensor<f32> [{{-?}}nan]
func.func @ce(%x: tensor<0x5xf32>, %l: tensor<0xi32>) -> tensor<f32> {
  %a = nova.cross_entropy %x, %l : tensor<0x5xf32>, tensor<0xi32> -> tensor<f32>
  return %a : tensor<f32>
}

// ATTENTION: result0 = tensor<1x2x0xf32> []
// ATTENTION: result1 = tensor<1x2x3xf32> [1, 2, 3, 2, 3, 4]
// ATTENTION: result2 = tensor<1x0x3xf32> []
// ATTENTION: result3 = tensor<1x2x3xf32> [0, 0, 0, 0, 0, 0]
// ATTENTION: result4 = tensor<1x2x3xf32> [2, 3, 4, 2, 3, 4]
func.func @attention(%q: tensor<1x2x0xf32>, %q0: tensor<1x0x4xf32>, %k0: tensor<1x0x4xf32>, %v0: tensor<1x0x3xf32>, %q4: tensor<1x2x4xf32>) -> (tensor<1x2x0xf32>, tensor<1x2x3xf32>, tensor<1x0x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>) {
  %v = nova.constant dense<[[[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]]> : tensor<1x2x3xf32>
  %a = nova.attention %q, %q, %q scale 1.0 : tensor<1x2x0xf32>, tensor<1x2x0xf32>, tensor<1x2x0xf32> -> tensor<1x2x0xf32>
  %b = nova.attention %q, %q, %v scale 1.0 causal : tensor<1x2x0xf32>, tensor<1x2x0xf32>, tensor<1x2x3xf32> -> tensor<1x2x3xf32>
  %c = nova.attention %q0, %k0, %v0 scale 1.0 : tensor<1x0x4xf32>, tensor<1x0x4xf32>, tensor<1x0x3xf32> -> tensor<1x0x3xf32>
  %d = nova.attention %q4, %k0, %v0 scale 1.0 : tensor<1x2x4xf32>, tensor<1x0x4xf32>, tensor<1x0x3xf32> -> tensor<1x2x3xf32>
  %e = nova.attention %q, %q, %v scale 1.0 : tensor<1x2x0xf32>, tensor<1x2x0xf32>, tensor<1x2x3xf32> -> tensor<1x2x3xf32>
  return %a, %b, %c, %d, %e : tensor<1x2x0xf32>, tensor<1x2x3xf32>, tensor<1x0x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>
}

// ADAMW: result0 = tensor<0x3xf32> []
// ADAMW: result1 = tensor<0x3xf32> []
// ADAMW: result2 = tensor<0x3xf32> []
func.func @adamw(%p: tensor<0x3xf32>, %t: tensor<i64>) -> (tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>) {
  %lr = nova.constant dense<1.0e-03> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<0x3xf32>, tensor<i64>
  return %a, %b, %c : tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>
}
