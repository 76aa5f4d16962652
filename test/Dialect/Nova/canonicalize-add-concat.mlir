// RUN: nova-opt %s --canonicalize | FileCheck %s
// Sums of concatenations become concatenations of sums, so the gradient of a
// tensor read through several slices (zero-padded pieces, the zeros being
// -0.0, the identity of addition) is one concatenation.
// RUN: nova-run %s --entry gradient_of_three_slices --random-inputs 3 --save-inputs %t.in -o %t.out
// RUN: nova-opt %s --canonicalize -o %t.canon.mlir
// RUN: nova-run %t.canon.mlir --entry gradient_of_three_slices --inputs %t.in --compare %t.out --rtol 0 --atol 0 \
// RUN:   | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// CHECK-LABEL: func.func @gradient_of_three_slices
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x3xf32>, %[[C:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = nova.concat %[[A]], %[[B]], %[[C]] dim 1
// CHECK-NEXT: return %[[R]]
func.func @gradient_of_three_slices(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %z3 = nova.constant dense<-0.0> : tensor<2x3xf32>
  %z6 = nova.constant dense<-0.0> : tensor<2x6xf32>
  %pa = nova.concat %a, %z6 dim 1 : tensor<2x3xf32>, tensor<2x6xf32> -> tensor<2x9xf32>
  %pb = nova.concat %z3, %b, %z3 dim 1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x9xf32>
  %pc = nova.concat %z6, %c dim 1 : tensor<2x6xf32>, tensor<2x3xf32> -> tensor<2x9xf32>
  %s = nova.add %pa, %pb : tensor<2x9xf32>, tensor<2x9xf32>
  %t = nova.add %s, %pc : tensor<2x9xf32>, tensor<2x9xf32>
  return %t : tensor<2x9xf32>
}

// Pieces that match: one add per segment.
// CHECK-LABEL: func.func @same_split
// CHECK: %[[X:.*]] = nova.add %arg0, %arg2 : tensor<4x2xf32>, tensor<4x2xf32>
// CHECK: %[[Y:.*]] = nova.add %arg1, %arg3 : tensor<4x3xf32>, tensor<4x3xf32>
// CHECK: nova.concat %[[X]], %[[Y]] dim 1
func.func @same_split(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4x2xf32>, %d: tensor<4x3xf32>) -> tensor<4x5xf32> {
  %l = nova.concat %a, %b dim 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %r = nova.concat %c, %d dim 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %s = nova.add %l, %r : tensor<4x5xf32>, tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}

// A piece that is not a constant would have to be cut: left alone.
// CHECK-LABEL: func.func @unaligned
// CHECK: nova.add %{{.*}}, %{{.*}} : tensor<5xf32>, tensor<5xf32>
func.func @unaligned(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>, %d: tensor<2xf32>) -> tensor<5xf32> {
  %l = nova.concat %a, %b dim 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %r = nova.concat %c, %d dim 0 : tensor<3xf32>, tensor<2xf32> -> tensor<5xf32>
  %s = nova.add %l, %r : tensor<5xf32>, tensor<5xf32>
  return %s : tensor<5xf32>
}

// Concatenations along different dims, or a broadcast operand: left alone.
// CHECK-LABEL: func.func @other_dims
// CHECK: nova.add %{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xf32>
func.func @other_dims(%a: tensor<1x2xf32>, %b: tensor<2x1xf32>) -> tensor<2x2xf32> {
  %l = nova.concat %a, %a dim 0 : tensor<1x2xf32>, tensor<1x2xf32> -> tensor<2x2xf32>
  %r = nova.concat %b, %b dim 1 : tensor<2x1xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
  %s = nova.add %l, %r : tensor<2x2xf32>, tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
