// convert-tile-to-gpu takes the wgmma path for a single GEMM whose operands
// TMA loads with rows of 16-byte multiples: K-major (y = x W^T, the batch
// folded into the rows), or M- or N-major (x W with W stored K x N, x^T
// W^T, dW = x^T dy: for bf16 wgmma's transposed layouts, boxes of 64 M/N
// by 64 K; for TF32, which wgmma reads K-major only, boxes of 32 M/N by 32
// K that the consumers transpose in shared memory); it keeps mma.sync
// otherwise: rows of 258 bytes (K = 129, or an odd N = 129 read N-major,
// like a vocabulary of 50257), a prologue cast, N under 64, an M-major
// batch that does not fold, or wgmma=false. Remarks in category nova-wgmma
// say which path and why.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s
// tf32-wgmma=false keeps TF32 products on mma.sync.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=tf32-wgmma=false --remarks-filter=nova-wgmma --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=TF32OFF
// TF32OFF: stays on mma.sync: TF32 on wgmma is off (tf32-wgmma=false)
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false | FileCheck %s --check-prefix=OFF --implicit-check-not=nvvm.wgmma --implicit-check-not='"wgmma' --implicit-check-not=nova_gpu.tma
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu --remarks-filter=nova-wgmma --remark-format=emitRemark -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

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

// W stored 64 x 120 (N-major): its box is 64 columns by 64 rows of K,
// rows of 240 bytes; two boxes per 128-column tile; B transposed. The one
// bf16 output is staged: each consumer's 64 x 128 block (two 64-column
// boxes, 128-byte swizzled, 32 KB for both consumers before the 6 stages'
// barriers) goes out by TMA stores once the previous tile's have read the
// staging area, after a proxy fence and a named barrier of its 128
// threads; the last stores complete before the block exits.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<100x64xbf16>, %arg1: memref<64x120xbf16>, %arg2: memref<100x120xbf16>,
// CHECK-SAME: %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128>, buffer = 0 : i32, dims = array<i64: 64, 100>, offset = 0 : i64, strides = array<i64: 128>, swizzle = 128 : i32}},
// CHECK-SAME: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 1 : i32, dims = array<i64: 120, 64>, offset = 0 : i64, strides = array<i64: 240>, swizzle = 128 : i32}},
// CHECK-SAME: %arg5: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 2 : i32, dims = array<i64: 120, 100>, offset = 0 : i64, strides = array<i64: 240>, swizzle = 128 : i32}})
// CHECK-SAME: nova_gpu.dynamic_shared_bytes = 229472 : i64, nova_gpu.matmul_path = "wgmma", nova_gpu.tma_params = array<i32: 3, 4, 5>
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: llvm.inline_asm has_side_effects "bar.sync $0, 128;", "r,~{memory}"
// CHECK: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: llvm.inline_asm has_side_effects "bar.sync $0, 128;"
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta %arg5
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0{{$}}
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync

// x stored 64 x 200 (M-major), W^T K-major: A transposed.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<64x200xbf16>, %arg1: memref<120x64xbf16>, %arg2: memref<200x120xbf16>,
// CHECK-SAME: %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 0 : i32, dims = array<i64: 200, 64>, offset = 0 : i64, strides = array<i64: 400>, swizzle = 128 : i32}},
// CHECK-SAME: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 128>, buffer = 1 : i32, dims = array<i64: 64, 120>, offset = 0 : i64, strides = array<i64: 128>, swizzle = 128 : i32}},
// CHECK-SAME: %arg5: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 2 : i32, dims = array<i64: 120, 200>, offset = 0 : i64, strides = array<i64: 240>, swizzle = 128 : i32}})
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]

// dW = x^T dy: both MN-major, N = 256 (one 256-column tile: four boxes).
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<512x96xbf16>, %arg1: memref<512x256xbf16>, %arg2: memref<96x256xf32>,
// CHECK-SAME: %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 0 : i32, dims = array<i64: 96, 512>, offset = 0 : i64, strides = array<i64: 192>, swizzle = 128 : i32}},
// CHECK-SAME: %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 64, 64>, buffer = 1 : i32, dims = array<i64: 256, 512>, offset = 0 : i64, strides = array<i64: 512>, swizzle = 128 : i32}})
// CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]

