// nova-canonicalize folds nova ops only: foldable arith ops stay as written.
// RUN: nova-opt %s --nova-canonicalize | FileCheck %s
// RUN: nova-opt %s --pass-pipeline='builtin.module(func.func(nova-canonicalize{max-iterations=3}))' | FileCheck %s
// RUN: not nova-opt %s --nova-canonicalize=max-iterations=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: nova-canonicalize: max-iterations must be at least 1, got 0

// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: i32)
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[I]], %[[Z]] : i32
// CHECK-NEXT: return %[[X]], %[[S]]
func.func @mixed(%x: tensor<4xf32>, %i: i32) -> (tensor<4xf32>, i32) {
  %z = nova.constant dense<-0.0> : tensor<4xf32>
  %y = nova.add %x, %z : tensor<4xf32>, tensor<4xf32>
  %c0 = arith.constant 0 : i32
  %s = arith.addi %i, %c0 : i32
  return %y, %s : tensor<4xf32>, i32
}
