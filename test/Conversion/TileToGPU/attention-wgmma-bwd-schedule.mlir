// The wgmma attention backward's work schedule (AttentionBackwardWgmma.cpp).
// Work items are classes (kind, stationary tile) of every (batch, head).
// With at least 8 items per SM the grid is persistent: the classes
// heaviest first by tile steps times wgmma products (4 for a
// K/V-stationary block, 3 for a Q-stationary one), 132 blocks walking
// rounds of 132 items, forward in even rounds and backward in odd ones,
// the producer loading each item's stationary tiles into one of two sets
// (d64) or the one set (d128) once the consumers released it. With fewer,
// a block per item, the K/V-stationary classes first, each kind heaviest
// first.
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | FileCheck %s --implicit-check-not=nvvm.mbarrier.init --implicit-check-not=iter_args
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu | grep -o -E "gpu.func @[a-z_]+|nvvm.mbarrier.(try_wait.parity|arrive.expect_tx|arrive)|nvvm.setmaxregister +[a-z]+|\} else \{" | FileCheck %s --check-prefix=SYNC

// The persistent kernel's barriers, in order. The stage ring runs on
// across items of both kinds, so every streamed tile completes one phase
// of its stage's stats barrier: for a Q-stationary item too, the producer
// waits for each streamed K/V tile and arrives (with no stats to write),
// and the consumers of both kinds wait for that phase (before, only K/V
// items did: the phases drifted from the ring's steps once an item of the
// other kind had used a stage, and the B16 H12 T1024 backward hung).
// SYNC: gpu.func @attention_backward_
// SYNC: gpu.func @attention_backward_
// K/V items: the set's release, the K and V load; a stage's release, the
// Q, dO and O load; the landed tile's stats (a branch per half row), then
// the stats phase.
// SYNC-NEXT: nvvm.setmaxregister decrease
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.arrive.expect_tx
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.arrive.expect_tx
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: } else {
// SYNC-NEXT: nvvm.mbarrier.arrive
// Q items: the same loads, the landed tile's stats phase without stats.
// SYNC-NEXT: } else {
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.arrive.expect_tx
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.arrive.expect_tx
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.arrive
// SYNC-NEXT: } else {
// SYNC-NEXT: } else {
// Consumers of both kinds: the stationary set, the tile, its stats phase;
// then the stage's release and, after the item, the set's.
// SYNC-NEXT: nvvm.setmaxregister increase
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: } else {
// SYNC-NEXT: nvvm.mbarrier.arrive
// SYNC-NEXT: nvvm.mbarrier.arrive
// SYNC-NEXT: } else {
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: nvvm.mbarrier.try_wait.parity
// SYNC-NEXT: } else {
// SYNC-NEXT: nvvm.mbarrier.arrive
// SYNC-NEXT: nvvm.mbarrier.arrive
// SYNC-NEXT: } else {
// SYNC-NEXT: gpu.func @attention_backward_

// T200 causal: K/V block 0 sees 4 query tiles (weight 16), K/V block 1 2
// (8), Q block 0 2 key tiles (6), Q block 1 4 (12).
// B2 H3: 24 items, a block each (no rounds loop: item = block), by kind:
// class c maps to (tile, keys) 0 -> (0, K/V), 1 -> (1, K/V), 2 -> (1, Q),
// 3 -> (0, Q), by a compare chain from the last class.
// CHECK-LABEL: gpu.module
// CHECK: known_grid_size = array<i32: 24, 1, 1>, nova_gpu.dynamic_shared_bytes = 200832
// Two stationary sets (full, empty), then full, stats full and empty for
// each of 4 stages.
// CHECK-COUNT-16: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-NEXT: %[[BLOCK:.*]] = gpu.block_id x
// CHECK-NEXT: %{{.*}} = arith.remui %[[BLOCK]], %c6
// CHECK-NEXT: %[[CLS:.*]] = arith.divui %[[BLOCK]], %c6
// CHECK: %[[C2:.*]] = arith.cmpi eq, %[[CLS]], %c2
// CHECK-NEXT: %[[T2:.*]] = arith.select %[[C2]], %c1, %c0
// CHECK: arith.select %[[C2]], %false{{.*}}, %false{{.*}} : i1
// CHECK: %[[C1:.*]] = arith.cmpi eq, %[[CLS]], %c1
// CHECK-NEXT: %[[T1:.*]] = arith.select %[[C1]], %c1, %[[T2]]
// CHECK: arith.select %[[C1]], %true{{.*}}, %{{.*}} : i1
// CHECK: %[[C0:.*]] = arith.cmpi eq, %[[CLS]], %c0
// CHECK-NEXT: arith.select %[[C0]], %c0, %[[T1]]
// CHECK: arith.select %[[C0]], %true{{.*}}, %{{.*}} : i1
// CHECK: nvvm.setmaxregister increase 232
// Only the streamed tiles' loops (dK and dV, or dQ) carry values.
// CHECK-COUNT-2: iter_args

// B4 H132: 528 (batch, head) pairs x 4 classes = 2112 items, 16 rounds of
// 132, the classes by weight across kinds: 0 -> (0, K/V), 1 -> (1, Q),
// 2 -> (1, K/V), 3 -> (0, Q).
// CHECK-LABEL: gpu.module
// CHECK: known_grid_size = array<i32: 132, 1, 1>, nova_gpu.dynamic_shared_bytes = 200832
// CHECK-COUNT-16: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-NEXT: %[[BLOCK:.*]] = gpu.block_id x
// CHECK-NEXT: %{{.*}} = scf.for %[[ROUND:.*]] = %c0 to %c16 step %c1 iter_args(%[[STEP:.*]] = %c0) -> (index) {
// CHECK-NEXT: %[[PARITY:.*]] = arith.remui %[[ROUND]], %c2
// CHECK-NEXT: %[[ODD:.*]] = arith.cmpi eq, %[[PARITY]], %c1
// CHECK-NEXT: %[[BACK:.*]] = arith.subi %c131, %[[BLOCK]]
// CHECK-NEXT: %[[COL:.*]] = arith.select %[[ODD]], %[[BACK]], %[[BLOCK]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[ROUND]], %c132
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[FIRST]], %[[COL]]
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[POS]], %c2112
// CHECK-NEXT: %[[TILES:.*]] = scf.if %[[IN]] -> (index) {
// CHECK-NEXT: %{{.*}} = arith.remui %[[POS]], %c528
// CHECK-NEXT: %[[CLS:.*]] = arith.divui %[[POS]], %c528
// CHECK: %[[C2:.*]] = arith.cmpi eq, %[[CLS]], %c2
// CHECK-NEXT: %[[T2:.*]] = arith.select %[[C2]], %c1, %c0
// CHECK: arith.select %[[C2]], %true{{.*}}, %false{{.*}} : i1
// CHECK: %[[C1:.*]] = arith.cmpi eq, %[[CLS]], %c1
// CHECK-NEXT: %[[T1:.*]] = arith.select %[[C1]], %c1, %[[T2]]
// CHECK: arith.select %[[C1]], %false{{.*}}, %{{.*}} : i1
// CHECK: %[[C0:.*]] = arith.cmpi eq, %[[CLS]], %c0
// CHECK-NEXT: arith.select %[[C0]], %c0, %[[T1]]
// CHECK: %[[KEYS:.*]] = arith.select %[[C0]], %true{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if %[[KEYS]] -> (index) {
// The producer waits for the set's release (parity flipped: a fresh
// barrier passes), then loads K and V.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: } else {
// CHECK: scf.yield %c0 : index
// CHECK: arith.addi %[[STEP]], %[[TILES]]
// The consumers walk the same rounds.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %c0) -> (index) {
// Inside, the streamed tiles' loop carries the accumulators.
// CHECK-COUNT-2: iter_args

