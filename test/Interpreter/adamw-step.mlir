// AdamW's bias correction divides by 1 - beta^t: a step below 1, or NaN,
// is an error at the op, not a parameter full of NaN or infinities. The
// learning rate is a runtime input: a negative or NaN one is an error too.
// RUN: not nova-run %s --entry zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not nova-run %s --entry nan 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not nova-run %s --entry negative_lr 2>&1 | FileCheck %s --check-prefix=NEGLR
// RUN: not nova-run %s --entry nan_lr 2>&1 | FileCheck %s --check-prefix=NANLR
// ZERO: adamw-step.mlir:[[@LINE+5]]:16: error: adamw step must count from 1, got 0
func.func @zero() -> tensor<2xf32> {
  %p = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = nova.constant dense<0> : tensor<i64>
  %lr = nova.constant dense<1.0e-03> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<2xf32>, tensor<i64>
  return %a : tensor<2xf32>
}
// NAN: adamw-step.mlir:[[@LINE+5]]:16: error: adamw step must count from 1, got nan
func.func @nan() -> tensor<2xf32> {
  %p = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = nova.constant dense<0x7FC00000> : tensor<f32>
  %lr = nova.constant dense<1.0e-03> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<2xf32>, tensor<f32>
  return %a : tensor<2xf32>
}
// NEGLR: adamw-step.mlir:[[@LINE+5]]:16: error: adamw learning rate must be >= 0, got -5.000000e-01
func.func @negative_lr() -> tensor<2xf32> {
  %p = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = nova.constant dense<1> : tensor<i64>
  %lr = nova.constant dense<-0.5> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<2xf32>, tensor<i64>
  return %a : tensor<2xf32>
}
// NANLR: adamw-step.mlir:[[@LINE+5]]:16: error: adamw learning rate must be >= 0, got nan
func.func @nan_lr() -> tensor<2xf32> {
  %p = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = nova.constant dense<1> : tensor<i64>
  %lr = nova.constant dense<0x7FC00000> : tensor<f32>
  %a, %b, %c = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.0 : tensor<2xf32>, tensor<i64>
  return %a : tensor<2xf32>
}
