// nova-fuse on reductions, views and the optimizer update: which ops share
// a kernel, of which family. Each function is written from primitives.
// RUN: nova-opt %s --nova-fuse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// A second run finds nothing left to fuse.
// RUN: nova-opt %t.mlir --nova-fuse | FileCheck %s
// Every group passes its family's contract: the fused module verifies.
// RUN: nova-opt %t.mlir --verify-diagnostics -o %t.verified.mlir
// Each kernel's contract: how it reads its inputs and writes its outputs
// (the README shows the LayerNorm backward line).
// RUN: nova-opt %s --nova-fuse --nova-print-hash -o %t.hash.mlir | FileCheck %s --check-prefix=CONTRACT
// CONTRACT: fusion #0 row_reduction {{[0-9a-f]+}} space 8x8 in [elementwise, elementwise, per-column, per-column] out [elementwise, elementwise]
// CONTRACT: fusion #2 row_reduction {{[0-9a-f]+}} space 4x10 in [elementwise, per-row] out [scalar, elementwise]
// CONTRACT: fusion #4 row_reduction 1c518089e03fb89fd84152796d801463 space 8x8 in [elementwise, per-column, elementwise, per-row] out [elementwise, per-column, per-column]
// (The matmuls are kernels of their own since the matmul phase: #5, #7, #8,
// #10 and the grouped GEMM #11 that reads P and its transpose as views.)
// CONTRACT: fusion #6 column_reduction {{[0-9a-f]+}} space 8x16 in [elementwise, elementwise] out [elementwise, per-column]
// CONTRACT: fusion #9 column_reduction {{[0-9a-f]+}} space 8x16 in [elementwise, elementwise] out [per-column, per-column]
// CONTRACT: fusion #11 matmul {{[0-9a-f]+}} space 1x8x8x8 in [matmul-lhs(T)@0[1,8], matmul-rhs@0[16,1]] out [elementwise, elementwise] | gemm 1x8x8x8 reads #0@0[1,8] #0@0[8,1] | gemm 1x8x16x8 reads #0@0[8,1] #1@0[16,1]
// CONTRACT: fusion #12 row_reduction {{[0-9a-f]+}} space 8x8 in [elementwise, transposed(1,0), sliced(0,1,8,16,1,2)] out [elementwise, per-row, elementwise]
// CONTRACT: fusion #13 optimizer {{[0-9a-f]+}} space 40 in [elementwise, elementwise] out [scalar, scalar]
// CONTRACT: fusion #14 optimizer {{[0-9a-f]+}} space 40 in [scalar, scalar, {{.*}}] out [elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, elementwise]
// The interpreter gives the same outputs before and after on fresh inputs.
// RUN: for f in layer_norm softmax cross_entropy layer_norm_backward bias_grad dgamma_dbeta views optimizer recompute middle_dim softmax_op saved_value batch_sum dead_code; do \
// RUN:   nova-run %s --entry $f --random-inputs 13 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 1e-6 --atol 0 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// Residual add, then LayerNorm from primitives (mean, variance, rsqrt,
// weight, bias) and the bf16 copy a matmul reads: one row kernel that loops
// over each row three times.
// CHECK-LABEL: func.func @layer_norm
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion row_reduction(%{{.*}}) : ({{.*}}) -> (tensor<2x4x8xf32>, tensor<2x4x8xbf16>) {
// CHECK: %[[R:.*]] = nova.add
// CHECK-NEXT: nova.reduce sum %[[R]] dims [2] keep_dims
// CHECK: nova.reduce sum %{{.*}} dims [2] keep_dims
// CHECK: nova.rsqrt
// CHECK: %[[Y:.*]] = nova.cast
// CHECK-NEXT: nova_tile.yield %[[R]], %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#0, %[[G]]#1
func.func @layer_norm(%x: tensor<2x4x8xf32>, %h: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xbf16>) {
  %inv = nova.constant dense<0.125> : tensor<f32>
  %eps = nova.constant dense<1.0e-5> : tensor<f32>
  %r = nova.add %x, %h : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %s = nova.reduce sum %r dims [2] keep_dims : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %mean = nova.mul %s, %inv : tensor<2x4x1xf32>, tensor<f32>
  %c = nova.sub %r, %mean : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %sq = nova.mul %c, %c : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %vs = nova.reduce sum %sq dims [2] keep_dims : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %var = nova.mul %vs, %inv : tensor<2x4x1xf32>, tensor<f32>
  %ve = nova.add %var, %eps : tensor<2x4x1xf32>, tensor<f32>
  %rs = nova.rsqrt %ve : tensor<2x4x1xf32>
  %n = nova.mul %c, %rs : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %ng = nova.mul %n, %g : tensor<2x4x8xf32>, tensor<8xf32>
  %y = nova.add %ng, %b : tensor<2x4x8xf32>, tensor<8xf32>
  %yb = nova.cast %y : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
  return %r, %yb : tensor<2x4x8xf32>, tensor<2x4x8xbf16>
}

// Softmax from primitives: max, shift, exp, sum, divide.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion row_reduction(%{{.*}}) : (tensor<3x5x16xf32>) -> tensor<3x5x16xf32> {
// CHECK: nova.reduce max
// CHECK: %[[S:.*]] = nova.reduce sum
// CHECK-NEXT: %[[SR:.*]] = nova.reshape %[[S]] : tensor<3x5xf32> -> tensor<3x5x1xf32>
// CHECK-NEXT: %[[P:.*]] = nova.div %{{.*}}, %[[SR]]
// CHECK-NEXT: nova_tile.yield %[[P]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @softmax(%x: tensor<3x5x16xf32>) -> tensor<3x5x16xf32> {
  %e0 = nova.neg %x : tensor<3x5x16xf32>
  %a = nova.tanh %e0 : tensor<3x5x16xf32>
  %m = nova.reduce max %a dims [2] keep_dims : tensor<3x5x16xf32> -> tensor<3x5x1xf32>
  %d = nova.sub %a, %m : tensor<3x5x16xf32>, tensor<3x5x1xf32>
  %e = nova.exp %d : tensor<3x5x16xf32>
  %s = nova.reduce sum %e dims [2] : tensor<3x5x16xf32> -> tensor<3x5xf32>
  %sr = nova.reshape %s : tensor<3x5xf32> -> tensor<3x5x1xf32>
  %p = nova.div %e, %sr : tensor<3x5x16xf32>, tensor<3x5x1xf32>
  return %p : tensor<3x5x16xf32>
}

