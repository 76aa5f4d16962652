// The wgmma GEMM's epilogue with a costly body and several bf16 outputs
// (the GPT-2 MLP's fc GEMM: bias, the pre-activation kept, GELU).
// - Every bf16 output of the product's shape is staged in shared memory and
//   leaves by TMA stores, one output after the other through the same
//   staging block (each waits until the previous one's stores have read it).
// - Elements are guarded (row < M, column < N) only where the tiles overhang
//   the output: with M and N multiples of the tile the elements' code sits in
//   one block that ptxas can interleave.
// - A division whose result is rounded to bf16 multiplies by the approximate
//   reciprocal: no IEEE slow-path branch per element; its exponential is one
//   ex2.approx.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @matmul
// CHECK-SAME:  %arg7: !llvm.ptr {nova_gpu.tma = {{{.*}}buffer = 3
// CHECK-SAME:  %arg8: !llvm.ptr {nova_gpu.tma = {{{.*}}buffer = 4
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:       nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT:   scf.if
// CHECK:       llvm.store {{.*}} vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT:   scf.if
// CHECK:       nvvm.fence.proxy
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %arg7
// CHECK:       nvvm.cp.async.bulk.commit.group
// CHECK:       nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT:   scf.if
// CHECK:       [[E:%.+]] = llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// CHECK-NEXT:  arith.constant 1.0
// CHECK-NEXT:  [[D:%.+]] = arith.addf %{{.*}}, [[E]]
// CHECK-NEXT:  nvvm.rcp.approx.ftz.f [[D]]
// CHECK-NOT:   scf.if
// CHECK:       nvvm.fence.proxy
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %arg8
// CHECK:       gpu.return
func.func @exact(%x: tensor<4x256x768xbf16>, %w: tensor<768x1024xbf16>, %bias: tensor<1024xbf16>)
    -> (tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x256x768xbf16>, tensor<768x1024xbf16>, tensor<1024xbf16>)
      -> (tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>) {
  ^bb0(%xa: tensor<4x256x768xbf16>, %wa: tensor<768x1024xbf16>, %ba: tensor<1024xbf16>):
    %p = nova.matmul %xa, %wa : tensor<4x256x768xbf16>, tensor<768x1024xbf16> -> tensor<4x256x1024xbf16>
    %h = nova.add %p, %ba : tensor<4x256x1024xbf16>, tensor<1024xbf16>
    %g = nova.gelu tanh %h : tensor<4x256x1024xbf16>
    nova_tile.yield %h, %g : tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>
  }
  return %r#0, %r#1 : tensor<4x256x1024xbf16>, tensor<4x256x1024xbf16>
}

// N = 1000 overhangs the last column tile: every element is guarded, and
// the rows of 1000 bf16 are 16-byte multiples, so both outputs are staged.
// CHECK-LABEL: gpu.func @matmul
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:       scf.if
// CHECK:       llvm.store {{.*}} vector<2xbf16>, !llvm.ptr<3>
// CHECK:       scf.if
// CHECK:       llvm.store {{.*}} vector<2xbf16>, !llvm.ptr<3>
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %arg7
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %arg8
// CHECK:       gpu.return
func.func @ragged(%x: tensor<4x256x768xbf16>, %w: tensor<768x1000xbf16>, %bias: tensor<1000xbf16>)
    -> (tensor<4x256x1000xbf16>, tensor<4x256x1000xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x256x768xbf16>, tensor<768x1000xbf16>, tensor<1000xbf16>)
      -> (tensor<4x256x1000xbf16>, tensor<4x256x1000xbf16>) {
  ^bb0(%xa: tensor<4x256x768xbf16>, %wa: tensor<768x1000xbf16>, %ba: tensor<1000xbf16>):
    %p = nova.matmul %xa, %wa : tensor<4x256x768xbf16>, tensor<768x1000xbf16> -> tensor<4x256x1000xbf16>
    %h = nova.add %p, %ba : tensor<4x256x1000xbf16>, tensor<1000xbf16>
    %g = nova.gelu tanh %h : tensor<4x256x1000xbf16>
    nova_tile.yield %h, %g : tensor<4x256x1000xbf16>, tensor<4x256x1000xbf16>
  }
  return %r#0, %r#1 : tensor<4x256x1000xbf16>, tensor<4x256x1000xbf16>
}

// N = 301: rows of 602 bytes cannot be TMA-stored. Each element is staged
// alone (N odd: no pairs), then the consumer's threads copy the block out a
// row at a time, thread t on columns t and t + 128 of the 256.
// CHECK-LABEL: gpu.func @matmul
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:       scf.if
// CHECK:       llvm.store {{.*}} : bf16, !llvm.ptr<3>
// CHECK:       scf.for {{.*}} = %c0 to %c64 step %c1
// CHECK:       scf.if
// CHECK:       llvm.load {{.*}} : !llvm.ptr<3> -> bf16
// CHECK:       memref.store {{.*}} : memref<2x100x301xbf16>
// CHECK:       scf.if
// CHECK:       llvm.load {{.*}} : !llvm.ptr<3> -> bf16
// CHECK:       memref.store {{.*}} : memref<2x100x301xbf16>
// CHECK-NOT:   cp.async.bulk.tensor
// CHECK:       gpu.return
func.func @odd_n(%x: tensor<2x100x64xbf16>, %w: tensor<301x64xbf16>, %bias: tensor<301xbf16>)
    -> tensor<2x100x301xbf16> {
  %r = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<2x100x64xbf16>, tensor<301x64xbf16>, tensor<301xbf16>)
      -> tensor<2x100x301xbf16> {
  ^bb0(%xa: tensor<2x100x64xbf16>, %wa: tensor<301x64xbf16>, %ba: tensor<301xbf16>):
    %p = nova.matmul %xa, %wa transpose_rhs : tensor<2x100x64xbf16>, tensor<301x64xbf16> -> tensor<2x100x301xbf16>
    %h = nova.add %p, %ba : tensor<2x100x301xbf16>, tensor<301xbf16>
    nova_tile.yield %h : tensor<2x100x301xbf16>
  }
  return %r : tensor<2x100x301xbf16>
}
