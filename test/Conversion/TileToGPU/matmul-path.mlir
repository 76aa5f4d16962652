// convert-tile-to-gpu records on each matmul kernel the path its GEMMs take
// (nova_gpu.matmul_path): "wgmma", or "mma.sync: " and why the wgmma path
// does not take it, so tests and users can count the kernels on each path.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s --implicit-check-not=nova_gpu.matmul_path
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false | FileCheck %s --check-prefix=OFF --implicit-check-not=nova_gpu.matmul_path

// CHECK: gpu.func @{{.*}}(
// CHECK-SAME: nova_gpu.matmul_path = "wgmma"
// CHECK: gpu.func @{{.*}}(
// CHECK-SAME: nova_gpu.matmul_path = "mma.sync: a prologue on an operand"
// CHECK: gpu.func @{{.*}}(
// CHECK-SAME: nova_gpu.matmul_path = "mma.sync: not a single GEMM"
// CHECK: gpu.func @{{.*}}(
// CHECK-SAME: nova_gpu.matmul_path = "mma.sync: a product under 64 x 64 or with K = 0"
// OFF-COUNT-4: nova_gpu.matmul_path = "mma.sync: the Hopper GEMM is turned off"

func.func @kmajor(%a: tensor<128x64xbf16>, %b: tensor<128x64xbf16>) -> tensor<128x128xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<128x64xbf16>, tensor<128x64xbf16>) -> tensor<128x128xbf16> {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<128x64xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xbf16>
    nova_tile.yield %p : tensor<128x128xbf16>
  }
  return %r : tensor<128x128xbf16>
}

// The weight's bf16 copy is made on load.
func.func @cast_weight(%a: tensor<128x64xbf16>, %w: tensor<128x64xf32>) -> tensor<128x128xbf16> {
  %r = nova_tile.fusion matmul (%a, %w) : (tensor<128x64xbf16>, tensor<128x64xf32>) -> tensor<128x128xbf16> {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<128x64xf32>):
    %c = nova.cast %y : tensor<128x64xf32> to tensor<128x64xbf16>
    %p = nova.matmul %x, %c transpose_rhs : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xbf16>
    nova_tile.yield %p : tensor<128x128xbf16>
  }
  return %r : tensor<128x128xbf16>
}

// Two K-major GEMMs that read one operand, grouped into one kernel.
func.func @grouped(%a: tensor<128x64xbf16>, %b: tensor<128x64xbf16>, %c: tensor<128x64xbf16>) -> (tensor<128x128xbf16>, tensor<128x128xbf16>) {
  %r:2 = nova_tile.fusion matmul (%a, %b, %c) : (tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>) -> (tensor<128x128xbf16>, tensor<128x128xbf16>) {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<128x64xbf16>, %z: tensor<128x64xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xbf16>
    %q = nova.matmul %x, %z transpose_rhs : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xbf16>
    nova_tile.yield %p, %q : tensor<128x128xbf16>, tensor<128x128xbf16>
  }
  return %r#0, %r#1 : tensor<128x128xbf16>, tensor<128x128xbf16>
}

func.func @narrow(%a: tensor<128x64xbf16>, %b: tensor<32x64xbf16>) -> tensor<128x32xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<128x64xbf16>, tensor<32x64xbf16>) -> tensor<128x32xbf16> {
  ^bb0(%x: tensor<128x64xbf16>, %y: tensor<32x64xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<128x64xbf16>, tensor<32x64xbf16> -> tensor<128x32xbf16>
    nova_tile.yield %p : tensor<128x32xbf16>
  }
  return %r : tensor<128x32xbf16>
}