// Cross-entropy from primitives, forward and gradient in one row kernel:
// log-softmax, the label's log-probability picked with iota and a compare,
// the total over every row (yielded as it is), and softmax minus one-hot.
// The mean reads that total, so it is a small kernel of its own.
// CHECK-LABEL: func.func @cross_entropy
// CHECK-NEXT: %[[LAB:.*]] = nova.reshape
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion row_reduction(%{{.*}}, %[[LAB]]) : (tensor<4x10xf32>, tensor<4x1xi32>) -> (tensor<f32>, tensor<4x10xf32>) {
// CHECK: nova.reduce max
// CHECK: nova.reduce sum %{{.*}} dims [1] keep_dims
// CHECK: nova.iota
// CHECK: %[[TOT:.*]] = nova.reduce sum %{{.*}} dims [0, 1]
// CHECK: %[[GR:.*]] = nova.mul
// CHECK-NEXT: nova_tile.yield %[[TOT]], %[[GR]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[L:.*]] = nova_tile.fusion pointwise(%[[G]]#0) : (tensor<f32>) -> tensor<f32> {
// CHECK: nova.neg
// CHECK: nova.mul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[L]], %[[G]]#1
func.func @cross_entropy(%logits: tensor<4x10xf32>, %labels: tensor<4xi32>) -> (tensor<f32>, tensor<4x10xf32>) {
  %zero = nova.constant dense<0.0> : tensor<f32>
  %quarter = nova.constant dense<0.25> : tensor<f32>
  %mx = nova.reduce max %logits dims [1] keep_dims : tensor<4x10xf32> -> tensor<4x1xf32>
  %sh = nova.sub %logits, %mx : tensor<4x10xf32>, tensor<4x1xf32>
  %ex = nova.exp %sh : tensor<4x10xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<4x10xf32> -> tensor<4x1xf32>
  %lse = nova.log %se : tensor<4x1xf32>
  %lp = nova.sub %sh, %lse : tensor<4x10xf32>, tensor<4x1xf32>
  %lab = nova.reshape %labels : tensor<4xi32> -> tensor<4x1xi32>
  %io = nova.iota dim 1 : tensor<4x10xi32>
  %oh = nova.cmp eq, %io, %lab : tensor<4x10xi32>, tensor<4x1xi32>
  %pick = nova.select %oh, %lp, %zero : tensor<4x10xi1>, tensor<4x10xf32>, tensor<f32>
  %tot = nova.reduce sum %pick dims [0, 1] : tensor<4x10xf32> -> tensor<f32>
  %nl = nova.neg %tot : tensor<f32>
  %loss = nova.mul %nl, %quarter : tensor<f32>, tensor<f32>
  %p = nova.div %ex, %se : tensor<4x10xf32>, tensor<4x1xf32>
  %ohf = nova.cast %oh : tensor<4x10xi1> to tensor<4x10xf32>
  %gr = nova.sub %p, %ohf : tensor<4x10xf32>, tensor<4x10xf32>
  %gs = nova.mul %gr, %quarter : tensor<4x10xf32>, tensor<f32>
  return %loss, %gs : tensor<f32>, tensor<4x10xf32>
}

// LayerNorm backward from primitives: dx needs two sums along each row;
// dgamma and dbeta are column sums of the same rows. All in one row kernel,
// the column sums leaving it as per-column results.
// CHECK-LABEL: func.func @layer_norm_backward
// CHECK-NEXT: %[[G:.*]]:3 = nova_tile.fusion row_reduction(%{{.*}}) : ({{.*}}) -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2x4x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<2x4x8xf32>, %[[RS:.*]]: tensor<2x4x1xf32>):
// CHECK-COUNT-2: nova.reduce sum %{{.*}} dims [2] keep_dims
// CHECK: %[[DX:.*]] = nova.mul %{{.*}}, %[[RS]] : tensor<2x4x8xf32>, tensor<2x4x1xf32>
// CHECK: %[[DG:.*]] = nova.reduce sum %{{.*}} dims [0, 1] : tensor<2x4x8xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[DB:.*]] = nova.reduce sum %{{.*}} dims [0, 1] : tensor<2x4x8xf32> -> tensor<8xf32>
// CHECK-NEXT: nova_tile.yield %[[DX]], %[[DG]], %[[DB]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @layer_norm_backward(%dy: tensor<2x4x8xf32>, %xhat: tensor<2x4x8xf32>, %rstd: tensor<2x4x1xf32>, %g: tensor<8xf32>)
    -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %inv = nova.constant dense<0.125> : tensor<f32>
  %dxh = nova.mul %dy, %g : tensor<2x4x8xf32>, tensor<8xf32>
  %a = nova.reduce sum %dxh dims [2] keep_dims : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %am = nova.mul %a, %inv : tensor<2x4x1xf32>, tensor<f32>
  %p = nova.mul %dxh, %xhat : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %b = nova.reduce sum %p dims [2] keep_dims : tensor<2x4x8xf32> -> tensor<2x4x1xf32>
  %bm = nova.mul %b, %inv : tensor<2x4x1xf32>, tensor<f32>
  %t0 = nova.sub %dxh, %am : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %t1 = nova.mul %xhat, %bm : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %t2 = nova.sub %t0, %t1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %dx = nova.mul %t2, %rstd : tensor<2x4x8xf32>, tensor<2x4x1xf32>
  %q = nova.mul %dy, %xhat : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %dg = nova.reduce sum %q dims [0, 1] : tensor<2x4x8xf32> -> tensor<8xf32>
  %db = nova.reduce sum %dy dims [0, 1] : tensor<2x4x8xf32> -> tensor<8xf32>
  return %dx, %dg, %db : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A linear layer's backward through tanh: the elementwise gradient and the
// bias gradient (its column sum) in one column kernel; the matmul reads the
// elementwise gradient. (The column kernel already holds the bias gradient
// with its producer, so the matmul phase leaves both GEMMs single kernels.)
// CHECK-LABEL: func.func @bias_grad
// CHECK-NEXT: %[[UP:.*]] = nova_tile.fusion matmul(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion column_reduction(%{{.*}}, %[[UP]]) : ({{.*}}) -> (tensor<8x16xf32>, tensor<16xf32>) {
// CHECK: nova.tanh
// CHECK-NEXT: nova.mul
// CHECK-NEXT: nova.constant
// CHECK-NEXT: nova.sub
// CHECK-NEXT: %[[GZ:.*]] = nova.mul
// CHECK-NEXT: %[[DB:.*]] = nova.reduce sum %[[GZ]] dims [0]
// CHECK-NEXT: nova_tile.yield %[[GZ]], %[[DB]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[DX:.*]] = nova_tile.fusion matmul(%[[G]]#0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul %{{.*}}, %{{.*}} transpose_rhs
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[DX]], %[[G]]#1
func.func @bias_grad(%dy: tensor<8x16xf32>, %w: tensor<16x16xf32>, %h: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>) {
  %one = nova.constant dense<1.0> : tensor<f32>
  %up = nova.matmul %dy, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %t = nova.tanh %h : tensor<8x16xf32>
  %t2 = nova.mul %t, %t : tensor<8x16xf32>, tensor<8x16xf32>
  %d = nova.sub %one, %t2 : tensor<f32>, tensor<8x16xf32>
  %gz = nova.mul %up, %d : tensor<8x16xf32>, tensor<8x16xf32>
  %db = nova.reduce sum %gz dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  %dx = nova.matmul %gz, %w transpose_rhs : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  return %dx, %db : tensor<8x16xf32>, tensor<16xf32>
}

