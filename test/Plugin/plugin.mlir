// Debian's upstream mlir-opt (not nova-opt) loads the Nova dialect and its
// passes from nova-plugin and runs a Nova pass on nova IR.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(nova-canonicalize),nova-explicit-broadcast)' \
// RUN:   | FileCheck %s

// Without the plugin, mlir-opt does not know the dialect.
// RUN: not %upstream_mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `nova' not found for custom op 'nova.constant'

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[BB:.*]] = nova.broadcast %[[B]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = nova.add %[[X]], %[[BB]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %one = nova.constant dense<1.0> : tensor<f32>
  %xb = nova.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  %y = nova.mul %xb, %one : tensor<4x8xf32>, tensor<f32>
  return %y : tensor<4x8xf32>
}
