// nova-fuse groups elementwise ops into nova_tile.fusion pointwise kernels
// (reductions, views and the optimizer: fuse-reductions.mlir).
// RUN: nova-opt %s --nova-fuse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// A second run finds nothing left to fuse.
// RUN: nova-opt %t.mlir --nova-fuse | FileCheck %s
// Every group passes its family's contract: the fused module verifies.
// RUN: nova-opt %t.mlir --verify-diagnostics -o /dev/null
// The interpreter gives the same outputs before and after on fresh inputs.
// RUN: for f in chain diamond used_outside matmul_between cycle_through_matmul shapes compare_select shared_constant table_constant path_through_group; do \
// RUN:   nova-run %s --entry $f --random-inputs 11 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 1e-6 --atol 0 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// A chain with a broadcast bias and a constant: one kernel, the constant
// cloned into it.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion pointwise(%[[X]], %[[B]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[XA:.*]]: tensor<4x8xf32>, %[[BA:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[S:.*]] = nova.add %[[XA]], %[[BA]]
// CHECK-NEXT: %[[C:.*]] = nova.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = nova.mul %[[S]], %[[C]]
// CHECK-NEXT: %[[E:.*]] = nova.gelu tanh %[[M]]
// CHECK-NEXT: nova_tile.yield %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = nova.constant dense<0.5> : tensor<f32>
  %s = nova.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  %m = nova.mul %s, %c : tensor<4x8xf32>, tensor<f32>
  %g = nova.gelu tanh %m : tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// A diamond: both branches and the join in one kernel with one output.
// CHECK-LABEL: func.func @diamond
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<16xf32>) -> tensor<16xf32> {
// CHECK: nova.exp
// CHECK-NEXT: nova.neg
// CHECK-NEXT: nova.tanh
// CHECK-NEXT: %[[D:.*]] = nova.add
// CHECK-NEXT: nova_tile.yield %[[D]] : tensor<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = nova.exp %x : tensor<16xf32>
  %b = nova.neg %a : tensor<16xf32>
  %c = nova.tanh %a : tensor<16xf32>
  %d = nova.add %b, %c : tensor<16xf32>, tensor<16xf32>
  return %d : tensor<16xf32>
}

// A value used after the kernel is one of its outputs, next to the row sum
// the reduction joins the kernel with.
// CHECK-LABEL: func.func @used_outside
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion row_reduction(%{{.*}}) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
// CHECK: %[[A:.*]] = nova.exp
// CHECK-NEXT: %[[R:.*]] = nova.reduce sum %[[A]]
// CHECK-NEXT: %[[B:.*]] = nova.neg %[[A]]
// CHECK-NEXT: nova_tile.yield %[[R]], %[[B]] : tensor<4xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#1, %[[G]]#0
func.func @used_outside(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %a = nova.exp %x : tensor<4x8xf32>
  %r = nova.reduce sum %a dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %b = nova.neg %a : tensor<4x8xf32>
  return %b, %r : tensor<4x8xf32>, tensor<4xf32>
}

// A matmul is not elementwise: the ops before and after it are two kernels.
// CHECK-LABEL: func.func @matmul_between
// CHECK-NEXT: %[[P:.*]] = nova_tile.fusion pointwise
// CHECK: nova.relu
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// The matmul phase then makes the matmul a kernel whose epilogue is the
// pointwise group on its product (fuse-matmul.mlir tests that phase).
// CHECK-NEXT: %[[E:.*]] = nova_tile.fusion matmul(%[[P]], %{{.*}}, %{{.*}})
// CHECK: nova.matmul
// CHECK-NEXT: nova.add
// CHECK-NEXT: nova.tanh
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[E]]
func.func @matmul_between(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  %r = nova.relu %x : tensor<4x8xf32>
  %m = nova.matmul %r, %w : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  %s = nova.add %m, %b : tensor<4x2xf32>, tensor<2xf32>
  %t = nova.tanh %s : tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}

// The sub reads exp's value and a matmul of it: fusing the sub with the exp
// would put the matmul both after and before the kernel, so they stay two
// kernels with the matmul between. The matmul phase makes the matmul a
// kernel; the sub does not join it as an epilogue because it also reads the
// matmul's left operand elementwise, which the matmul contract rejects.
// CHECK-LABEL: func.func @cycle_through_matmul
// CHECK-NEXT: %[[A:.*]] = nova_tile.fusion pointwise
// CHECK: nova.exp
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]] = nova_tile.fusion matmul(%[[A]], %arg1)
// CHECK: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.*]] = nova_tile.fusion pointwise(%[[A]], %[[M]])
// CHECK: nova.sub
// CHECK-NEXT: nova.tanh
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[S]]
func.func @cycle_through_matmul(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = nova.exp %x : tensor<8x8xf32>
  %m = nova.matmul %a, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %s = nova.sub %a, %m : tensor<8x8xf32>, tensor<8x8xf32>
  %l = nova.tanh %s : tensor<8x8xf32>
  return %l : tensor<8x8xf32>
}

