// convert-tile-to-gpu on attention: mma.sync tensor cores (bf16 m16n8k16,
// f32 as TF32 m16n8k8), 128 threads (four warps of 16 rows) per block. The
// forward stages K and V in shared memory, keeps the running max and sum
// (exp2 domain) of its two rows in the key-tile loop, which stops at the
// causal diagonal, and P in registers as the A operand of O += P V;
// the backward launches blocks of 64 keys (dK, dV over the query tiles)
// followed by blocks of 64 queries (dQ over the key tiles): no atomics.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s

// 40 queries: one block per head; 32 keys per head dim of 32 bf16.
// CHECK-LABEL: gpu.func @attention_forward_
// CHECK-SAME: (%{{.*}}: memref<2x40x32xbf16>, %{{.*}}: memref<2x40x32xbf16>, %{{.*}}: memref<2x40x32xbf16>, %{{.*}}: memref<2x40x32xbf16>, %{{.*}}: memref<2x40xf32>) workgroup(%[[K:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// Q in registers, then the causal key-tile loop carrying O, max and sum.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32,
// CHECK: gpu.barrier
// CHECK: memref.store {{.*}}, %[[K]]
// CHECK: memref.store {{.*}}, %[[V]]
// CHECK: gpu.barrier
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// Only tiles on the diagonal or the ragged edge take the masking branch.
// CHECK: scf.if %{{.*}} -> (f32, f32,
// CHECK: arith.select
// CHECK: } else {
// CHECK-NEXT: scf.yield
// CHECK: math.exp2
// CHECK: gpu.shuffle xor
// P never goes through shared memory and needs no barrier: pairs of its
// bf16 elements are packed into the A words; V's elements come from shared
// memory (pairs along the keys, two rows apart).
// CHECK-NOT: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.shli
// CHECK: arith.ori
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[V]]
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: math.log2
func.func @forward(%q: tensor<2x40x32xbf16>, %k: tensor<2x40x32xbf16>, %v: tensor<2x40x32xbf16>) -> (tensor<2x40x32xbf16>, tensor<2x40xf32>) {
  %r:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x40x32xbf16>, tensor<2x40x32xbf16>, tensor<2x40x32xbf16>) -> (tensor<2x40x32xbf16>, tensor<2x40xf32>) {
  ^bb0(%qa: tensor<2x40x32xbf16>, %ka: tensor<2x40x32xbf16>, %va: tensor<2x40x32xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.125 causal : tensor<2x40x32xbf16>, tensor<2x40x32xbf16>, tensor<2x40x32xbf16> -> tensor<2x40x32xbf16>, tensor<2x40xf32>
    nova_tile.yield %o, %lse : tensor<2x40x32xbf16>, tensor<2x40xf32>
  }
  return %r#0, %r#1 : tensor<2x40x32xbf16>, tensor<2x40xf32>
}

// f32 operands: TF32 (rounded to nearest even, as the interpreter rounds
// them) m16n8k8; 100 keys in two blocks of 64 per head. The backward: 2
// heads x 2 key blocks, then 2 x 2 query blocks; shared memory holds the
// streamed tile's rows (Q or K, dO or V: 64 x 32 plus a pad of 4) and
// their statistics, P^T and dS^T stay in registers.
// CHECK-LABEL: gpu.func @attention_backward_
// CHECK-SAME: workgroup(%{{.*}} : memref<64x36xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<64x36xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<2x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK-NEXT: scf.if
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK: } else {
// CHECK: nvvm.mma.sync {{.*}}#nvvm.mma_type<tf32>
// CHECK-NOT: atomic
// CHECK: gpu.return
func.func @backward(%q: tensor<2x100x32xf32>, %k: tensor<2x100x32xf32>, %v: tensor<2x100x32xf32>, %o: tensor<2x100x32xf32>, %lse: tensor<2x100xf32>, %dy: tensor<2x100x32xf32>) -> (tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>) {
  %r:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy) : (tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100xf32>, tensor<2x100x32xf32>) -> (tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>) {
  ^bb0(%qa: tensor<2x100x32xf32>, %ka: tensor<2x100x32xf32>, %va: tensor<2x100x32xf32>, %oa: tensor<2x100x32xf32>, %la: tensor<2x100xf32>, %da: tensor<2x100x32xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100xf32>, tensor<2x100x32xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2x100x32xf32>, tensor<2x100x32xf32>, tensor<2x100x32xf32>
}
