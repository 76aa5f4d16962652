// working-copies=1 on a step that returns a parameter unchanged as its own
// new value: the parameter's bf16 cast is replaced by the carried copy, and
// the copy of the returned (block-argument) value is made at the top of the
// step, not after the erased cast (which used to leave an unlinked operand).
// RUN: nova-opt %s --nova-autocast=working-copies=1 | FileCheck %s
// CHECK-LABEL: func.func @s(
// CHECK-SAME: %arg2: tensor<4x4xbf16> {nova.name = "arg0.bf16"}
// CHECK: nova.matmul %{{.*}}, %arg2 :
// CHECK: return
func.func @s(%p: tensor<4x4xf32> {nova.param}, %x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32> {nova.alias = 0 : i64}) {
  %y = nova.matmul %x, %p : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %y, %p : tensor<4x4xf32>, tensor<4x4xf32>
}