// TF32 x W with W N-major: TMA lands B's tile as it lies, in 32 x 32 boxes
// (128 bytes of N by 32 K rows); after the stage's full barrier the
// consumers round B in 4 x 4 blocks of words (16 KB: 1 block a thread): 4
// chunk reads, a warp synchronisation (the block's transposed place is read
// by a thread of the same warp), 16 roundings, 4 chunk writes at the
// transposed place, then the proxy fence and the consumers' barrier. A
// goes to the wgmmas from registers: each thread loads its 16 words of the
// stage (4 K steps x 4), rounds them (adding 4096, half a TF32 unit: wgmma
// drops the 13 low mantissa bits) and issues 4 register-A wgmmas that read
// B K-major.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<100x64xf32>, %arg1: memref<64x120xf32>, %arg2: memref<100x120xf32>, %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 128>, {{.*}}}}, %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 32>, buffer = 1 : i32, dims = array<i64: 120, 64>, offset = 0 : i64, strides = array<i64: 480>, swizzle = 128 : i32}}, %arg5: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 64>, buffer = 2 : i32, dims = array<i64: 120, 100>, offset = 0 : i64, strides = array<i64: 480>, swizzle = 128 : i32}})
// CHECK-SAME: nova_gpu.matmul_path = "wgmma"
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.warp.sync -1;", "~{memory}"
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: arith.addi %{{.*}}, %c4096_i32{{.*}} : i32
// CHECK-NOT: llvm.load
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: arith.addi %{{.*}}, %c4096_i32{{.*}} : i32
// CHECK-NOT: llvm.load
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: arith.addi %{{.*}}, %c4096_i32{{.*}} : i32
// CHECK-NOT: llvm.load
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: arith.addi %{{.*}}, %c4096_i32{{.*}} : i32
// CHECK-NOT: llvm.load
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 3, 256;", "~{memory}"
// CHECK-COUNT-16: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
// The f32 output leaves through shared memory (TF32 tiles up to 128
// columns wide): once the previous TMA stores have read the consumer's
// block, its 32 pairs of accumulators (ragged: each behind a guard), a
// proxy fence, the consumer's barrier, and 4 TMA stores of 32-column
// boxes, which drain while the next tile runs.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-32: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy
// CHECK: bar.sync $0, 128;
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %arg5

// An odd N read N-major, an M-major batch of 2 x 100 rows 64 x 100 apart
// (not one after the other along M): mma.sync.
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync
// CHECK-LABEL: gpu.module
// CHECK-NOT: wgmma
// CHECK: mma.sync

// dW = x^T dy, 200 x 8192 x 512: 4 tiles but 128 K tiles, split over K in
// 8 units of 16 K tiles each (32 blocks); every warp stores its partial
// accumulators to the workspace (4 x 8 x 8 slots of 128 x 32 f32, then 32
// tickets), fences, and its lane 0 draws a ticket; the warp that draws the
// last one (7) adds the 8 slots in split order and runs the epilogue.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<8192x200xbf16>, %arg1: memref<8192x512xbf16>, %arg2: memref<200x512xbf16>,
// CHECK-SAME: %arg5: memref<4194432xi8>)
// CHECK-SAME: known_grid_size = array<i32: 32, 1, 1>, {{.*}}nova_gpu.workspace_bytes = 4194432
// CHECK: nvvm.wgmma.mma_async
// CHECK-COUNT-128: memref.store {{.*}} : memref<256x128x32xf32>
// CHECK: nvvm.memory.barrier <gpu>
// CHECK-NEXT: arith.constant -1
// CHECK-NEXT: nvvm.bar.warp.sync
// CHECK: memref.atomic_rmw addi {{.*}} : (i32, memref<32xi32>) -> i32
// CHECK: gpu.shuffle  idx
// CHECK: arith.constant 7 : i32
// CHECK: scf.if
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK: scf.for {{.*}} = %c0 to %c8 step %c1
// CHECK: memref.load {{.*}} : memref<256x128x32xf32>
// CHECK-NEXT: memref.store {{.*}} : memref<256x128x32xf32>
// CHECK: vector.store

// TF32 K-major (y = x W^T in f32 marked TF32) takes wgmma by default, on
// 256 x 128 tiles (two m64 groups per consumer: B half as large as a 128 x
// 256 tile's) with A from registers: after a stage's full barrier each
// consumer thread rounds its 4 16-byte chunks of B's 16 KB in place, then
// a proxy fence and the barrier of both consumers (B is read by both);
// then it loads its 32 words of A (2 groups x 4 K steps x 4, as TMA landed
// them), rounds them and issues 8 register-A wgmmas. In the pipeline loop
// the previous step's group is waited for (wait_group 0) after B's pass and
// before the A loads, and its stage released at an address that uses that
// group's A words (ptxas otherwise reuses in-flight A registers).
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<200x64xf32>, %arg1: memref<300x64xf32>, %arg2: memref<200x300xf32>, %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 256>, {{.*}}}}, %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 128>,
// CHECK-SAME: nova_gpu.matmul_path = "wgmma"
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 3, 256;", "~{memory}"
// CHECK-COUNT-32: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.load
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: llvm.inline_asm has_side_effects "bar.sync 3, 256;", "~{memory}"
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: llvm.load
// CHECK-COUNT-31: arith.ori %{{.*}} : i32
// CHECK-NEXT: %[[MASKED:.*]] = arith.andi %{{.*}} : i32
// CHECK-NEXT: %[[PIN:.*]] = arith.extui %[[MASKED]] : i32 to i64
// CHECK-NEXT: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%[[PIN]]]
// CHECK-NEXT: nvvm.mbarrier.arrive %[[BAR]]
// CHECK-COUNT-32: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK: nvvm.wgmma.fence.aligned

