// cross_entropy's label check holds through every pass: a label outside
// [0, classes) that is not the ignore_index is a located error when the
// program runs, composite or decomposed (nova.check_labels), after
// canonicalization, CSE and DCE, and inside a training step, located at
// the cross_entropy in this file (the passes keep its location).
// RUN: nova-opt %s --nova-decompose | FileCheck %s --check-prefix=DECOMPOSED
// RUN: not nova-run %s --entry too_big --random-inputs 1 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not nova-run %s --entry negative --random-inputs 1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: nova-opt %s --nova-decompose --nova-canonicalize --cse --canonicalize --symbol-dce --mlir-print-debuginfo -o %t.mlir
// RUN: not nova-run %t.mlir --entry too_big --random-inputs 1 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not nova-run %t.mlir --entry negative --random-inputs 1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: nova-opt %s --nova-autodiff=function=train_on_bad --nova-decompose --nova-train-step=function=train_on_bad --cse --canonicalize --mlir-print-debuginfo -o %t.step.mlir
// RUN: not nova-run %t.step.mlir --entry train_step --random-inputs 1 2>&1 | FileCheck %s --check-prefix=STEP
// Ignored labels (-100 by default) are fine and leave the mean.
// RUN: nova-run %s --entry ignored --random-inputs 1 --print | FileCheck %s --check-prefix=IGNORED
// RUN: nova-run %t.mlir --entry ignored --random-inputs 1 --print | FileCheck %s --check-prefix=IGNORED
// nova-run's random labels stay below the class count check_labels names.
// RUN: for s in 1 2 3 4 5 6; do nova-run %t.mlir --entry random_labels --random-inputs $s || exit 1; done

// DECOMPOSED-LABEL: func.func @too_big
// DECOMPOSED: nova.check_labels %{{.*}} classes 3 ignore_index -100 : tensor<3xi64>
// DECOMPOSED-LABEL: func.func @negative
// DECOMPOSED: nova.check_labels %{{.*}} classes 3 ignore_index -100 : tensor<3xi32>

// BIG: cross-entropy-labels.mlir:[[# @LINE + 3]]:8: error: label 3 at position 1 is outside [0, 3) and is not the ignore_index -100
func.func @too_big(%x: tensor<3x3xf32>) -> tensor<f32> {
  %y = nova.constant dense<[0, 3, 1]> : tensor<3xi64>
  %l = nova.cross_entropy %x, %y : tensor<3x3xf32>, tensor<3xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// NEG: cross-entropy-labels.mlir:[[# @LINE + 3]]:8: error: label -1 at position 2 is outside [0, 3) and is not the ignore_index -100
func.func @negative(%x: tensor<3x3xf32>) -> tensor<f32> {
  %y = nova.constant dense<[0, 2, -1]> : tensor<3xi32>
  %l = nova.cross_entropy %x, %y : tensor<3x3xf32>, tensor<3xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// With ignore_index 5, -100 is an ordinary bad label.
// STEP: cross-entropy-labels.mlir:[[# @LINE + 4]]:8: error: label -100 at position 0 is outside [0, 3) and is not the ignore_index 5
func.func @train_on_bad(%w: tensor<4x3xf32> {nova.param}, %x: tensor<3x4xf32>) -> tensor<f32> {
  %z = nova.matmul %x, %w : tensor<3x4xf32>, tensor<4x3xf32> -> tensor<3x3xf32>
  %y = nova.constant dense<[-100, 0, 1]> : tensor<3xi64>
  %l = nova.cross_entropy %z, %y ignore_index 5 : tensor<3x3xf32>, tensor<3xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// The mean over the one counted row: its own loss, the same as a
// one-row cross_entropy of that row.
// IGNORED: result0
// IGNORED-SAME: [[LOSS:[0-9.e+-]+]]
// IGNORED: result1
// IGNORED-SAME: [[LOSS]]
func.func @ignored(%x: tensor<3x3xf32>) -> (tensor<f32>, tensor<f32>) {
  %y = nova.constant dense<[-100, 2, -100]> : tensor<3xi64>
  %l = nova.cross_entropy %x, %y : tensor<3x3xf32>, tensor<3xi64> -> tensor<f32>
  %row = nova.slice %x starts [1, 0] limits [2, 3] strides [1, 1] : tensor<3x3xf32> -> tensor<1x3xf32>
  %two = nova.constant dense<[2]> : tensor<1xi64>
  %m = nova.cross_entropy %row, %two : tensor<1x3xf32>, tensor<1xi64> -> tensor<f32>
  return %l, %m : tensor<f32>, tensor<f32>
}

func.func @random_labels(%x: tensor<6x3xf32>, %y: tensor<6xi64>) -> tensor<f32> {
  %l = nova.cross_entropy %x, %y : tensor<6x3xf32>, tensor<6xi64> -> tensor<f32>
  return %l : tensor<f32>
}
