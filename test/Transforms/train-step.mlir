// nova-train-step's signature: `step` and `lr` are runtime scalars feeding
// every nova.adamw, @eval is the loss alone with the same argument names,
// clip-norm returns grad_norm, accumulate adds a micro-batch dimension.
// RUN: nova-opt %s --nova-autodiff --nova-train-step | FileCheck %s
// RUN: nova-opt %s --nova-autodiff --nova-train-step="clip-norm=0.5 accumulate=2 eval=false" \
// RUN:   | FileCheck %s --check-prefix=OPTS --implicit-check-not=@eval
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=accumulate=0 2>&1 | FileCheck %s --check-prefix=ACC0
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=accumulate=100000 2>&1 | FileCheck %s --check-prefix=ACCBIG
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=clip-norm=-1 2>&1 | FileCheck %s --check-prefix=CLIPNEG
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=clip-norm=nan 2>&1 | FileCheck %s --check-prefix=CLIPNAN
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=clip-norm=inf 2>&1 | FileCheck %s --check-prefix=CLIPINF
// RUN: not nova-opt %s --nova-autodiff --nova-train-step=name=eval 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: nova-opt %s --nova-autodiff --nova-train-step="name=eval eval=false" | FileCheck %s --check-prefix=RENAMED

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W:.*]]: tensor<4x3xf32> {nova.name = "w", nova.param}
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {nova.name = "step"}, %[[LR:[^:]*]]: tensor<f32> {nova.name = "lr"}, %{{.*}}: tensor<2x4xf32> {nova.name = "x"}, %{{.*}}: tensor<2xi32> {nova.name = "y"})
// CHECK-SAME: -> (tensor<f32> {nova.name = "loss"}, tensor<4x3xf32> {nova.alias = 0 : i64, nova.name = "w"}, tensor<4x3xf32> {nova.alias = 1 : i64, nova.name = "w.adam_m"}, tensor<4x3xf32> {nova.alias = 2 : i64, nova.name = "w.adam_v"})
// CHECK: nova.adamw %[[W]], %{{.*}}, %{{.*}}, %{{.*}}, %[[STEP]], %[[LR]] beta1
// CHECK-LABEL: func.func @eval(
// CHECK-SAME: %[[EW:.*]]: tensor<4x3xf32> {nova.name = "w", nova.param}, %[[EX:.*]]: tensor<2x4xf32> {nova.name = "x"}, %[[EY:.*]]: tensor<2xi32> {nova.name = "y"}) -> (tensor<f32> {nova.name = "loss"})
// CHECK-NEXT: %[[LOGITS:.*]] = nova.matmul %[[EX]], %[[EW]]
// CHECK-NEXT: %[[LOSS:.*]] = nova.cross_entropy %[[LOGITS]], %[[EY]]
// CHECK-NEXT: return %[[LOSS]]

// OPTS-LABEL: func.func @train_step(
// OPTS-SAME: tensor<f32> {nova.name = "lr"}, %[[X:[^:]*]]: tensor<2x2x4xf32> {nova.name = "x"}, %[[Y:[^:]*]]: tensor<2x2xi32> {nova.name = "y"})
// OPTS-SAME: tensor<f32> {nova.name = "grad_norm"})
// OPTS: nova.slice %[[X]]
// OPTS: nova.slice %[[Y]]
// OPTS: nova.slice %[[X]]
// OPTS: nova.slice %[[Y]]
// OPTS: %[[NORM:.*]] = nova.sqrt
// OPTS: nova.min
// OPTS: nova.adamw
// OPTS: return {{.*}}, %[[NORM]] :

// ACC0: train-step.mlir:[[@LINE+8]]:1: error: nova-train-step: accumulate must be from 1 to 256, got 0
// ACCBIG: train-step.mlir:[[@LINE+7]]:1: error: nova-train-step: accumulate must be from 1 to 256, got 100000
// CLIPNEG: train-step.mlir:[[@LINE+6]]:1: error: nova-train-step: clip-norm must be a finite number >= 0 (0: off), got -1
// CLIPNAN: train-step.mlir:[[@LINE+5]]:1: error: nova-train-step: clip-norm must be a finite number >= 0 (0: off), got nan
// CLIPINF: train-step.mlir:[[@LINE+4]]:1: error: nova-train-step: clip-norm must be a finite number >= 0 (0: off), got INF
// CLASH: train-step.mlir:[[@LINE+3]]:1: error: nova-train-step: the step and the eval entry would both be @eval; choose another name= or eval=false
// RENAMED: func.func @eval(
// RENAMED-SAME: nova.name = "lr"
func.func @loss(%w: tensor<4x3xf32> {nova.param, nova.name = "w"}, %x: tensor<2x4xf32> {nova.name = "x"},
                %y: tensor<2xi32> {nova.name = "y"}) -> tensor<f32> {
  %logits = nova.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %l = nova.cross_entropy %logits, %y : tensor<2x3xf32>, tensor<2xi32> -> tensor<f32>
  return %l : tensor<f32>
}