// TF32 dW = x^T dy, both operands MN-major: B's 256 N indices land in 32 x
// 32 boxes and are transposed (1 block of 4 x 4 words per consumer thread
// and 128-column tile); A (96 M indices, one 256-row tile) goes to the
// wgmmas from registers, read M-major where it landed. Split K, two groups
// a consumer: 16 warps' slots in the workspace.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<512x96xf32>, %arg1: memref<512x256xf32>, %arg2: memref<96x256xf32>, %arg3: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 32>, buffer = 0 : i32, dims = array<i64: 96, 512>, {{.*}}}}, %arg4: !llvm.ptr {nova_gpu.tma = {box = array<i64: 32, 32>, buffer = 1 : i32, dims = array<i64: 256, 512>,
// CHECK-SAME: nova_gpu.matmul_path = "wgmma"
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-1: llvm.inline_asm has_side_effects "bar.warp.sync -1;", "~{memory}"
// CHECK-NOT: llvm.load
// CHECK-COUNT-4: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 3, 256;", "~{memory}"
// CHECK-COUNT-32: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32

// The same on 128 x 160 tiles (768 x 3072, K = 2048: 120 tiles; one group
// a consumer): B's 320 blocks take two rounds, the second only for the
// first 64 consumer threads (whole warps), behind a guard; A's 16 words a
// thread from registers.
// CHECK-LABEL: gpu.module
// CHECK: gpu.func @{{.*}}(%arg0: memref<2048x768xf32>, %arg1: memref<2048x3072xf32>, %arg2: memref<768x3072xf32>,
// CHECK-SAME: known_grid_size = array<i32: 120, 1, 1>
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-1: llvm.inline_asm has_side_effects "bar.warp.sync -1;", "~{memory}"
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c320_i64 : i64
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: llvm.inline_asm has_side_effects "bar.warp.sync -1;", "~{memory}"
// CHECK-COUNT-4: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 3, 256;", "~{memory}"
// CHECK-COUNT-16: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK: wgmma.mma_async.sync.aligned.m64n160k8.f32.tf32.tf32
// OFF-COUNT-12: nvvm.mma.sync

// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A K-major, B K-major"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A K-major, B N-major"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Reason="stays on mma.sync: a row stride that is not a multiple of 16 bytes"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Reason="stays on mma.sync: a prologue on an operand"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Reason="stays on mma.sync: a product under 64 x 64 or with K = 0"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A M-major, B K-major"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A M-major, B N-major"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A K-major (from registers), B N-major (transposed in shared memory)"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Reason="stays on mma.sync: a row stride that is not a multiple of 16 bytes"
// REMARK: remark: [Missed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Reason="stays on mma.sync: a batch that does not fold into the rows"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A M-major, B N-major"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A K-major (from registers), B K-major"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A M-major (from registers), B N-major (transposed in shared memory)"
// REMARK: remark: [Passed] wgmma | Category:nova-wgmma | Function=matmul_{{[0-9a-f]+}} | Remark="wgmma, A M-major (from registers), B N-major (transposed in shared memory)"
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

func.func @mmajor(%a: tensor<64x200xbf16>, %b: tensor<120x64xbf16>) -> tensor<200x120xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<64x200xbf16>, tensor<120x64xbf16>) -> tensor<200x120xbf16> {
  ^bb0(%x: tensor<64x200xbf16>, %y: tensor<120x64xbf16>):
    %p = nova.matmul %x, %y transpose_lhs transpose_rhs : tensor<64x200xbf16>, tensor<120x64xbf16> -> tensor<200x120xbf16>
    nova_tile.yield %p : tensor<200x120xbf16>
  }
  return %r : tensor<200x120xbf16>
}

func.func @dw(%x: tensor<512x96xbf16>, %dy: tensor<512x256xbf16>) -> tensor<96x256xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<512x96xbf16>, tensor<512x256xbf16>) -> tensor<96x256xf32> {
  ^bb0(%a: tensor<512x96xbf16>, %b: tensor<512x256xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<512x96xbf16>, tensor<512x256xbf16> -> tensor<96x256xbf16>
    %o = nova.cast %p : tensor<96x256xbf16> to tensor<96x256xf32>
    nova_tile.yield %o : tensor<96x256xf32>
  }
  return %r : tensor<96x256xf32>
}

