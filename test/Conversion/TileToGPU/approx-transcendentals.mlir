// Transcendentals whose result is rounded to bf16 use one special-function
// instruction each (ex2.approx with log2 e folded into the argument's scale,
// tanh.approx): their error stays under half a bf16 ulp. f32 results keep
// the accurate math ops (libdevice).
// With fast-f32-math (nova-gpu-pipeline's for compute=tf32) f32 results take
// the same exp and division (a few f32 ulp) but keep the accurate tanh
// (tanh.approx is 2^-11).
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=fast-f32-math=true | FileCheck %s --check-prefix=FAST

// bf16: e^x, tanh x, sigmoid x = 1 / (1 + e^-x), and GELU's e^(-2u) with
// u = sqrt(2/pi) (x + 0.044715 x^3) scaled once.
// CHECK-LABEL: gpu.func @pointwise
// CHECK-NOT:   math.
// CHECK:       [[L2E:%.+]] = arith.constant 1.44269502 : f32
// CHECK-NEXT:  [[A:%.+]] = arith.mulf %{{.*}}, [[L2E]] : f32
// CHECK-NEXT:  llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" [[A]] : (f32) -> f32
// CHECK:       llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %{{.*}} : (f32) -> f32
// CHECK:       [[NEG:%.+]] = arith.negf
// CHECK:       [[B:%.+]] = arith.mulf [[NEG]], %{{.*}} : f32
// CHECK-NEXT:  [[E:%.+]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" [[B]]
// CHECK:       [[D:%.+]] = arith.addf %{{.*}}, [[E]]
// CHECK:       nvvm.rcp.approx.ftz.f [[D]]
// CHECK:       arith.constant 4.471500e-02 : f32
// CHECK:       [[S:%.+]] = arith.constant -2.30220819 : f32
// CHECK-NEXT:  [[G:%.+]] = arith.mulf %{{.*}}, [[S]] : f32
// CHECK-NEXT:  llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" [[G]]
// CHECK-NOT:   math.
// CHECK:       gpu.return
func.func @narrow(%x: tensor<64x32xbf16>)
    -> (tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>) {
  %r:4 = nova_tile.fusion pointwise (%x) : (tensor<64x32xbf16>)
      -> (tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>) {
  ^bb0(%a: tensor<64x32xbf16>):
    %e = nova.exp %a : tensor<64x32xbf16>
    %t = nova.tanh %a : tensor<64x32xbf16>
    %s = nova.sigmoid %a : tensor<64x32xbf16>
    %g = nova.gelu tanh %a : tensor<64x32xbf16>
    nova_tile.yield %e, %t, %s, %g : tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>
}

// f32: the accurate forms, GELU's scales in their own order.
// CHECK-LABEL: gpu.func @pointwise
// CHECK-NOT:   llvm.inline_asm
// CHECK:       math.exp
// CHECK:       math.tanh
// CHECK:       math.exp
// CHECK:       arith.constant 0.797884583 : f32
// CHECK:       arith.constant -2.000000e+00 : f32
// CHECK:       math.exp
// CHECK-NOT:   llvm.inline_asm
// CHECK:       gpu.return
// FAST-LABEL: gpu.func @pointwise
// FAST:        tanh.approx.f32
// FAST-LABEL:  gpu.func @pointwise
// FAST-NOT:    math.exp
// FAST-NOT:    tanh.approx
// FAST:        [[L2E:%.+]] = arith.constant 1.44269502 : f32
// FAST-NEXT:   [[A:%.+]] = arith.mulf %{{.*}}, [[L2E]] : f32
// FAST-NEXT:   llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" [[A]] : (f32) -> f32
// FAST-NEXT:   math.tanh
// FAST:        [[E:%.+]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// FAST:        [[D:%.+]] = arith.addf %{{.*}}, [[E]]
// FAST:        nvvm.rcp.approx.ftz.f [[D]]
// FAST:        arith.constant 0.797884583 : f32
// FAST:        [[S:%.+]] = arith.constant -2.885390e+00 : f32
// FAST-NEXT:   [[G:%.+]] = arith.mulf %{{.*}}, [[S]] : f32
// FAST-NEXT:   llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f" [[G]]
// FAST:        nvvm.rcp.approx.ftz.f
// FAST-NOT:    math.exp
// FAST-NOT:    tanh.approx
// FAST-NOT:    arith.divf
// FAST:        gpu.return
func.func @wide(%x: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %r:4 = nova_tile.fusion pointwise (%x) : (tensor<64x32xf32>)
      -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  ^bb0(%a: tensor<64x32xf32>):
    %e = nova.exp %a : tensor<64x32xf32>
    %t = nova.tanh %a : tensor<64x32xf32>
    %s = nova.sigmoid %a : tensor<64x32xf32>
    %g = nova.gelu tanh %a : tensor<64x32xf32>
    nova_tile.yield %e, %t, %s, %g : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}
