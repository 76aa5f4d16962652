// The README's examples, run on the file the README names.
// RUN: nova-opt %nova_src/examples/mlp/mlp-loss.mlir --nova-canonicalize --nova-explicit-broadcast | FileCheck %s
// RUN: %upstream_mlir_opt %nova_src/examples/mlp/mlp-loss.mlir \
// RUN:   --load-dialect-plugin=%nova_libs/nova-plugin.so --load-pass-plugin=%nova_libs/nova-plugin.so \
// RUN:   --pass-pipeline='builtin.module(nova-canonicalize,nova-explicit-broadcast)' | FileCheck %s

// CHECK-LABEL: func.func @loss
// CHECK-NOT: nova.mul
// CHECK: %[[H:.*]] = nova.matmul %arg0, %arg2 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
// CHECK: %[[B1:.*]] = nova.broadcast %arg3 : tensor<32xf32> -> tensor<8x32xf32>
// CHECK: %[[HB:.*]] = nova.add %[[H]], %[[B1]] : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK: %[[A:.*]] = nova.gelu tanh %[[HB]] : tensor<8x32xf32>
// CHECK: nova.matmul %[[A]], %arg4
// CHECK: nova.broadcast %arg5 : tensor<10xf32> -> tensor<8x10xf32>
// CHECK: nova.cross_entropy
