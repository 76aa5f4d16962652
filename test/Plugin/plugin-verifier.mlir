// Nova's verifiers run inside upstream mlir-opt too.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-plugin%shlibext -verify-diagnostics

func.func @bad(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 8 but rhs has K = 6}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<6x4xf32> -> tensor<4x4xf32>
  return
}
