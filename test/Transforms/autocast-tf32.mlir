// compute=tf32 keeps f32 types and marks every matmul and attention
// (attention, attention_fwd, attention_bwd) with nova.precision = "tf32";
// the interpreter then rounds the operands of their products to
// TF32's 10-bit mantissa (nearest, ties to even), which these values show:
// 1 + 2^-11 ties down to 1, 1 + 3 * 2^-11 ties up to 1 + 2^-9 = 1.001953125,
// 1 + 2^-12 rounds down to 1. In f32 all three survive.
// RUN: nova-opt %s --nova-autocast=compute=tf32 -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR --implicit-check-not=bf16 < %t.mlir
// RUN: nova-run %t.mlir --entry product --print | FileCheck %s --check-prefix=TF32
// RUN: nova-run %t.mlir --entry attention --print | FileCheck %s --check-prefix=TF32-ATT
// RUN: nova-run %t.mlir --entry attention_pair --print | FileCheck %s --check-prefix=TF32-PAIR
// RUN: nova-run %s --entry attention_pair --print | FileCheck %s --check-prefix=F32-PAIR
// RUN: nova-run %s --entry product --print | FileCheck %s --check-prefix=F32
// RUN: nova-opt %t.mlir --nova-autocast=compute=tf32 | diff - %t.mlir
// An unknown precision is a verifier error at the op.
// RUN: sed 's/"tf32"/"fp8"/' %t.mlir > %t.bad.mlir
// RUN: not nova-run %t.bad.mlir --entry product 2>&1 | FileCheck %s --check-prefix=BAD

// IR: nova.matmul %{{.*}}, %{{.*}} {nova.precision = "tf32"} : tensor<3x1xf32>, tensor<1x1xf32> -> tensor<3x1xf32>
// IR: nova.attention {{.*}} causal {nova.precision = "tf32"} : tensor<1x1x1xf32>
// IR: nova.attention_fwd {{.*}} causal {nova.precision = "tf32"} : tensor<1x1x1xf32>
// IR: nova.attention_bwd {{.*}} causal {nova.precision = "tf32"} : tensor<1x1x1xf32>
// TF32: result0 = tensor<3x1xf32> [1, 1.00195, 1]
// TF32-ATT: result0 = tensor<1x1x1xf32> [1.00195]
// F32: result0 = tensor<3x1xf32> [1.00049, 1.00146, 1.00024]
// With one key the output is v and v's gradient is the output gradient
// (1 + 2^-12), each as the products read it.
// TF32-PAIR: result0 = tensor<1x1x1xf32> [1.00195]
// TF32-PAIR: result1 = tensor<1x1x1xf32> [1]{{$}}
// F32-PAIR: result0 = tensor<1x1x1xf32> [1.00146]
// F32-PAIR: result1 = tensor<1x1x1xf32> [1.00024]
// BAD: autocast-tf32.mlir.tmp.bad.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'nova.precision' must be "tf32", got "fp8"

func.func @product() -> tensor<3x1xf32> {
  %x = nova.constant dense<[[1.00048828125], [1.00146484375], [1.000244140625]]> : tensor<3x1xf32>
  %one = nova.constant dense<1.0> : tensor<1x1xf32>
  %y = nova.matmul %x, %one : tensor<3x1xf32>, tensor<1x1xf32> -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}

func.func @attention() -> tensor<1x1x1xf32> {
  %q = nova.constant dense<0.5> : tensor<1x1x1xf32>
  %v = nova.constant dense<1.00146484375> : tensor<1x1x1xf32>
  %o = nova.attention %q, %q, %v scale 1.0 causal : tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<1x1x1xf32>
  return %o : tensor<1x1x1xf32>
}

func.func @attention_pair() -> (tensor<1x1x1xf32>, tensor<1x1x1xf32>) {
  %q = nova.constant dense<0.5> : tensor<1x1x1xf32>
  %v = nova.constant dense<1.00146484375> : tensor<1x1x1xf32>
  %g = nova.constant dense<1.000244140625> : tensor<1x1x1xf32>
  %o, %lse = nova.attention_fwd %q, %q, %v scale 1.0 causal : tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<1x1x1xf32>, tensor<1x1xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %q, %v, %o, %lse, %g scale 1.0 causal : tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<1x1x1xf32>
  return %o, %dv : tensor<1x1x1xf32>, tensor<1x1x1xf32>
}
