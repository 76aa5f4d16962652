// Every differentiation rule against central finite differences in f64
// (relative error < 1e-6), on fresh random inputs for each seed.
// Every function must be checked and pass: a FAIL line anywhere fails.
// RUN: nova-run %s --check-gradients --random-inputs 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: nova-run %s --check-gradients --random-inputs 2 | FileCheck %s --implicit-check-not=FAIL

// CHECK: ok   @neg 
func.func @neg(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.neg %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @abs 
func.func @abs(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.abs %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @relu 
func.func @relu(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.relu %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @exp 
func.func @exp(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.exp %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @tanh 
func.func @tanh(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.tanh %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @sigmoid 
func.func @sigmoid(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.sigmoid %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @erf 
func.func @erf(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.erf %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @gelu_tanh 
func.func @gelu_tanh(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.gelu tanh %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @gelu_erf 
func.func @gelu_erf(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.gelu erf %x : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @log 
func.func @log(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %e = nova.exp %x : tensor<3x4xf32>
  %y = nova.log %e : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @sqrt 
func.func @sqrt(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %e = nova.exp %x : tensor<3x4xf32>
  %y = nova.sqrt %e : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @rsqrt 
func.func @rsqrt(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %e = nova.exp %x : tensor<3x4xf32>
  %y = nova.rsqrt %e : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @reciprocal 
func.func @reciprocal(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %e = nova.exp %x : tensor<3x4xf32>
  %y = nova.reciprocal %e : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @cast 
func.func @cast(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %h = nova.cast %x : tensor<3x4xf32> to tensor<3x4xf16>
  %y = nova.cast %h : tensor<3x4xf16> to tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @reshape_transpose 
func.func @reshape_transpose(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %r = nova.reshape %x : tensor<3x4xf32> -> tensor<2x6xf32>
  %s = nova.tanh %r : tensor<2x6xf32>
  %q = nova.reshape %s : tensor<2x6xf32> -> tensor<4x3xf32>
  %y = nova.transpose %q [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @add 
func.func @add(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.add %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @sub 
func.func @sub(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.sub %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @mul 
func.func @mul(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.mul %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @div 
func.func @div(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.div %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @max 
func.func @max(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.max %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @min 
func.func @min(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.min %x, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @pow 
func.func @pow(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %e = nova.exp %x : tensor<3x4xf32>
  %y = nova.pow %e, %b : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @select 
func.func @select(%x: tensor<3x4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %zero = nova.constant dense<0.0> : tensor<f32>
  %m = nova.cmp gt, %c, %zero : tensor<3x4xf32>, tensor<f32>
  %y = nova.select %m, %x, %b : tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @reduce_sum 
func.func @reduce_sum(%x: tensor<3x4x5xf32> {nova.param}, %c: tensor<3x1x5xf32>) -> tensor<f32> {
  %r = nova.reduce sum %x dims [1] keep_dims : tensor<3x4x5xf32> -> tensor<3x1x5xf32>
  %p = nova.mul %r, %c : tensor<3x1x5xf32>, tensor<3x1x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<3x1x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @reduce_max 
func.func @reduce_max(%x: tensor<3x4x5xf32> {nova.param}, %c: tensor<3x1x5xf32>) -> tensor<f32> {
  %r = nova.reduce max %x dims [1] keep_dims : tensor<3x4x5xf32> -> tensor<3x1x5xf32>
  %p = nova.mul %r, %c : tensor<3x1x5xf32>, tensor<3x1x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<3x1x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @reduce_min 
func.func @reduce_min(%x: tensor<3x4x5xf32> {nova.param}, %c: tensor<3x1x5xf32>) -> tensor<f32> {
  %r = nova.reduce min %x dims [1] keep_dims : tensor<3x4x5xf32> -> tensor<3x1x5xf32>
  %p = nova.mul %r, %c : tensor<3x1x5xf32>, tensor<3x1x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<3x1x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @broadcast 
func.func @broadcast(%x: tensor<3x1xf32> {nova.param}, %c: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = nova.broadcast %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %p = nova.mul %y, %c : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @slice 
func.func @slice(%x: tensor<5x6xf32> {nova.param}, %c: tensor<2x3xf32>) -> tensor<f32> {
  %y = nova.slice %x starts [1, 0] limits [5, 6] strides [2, 2] : tensor<5x6xf32> -> tensor<2x3xf32>
  %p = nova.mul %y, %c : tensor<2x3xf32>, tensor<2x3xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Three strided dimensions: zeros before, between and after the window, and
// a single element taken by a stride longer than the dimension.
// CHECK: ok   @slice_3d 
func.func @slice_3d(%x: tensor<4x10x3xf32> {nova.param}, %c: tensor<2x3x1xf32>) -> tensor<f32> {
  %y = nova.slice %x starts [1, 2, 1] limits [4, 9, 2] strides [2, 3, 5] : tensor<4x10x3xf32> -> tensor<2x3x1xf32>
  %p = nova.mul %y, %c : tensor<2x3x1xf32>, tensor<2x3x1xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x3x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @concat 
func.func @concat(%x: tensor<3x2xf32> {nova.param}, %z: tensor<3x3xf32> {nova.param}, %c: tensor<3x5xf32>) -> tensor<f32> {
  %y = nova.concat %x, %z dim 1 : tensor<3x2xf32>, tensor<3x3xf32> -> tensor<3x5xf32>
  %p = nova.mul %y, %c : tensor<3x5xf32>, tensor<3x5xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @gather 
func.func @gather(%table: tensor<6x4xf32> {nova.param}, %idx: tensor<2x5xi64>, %c: tensor<2x5x4xf32>) -> tensor<f32> {
  %y = nova.gather %table[%idx] axis 0 : tensor<6x4xf32>, tensor<2x5xi64> -> tensor<2x5x4xf32>
  %p = nova.mul %y, %c : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @scatter_add 
func.func @scatter_add(%u: tensor<3x5xf32> {nova.param}, %idx: tensor<5xi32>, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.scatter_add %u[%idx] axis 1 : tensor<3x5xf32>, tensor<5xi32> -> tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul 
func.func @matmul(%a: tensor<3x4xf32> {nova.param}, %b: tensor<4x5xf32> {nova.param}, %c: tensor<3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  %p = nova.mul %y, %c : tensor<3x5xf32>, tensor<3x5xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_tl 
func.func @matmul_tl(%a: tensor<4x3xf32> {nova.param}, %b: tensor<4x5xf32> {nova.param}, %c: tensor<3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b transpose_lhs : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  %p = nova.mul %y, %c : tensor<3x5xf32>, tensor<3x5xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_tr 
func.func @matmul_tr(%a: tensor<3x4xf32> {nova.param}, %b: tensor<5x4xf32> {nova.param}, %c: tensor<3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b transpose_rhs : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  %p = nova.mul %y, %c : tensor<3x5xf32>, tensor<3x5xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_tl_tr 
func.func @matmul_tl_tr(%a: tensor<4x3xf32> {nova.param}, %b: tensor<5x4xf32> {nova.param}, %c: tensor<3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b transpose_lhs transpose_rhs : tensor<4x3xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  %p = nova.mul %y, %c : tensor<3x5xf32>, tensor<3x5xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_batched_weight 
func.func @matmul_batched_weight(%a: tensor<2x3x4xf32> {nova.param}, %b: tensor<4x5xf32> {nova.param}, %c: tensor<2x3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  %p = nova.mul %y, %c : tensor<2x3x5xf32>, tensor<2x3x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_batched_weight_tr 
func.func @matmul_batched_weight_tr(%a: tensor<2x3x4xf32> {nova.param}, %b: tensor<5x4xf32> {nova.param}, %c: tensor<2x3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b transpose_rhs : tensor<2x3x4xf32>, tensor<5x4xf32> -> tensor<2x3x5xf32>
  %p = nova.mul %y, %c : tensor<2x3x5xf32>, tensor<2x3x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @matmul_batch_broadcast 
func.func @matmul_batch_broadcast(%a: tensor<2x1x3x4xf32> {nova.param}, %b: tensor<3x4x5xf32> {nova.param}, %c: tensor<2x3x3x5xf32>) -> tensor<f32> {
  %y = nova.matmul %a, %b : tensor<2x1x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x3x5xf32>
  %p = nova.mul %y, %c : tensor<2x3x3x5xf32>, tensor<2x3x3x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2, 3] : tensor<2x3x3x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @softmax 
func.func @softmax(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.softmax %x dim 1 : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @log_softmax 
func.func @log_softmax(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.log_softmax %x dim 1 : tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @layer_norm 
func.func @layer_norm(%x: tensor<3x4xf32> {nova.param}, %w: tensor<4xf32> {nova.param}, %b: tensor<4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %y = nova.layer_norm %x, %w, %b eps 1.0e-05 : tensor<3x4xf32>, tensor<4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @cross_entropy 
func.func @cross_entropy(%x: tensor<2x3x7xf32> {nova.param}, %labels: tensor<2x3xi32>) -> tensor<f32> {
  %l = nova.cross_entropy %x, %labels : tensor<2x3x7xf32>, tensor<2x3xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// ignore_index a class, so some random labels (in [0, 3)) are ignored.
// CHECK: ok   @cross_entropy_ignore 
func.func @cross_entropy_ignore(%x: tensor<4x5x3xf32> {nova.param}, %labels: tensor<4x5xi64>) -> tensor<f32> {
  %l = nova.cross_entropy %x, %labels ignore_index 2 : tensor<4x5x3xf32>, tensor<4x5xi64> -> tensor<f32>
  return %l : tensor<f32>
}


// CHECK: ok   @attention 
func.func @attention(%q: tensor<2x5x3xf32> {nova.param}, %k: tensor<2x5x3xf32> {nova.param}, %v: tensor<2x5x4xf32> {nova.param}, %c: tensor<2x5x4xf32>) -> tensor<f32> {
  %y = nova.attention %q, %k, %v scale 0.5 : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  %p = nova.mul %y, %c : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @attention_causal 
func.func @attention_causal(%q: tensor<2x5x3xf32> {nova.param}, %k: tensor<2x5x3xf32> {nova.param}, %v: tensor<2x5x4xf32> {nova.param}, %c: tensor<2x5x4xf32>) -> tensor<f32> {
  %y = nova.attention %q, %k, %v scale 0.5 causal : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  %p = nova.mul %y, %c : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x5x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// nova.attention's rule is attention_fwd + attention_bwd (checked by the
// two functions above); these differentiate attention_fwd itself, with the
// log-sum-exp in the loss (its own rule) and without (attention_bwd), on
// non-square scores and with a causal mask.
// CHECK: ok   @attention_fwd_output 
func.func @attention_fwd_output(%q: tensor<2x4x3xf32> {nova.param}, %k: tensor<2x6x3xf32> {nova.param}, %v: tensor<2x6x5xf32> {nova.param}, %c: tensor<2x4x5xf32>) -> tensor<f32> {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.7 : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>, tensor<2x4xf32>
  %p = nova.mul %o, %c : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %l = nova.reduce sum %p dims [0, 1, 2] : tensor<2x4x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @attention_fwd_lse 
func.func @attention_fwd_lse(%q: tensor<2x5x3xf32> {nova.param}, %k: tensor<2x5x3xf32> {nova.param}, %v: tensor<2x5x4xf32> {nova.param}, %c: tensor<2x5x4xf32>, %d: tensor<2x5xf32>) -> tensor<f32> {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 causal : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>, tensor<2x5xf32>
  %p = nova.mul %o, %c : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %lo = nova.reduce sum %p dims [0, 1, 2] : tensor<2x5x4xf32> -> tensor<f32>
  %pl = nova.mul %lse, %d : tensor<2x5xf32>, tensor<2x5xf32>
  %ll = nova.reduce sum %pl dims [0, 1] : tensor<2x5xf32> -> tensor<f32>
  %l = nova.add %lo, %ll : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// Only the statistic reaches the loss: no gradient flows into the output.
// CHECK: ok   @attention_fwd_lse_only 
func.func @attention_fwd_lse_only(%q: tensor<3x4xf32> {nova.param}, %k: tensor<6x4xf32> {nova.param}, %v: tensor<6x2xf32>, %d: tensor<3xf32>) -> tensor<f32> {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.3 : tensor<3x4xf32>, tensor<6x4xf32>, tensor<6x2xf32> -> tensor<3x2xf32>, tensor<3xf32>
  %pl = nova.mul %lse, %d : tensor<3xf32>, tensor<3xf32>
  %l = nova.reduce sum %pl dims [0] : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Four heads of width 2 split from one width-8 projection: attention's
// gradient flows back through reshape and transpose into the weight.
// CHECK: ok   @attention_heads 
func.func @attention_heads(%x: tensor<1x6x8xf32>, %w: tensor<8x24xf32> {nova.param}, %c: tensor<1x4x6x2xf32>) -> tensor<f32> {
  %qkv = nova.matmul %x, %w : tensor<1x6x8xf32>, tensor<8x24xf32> -> tensor<1x6x24xf32>
  %r = nova.reshape %qkv : tensor<1x6x24xf32> -> tensor<1x6x3x4x2xf32>
  %t = nova.transpose %r [2, 0, 3, 1, 4] : tensor<1x6x3x4x2xf32> -> tensor<3x1x4x6x2xf32>
  %q3 = nova.slice %t starts [0, 0, 0, 0, 0] limits [1, 1, 4, 6, 2] strides [1, 1, 1, 1, 1] : tensor<3x1x4x6x2xf32> -> tensor<1x1x4x6x2xf32>
  %k3 = nova.slice %t starts [1, 0, 0, 0, 0] limits [2, 1, 4, 6, 2] strides [1, 1, 1, 1, 1] : tensor<3x1x4x6x2xf32> -> tensor<1x1x4x6x2xf32>
  %v3 = nova.slice %t starts [2, 0, 0, 0, 0] limits [3, 1, 4, 6, 2] strides [1, 1, 1, 1, 1] : tensor<3x1x4x6x2xf32> -> tensor<1x1x4x6x2xf32>
  %q = nova.reshape %q3 : tensor<1x1x4x6x2xf32> -> tensor<1x4x6x2xf32>
  %k = nova.reshape %k3 : tensor<1x1x4x6x2xf32> -> tensor<1x4x6x2xf32>
  %v = nova.reshape %v3 : tensor<1x1x4x6x2xf32> -> tensor<1x4x6x2xf32>
  %y = nova.attention %q, %k, %v scale 0.7 causal : tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32> -> tensor<1x4x6x2xf32>
  %p = nova.mul %y, %c : tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>
  %l = nova.reduce sum %p dims [0, 1, 2, 3] : tensor<1x4x6x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK: ok   @fan_out 
func.func @fan_out(%x: tensor<3x4xf32> {nova.param}, %c: tensor<3x4xf32>) -> tensor<f32> {
  %a = nova.mul %x, %x : tensor<3x4xf32>, tensor<3x4xf32>
  %b = nova.tanh %x : tensor<3x4xf32>
  %y = nova.add %a, %b : tensor<3x4xf32>, tensor<3x4xf32>
  %p = nova.mul %y, %c : tensor<3x4xf32>, tensor<3x4xf32>
  %l = nova.reduce sum %p dims [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
