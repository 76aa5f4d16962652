// The README's examples, run on the file the README names. Every op of the
// output is matched; anything else (the `* 1.0` nova-canonicalize removes,
// its constant, an implicit broadcast left in place) fails the test.
// RUN: nova-opt %nova_src/examples/mlp/mlp-loss.mlir --nova-canonicalize --nova-explicit-broadcast \
// RUN:   | FileCheck %s --implicit-check-not=nova.
// RUN: %upstream_mlir_opt %nova_src/examples/mlp/mlp-loss.mlir \
// RUN:   --load-dialect-plugin=%nova_libs/nova-plugin.so --load-pass-plugin=%nova_libs/nova-plugin.so \
// RUN:   --pass-pipeline='builtin.module(nova-canonicalize,nova-explicit-broadcast)' \
// RUN:   | FileCheck %s --implicit-check-not=nova.

// CHECK-LABEL: func.func @loss
// CHECK-NEXT: %[[H:.*]] = nova.matmul %arg0, %arg2 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[B1:.*]] = nova.broadcast %arg3 : tensor<32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[HB:.*]] = nova.add %[[H]], %[[B1]] : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK-NEXT: %[[A:.*]] = nova.gelu tanh %[[HB]] : tensor<8x32xf32>
// CHECK-NEXT: %[[O:.*]] = nova.matmul %[[A]], %arg4 : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
// CHECK-NEXT: %[[B2:.*]] = nova.broadcast %arg5 : tensor<10xf32> -> tensor<8x10xf32>
// CHECK-NEXT: %[[OB:.*]] = nova.add %[[O]], %[[B2]] : tensor<8x10xf32>, tensor<8x10xf32>
// CHECK-NEXT: %[[L:.*]] = nova.cross_entropy %[[OB]], %arg1 : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
// CHECK-NEXT: return %[[L]] : tensor<f32>