// Two column sums of the same rows, connected only by reading them:
// horizontal fusion puts them in one kernel.
// CHECK-LABEL: func.func @dgamma_dbeta
// CHECK-NEXT: %[[DY:.*]] = nova_tile.fusion matmul(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion column_reduction(%[[DY]], %{{.*}}) : ({{.*}}) -> (tensor<1x16xf32>, tensor<16xf32>) {
// CHECK: nova.reduce sum %{{.*}} dims [0] keep_dims
// CHECK-NEXT: nova.mul
// CHECK-NEXT: nova.reduce sum %{{.*}} dims [0] :
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#0, %[[G]]#1
func.func @dgamma_dbeta(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %xhat: tensor<8x16xf32>) -> (tensor<1x16xf32>, tensor<16xf32>) {
  %dy = nova.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %db = nova.reduce sum %dy dims [0] keep_dims : tensor<8x16xf32> -> tensor<1x16xf32>
  %q = nova.mul %dy, %xhat : tensor<8x16xf32>, tensor<8x16xf32>
  %dg = nova.reduce sum %q dims [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %db, %dg : tensor<1x16xf32>, tensor<16xf32>
}

// Views of computed tensors: the kernel reads the transpose and the slice
// as input accesses instead of copying them first. The matmul phase reads
// the transpose as a view too, and groups the two GEMMs that read P into
// one kernel (horizontal fusion), so no copy of the transpose is left.
// CHECK-LABEL: func.func @views
// CHECK-NEXT: %[[P:.*]] = nova_tile.fusion matmul(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]]:2 = nova_tile.fusion matmul(%[[P]], %arg2)
// CHECK-NEXT: ^bb0(%[[MP:.*]]: tensor<8x8xf32>, %[[MY:.*]]: tensor<8x16xf32>):
// CHECK-NEXT: %[[PT:.*]] = nova.transpose %[[MP]] [1, 0]
// CHECK-NEXT: %[[Q:.*]] = nova.matmul %[[PT]], %[[MP]]
// CHECK-NEXT: %[[YY:.*]] = nova.matmul %[[MP]], %[[MY]]
// CHECK-NEXT: nova_tile.yield %[[Q]], %[[YY]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]]:3 = nova_tile.fusion row_reduction(%[[M]]#0, %[[P]], %[[M]]#1) : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>) -> ({{.*}}) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x8xf32>, %[[PA:.*]]: tensor<8x8xf32>, %[[YA:.*]]: tensor<8x16xf32>):
// CHECK-NEXT: nova.transpose %[[PA]] [1, 0]
// CHECK-NEXT: nova.slice %[[YA]] starts [0, 1]
// CHECK: nova.reduce max
// CHECK: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @views(%x: tensor<8x4xf32>, %w: tensor<4x8xf32>, %y: tensor<8x16xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) {
  %p = nova.matmul %x, %w : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  %pt = nova.transpose %p [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %q = nova.matmul %pt, %p : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %yy = nova.matmul %p, %y : tensor<8x8xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %ys = nova.slice %yy starts [0, 1] limits [8, 16] strides [1, 2] : tensor<8x16xf32> -> tensor<8x8xf32>
  %s = nova.add %pt, %ys : tensor<8x8xf32>, tensor<8x8xf32>
  %e = nova.exp %s : tensor<8x8xf32>
  %r = nova.reduce max %e dims [1] : tensor<8x8xf32> -> tensor<8xf32>
  %z = nova.sub %q, %ys : tensor<8x8xf32>, tensor<8x8xf32>
  return %e, %z, %r : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>
}

// AdamW over two tensors with global-norm clipping and bf16 working copies:
// the clipping scale, both updates and both casts are one optimizer kernel;
// the two sums of squares are one multi-tensor kernel before it.
// CHECK-LABEL: func.func @optimizer
// CHECK-NEXT: %[[S:.*]]:2 = nova_tile.fusion optimizer(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<f32>, tensor<f32>) {
// CHECK: nova.mul
// CHECK-NEXT: nova.reduce sum %{{.*}} dims [0, 1]
// CHECK-NEXT: nova.mul
// CHECK-NEXT: nova.reduce sum %{{.*}} dims [0]
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[U:.*]]:8 = nova_tile.fusion optimizer(%[[S]]#0, %[[S]]#1, {{.*}}) : ({{.*}}) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>) {
// CHECK: nova.add
// CHECK-NEXT: nova.sqrt
// CHECK: nova.div
// CHECK-NEXT: nova.min
// CHECK-NEXT: nova.mul
// CHECK-NEXT: nova.mul
// CHECK-NEXT: nova.adamw
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.adamw
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[U]]#0
func.func @optimizer(%p1: tensor<4x8xf32>, %g1: tensor<4x8xf32>, %m1: tensor<4x8xf32>, %v1: tensor<4x8xf32>,
                     %p2: tensor<8xf32>, %g2: tensor<8xf32>, %m2: tensor<8xf32>, %v2: tensor<8xf32>,
                     %step: tensor<i64>, %lr: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>) {
  %one = nova.constant dense<1.0> : tensor<f32>
  %n1 = nova.mul %g1, %g1 : tensor<4x8xf32>, tensor<4x8xf32>
  %s1 = nova.reduce sum %n1 dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %n2 = nova.mul %g2, %g2 : tensor<8xf32>, tensor<8xf32>
  %s2 = nova.reduce sum %n2 dims [0] : tensor<8xf32> -> tensor<f32>
  %s = nova.add %s1, %s2 : tensor<f32>, tensor<f32>
  %norm = nova.sqrt %s : tensor<f32>
  %c = nova.div %one, %norm : tensor<f32>, tensor<f32>
  %scale = nova.min %c, %one : tensor<f32>, tensor<f32>
  %c1 = nova.mul %g1, %scale : tensor<4x8xf32>, tensor<f32>
  %c2 = nova.mul %g2, %scale : tensor<8xf32>, tensor<f32>
  %q1:3 = nova.adamw %p1, %c1, %m1, %v1, %step, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<4x8xf32>, tensor<i64>
  %w1 = nova.cast %q1#0 : tensor<4x8xf32> to tensor<4x8xbf16>
  %q2:3 = nova.adamw %p2, %c2, %m2, %v2, %step, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<8xf32>, tensor<i64>
  %w2 = nova.cast %q2#0 : tensor<8xf32> to tensor<8xbf16>
  return %q1#0, %q1#1, %q1#2, %w1, %q2#0, %q2#1, %q2#2, %w2
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>
}

