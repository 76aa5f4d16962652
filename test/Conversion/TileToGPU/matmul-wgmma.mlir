// convert-tile-to-gpu takes the wgmma path for a single GEMM whose operands
// TMA loads K-major (y = x W^T, rows in 16-byte multiples, batch folded
// into the rows) and keeps mma.sync otherwise: the rhs stored K x N, rows
// of 258 bytes, a prologue cast, N under 64, or wgmma=false.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false | FileCheck %s --check-prefix=OFF --implicit-check-not=wgmma --implicit-check-not=nova_gpu.tma

// The [2, 100] batch of x folds into 200 rows; one 128 x 128 tile of
// columns (N = 120), 2 x 2 blocks of a producer and two consumers; the
// dynamic buffer holds 7 stages of 32 KB and 14 mbarriers.
// CHECK-LABEL: gpu.module
// CHECK: llvm.mlir.global external @nova_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @{{.*}}(%arg0: memref<2x100x64xbf16>, %arg1: memref<120x64xbf16>, %arg2: memref<2x100x120xf32>,
// CHECK-SAME: %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128>, buffer = 0 : i32, dims = array<i64: 64, 200>, offset = 0 : i64, strides = array<i64: 128>, swizzle = 128 : i32}},
// CHECK-SAME: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128>, buffer = 1 : i32, dims = array<i64: 64, 120>, offset = 0 : i64, strides = array<i64: 128>, swizzle = 128 : i32}})
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, nova_gpu.dynamic_shared_bytes = 229488 : i64, nova_gpu.matmul_path = "wgmma", nova_gpu.tma_params = array<i32: 3, 4>
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// OFF-COUNT-5: nvvm.mma.sync
func.func @kmajor(%a: tensor<2x100x64xbf16>, %b: tensor<120x64xbf16>) -> tensor<2x100x120xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<2x100x64xbf16>, tensor<120x64xbf16>) -> tensor<2x100x120xf32> {
  ^bb0(%x: tensor<2x100x64xbf16>, %y: tensor<120x64xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<2x100x64xbf16>, tensor<120x64xbf16> -> tensor<2x100x120xbf16>
    %o = nova.cast %p : tensor<2x100x120xbf16> to tensor<2x100x120xf32>
    nova_tile.yield %o : tensor<2x100x120xf32>
  }
  return %r : tensor<2x100x120xf32>
}

func.func @nmajor(%a: tensor<100x64xbf16>, %b: tensor<64x120xbf16>) -> tensor<100x120xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xbf16>, tensor<64x120xbf16>) -> tensor<100x120xbf16> {
  ^bb0(%x: tensor<100x64xbf16>, %y: tensor<64x120xbf16>):
    %p = nova.matmul %x, %y : tensor<100x64xbf16>, tensor<64x120xbf16> -> tensor<100x120xbf16>
    nova_tile.yield %p : tensor<100x120xbf16>
  }
  return %r : tensor<100x120xbf16>
}

func.func @unaligned(%a: tensor<100x129xbf16>, %b: tensor<120x129xbf16>) -> tensor<100x120xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x129xbf16>, tensor<120x129xbf16>) -> tensor<100x120xbf16> {
  ^bb0(%x: tensor<100x129xbf16>, %y: tensor<120x129xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<100x129xbf16>, tensor<120x129xbf16> -> tensor<100x120xbf16>
    nova_tile.yield %p : tensor<100x120xbf16>
  }
  return %r : tensor<100x120xbf16>
}

func.func @cast(%a: tensor<100x64xbf16>, %b: tensor<120x64xf32>) -> tensor<100x120xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xbf16>, tensor<120x64xf32>) -> tensor<100x120xbf16> {
  ^bb0(%x: tensor<100x64xbf16>, %y: tensor<120x64xf32>):
    %c = nova.cast %y : tensor<120x64xf32> to tensor<120x64xbf16>
    %p = nova.matmul %x, %c transpose_rhs : tensor<100x64xbf16>, tensor<120x64xbf16> -> tensor<100x120xbf16>
    nova_tile.yield %p : tensor<100x120xbf16>
  }
  return %r : tensor<100x120xbf16>
}

func.func @narrow(%a: tensor<100x64xbf16>, %b: tensor<32x64xbf16>) -> tensor<100x32xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xbf16>, tensor<32x64xbf16>) -> tensor<100x32xbf16> {
  ^bb0(%x: tensor<100x64xbf16>, %y: tensor<32x64xbf16>):
    %p = nova.matmul %x, %y transpose_rhs : tensor<100x64xbf16>, tensor<32x64xbf16> -> tensor<100x32xbf16>
    nova_tile.yield %p : tensor<100x32xbf16>
  }
  return %r : tensor<100x32xbf16>
}
