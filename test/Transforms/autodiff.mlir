// RUN: nova-opt %s --split-input-file --nova-autodiff --verify-diagnostics | FileCheck %s

// The loss and one gradient per parameter, in argument order; the
// broadcast bias gets its gradient summed back to its own shape.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: -> (tensor<f32> {nova.name = "loss"}, tensor<3x4xf32> {nova.grad_of = 0 : i64, nova.name = "w.grad"}, tensor<4xf32> {nova.grad_of = 2 : i64})
// CHECK: %[[SEED:.*]] = nova.constant dense<1.000000e+00> : tensor<f32>
// CHECK: nova.reduce sum %{{.*}} dims [0] keep_dims : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK: %[[DW:.*]] = nova.matmul %arg1, %{{.*}} transpose_lhs
// CHECK: return %{{.*}}, %[[DW]], %{{.*}}
func.func @linear(%w: tensor<3x4xf32> {nova.param, nova.name = "w"}, %x: tensor<2x3xf32>,
                  %b: tensor<4xf32> {nova.param}) -> (tensor<f32> {nova.name = "loss"}) {
  %y = nova.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = nova.add %y, %b : tensor<2x4xf32>, tensor<4xf32>
  %l = nova.reduce sum %z dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An embedding: gather's gradient is scatter_add; the integer tokens get
// none; a parameter the loss ignores gets zeros; dead forward ops go.
// CHECK-LABEL: func.func @embedding
// CHECK-NOT: nova.exp
// CHECK: %[[DT:.*]] = nova.scatter_add %{{.*}}[%arg1] axis 0 : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x4xf32>
// CHECK: %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<5xf32>
// CHECK: return %{{.*}}, %[[DT]], %[[Z]]
func.func @embedding(%table: tensor<10x4xf32> {nova.param}, %tokens: tensor<2x3xi32>,
                     %unused: tensor<5xf32> {nova.param}) -> tensor<f32> {
  %dead = nova.exp %unused : tensor<5xf32>
  %e = nova.gather %table[%tokens] axis 0 : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<2x3x4xf32>
  %l = nova.reduce sum %e dims [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Fan-out: both uses of %x contribute and are added.
// CHECK-LABEL: func.func @fan_out
// CHECK: nova.constant dense<1.000000e+00>
// CHECK: %[[A:.*]] = nova.mul %{{.*}}, %arg0
// CHECK: %[[B:.*]] = nova.mul %{{.*}}, %arg0
// CHECK: %[[S:.*]] = nova.add %[[A]], %[[B]]
// CHECK: return %{{.*}}, %[[S]]
func.func @fan_out(%x: tensor<f32> {nova.param}) -> tensor<f32> {
  %y = nova.mul %x, %x : tensor<f32>, tensor<f32>
  return %y : tensor<f32>
}

// -----

// Functions without parameters are left alone when another one has some.
// CHECK-LABEL: func.func @no_params
// CHECK-SAME: -> tensor<f32>
func.func @no_params(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
// CHECK-LABEL: func.func @with_params
// CHECK-SAME: -> (tensor<f32>, tensor<f32> {nova.grad_of = 0 : i64})
func.func @with_params(%x: tensor<f32> {nova.param}) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// expected-error @+1 {{nova-autodiff needs a function returning one floating-point scalar (the loss)}}
func.func @not_scalar(%x: tensor<3xf32> {nova.param}) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

func.func @no_rule(%p: tensor<3xf32> {nova.param}, %t: tensor<i64>) -> tensor<f32> {
  // expected-error @+2 {{'nova.adamw' op has no differentiation rule, but the gradient of a parameter flows through it}}
  %lr = nova.constant dense<1.0e-03> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<3xf32>, tensor<i64>
  %l = nova.reduce sum %a dims [0] : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter read inside a region still reaches the loss: the op holding
// the region needs a rule (was: a silent zero gradient).
func.func @through_scf_if(%w: tensor<4xf32> {nova.param}, %c: i1) -> tensor<f32> {
  %z = nova.constant dense<0.0> : tensor<4xf32>
  // expected-error @+1 {{'scf.if' op has no differentiation rule, but the gradient of a parameter flows through it}}
  %r = scf.if %c -> tensor<4xf32> {
    scf.yield %w : tensor<4xf32>
  } else {
    scf.yield %z : tensor<4xf32>
  }
  %l = nova.reduce sum %r dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Reported at the first op without a rule from the parameter: the scalar
// tensor.extract reads, not the tensor.from_elements after it.
func.func @through_tensor_extract(%w: tensor<4xf32> {nova.param}) -> tensor<f32> {
  %i = arith.constant 1 : index
  // expected-error @+1 {{'tensor.extract' op has no differentiation rule, but the gradient of a parameter flows through it}}
  %e = tensor.extract %w[%i] : tensor<4xf32>
  %t = tensor.from_elements %e : tensor<f32>
  %l = nova.mul %t, %t : tensor<f32>, tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @through_tensor_generate(%w: tensor<4xf32> {nova.param}) -> tensor<f32> {
  // expected-error @+1 {{'tensor.generate' op has no differentiation rule, but the gradient of a parameter flows through it}}
  %g = tensor.generate {
  ^bb0(%i: index):
    %e = tensor.extract %w[%i] : tensor<4xf32>
    tensor.yield %e : f32
  } : tensor<4xf32>
  %l = nova.reduce sum %g dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Integer values derived from a parameter carry no gradient and need no
// rule (nova.cmp has none); the loss then does not depend on %w.
// CHECK-LABEL: func.func @through_integers_only
// CHECK: %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[Z]]
func.func @through_integers_only(%w: tensor<4xf32> {nova.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %m = nova.cmp gt, %w, %x : tensor<4xf32>, tensor<4xf32>
  %s = nova.select %m, %x, %x : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %l = nova.reduce sum %s dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An empty window's gradient is zeros of the input.
// CHECK-LABEL: func.func @empty_slice
// CHECK: %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<5xf32>
// CHECK: return %{{.*}}, %[[Z]]
func.func @empty_slice(%x: tensor<5xf32> {nova.param}) -> tensor<f32> {
  %y = nova.slice %x starts [2] limits [2] strides [3] : tensor<5xf32> -> tensor<0xf32>
  %l = nova.reduce sum %y dims [0] : tensor<0xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A path through an integer mask carries no gradient, so an op without a
// rule after it is no error.
// CHECK-LABEL: func.func @rule_less_after_mask
// CHECK: %[[Z:.*]] = nova.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK: return %{{.*}}, %[[Z]]
func.func @rule_less_after_mask(%w: tensor<4xf32> {nova.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %m = nova.cmp gt, %w, %x : tensor<4xf32>, tensor<4xf32>
  %f = arith.uitofp %m : tensor<4xi1> to tensor<4xf32>
  %l = nova.reduce sum %f dims [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