// A parameter's cast read by two kernels is recomputed in each instead of
// being a kernel of its own (the second is the matmul's epilogue).
// CHECK-LABEL: func.func @recompute
// CHECK-NEXT: %[[R:.*]] = nova_tile.fusion row_reduction(%{{.*}}, %[[GA:.*]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xbf16> {
// CHECK: nova.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[Z:.*]] = nova_tile.fusion matmul(%{{.*}}, %{{.*}}, %[[GA]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK-NEXT: nova.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]], %[[Z]]
func.func @recompute(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %gb = nova.cast %g : tensor<8xf32> to tensor<8xbf16>
  %xb = nova.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %m = nova.reduce max %xb dims [1] keep_dims : tensor<4x8xbf16> -> tensor<4x1xbf16>
  %d = nova.sub %xb, %m : tensor<4x8xbf16>, tensor<4x1xbf16>
  %y = nova.mul %d, %gb : tensor<4x8xbf16>, tensor<8xbf16>
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %pb = nova.cast %p : tensor<4x8xf32> to tensor<4x8xbf16>
  %z = nova.add %pb, %gb : tensor<4x8xbf16>, tensor<8xbf16>
  return %y, %z : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// A reduction over a middle dim has no kernel family here: it stays as it
// is, between the kernels of its producer (the matmul with the exp as its
// epilogue) and its consumer.
// CHECK-LABEL: func.func @middle_dim
// CHECK-NEXT: %[[E:.*]] = nova_tile.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.exp
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.*]] = nova.reduce sum %[[E]] dims [1]
// CHECK-NEXT: nova_tile.fusion pointwise(%[[S]])
func.func @middle_dim(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<2x8xf32> {
  %p = nova.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %e = nova.exp %p : tensor<2x4x8xf32>
  %s = nova.reduce sum %e dims [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %n = nova.neg %s : tensor<2x8xf32>
  return %n : tensor<2x8xf32>
}

// The softmax composite joins its producer and consumer like a reduction.
// CHECK-LABEL: func.func @softmax_op
// CHECK-NEXT: %[[P:.*]] = nova_tile.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion row_reduction(%[[P]])
// CHECK: nova.mul
// CHECK-NEXT: nova.softmax
// CHECK-NEXT: nova.log
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @softmax_op(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %half = nova.constant dense<0.5> : tensor<f32>
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = nova.mul %p, %half : tensor<4x8xf32>, tensor<f32>
  %y = nova.softmax %s dim 1 : tensor<4x8xf32>
  %l = nova.log %y : tensor<4x8xf32>
  return %l : tensor<4x8xf32>
}

// A value the forward kernel computes from two of its other outputs (x̂ =
// (x - mean) * rstd) and that only a backward kernel reads, which reads both
// anyway: the backward kernel recomputes it and the forward kernel no
// longer writes it, so it is not saved in between.
// CHECK-LABEL: func.func @saved_value
// CHECK-NEXT: nova_tile.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F:.*]]:3 = nova_tile.fusion row_reduction(%{{.*}}) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x8xf32>) {
// CHECK: %[[XC:.*]] = nova.sub
// CHECK: %[[RS:.*]] = nova.rsqrt
// CHECK-NEXT: %[[XH:.*]] = nova.mul %[[XC]], %[[RS]]
// CHECK-NEXT: nova.constant
// CHECK-NEXT: %[[Y:.*]] = nova.mul %[[XH]], %{{.*}}
// CHECK-NEXT: nova_tile.yield %[[XC]], %[[RS]], %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[DY:.*]] = nova_tile.fusion matmul(%[[F]]#2, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[B:.*]] = nova_tile.fusion row_reduction(%[[DY]], %[[F]]#1, %[[F]]#0)
// CHECK-NEXT: ^bb0(%[[DA:.*]]: tensor<4x8xf32>, %[[RA:.*]]: tensor<4x1xf32>, %[[XA:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[XH2:.*]] = nova.mul %[[XA]], %[[RA]]
// CHECK: nova.mul %[[DA]], %[[XH2]]
// CHECK: return
func.func @saved_value(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %inv = nova.constant dense<0.125> : tensor<f32>
  %eps = nova.constant dense<1.0e-5> : tensor<f32>
  %two = nova.constant dense<2.0> : tensor<f32>
  %x2 = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %s = nova.reduce sum %x2 dims [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
  %mean = nova.mul %s, %inv : tensor<4x1xf32>, tensor<f32>
  %xc = nova.sub %x2, %mean : tensor<4x8xf32>, tensor<4x1xf32>
  %sq = nova.mul %xc, %xc : tensor<4x8xf32>, tensor<4x8xf32>
  %vs = nova.reduce sum %sq dims [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
  %var = nova.mul %vs, %inv : tensor<4x1xf32>, tensor<f32>
  %ve = nova.add %var, %eps : tensor<4x1xf32>, tensor<f32>
  %rs = nova.rsqrt %ve : tensor<4x1xf32>
  %xh = nova.mul %xc, %rs : tensor<4x8xf32>, tensor<4x1xf32>
  %y = nova.mul %xh, %two : tensor<4x8xf32>, tensor<f32>
  %dy = nova.matmul %y, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g = nova.mul %dy, %xh : tensor<4x8xf32>, tensor<4x8xf32>
  %a = nova.mul %dy, %rs : tensor<4x8xf32>, tensor<4x1xf32>
  %r = nova.reduce sum %g dims [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
  %b = nova.mul %xc, %r : tensor<4x8xf32>, tensor<4x1xf32>
  %dx = nova.sub %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  return %dx, %y : tensor<4x8xf32>, tensor<4x8xf32>
}

// A sum over the batch dim alone (a position embedding's gradient): a column
// reduction whose columns span the two other dims, with its producer.
// CHECK-LABEL: func.func @batch_sum
// CHECK-NEXT: nova_tile.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion column_reduction(%{{.*}}) : (tensor<2x4x8xf32>) -> tensor<1x4x8xf32> {
// CHECK: nova.tanh
// CHECK-NEXT: nova.reduce sum %{{.*}} dims [0] keep_dims
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @batch_sum(%x: tensor<2x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %p = nova.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %t = nova.tanh %p : tensor<2x4x8xf32>
  %s = nova.reduce sum %t dims [0] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x8xf32>
  return %s : tensor<1x4x8xf32>
}

// Elementwise ops and a reduction that nothing reads are dead: they form no
// kernel (one without outputs would break its contract) and disappear. The
// live tanh is the matmul's epilogue.
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.tanh
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
func.func @dead_code(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %e = nova.exp %p : tensor<4x8xf32>
  %s = nova.reduce sum %e dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %n = nova.neg %s : tensor<4xf32>
  %t = nova.tanh %p : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
