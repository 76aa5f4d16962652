// convert-tile-to-gpu on matmul kernels: tensor cores with f32 accumulators.
// bf16 operands run nvvm.mma.sync m16n8k16, f32 ones m16n8k8 in TF32 (the
// operands rounded to TF32 while staged). Both operands are staged K-major
// in padded shared-memory tiles (16-byte global loads where the layout
// keeps every access aligned), with the product's value at each
// accumulator element fed to the epilogue (here bias + GELU, two outputs).
// A grouped GEMM (bias gradient, dX and dW) is one launch: its blocks are the
// column sum's (32 columns each), then each matmul's tiles.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @matmul_
// CHECK-SAME: (%{{.*}}: memref<4x50x96xbf16>, %{{.*}}: memref<96x200xf32>, %{{.*}}: memref<200xf32>, %[[H:.*]]: memref<4x50x200xbf16>, %[[G:.*]]: memref<4x50x200xbf16>)
// CHECK-SAME: workgroup(%[[A:.*]] : memref<{{64|128}}x40xbf16, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<{{64|128}}x40xbf16, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} iter_args
// x (K contiguous, 96 a multiple of 8) in 16-byte loads and stores, zero
// past the ragged rows; the f32 weight (N contiguous) 4 floats at a time,
// converted to bf16 and spread over a K column of its K-major tile.
// CHECK: %[[XV:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<19200xbf16>, vector<8xbf16>
// CHECK: %[[XS:.*]] = arith.select %{{.*}}, %[[XV]], %{{.*}} : vector<8xbf16>
// CHECK: vector.store %[[XS]], %[[A]][{{.*}}] {alignment = 16 : i64}
// CHECK: %[[WV:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<19200xf32>, vector<4xf32>
// CHECK: arith.truncf %[[WV]] : vector<4xf32> to vector<4xbf16>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[B]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[A]]{{.*}} : memref<{{.*}}x40xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: gpu.barrier
// CHECK: scf.yield
// Epilogue: guarded by the ragged edges, both outputs from one accumulator.
// CHECK: scf.if
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.store %{{.*}}, %[[H]]
// CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;"
// CHECK: memref.store %{{.*}}, %[[G]]
func.func @linear_gelu(%x: tensor<4x50x96xbf16>, %w: tensor<96x200xf32>, %bias: tensor<200xf32>)
    -> (tensor<4x50x200xbf16>, tensor<4x50x200xbf16>) {
  %r:2 = nova_tile.fusion matmul (%x, %w, %bias) : (tensor<4x50x96xbf16>, tensor<96x200xf32>, tensor<200xf32>)
      -> (tensor<4x50x200xbf16>, tensor<4x50x200xbf16>) {
  ^bb0(%xa: tensor<4x50x96xbf16>, %wa: tensor<96x200xf32>, %ba: tensor<200xf32>):
    %wb = nova.cast %wa : tensor<96x200xf32> to tensor<96x200xbf16>
    %p = nova.matmul %xa, %wb : tensor<4x50x96xbf16>, tensor<96x200xbf16> -> tensor<4x50x200xbf16>
    %bb = nova.cast %ba : tensor<200xf32> to tensor<200xbf16>
    %h = nova.add %p, %bb : tensor<4x50x200xbf16>, tensor<200xbf16>
    %g = nova.gelu tanh %h : tensor<4x50x200xbf16>
    nova_tile.yield %h, %g : tensor<4x50x200xbf16>, tensor<4x50x200xbf16>
  }
  return %r#0, %r#1 : tensor<4x50x200xbf16>, tensor<4x50x200xbf16>
}

// TF32: the staged f32 operand keeps its 19 high bits, rounded to nearest
// even (+0xfff plus the lowest kept bit, then the 13 low bits cleared).
// CHECK-LABEL: gpu.func @matmul_
// CHECK-SAME: workgroup(%[[TA:.*]] : memref<{{64|128}}x36xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{64|128}}x36xf32, #gpu.address_space<workgroup>>)
// CHECK: arith.constant -8192 : i32
// CHECK: arith.andi
// CHECK: memref.store %{{.*}}, %[[TA]]
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
func.func @tf32(%a: tensor<3x1x65x70xf32>, %b: tensor<2x33x65xf32>) -> tensor<3x2x70x33xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<3x1x65x70xf32>, tensor<2x33x65xf32>) -> tensor<3x2x70x33xf32> {
  ^bb0(%x: tensor<3x1x65x70xf32>, %y: tensor<2x33x65xf32>):
    %p = nova.matmul %x, %y transpose_lhs transpose_rhs {nova.precision = "tf32"} : tensor<3x1x65x70xf32>, tensor<2x33x65xf32> -> tensor<3x2x70x33xf32>
    nova_tile.yield %p : tensor<3x2x70x33xf32>
  }
  return %r : tensor<3x2x70x33xf32>
}