func.func @tf32_nmajor(%a: tensor<100x64xf32>, %b: tensor<64x120xf32>) -> tensor<100x120xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xf32>, tensor<64x120xf32>) -> tensor<100x120xf32> {
  ^bb0(%x: tensor<100x64xf32>, %y: tensor<64x120xf32>):
    %p = nova.matmul %x, %y {nova.precision = "tf32"} : tensor<100x64xf32>, tensor<64x120xf32> -> tensor<100x120xf32>
    nova_tile.yield %p : tensor<100x120xf32>
  }
  return %r : tensor<100x120xf32>
}

func.func @odd_n(%a: tensor<100x64xbf16>, %b: tensor<64x129xbf16>) -> tensor<100x129xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<100x64xbf16>, tensor<64x129xbf16>) -> tensor<100x129xbf16> {
  ^bb0(%x: tensor<100x64xbf16>, %y: tensor<64x129xbf16>):
    %p = nova.matmul %x, %y : tensor<100x64xbf16>, tensor<64x129xbf16> -> tensor<100x129xbf16>
    nova_tile.yield %p : tensor<100x129xbf16>
  }
  return %r : tensor<100x129xbf16>
}

func.func @batched_mmajor(%a: tensor<2x64x100xbf16>, %b: tensor<120x64xbf16>) -> tensor<2x100x120xbf16> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<2x64x100xbf16>, tensor<120x64xbf16>) -> tensor<2x100x120xbf16> {
  ^bb0(%x: tensor<2x64x100xbf16>, %y: tensor<120x64xbf16>):
    %p = nova.matmul %x, %y transpose_lhs transpose_rhs : tensor<2x64x100xbf16>, tensor<120x64xbf16> -> tensor<2x100x120xbf16>
    nova_tile.yield %p : tensor<2x100x120xbf16>
  }
  return %r : tensor<2x100x120xbf16>
}

func.func @dw_split(%x: tensor<8192x200xbf16>, %dy: tensor<8192x512xbf16>) -> tensor<200x512xbf16> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<8192x200xbf16>, tensor<8192x512xbf16>) -> tensor<200x512xbf16> {
  ^bb0(%a: tensor<8192x200xbf16>, %b: tensor<8192x512xbf16>):
    %p = nova.matmul %a, %b transpose_lhs : tensor<8192x200xbf16>, tensor<8192x512xbf16> -> tensor<200x512xbf16>
    nova_tile.yield %p : tensor<200x512xbf16>
  }
  return %r : tensor<200x512xbf16>
}

func.func @tf32_kmajor(%a: tensor<200x64xf32>, %b: tensor<300x64xf32>) -> tensor<200x300xf32> {
  %r = nova_tile.fusion matmul (%a, %b) : (tensor<200x64xf32>, tensor<300x64xf32>) -> tensor<200x300xf32> {
  ^bb0(%x: tensor<200x64xf32>, %y: tensor<300x64xf32>):
    %p = nova.matmul %x, %y transpose_rhs {nova.precision = "tf32"} : tensor<200x64xf32>, tensor<300x64xf32> -> tensor<200x300xf32>
    nova_tile.yield %p : tensor<200x300xf32>
  }
  return %r : tensor<200x300xf32>
}

func.func @tf32_dw(%x: tensor<512x96xf32>, %dy: tensor<512x256xf32>) -> tensor<96x256xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<512x96xf32>, tensor<512x256xf32>) -> tensor<96x256xf32> {
  ^bb0(%a: tensor<512x96xf32>, %b: tensor<512x256xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<512x96xf32>, tensor<512x256xf32> -> tensor<96x256xf32>
    nova_tile.yield %p : tensor<96x256xf32>
  }
  return %r : tensor<96x256xf32>
}

func.func @tf32_dw_narrow(%x: tensor<2048x768xf32>, %dy: tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  %r = nova_tile.fusion matmul (%x, %dy) : (tensor<2048x768xf32>, tensor<2048x3072xf32>) -> tensor<768x3072xf32> {
  ^bb0(%a: tensor<2048x768xf32>, %b: tensor<2048x3072xf32>):
    %p = nova.matmul %a, %b transpose_lhs {nova.precision = "tf32"} : tensor<2048x768xf32>, tensor<2048x3072xf32> -> tensor<768x3072xf32>
    nova_tile.yield %p : tensor<768x3072xf32>
  }
  return %r : tensor<768x3072xf32>
}
