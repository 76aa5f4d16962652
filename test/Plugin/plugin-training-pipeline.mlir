// The whole-graph training pipeline runs inside Debian's mlir-opt too:
// decompose -> autodiff -> train-step, loaded from nova-plugin.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(nova-decompose),nova-autodiff,nova-train-step{weight-decay=0.02})' \
// RUN:   | FileCheck %s

// CHECK: func.func @train_step(%{{.*}}: tensor<4x3xf32> {nova.name = "w", nova.param}, %{{.*}}: tensor<4x3xf32> {nova.name = "w.adam_m"}, %{{.*}}: tensor<4x3xf32> {nova.name = "w.adam_v"}, %{{.*}}: tensor<i64> {nova.name = "step"}, %{{.*}}: tensor<f32> {nova.name = "lr"}, %{{.*}}: tensor<2x4xf32> {nova.name = "x"}, %{{.*}}: tensor<2xi32> {nova.name = "y"})
// CHECK-SAME: -> (tensor<f32> {nova.name = "loss"}, tensor<4x3xf32> {nova.alias = 0 : i64, nova.name = "w"}, tensor<4x3xf32> {nova.alias = 1 : i64, nova.name = "w.adam_m"}, tensor<4x3xf32> {nova.alias = 2 : i64, nova.name = "w.adam_v"})
// CHECK-NOT: nova.cross_entropy
// CHECK: nova.adamw %{{.*}} beta1 9.000000e-01 beta2 0.99899999999999999 eps 1.000000e-08 weight_decay 2.000000e-02
func.func @loss(%w: tensor<4x3xf32> {nova.param, nova.name = "w"}, %x: tensor<2x4xf32> {nova.name = "x"},
                %y: tensor<2xi32> {nova.name = "y"}) -> tensor<f32> {
  %logits = nova.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %l = nova.cross_entropy %logits, %y : tensor<2x3xf32>, tensor<2xi32> -> tensor<f32>
  return %l : tensor<f32>
}