// An f32 product without nova.precision = "tf32" keeps f32 accuracy
// (3xTF32): the tile holds the f32 values as loaded; each fragment element
// splits into its TF32-rounded high part and the TF32-rounded remainder,
// and three products accumulate, the small ones first.
// CHECK-LABEL: gpu.func @matmul_
// CHECK-SAME: workgroup(%[[TA:.*]] : memref<{{64|128}}x36xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<{{64|128}}x36xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[V:.*]] = memref.load %[[TA]]
// CHECK: %[[HI:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[LO:.*]] = arith.subf %[[V]], %[[HI]]
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[C0:[^,]*]],
// CHECK-NEXT: %[[P0:.*]] = llvm.extractvalue
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[P0]],
// CHECK-NEXT: %[[P1:.*]] = llvm.extractvalue
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[P1]],
func.func @f32_exact(%a: tensor<65x70xf32>, %b: tensor<70x33xf32>) -> tensor<65x33xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<65x70xf32>, tensor<70x33xf32>) -> tensor<65x33xf32> {
  ^bb0(%x: tensor<65x70xf32>, %y: tensor<70x33xf32>):
    %p = nova.matmul %x, %y : tensor<65x70xf32>, tensor<70x33xf32> -> tensor<65x33xf32>
    nova_tile.yield %p : tensor<65x33xf32>
  }
  return %r : tensor<65x33xf32>
}

// The grouped GEMM: blocks [0, 6) sum 32 columns each (f64 partials per
// warp, combined in order by the first warp), then dX's and dW's tiles.
// CHECK-LABEL: gpu.func @matmul_
// CHECK-SAME: (%[[DY:.*]]: memref<2x50x192xbf16>, %{{.*}}: memref<64x192xf32>, %{{.*}}: memref<2x50x64xbf16>, %[[DB:.*]]: memref<1x1x192xf32>, %[[DX:.*]]: memref<2x50x64xbf16>, %[[DW:.*]]: memref<64x192xbf16>)
// CHECK-SAME: workgroup(%{{.*}}, %{{.*}}, %[[P:.*]] : memref<{{128|256}}xf64, #gpu.address_space<workgroup>>)
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: arith.cmpi ult, %[[BID]], %c6
// CHECK: scf.if
// CHECK: scf.for {{.*}} -> (f64)
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[DB]]
// CHECK: nvvm.mma.sync
// CHECK: memref.store %{{.*}}, %[[DX]]
// CHECK: nvvm.mma.sync
// CHECK: memref.store %{{.*}}, %[[DW]]
func.func @grouped(%dy: tensor<2x50x192xbf16>, %w: tensor<64x192xf32>, %x: tensor<2x50x64xbf16>)
    -> (tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>) {
  %r:3 = nova_tile.fusion matmul (%dy, %w, %x) : (tensor<2x50x192xbf16>, tensor<64x192xf32>, tensor<2x50x64xbf16>)
      -> (tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>) {
  ^bb0(%arg0: tensor<2x50x192xbf16>, %arg1: tensor<64x192xf32>, %arg2: tensor<2x50x64xbf16>):
    %0 = nova.cast %arg0 : tensor<2x50x192xbf16> to tensor<2x50x192xf32>
    %1 = nova.reduce sum %0 dims [0, 1] keep_dims : tensor<2x50x192xf32> -> tensor<1x1x192xf32>
    %2 = nova.cast %arg1 : tensor<64x192xf32> to tensor<64x192xbf16>
    %3 = nova.matmul %arg0, %2 transpose_rhs : tensor<2x50x192xbf16>, tensor<64x192xbf16> -> tensor<2x50x64xbf16>
    %4 = nova.reshape %arg2 : tensor<2x50x64xbf16> -> tensor<100x64xbf16>
    %5 = nova.reshape %arg0 : tensor<2x50x192xbf16> -> tensor<100x192xbf16>
    %6 = nova.matmul %4, %5 transpose_lhs : tensor<100x64xbf16>, tensor<100x192xbf16> -> tensor<64x192xbf16>
    nova_tile.yield %1, %3, %6 : tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>
  }
  return %r#0, %r#1, %r#2 : tensor<1x1x192xf32>, tensor<2x50x64xbf16>, tensor<64x192xbf16>
}