// One iteration space per kernel: an op on the smaller bias is its own
// kernel (its value is also returned, so it is not recomputed), whose result
// the larger one reads broadcast.
// CHECK-LABEL: func.func @shapes
// CHECK-NEXT: %[[E:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: nova.exp
// CHECK: %[[Y:.*]] = nova_tile.fusion pointwise(%{{.*}}, %[[E]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: nova.mul
// CHECK-NEXT: nova.abs
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[Y]], %[[E]]
func.func @shapes(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %e = nova.exp %b : tensor<8xf32>
  %m = nova.mul %x, %e : tensor<4x8xf32>, tensor<8xf32>
  %y = nova.abs %m : tensor<4x8xf32>
  return %y, %e : tensor<4x8xf32>, tensor<8xf32>
}

// cmp, select and cast fuse; the i1 mask stays inside the kernel.
// CHECK-LABEL: func.func @compare_select
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xbf16> {
// CHECK: nova.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: nova.cmp gt
// CHECK-NEXT: nova.select
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @compare_select(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %zero = nova.constant dense<0.0> : tensor<f32>
  %m = nova.cmp gt, %x, %zero : tensor<4x8xf32>, tensor<f32>
  %s = nova.select %m, %x, %zero : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  %c = nova.cast %s : tensor<4x8xf32> to tensor<4x8xbf16>
  return %c : tensor<4x8xbf16>
}

// A constant that a non-elementwise op also reads stays outside as well.
// CHECK-LABEL: func.func @shared_constant
// CHECK-NEXT: %[[W:.*]] = nova.constant dense<2.000000e+00> : tensor<8x8xf32>
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion pointwise(%{{.*}}) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
// CHECK: nova.constant dense<2.000000e+00> : tensor<8x8xf32>
// CHECK-NEXT: nova.add
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: nova_tile.fusion matmul(%[[G]], %[[W]])
func.func @shared_constant(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %w = nova.constant dense<2.0> : tensor<8x8xf32>
  %a = nova.add %x, %w : tensor<8x8xf32>, tensor<8x8xf32>
  %m = nova.matmul %a, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// A constant of several values is read from memory like any input.
// CHECK-LABEL: func.func @table_constant
// CHECK-NEXT: %[[K:.*]] = nova.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion pointwise(%{{.*}}, %[[K]]) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32> {
// CHECK-NOT: nova.constant
// CHECK: nova_tile.yield
func.func @table_constant(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %k = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = nova.mul %x, %k : tensor<3x2xf32>, tensor<2xf32>
  %e = nova.exp %a : tensor<3x2xf32>
  return %e : tensor<3x2xf32>
}

// Paths through a kernel count as a whole. Both scalar kernels read the
// total %k: the reciprocal feeds the row kernel's %w (through a reshape and a
// broadcast) and the neg reads that kernel's total %t. No op-level path
// leads from the reciprocal to the neg (%w and %t are separate ops of the
// kernel), but merging the two scalar kernels would put the big kernel both
// after and before the merged one.
// CHECK-LABEL: func.func @path_through_group
// CHECK-NEXT: %[[K:.*]] = nova_tile.fusion column_reduction
// CHECK: %[[R:.*]] = nova_tile.fusion pointwise(%[[K]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.reciprocal
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[RR:.*]] = nova.reshape %[[R]]
// CHECK-NEXT: %[[G:.*]]:3 = nova_tile.fusion column_reduction(%{{.*}}, %[[RR]])
// CHECK: %[[S:.*]] = nova_tile.fusion pointwise(%[[G]]#1, %[[K]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.neg
// CHECK-NEXT: nova.div
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[S]]
func.func @path_through_group(%x: tensor<4x8xf32>, %m: tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %k = nova.reduce sum %m dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %e = nova.exp %x : tensor<4x8xf32>
  %t = nova.reduce sum %e dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %r = nova.reciprocal %k : tensor<f32>
  %rr = nova.reshape %r : tensor<f32> -> tensor<1x1xf32>
  %rb = nova.broadcast %rr : tensor<1x1xf32> -> tensor<4x8xf32>
  %w = nova.mul %e, %rb : tensor<4x8xf32>, tensor<4x8xf32>
  %a = nova.neg %t : tensor<f32>
  %b = nova.div %a, %k : tensor<f32>, tensor<f32>
  return %b, %w, %e : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
}
