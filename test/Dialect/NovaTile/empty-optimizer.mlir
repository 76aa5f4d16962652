// An optimizer group whose parameters are empty is valid (its kernel has no
// elements), as the same adamw is outside a group; it used to be rejected as
// holding no adamw.
// RUN: nova-opt %s | FileCheck %s
// RUN: nova-run %s --random-inputs 1 --print | FileCheck %s --check-prefix=EVAL
// CHECK: nova_tile.fusion optimizer
// EVAL: result0 = tensor<0xf32> []
func.func @o(%p: tensor<0xf32>, %g: tensor<0xf32>, %m: tensor<0xf32>, %v: tensor<0xf32>, %t: tensor<i64>, %lr: tensor<f32>) -> (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>) {
  %y:3 = nova_tile.fusion optimizer (%p, %g, %m, %v, %t, %lr) : (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>, tensor<i64>, tensor<f32>) -> (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>) {
  ^bb0(%pa: tensor<0xf32>, %ga: tensor<0xf32>, %ma: tensor<0xf32>, %va: tensor<0xf32>, %ta: tensor<i64>, %la: tensor<f32>):
    %a:3 = nova.adamw %pa, %ga, %ma, %va, %ta, %la beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<0xf32>, tensor<i64>
    nova_tile.yield %a#0, %a#1, %a#2 : tensor<0xf32>, tensor<0xf32>, tensor<0xf32>
  }
  return %y#0, %y#1, %y#2 : tensor<0xf32>, tensor<0xf32>, tensor<0xf32>
}
