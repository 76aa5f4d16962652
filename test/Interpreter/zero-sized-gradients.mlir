// Gradients through zero-sized tensors: nova-autodiff's rules against
// finite differences in f64, where an empty operand meets a non-empty
// parameter (concat with empty pieces, gather of 0 indices, attention with
// head size 0 or no tokens, matmul with K = 0 or M = 0, layer_norm of 0 rows
// or 0 columns, softmax rows of length 0, slices and broadcasts to empty).
// RUN: nova-run %s --check-gradients --random-inputs 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: nova-run %s --check-gradients --random-inputs 2 | FileCheck %s --implicit-check-not=FAIL

// CHECK: ok   @concat_empty d/d arg0 (6 elements)
func.func @concat_empty(%x: tensor<2x3xf32> {nova.param}, %e: tensor<2x0xf32>, %c: tensor<2x3xf32>) -> tensor<f32> {
  %y = nova.concat %e, %x, %e dim 1 : tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32> -> tensor<2x3xf32>
  %p = nova.mul %y, %c : tensor<2x3xf32>, tensor<2x3xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @gather_none d/d arg0 (15 elements)
func.func @gather_none(%t: tensor<5x3xf32> {nova.param}, %n: tensor<0xi64>, %c: tensor<5x3xf32>) -> tensor<f32> {
  %g = nova.gather %t[%n] axis 0 : tensor<5x3xf32>, tensor<0xi64> -> tensor<0x3xf32>
  %s = nova.reduce sum %g dims [0, 1] : tensor<0x3xf32> -> tensor<f32>
  %p = nova.mul %t, %c : tensor<5x3xf32>, tensor<5x3xf32>
  %q = nova.reduce sum %p dims [0, 1] : tensor<5x3xf32> -> tensor<f32>
  %l = nova.add %s, %q : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @attention_d0 d/d arg1 (6 elements)
func.func @attention_d0(%q: tensor<1x2x0xf32>, %v: tensor<1x2x3xf32> {nova.param}, %c: tensor<1x2x3xf32>) -> tensor<f32> {
  %o = nova.attention %q, %q, %v scale 1.0 causal : tensor<1x2x0xf32>, tensor<1x2x0xf32>, tensor<1x2x3xf32> -> tensor<1x2x3xf32>
  %p = nova.mul %o, %c : tensor<1x2x3xf32>, tensor<1x2x3xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<1x2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @attention_t0 d/d arg0 (0 elements)
// CHECK: ok   @attention_t0 d/d arg1 (0 elements)
// CHECK: ok   @attention_t0 d/d arg2 (3 elements)
func.func @attention_t0(%q: tensor<1x0x4xf32> {nova.param}, %v: tensor<1x0x3xf32> {nova.param}, %b: tensor<3xf32> {nova.param}) -> tensor<f32> {
  %o = nova.attention %q, %q, %v scale 0.5 : tensor<1x0x4xf32>, tensor<1x0x4xf32>, tensor<1x0x3xf32> -> tensor<1x0x3xf32>
  %p = nova.add %o, %b : tensor<1x0x3xf32>, tensor<3xf32>
  %s = nova.reduce sum %p dims [0, 1, 2] : tensor<1x0x3xf32> -> tensor<f32>
  %bs = nova.reduce sum %b dims [0] : tensor<3xf32> -> tensor<f32>
  %l = nova.add %s, %bs : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_k0 d/d arg0 (0 elements)
// CHECK: ok   @matmul_k0 d/d arg1 (0 elements)
// CHECK: ok   @matmul_k0 d/d arg2 (6 elements)
func.func @matmul_k0(%a: tensor<2x0xf32> {nova.param}, %b: tensor<0x3xf32> {nova.param}, %bias: tensor<2x3xf32> {nova.param}, %c: tensor<2x3xf32>) -> tensor<f32> {
  %m = nova.matmul %a, %b : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
  %y = nova.add %m, %bias : tensor<2x3xf32>, tensor<2x3xf32>
  %p = nova.mul %y, %c : tensor<2x3xf32>, tensor<2x3xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_m0 d/d arg1 (20 elements)
func.func @matmul_m0(%a: tensor<0x4xf32>, %b: tensor<4x5xf32> {nova.param}, %c: tensor<4x5xf32>) -> tensor<f32> {
  %m = nova.matmul %a, %b : tensor<0x4xf32>, tensor<4x5xf32> -> tensor<0x5xf32>
  %s = nova.reduce sum %m dims [0, 1] : tensor<0x5xf32> -> tensor<f32>
  %p = nova.mul %b, %c : tensor<4x5xf32>, tensor<4x5xf32>
  %q = nova.reduce sum %p dims [0, 1] : tensor<4x5xf32> -> tensor<f32>
  %l = nova.add %s, %q : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @layer_norm_rows0 d/d arg1 (4 elements)
// CHECK: ok   @layer_norm_rows0 d/d arg2 (4 elements)
func.func @layer_norm_rows0(%x: tensor<0x4xf32>, %w: tensor<4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<4xf32>) -> tensor<f32> {
  %y = nova.layer_norm %x, %w, %b eps 1.0e-05 : tensor<0x4xf32>, tensor<4xf32>
  %s = nova.reduce sum %y dims [0, 1] : tensor<0x4xf32> -> tensor<f32>
  %p = nova.mul %w, %c : tensor<4xf32>, tensor<4xf32>
  %q = nova.reduce sum %p dims [0] : tensor<4xf32> -> tensor<f32>
  %l = nova.add %s, %q : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @layer_norm_c0 d/d arg0 (0 elements)
// CHECK: ok   @layer_norm_c0 d/d arg1 (0 elements)
// CHECK: ok   @layer_norm_c0 d/d arg2 (0 elements)
func.func @layer_norm_c0(%x: tensor<3x0xf32> {nova.param}, %w: tensor<0xf32> {nova.param}, %b: tensor<0xf32> {nova.param}) -> tensor<f32> {
  %y = nova.layer_norm %x, %w, %b eps 1.0e-05 : tensor<3x0xf32>, tensor<0xf32>
  %l = nova.reduce sum %y dims [0, 1] : tensor<3x0xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @softmax_empty d/d arg0 (0 elements)
// CHECK: ok   @softmax_empty d/d arg1 (0 elements)
func.func @softmax_empty(%x: tensor<3x0xf32> {nova.param}, %y: tensor<0x4xf32> {nova.param}) -> tensor<f32> {
  %a = nova.softmax %x dim 1 : tensor<3x0xf32>
  %b = nova.log_softmax %y dim 1 : tensor<0x4xf32>
  %sa = nova.reduce sum %a dims [0, 1] : tensor<3x0xf32> -> tensor<f32>
  %sb = nova.reduce sum %b dims [0, 1] : tensor<0x4xf32> -> tensor<f32>
  %l = nova.add %sa, %sb : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @slice_broadcast_empty d/d arg0 (12 elements)
// CHECK: ok   @slice_broadcast_empty d/d arg1 (3 elements)
func.func @slice_broadcast_empty(%x: tensor<4x3xf32> {nova.param}, %z: tensor<1x3xf32> {nova.param}, %c: tensor<4x3xf32>) -> tensor<f32> {
  %s = nova.slice %x starts [2, 0] limits [2, 3] strides [1, 1] : tensor<4x3xf32> -> tensor<0x3xf32>
  %b = nova.broadcast %z : tensor<1x3xf32> -> tensor<0x3xf32>
  %m = nova.mul %s, %b : tensor<0x3xf32>, tensor<0x3xf32>
  %e = nova.reduce max %m dims [0] : tensor<0x3xf32> -> tensor<3xf32>
  %t = nova.transpose %m [1, 0] : tensor<0x3xf32> -> tensor<3x0xf32>
  %r = nova.reshape %t : tensor<3x0xf32> -> tensor<0x6xf32>
  %sr = nova.reduce sum %r dims [0, 1] : tensor<0x6xf32> -> tensor<f32>
  %p = nova.mul %x, %c : tensor<4x3xf32>, tensor<4x3xf32>
  %q = nova.reduce sum %p dims [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %l = nova.add %sr, %q : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @elementwise_empty d/d arg0 (0 elements)
// CHECK: ok   @elementwise_empty d/d arg1 (3 elements)
func.func @elementwise_empty(%x: tensor<0x3xf32> {nova.param}, %y: tensor<3xf32> {nova.param}) -> tensor<f32> {
  %a = nova.mul %x, %y : tensor<0x3xf32>, tensor<3xf32>
  %b = nova.gelu tanh %a : tensor<0x3xf32>
  %c = nova.div %b, %y : tensor<0x3xf32>, tensor<3xf32>
  %d = nova.pow %c, %y : tensor<0x3xf32>, tensor<3xf32>
  %e = nova.max %d, %y : tensor<0x3xf32>, tensor<3xf32>
  %f = nova.reduce sum %e dims [0, 1] : tensor<0x3xf32> -> tensor<f32>
  %ys = nova.reduce sum %y dims [0] : tensor<3xf32> -> tensor<f32>
  %l = nova.add %f, %ys : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}
