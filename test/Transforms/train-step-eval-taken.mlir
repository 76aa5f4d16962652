// The eval entry's name must be free, like the step's.
// RUN: not nova-opt %s --nova-autodiff=function=loss --nova-train-step=function=loss 2>&1 | FileCheck %s
// RUN: nova-opt %s --nova-autodiff=function=loss --nova-train-step="function=loss eval=false" | FileCheck %s --check-prefix=NOEVAL

// CHECK: train-step-eval-taken.mlir:[[@LINE+3]]:1: error: nova-train-step: @eval (the eval entry) already exists
// NOEVAL: func.func @train_step(
// NOEVAL: func.func @eval(%{{.*}}: tensor<3xf32>) -> tensor<3xf32>
func.func @loss(%w: tensor<3xf32> {nova.param, nova.name = "w"}) -> tensor<f32> {
  %s = nova.reduce sum %w dims [0] : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @eval(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