// Head dim 128 (B4 H132 T40, not causal): one stationary set, 2 stages
// (8 mbarriers); 1056 items (K/V block 0 first, then Q block 0), 8 rounds.
// CHECK-LABEL: gpu.module
// CHECK: known_grid_size = array<i32: 132, 1, 1>, nova_gpu.dynamic_shared_bytes = 198720
// CHECK-COUNT-8: nvvm.mbarrier.init
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %c0) -> (index) {
// CHECK: arith.cmpi ult, %{{.*}}, %c1056
// CHECK: %[[C0:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: arith.select %[[C0]], %true, %false : i1
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %c0) -> (index) {
// CHECK-COUNT-2: iter_args

func.func @causal_d64(%q: tensor<2x3x200x64xbf16>, %k: tensor<2x3x200x64xbf16>, %v: tensor<2x3x200x64xbf16>, %o: tensor<2x3x200x64xbf16>, %lse: tensor<2x3x200xf32>, %dy: tensor<2x3x200x64xbf16>)
    -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>) -> (tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>) {
  ^bb0(%qa: tensor<2x3x200x64xbf16>, %ka: tensor<2x3x200x64xbf16>, %va: tensor<2x3x200x64xbf16>, %oa: tensor<2x3x200x64xbf16>, %la: tensor<2x3x200xf32>, %da: tensor<2x3x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200xf32>, tensor<2x3x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>, tensor<2x3x200x64xbf16>
}
func.func @persistent_d64(%q: tensor<4x132x200x64xbf16>, %k: tensor<4x132x200x64xbf16>, %v: tensor<4x132x200x64xbf16>, %o: tensor<4x132x200x64xbf16>, %lse: tensor<4x132x200xf32>, %dy: tensor<4x132x200x64xbf16>)
    -> (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200xf32>, tensor<4x132x200x64xbf16>) -> (tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>) {
  ^bb0(%qa: tensor<4x132x200x64xbf16>, %ka: tensor<4x132x200x64xbf16>, %va: tensor<4x132x200x64xbf16>, %oa: tensor<4x132x200x64xbf16>, %la: tensor<4x132x200xf32>, %da: tensor<4x132x200x64xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 causal : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200xf32>, tensor<4x132x200x64xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>, tensor<4x132x200x64xbf16>
}
func.func @persistent_d128(%q: tensor<4x132x40x128xbf16>, %k: tensor<4x132x40x128xbf16>, %v: tensor<4x132x40x128xbf16>, %o: tensor<4x132x40x128xbf16>, %lse: tensor<4x132x40xf32>, %dy: tensor<4x132x40x128xbf16>)
    -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  %g:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy)
      : (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>) -> (tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>) {
  ^bb0(%qa: tensor<4x132x40x128xbf16>, %ka: tensor<4x132x40x128xbf16>, %va: tensor<4x132x40x128xbf16>, %oa: tensor<4x132x40x128xbf16>, %la: tensor<4x132x40xf32>, %da: tensor<4x132x40x128xbf16>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.08838834764831845 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40xf32>, tensor<4x132x40x128xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
  }
  return %g#0, %g#1, %g#2 : tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>, tensor<4x132x40x128xbf16>
}
