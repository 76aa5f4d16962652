// convert-nova-to-tile: every nova op outside a kernel becomes a kernel of
// one op of its family, each passing its family's contract (the verifier
// runs after the pass); reshapes and non-splat constants stay outside, splat
// constants move into the kernels that read them. The function computes the
// same outputs before and after on random inputs.
// RUN: nova-opt %s --convert-nova-to-tile -o %t.tile.mlir
// RUN: FileCheck %s < %t.tile.mlir
// RUN: nova-run %s --entry all --random-inputs 7 --save-inputs %t.in -o %t.out
// RUN: nova-run %t.tile.mlir --entry all --inputs %t.in --compare %t.out --rtol 1e-6 --atol 0

// CHECK-LABEL: func.func @all
// CHECK: %[[TABLE:.*]] = nova.constant dense<[
// CHECK: nova_tile.fusion matmul
// CHECK: nova_tile.fusion attention_forward
// CHECK: nova_tile.fusion attention_backward
// The reduce over the innermost dim and over the outer ones.
// CHECK: nova_tile.fusion row_reduction
// CHECK: nova_tile.fusion column_reduction
// Over trailing dims [1, 2]: reshaped to 4x40, a row reduction, reshaped back.
// CHECK: %[[M1:.*]] = nova.reshape %{{.*}} : tensor<4x5x8xf32> -> tensor<4x40xf32>
// CHECK: %[[R1:.*]] = nova_tile.fusion row_reduction(%[[M1]])
// CHECK: nova.reshape %[[R1]] : tensor<4xf32> -> tensor<4x1x1xf32>
// Every dim: a row reduction of the flattened tensor.
// CHECK: %[[M2:.*]] = nova.reshape %{{.*}} : tensor<4x5x8xf32> -> tensor<160xf32>
// CHECK: nova_tile.fusion row_reduction(%[[M2]])
// Over leading dim [0] of a rank-3 tensor: 4 x 40, a column reduction.
// CHECK: %[[M3:.*]] = nova.reshape %{{.*}} : tensor<4x5x8xf32> -> tensor<4x40xf32>
// CHECK: %[[R3:.*]] = nova_tile.fusion column_reduction(%[[M3]])
// CHECK: nova.reshape %[[R3]] : tensor<40xf32> -> tensor<5x8xf32>
// CHECK: nova_tile.fusion row_reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.softmax
// CHECK: nova_tile.fusion row_reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.layer_norm
// CHECK: nova_tile.fusion row_reduction
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.cross_entropy
// CHECK: nova_tile.fusion gather(%[[TABLE]],
// CHECK: nova_tile.fusion scatter_add
// CHECK: nova_tile.fusion optimizer
// CHECK: nova_tile.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.exp
// Views that move data are copy kernels.
// CHECK: nova_tile.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.transpose
// CHECK: nova_tile.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.slice
// CHECK: nova_tile.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.broadcast
// A concat with a splat constant: the constant moves into the kernel.
// CHECK: nova_tile.fusion pointwise(%{{[^,]*}}) :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: nova.concat
// CHECK: nova_tile.fusion pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.check_labels
// CHECK: %[[FLAT:.*]] = nova.reshape
// A returned splat constant is written by a kernel of its own.
// CHECK: %[[ONES:.*]] = nova_tile.fusion pointwise() : () -> tensor<2xf32>
// CHECK-NEXT: nova.constant dense<1.000000e+00> : tensor<2xf32>
// Over the middle dim: a copy kernel moves it innermost, then a row
// reduction.
// CHECK: %[[T:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<4x5x8xf32>) -> tensor<4x8x5xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.transpose %{{.*}} [0, 2, 1]
// CHECK: %[[R4:.*]] = nova_tile.fusion row_reduction(%[[T]])
// CHECK: nova.reshape %[[R4]] : tensor<4x8xf32> -> tensor<4x1x8xf32>
// A softmax along dim 0: copy kernels swap it with the innermost around a
// row reduction.
// CHECK: %[[S1:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK: %[[S2:.*]] = nova_tile.fusion row_reduction(%[[S1]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.softmax %{{.*}} dim 1 : tensor<8x4xf32>
// CHECK: nova_tile.fusion pointwise(%[[S2]]) : (tensor<8x4xf32>) -> tensor<4x8xf32>
// A splat constant a matmul or a view reads stays an input, written by a
// kernel of its own.
// CHECK: %[[HALF:.*]] = nova_tile.fusion pointwise() : () -> tensor<8x6xf32>
// CHECK-NEXT: nova.constant dense<5.000000e-01> : tensor<8x6xf32>
// CHECK: nova_tile.fusion matmul(%{{.*}}, %[[HALF]])
// CHECK: nova_tile.fusion pointwise(%[[HALF]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.transpose
// CHECK: return
func.func @all(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>,
               %q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>,
               %do: tensor<2x4x8xf32>, %x3: tensor<4x5x8xf32>,
               %g: tensor<8xf32>, %bias: tensor<8xf32>, %labels: tensor<4xi32>,
               %ids: tensor<4xi32>, %p: tensor<8xf32>, %m: tensor<8xf32>,
               %vv: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f32>)
    -> (tensor<4x6xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>,
        tensor<8xf32>, tensor<4x1x1xf32>, tensor<f32>, tensor<5x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<4x8xf32>,
        tensor<3x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>,
        tensor<2x8xf32>, tensor<3x4x8xf32>, tensor<4x11xf32>, tensor<4xi32>,
        tensor<32xf32>, tensor<2xf32>, tensor<4x1x8xf32>, tensor<4x8xf32>,
        tensor<4x6xf32>, tensor<6x8xf32>) {
  %table = nova.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
      [0.5, 0.25, 0.0, -1.0, 2.0, 3.0, -2.0, 1.0],
      [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0]]> : tensor<3x8xf32>
  %mm = nova.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>, tensor<2x4xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %do scale 0.35 causal : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4x8xf32>
  %row = nova.reduce sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %col = nova.reduce max %a dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  %trail = nova.reduce sum %x3 dims [1, 2] keep_dims : tensor<4x5x8xf32> -> tensor<4x1x1xf32>
  %full = nova.reduce sum %x3 dims [0, 1, 2] : tensor<4x5x8xf32> -> tensor<f32>
  %lead = nova.reduce min %x3 dims [0] : tensor<4x5x8xf32> -> tensor<5x8xf32>
  %sm = nova.softmax %a dim 1 : tensor<4x8xf32>
  %ln = nova.layer_norm %a, %g, %bias eps 1.0e-05 : tensor<4x8xf32>, tensor<8xf32>
  %ce = nova.cross_entropy %a, %labels : tensor<4x8xf32>, tensor<4xi32> -> tensor<f32>
  %rows = nova.gather %table[%ids] axis 0 : tensor<3x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  %acc = nova.scatter_add %a[%ids] axis 0 : tensor<4x8xf32>, tensor<4xi32> -> tensor<3x8xf32>
  %np, %nm, %nv = nova.adamw %p, %g, %m, %vv, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-08 weight_decay 0.01 : tensor<8xf32>, tensor<i64>
  %e = nova.exp %a : tensor<4x8xf32>
  %tr = nova.transpose %a [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %sl = nova.slice %a starts [1, 0] limits [3, 8] strides [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  %bc = nova.broadcast %a : tensor<4x8xf32> -> tensor<3x4x8xf32>
  %pad = nova.constant dense<0.0> : tensor<4x3xf32>
  %cat = nova.concat %pad, %a dim 1 : tensor<4x3xf32>, tensor<4x8xf32> -> tensor<4x11xf32>
  %ok = nova.check_labels %labels classes 8 ignore_index -100 : tensor<4xi32>
  %flat = nova.reshape %e : tensor<4x8xf32> -> tensor<32xf32>
  %ones = nova.constant dense<1.0> : tensor<2xf32>
  %mid = nova.reduce max %x3 dims [1] keep_dims : tensor<4x5x8xf32> -> tensor<4x1x8xf32>
  %smc = nova.softmax %a dim 0 : tensor<4x8xf32>
  %half = nova.constant dense<0.5> : tensor<8x6xf32>
  %mmc = nova.matmul %a, %half : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %trc = nova.transpose %half [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  return %mm, %o, %dq, %row, %col, %trail, %full, %lead, %sm, %ln, %ce, %rows,
         %acc, %np, %e, %tr, %sl, %bc, %cat, %ok, %flat, %ones, %mid, %smc, %mmc, %trc
    : tensor<4x6xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>,
      tensor<8xf32>, tensor<4x1x1xf32>, tensor<f32>, tensor<5x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>, tensor<f32>, tensor<4x8xf32>,
      tensor<3x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<8x4xf32>,
      tensor<2x8xf32>, tensor<3x4x8xf32>, tensor<4x11xf32>, tensor<4xi32>,
      tensor<32xf32>, tensor<2xf32>, tensor<4x1x8xf32>, tensor<4x8xf32>,
      tensor<4x6xf32>, tensor<6x8xf32>
}
