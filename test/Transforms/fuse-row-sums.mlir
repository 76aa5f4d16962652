// nova-fuse's row-sum distribution on LayerNorm's backward as autodiff
// writes it (the GPT-2 step's kernel, at 4 x 8 rows of 32): the second row
// sum, of dxhat = g rstd + 2 c xc with c made from the first one, sum(g xc),
// becomes rstd sum(g) + 2 c sum(xc), so no row sum of the kernel reads
// another's result and the kernel reads its rows once for its reductions.
// RUN: nova-opt %s --nova-fuse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: nova-opt %s --nova-fuse=distribute-row-sums=false | FileCheck %s --check-prefix=KEPT
// The rewritten kernel computes what the function did, in the interpreter
// on random inputs (sums in another order: within f32 rounding).
// RUN: nova-run %s --entry ln_backward --random-inputs 5 --save-inputs %t.in -o %t.out
// RUN: nova-run %t.mlir --entry ln_backward --inputs %t.in --compare %t.out --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH

// CHECK-LABEL: func.func @ln_backward
// CHECK: nova_tile.fusion row_reduction
// CHECK: ^bb0(%[[R:[^:]*]]: tensor<4x8x1xf32>, %[[DY:[^:]*]]: tensor<4x8x32xf32>, %[[XC:[^:]*]]: tensor<4x8x32xf32>, %[[GAMMA:[^:]*]]: tensor<32xf32>
// CHECK: %[[G:.*]] = nova.mul %[[DY]], %[[GAMMA]]
// CHECK: %[[GX:.*]] = nova.mul %[[G]], %[[XC]]
// CHECK: nova.reduce sum %[[GX]] dims [2] keep_dims
// The second sum, from sums of g and xc (each read once: no duplicate).
// CHECK: %[[SG:.*]] = nova.reduce sum %[[G]] dims [2] keep_dims
// CHECK: %[[SGR:.*]] = nova.mul %[[SG]], %[[R]]
// CHECK: nova.neg %[[SGR]]
// CHECK: %[[SX:.*]] = nova.reduce sum %[[XC]] dims [2] keep_dims
// CHECK: nova.sub
// CHECK-NOT: dims [2]
// CHECK: nova_tile.yield
// KEPT: %[[NEG:.*]] = nova.neg %{{.*}} : tensor<4x8x32xf32>
// KEPT: nova.reduce sum %[[NEG]] dims [2] keep_dims
// SAME: match
func.func @ln_backward(%dy: tensor<4x8x32xf32>, %gamma: tensor<32xf32>, %rstd: tensor<4x8x1xf32>, %xc: tensor<4x8x32xf32>, %dres: tensor<4x8x32xf32>) -> (tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<4x8x32xf32>) {
  %half = nova.constant dense<-5.000000e-01> : tensor<f32>
  %inv = nova.constant dense<3.125000e-02> : tensor<f32>
  %r2 = nova.mul %rstd, %rstd : tensor<4x8x1xf32>, tensor<4x8x1xf32>
  %r3 = nova.mul %rstd, %r2 : tensor<4x8x1xf32>, tensor<4x8x1xf32>
  %k = nova.mul %r3, %half : tensor<4x8x1xf32>, tensor<f32>
  %xhat = nova.mul %xc, %rstd : tensor<4x8x32xf32>, tensor<4x8x1xf32>
  %dbeta = nova.reduce sum %dy dims [0, 1] keep_dims : tensor<4x8x32xf32> -> tensor<1x1x32xf32>
  %g = nova.mul %dy, %gamma : tensor<4x8x32xf32>, tensor<32xf32>
  %dyx = nova.mul %dy, %xhat : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %dgamma = nova.reduce sum %dyx dims [0, 1] keep_dims : tensor<4x8x32xf32> -> tensor<1x1x32xf32>
  %gr = nova.mul %g, %rstd : tensor<4x8x32xf32>, tensor<4x8x1xf32>
  %gx = nova.mul %g, %xc : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %s1 = nova.reduce sum %gx dims [2] keep_dims : tensor<4x8x32xf32> -> tensor<4x8x1xf32>
  %c0 = nova.mul %s1, %k : tensor<4x8x1xf32>, tensor<4x8x1xf32>
  %c = nova.mul %c0, %inv : tensor<4x8x1xf32>, tensor<f32>
  %cb = nova.broadcast %c : tensor<4x8x1xf32> -> tensor<4x8x32xf32>
  %cx = nova.mul %cb, %xc : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %t = nova.add %gr, %cx : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %dxhat = nova.add %t, %cx : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %negd = nova.neg %dxhat : tensor<4x8x32xf32>
  %s2 = nova.reduce sum %negd dims [2] keep_dims : tensor<4x8x32xf32> -> tensor<4x8x1xf32>
  %acc = nova.add %dres, %dxhat : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %m = nova.mul %s2, %inv : tensor<4x8x1xf32>, tensor<f32>
  %mb = nova.broadcast %m : tensor<4x8x1xf32> -> tensor<4x8x32xf32>
  %dx = nova.add %acc, %mb : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  return %dbeta, %dgamma, %dx : tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<4x8x32xf32>
}

// Sums that read a row reduction other than linearly stay: softmax's sum
// of exp(x - max) (the online-max rule handles it in the emitter), and a
// sum whose scaled term itself reads the row sum.
// CHECK-LABEL: func.func @kept
// CHECK: %[[MAX:.*]] = nova.reduce max %{{.*}} dims [1] keep_dims
// CHECK: %[[E:.*]] = nova.exp
// CHECK: nova.reduce sum %[[E]] dims [1] keep_dims
// CHECK: %[[S:.*]] = nova.reduce sum %[[X:[^ ]*]] dims [1] keep_dims
// CHECK: %[[C:.*]] = nova.sub %[[X]], %{{.*}}
// CHECK: %[[SQ:.*]] = nova.mul %[[C]], %[[C]]
// CHECK: nova.reduce sum %[[SQ]] dims [1] keep_dims
// RUN: nova-run %s --entry kept --random-inputs 6 --save-inputs %t.kept.in -o %t.kept.out
// RUN: nova-run %t.mlir --entry kept --inputs %t.kept.in --compare %t.kept.out --rtol 1e-6 --atol 0 | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
func.func @kept(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x1xf32>) {
  %max = nova.reduce max %x dims [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %d = nova.sub %x, %max : tensor<8x32xf32>, tensor<8x1xf32>
  %e = nova.exp %d : tensor<8x32xf32>
  %sum = nova.reduce sum %e dims [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %p = nova.div %e, %sum : tensor<8x32xf32>, tensor<8x1xf32>
  %s = nova.reduce sum %x dims [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %inv = nova.constant dense<3.125000e-02> : tensor<f32>
  %mean = nova.mul %s, %inv : tensor<8x1xf32>, tensor<f32>
  %c = nova.sub %x, %mean : tensor<8x32xf32>, tensor<8x1xf32>
  %sq = nova.mul %c, %c : tensor<8x32xf32>, tensor<8x32xf32>
  %var = nova.reduce sum %sq dims [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  return %p, %var : tensor<8x32xf32>, tensor<8x1xf32>
}
