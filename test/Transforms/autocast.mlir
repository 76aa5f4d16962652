// nova-autocast compute=bf16, rule by rule, on small functions; the same
// functions still run and agree with the f32 originals within bf16's
// precision; the pass is idempotent; bad options are errors.
// RUN: nova-opt %s --nova-autocast -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: nova-opt %t.mlir --nova-autocast | diff - %t.mlir
// RUN: for f in linear_gelu residual_and_statistics views; do \
// RUN:   nova-run %s --entry $f --random-inputs 2 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 3e-2 --atol 3e-2 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// RUN: not nova-opt %s --nova-autocast=compute=fp8 2>&1 | FileCheck %s --check-prefix=BAD \
// RUN:   --implicit-check-not=error: --implicit-check-not=builtin.module
// RUN: not nova-opt %s --nova-autocast=compute= 2>&1 | FileCheck %s --check-prefix=EMPTY
// SAME-COUNT-6: match
// BAD: autocast.mlir:1:1: error: nova-autocast: compute must be bf16, tf32 or f32, got 'fp8'
// EMPTY: autocast.mlir:1:1: error: nova-autocast: compute must be bf16, tf32 or f32, got ''

// A linear layer and its activation run in bf16: the product's operands are
// cast once at the start, the bias joins in bf16 (a broadcast parameter does
// not promote), GELU follows its input, and the f32 result is cast back.
// CHECK-LABEL: func.func @linear_gelu(
// CHECK-NEXT: %[[X:.*]] = nova.cast %arg0 : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: %[[W:.*]] = nova.cast %arg1 : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK-NEXT: %[[B:.*]] = nova.cast %arg2 : tensor<16xf32> to tensor<16xbf16>
// CHECK-NEXT: %[[Y:.*]] = nova.matmul %[[X]], %[[W]] : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: %[[Z:.*]] = nova.add %[[Y]], %[[B]] : tensor<4x16xbf16>, tensor<16xbf16>
// CHECK-NEXT: %[[G:.*]] = nova.gelu tanh %[[Z]] : tensor<4x16xbf16>
// CHECK-NEXT: %[[R:.*]] = nova.cast %[[G]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x16xf32>
func.func @linear_gelu(%x: tensor<4x8xf32>, %w: tensor<8x16xf32> {nova.param},
                       %b: tensor<16xf32> {nova.param}) -> tensor<4x16xf32> {
  %y = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %z = nova.add %y, %b : tensor<4x16xf32>, tensor<16xf32>
  %g = nova.gelu tanh %z : tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// A full-size f32 operand promotes (the residual stays f32); reductions and
// softmax read f32, one cast back shared by both; a splat constant takes
// bf16 instead of promoting.
// CHECK-LABEL: func.func @residual_and_statistics(
// CHECK: %[[Y:.*]] = nova.matmul {{.*}} -> tensor<4x8xbf16>
// CHECK-NEXT: %[[Y32:.*]] = nova.cast %[[Y]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = nova.add %arg0, %[[Y32]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = nova.reduce sum %[[Y32]] dims [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[P:.*]] = nova.softmax %[[Y32]] dim 1 : tensor<4x8xf32>
// CHECK-NEXT: %[[HALF:.*]] = nova.constant dense<5.000000e-01> : tensor<bf16>
// CHECK-NEXT: %[[M:.*]] = nova.mul %[[Y]], %[[HALF]] : tensor<4x8xbf16>, tensor<bf16>
// CHECK-NEXT: %[[M32:.*]] = nova.cast %[[M]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK-NEXT: return %[[R]], %[[S]], %[[P]], %[[M32]] : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>
func.func @residual_and_statistics(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {nova.param})
    -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %y = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = nova.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
  %s = nova.reduce sum %y dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %p = nova.softmax %y dim 1 : tensor<4x8xf32>
  %half = nova.constant dense<0.5> : tensor<f32>
  %m = nova.mul %y, %half : tensor<4x8xf32>, tensor<f32>
  return %r, %s, %p, %m : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A weight read directly and through a transpose has one bf16 copy: the
// cast moves above the data movement.
// CHECK-LABEL: func.func @views(
// CHECK-NOT: nova.cast %arg1
// CHECK: %[[W:.*]] = nova.cast %arg1 : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK-NOT: nova.cast %arg1
// CHECK: nova.matmul %{{.*}}, %[[W]] :
// CHECK: %[[T:.*]] = nova.transpose %[[W]] [1, 0] : tensor<8x8xbf16> -> tensor<8x8xbf16>
// CHECK-NOT: nova.cast
// CHECK: nova.matmul %{{.*}}, %[[T]] :
func.func @views(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {nova.param}) -> tensor<4x8xf32> {
  %a = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = nova.transpose %w [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %b = nova.matmul %a, %t : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// Ops of other dialects, also inside regions, read the original type.
// CHECK-LABEL: func.func @other_dialects(
// CHECK: %[[Y:.*]] = nova.matmul {{.*}} -> tensor<2x2xbf16>
// CHECK-NEXT: %[[Y32:.*]] = nova.cast %[[Y]] : tensor<2x2xbf16> to tensor<2x2xf32>
// CHECK: tensor.extract %[[Y32]]
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[Y32]] : tensor<2x2xf32>
func.func @other_dialects(%x: tensor<2x2xf32>, %c: i1) -> (f32, tensor<2x2xf32>) {
  %y = nova.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %i = arith.constant 0 : index
  %e = tensor.extract %y[%i, %i] : tensor<2x2xf32>
  %r = scf.if %c -> tensor<2x2xf32> {
    scf.yield %y : tensor<2x2xf32>
  } else {
    scf.yield %x : tensor<2x2xf32>
  }
  return %e, %r : f32, tensor<2x2xf32>
}

// Values that are not f32 are left alone: a product written in bf16 and
// an f16 one.
// CHECK-LABEL: func.func @not_f32(
// CHECK-NOT: nova.cast
// CHECK: return
func.func @not_f32(%x: tensor<2x2xbf16>, %h: tensor<2x2xf16>) -> (tensor<2x2xbf16>, tensor<2x2xf16>) {
  %y = nova.matmul %x, %x : tensor<2x2xbf16>, tensor<2x2xbf16> -> tensor<2x2xbf16>
  %z = nova.matmul %h, %h : tensor<2x2xf16>, tensor<2x2xf16> -> tensor<2x2xf16>
  return %y, %z : tensor<2x2xbf16>, tensor<2x2xf16>
}

// exp, log, pow, reciprocal and rsqrt are on torch.autocast's float32 list:
// after a bf16 product they read the product cast back to f32.
// CHECK-LABEL: func.func @float32_functions(
// CHECK: %[[Y:.*]] = nova.matmul {{.*}} -> tensor<4x4xbf16>
// CHECK-NEXT: %[[Y32:.*]] = nova.cast %[[Y]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK-NEXT: nova.exp %[[Y32]] : tensor<4x4xf32>
// CHECK-NEXT: nova.log {{.*}} : tensor<4x4xf32>
// CHECK-NEXT: nova.rsqrt {{.*}} : tensor<4x4xf32>
// CHECK-NEXT: nova.reciprocal {{.*}} : tensor<4x4xf32>
// CHECK-NEXT: nova.pow {{.*}} : tensor<4x4xf32>, tensor<4x4xf32>
func.func @float32_functions(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {nova.param}) -> tensor<4x4xf32> {
  %y = nova.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %e = nova.exp %y : tensor<4x4xf32>
  %l = nova.log %e : tensor<4x4xf32>
  %r = nova.rsqrt %e : tensor<4x4xf32>
  %c = nova.reciprocal %r : tensor<4x4xf32>
  %p = nova.pow %c, %l : tensor<4x4xf32>, tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}
