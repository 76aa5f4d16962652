// Each decomposition computes what its composite computes: run the original
// module (the undecomposed baseline) and the decomposed one on the same
// random inputs with the reference interpreter and compare.
// The decomposed module must hold no composite anywhere (checked on the very
// file that is compared, so the comparison is never composite vs. composite).
// RUN: nova-opt %s --nova-decompose -o %t.mlir
// RUN: FileCheck %s --implicit-check-not=nova.softmax --implicit-check-not=nova.log_softmax \
// RUN:   --implicit-check-not=nova.layer_norm --implicit-check-not=nova.cross_entropy \
// RUN:   --implicit-check-not=nova.attention --implicit-check-not=nova.adamw < %t.mlir
// RUN: nova-opt %s --nova-decompose=keep=attention | FileCheck %s --check-prefix=KEEP \
// RUN:   --implicit-check-not=nova.softmax --implicit-check-not=nova.log_softmax \
// RUN:   --implicit-check-not=nova.layer_norm --implicit-check-not=nova.cross_entropy \
// RUN:   --implicit-check-not=nova.adamw
// RUN: for f in softmax log_softmax layer_norm cross_entropy cross_entropy_ignore attention attention_causal attention_fwd attention_bwd adamw; do \
// RUN:   nova-run %s --entry $f --random-inputs 5 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 2e-5 --atol 1e-6 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// RUN: not nova-opt %s --nova-decompose=keep=matmul 2>&1 | FileCheck %s --check-prefix=BADKEEP

// KEEP-COUNT-2: nova.attention
// SAME-COUNT-15: match
// BADKEEP: 'keep' names 'matmul', which is not a composite

// CHECK-LABEL: func.func @softmax
// CHECK: nova.reduce max
// CHECK: nova.exp
// CHECK: nova.reduce sum
// CHECK: nova.div
func.func @softmax(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %y = nova.softmax %x dim 1 : tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}

func.func @log_softmax(%x: tensor<3x5x2xf32>) -> tensor<3x5x2xf32> {
  %y = nova.log_softmax %x dim 1 : tensor<3x5x2xf32>
  return %y : tensor<3x5x2xf32>
}

func.func @layer_norm(%x: tensor<2x3x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %y = nova.layer_norm %x, %w, %b eps 1.0e-05 : tensor<2x3x8xf32>, tensor<8xf32>
  return %y : tensor<2x3x8xf32>
}

func.func @cross_entropy(%x: tensor<2x6x11xf32>, %labels: tensor<2x6xi64>) -> tensor<f32> {
  %l = nova.cross_entropy %x, %labels : tensor<2x6x11xf32>, tensor<2x6xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// ignore_index a class: random labels in [0, 4) hit it, and those rows leave
// the mean (nova.check_labels and a second mask in the decomposition).
func.func @cross_entropy_ignore(%x: tensor<3x5x4xf32>, %labels: tensor<3x5xi32>) -> tensor<f32> {
  %l = nova.cross_entropy %x, %labels ignore_index 1 : tensor<3x5x4xf32>, tensor<3x5xi32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @attention(%q: tensor<2x3x6x4xf32>, %k: tensor<2x3x7x4xf32>, %v: tensor<2x3x7x5xf32>) -> tensor<2x3x6x5xf32> {
  %o = nova.attention %q, %k, %v scale 0.5 : tensor<2x3x6x4xf32>, tensor<2x3x7x4xf32>, tensor<2x3x7x5xf32> -> tensor<2x3x6x5xf32>
  return %o : tensor<2x3x6x5xf32>
}

func.func @attention_causal(%q: tensor<2x6x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x4xf32>) -> tensor<2x6x4xf32> {
  %o = nova.attention %q, %k, %v scale 0.5 causal : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
  return %o : tensor<2x6x4xf32>
}

// CHECK-LABEL: func.func @attention_fwd
// CHECK: nova.reduce max
// CHECK: nova.reduce sum
// CHECK: nova.log
func.func @attention_fwd(%q: tensor<2x6x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x3xf32>) -> (tensor<2x6x3xf32>, tensor<2x6xf32>) {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 causal : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x3xf32> -> tensor<2x6x3xf32>, tensor<2x6xf32>
  return %o, %lse : tensor<2x6x3xf32>, tensor<2x6xf32>
}

// The backward reads the forward's own output and statistic (the interpreter
// runs both composites in the original, their decompositions in %t.mlir).
// CHECK-LABEL: func.func @attention_bwd
// CHECK: nova.exp
// CHECK: nova.matmul {{.*}} transpose_lhs
func.func @attention_bwd(%q: tensor<3x5x4xf32>, %k: tensor<3x7x4xf32>, %v: tensor<3x7x2xf32>, %do: tensor<3x5x2xf32>)
    -> (tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x2xf32>) {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.6 : tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x2xf32> -> tensor<3x5x2xf32>, tensor<3x5xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %do scale 0.6 : tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x2xf32>, tensor<3x5x2xf32>, tensor<3x5xf32>, tensor<3x5x2xf32>
  return %dq, %dk, %dv : tensor<3x5x4xf32>, tensor<3x7x4xf32>, tensor<3x7x2xf32>
}

// The second moment is made non-negative and the step starts at 1, as in
// training.
func.func @adamw(%p: tensor<5x3xf32>, %g: tensor<5x3xf32>, %m: tensor<5x3xf32>, %v0: tensor<5x3xf32>, %t0: tensor<i64>)
    -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>) {
  %v = nova.abs %v0 : tensor<5x3xf32>
  %one = nova.constant dense<1> : tensor<i64>
  %t = nova.add %t0, %one : tensor<i64>, tensor<i64>
  %lr = nova.constant dense<1.0e-02> : tensor<f32>
  %p2, %m2, %v2 = nova.adamw %p, %g, %m, %v, %t, %lr beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1 : tensor<5x3xf32>, tensor<i64>
  return %p2, %m2, %v2 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
}
