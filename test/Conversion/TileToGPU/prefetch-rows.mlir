// Row kernels with column sums whose rows take fixed chunks (LayerNorm's
// backward: 768 columns, bf16 and f32 inputs) keep their sums in registers
// and read their chunks again in every pass, so each block prefetches its
// next batch of rows by cp.async into dynamic shared memory while it works
// on the current one: two stages of the block's rows (here 4 rows of 768
// bf16 + 768 f32: 4608 bytes a row, 36864 for both stages), 6 copies a
// lane (3 chunks of 4 columns, 8 bytes of bf16 through L1, 16 of f32
// through L2 only), a commit group a batch (empty past the last batch) and
// a wait for all but the newest, after which every pass loads the lane's
// own chunks from the stage: no global vector load of either input inside
// the loop (the implicit checks). After the last batch the stages hold
// the block's rows' column sums (f64) while they combine: no shared buffer
// of their own (4 x 768 f64; the fold's slice totals, 512 f64, have one).
// The two sums' registers would fit 32-lane groups of six chunks, but five
// such rows (160 threads) are all the block's combine buffer holds: the
// 64-lane groups fill the schedule's 256 threads (the first layer's
// LayerNorm backward of the 124M bf16 step, two sums: 160 threads ran
// 1.15-1.38x slower than its three-sum siblings on 256).
// With stage-rows=false every pass reads global memory.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s --implicit-check-not="vector.load %{{.*}} : memref<6291456xbf16>" --implicit-check-not="vector.load %{{.*}} : memref<6291456xf32>" --implicit-check-not="memref<3072xf64, #gpu.address_space<workgroup>>"
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=stage-rows=false | FileCheck %s --check-prefix=OFF --implicit-check-not=cp.async --implicit-check-not=dynamic_shared_bytes

// CHECK-LABEL: gpu.func @row_reduction_
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 256, 1, 1>, nova_gpu.co_resident_blocks = 48 : i64, nova_gpu.dynamic_shared_bytes = 36864
// The block's first batch, before the loop: each chunk's bf16 and f32.
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NOT: cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2048 step %c256
// The next batch (the block's batches are 256 apart), if there is one.
// CHECK: scf.if
// CHECK-COUNT-6: nvvm.cp.async.shared.global
// CHECK: }
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-COUNT-6: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4x{{bf16|f32}}>
// CHECK: gpu.shuffle xor
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store %{{.*}} : f64, !llvm.ptr<3>

// OFF-LABEL: gpu.func @row_reduction_
// OFF-SAME: workgroup({{.*}}memref<3072xf64, #gpu.address_space<workgroup>>
// OFF: scf.for
// OFF-COUNT-3: vector.load %{{.*}} : memref<6291456xbf16>, vector<4xbf16>
func.func @ln_like(%dy: tensor<8192x768xbf16>, %x: tensor<8192x768xf32>) -> (tensor<8192x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  %r:3 = nova_tile.fusion row_reduction (%dy, %x) : (tensor<8192x768xbf16>, tensor<8192x768xf32>) -> (tensor<8192x768xf32>, tensor<768xf32>, tensor<768xf32>) {
  ^bb0(%a: tensor<8192x768xbf16>, %b: tensor<8192x768xf32>):
    %d = nova.cast %a : tensor<8192x768xbf16> to tensor<8192x768xf32>
    %p = nova.mul %d, %b : tensor<8192x768xf32>, tensor<8192x768xf32>
    %m = nova.reduce sum %p dims [1] keep_dims : tensor<8192x768xf32> -> tensor<8192x1xf32>
    %o = nova.sub %b, %m : tensor<8192x768xf32>, tensor<8192x1xf32>
    %s1 = nova.reduce sum %d dims [0] : tensor<8192x768xf32> -> tensor<768xf32>
    %s2 = nova.reduce sum %p dims [0] : tensor<8192x768xf32> -> tensor<768xf32>
    nova_tile.yield %o, %s1, %s2 : tensor<8192x768xf32>, tensor<768xf32>, tensor<768xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<8192x768xf32>, tensor<768xf32>, tensor<768xf32>
}
