// nova-collapse-attention: each way of writing attention from primitives
// becomes one nova.attention (also after nova-decompose has expanded every
// softmax), and computes what it computed before; the look-alikes at the end
// stay as they are and stay correct.
// RUN: nova-opt %s --nova-collapse-attention -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: nova-opt %s --nova-decompose --nova-collapse-attention | FileCheck %s
// RUN: for f in select_iota pretransposed_add_mask scale_on_q_broadcast_iotas mask_then_scale constant_mask anti_select grouped_heads not_causal round_trip \
// RUN:          strict_mask per_row_scale query_softmax scores_returned upper_mask negative_scale; do \
// RUN:   nova-run %s --entry $f --random-inputs 3 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 1e-5 --atol 1e-6 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME-COUNT-16: match

// CHECK-LABEL: func.func @select_iota
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 2.500000e-01 causal : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @select_iota(%q: tensor<2x5x3xf32>, %k: tensor<2x5x3xf32>, %v: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<2x5x3xf32>, tensor<2x5x3xf32> -> tensor<2x5x5xf32>
  %c = nova.constant dense<0.25> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<2x5x5xf32>, tensor<f32>
  %i = nova.iota dim 0 : tensor<5x5xi64>
  %j = nova.iota dim 1 : tensor<5x5xi64>
  %keep = nova.cmp le, %j, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %keep, %ss, %ninf : tensor<5x5xi1>, tensor<2x5x5xf32>, tensor<f32>
  %p = nova.softmax %m dim 2 : tensor<2x5x5xf32>
  %o = nova.matmul %p, %v : tensor<2x5x5xf32>, tensor<2x5x4xf32> -> tensor<2x5x4xf32>
  return %o : tensor<2x5x4xf32>
}

// K transposed by nova.transpose, the scale a division, the mask an added
// 0 / -inf constant, softmax already decomposed.
// CHECK-LABEL: func.func @pretransposed_add_mask
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 5.000000e-01 causal
// CHECK-NEXT: return %[[O]]
func.func @pretransposed_add_mask(%q: tensor<3x3xf32>, %k: tensor<3x3xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %kt = nova.transpose %k [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  %s = nova.matmul %q, %kt : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %c = nova.constant dense<2.0> : tensor<1x1xf32>
  %ss = nova.div %s, %c : tensor<3x3xf32>, tensor<1x1xf32>
  %mask = nova.constant dense<[[0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %m = nova.add %ss, %mask : tensor<3x3xf32>, tensor<3x3xf32>
  %mx = nova.reduce max %m dims [1] keep_dims : tensor<3x3xf32> -> tensor<3x1xf32>
  %sh = nova.sub %m, %mx : tensor<3x3xf32>, tensor<3x1xf32>
  %e = nova.exp %sh : tensor<3x3xf32>
  %sum = nova.reduce sum %e dims [1] keep_dims : tensor<3x3xf32> -> tensor<3x1xf32>
  %p = nova.div %e, %sum : tensor<3x3xf32>, tensor<3x1xf32>
  %o = nova.matmul %p, %v : tensor<3x3xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// The scale on q before the product (folded with one after it), iotas that
// broadcast ([T, 1] rows against [1, T] columns), the comparison mirrored.
// CHECK-LABEL: func.func @scale_on_q_broadcast_iotas
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 1.500000e+00 causal
// CHECK-NEXT: return %[[O]]
func.func @scale_on_q_broadcast_iotas(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %half = nova.constant dense<0.5> : tensor<f32>
  %qs = nova.mul %half, %q : tensor<f32>, tensor<2x4x3xf32>
  %s = nova.matmul %qs, %k transpose_rhs : tensor<2x4x3xf32>, tensor<2x4x3xf32> -> tensor<2x4x4xf32>
  %three = nova.constant dense<3.0> : tensor<f32>
  %ss = nova.mul %three, %s : tensor<f32>, tensor<2x4x4xf32>
  %i = nova.iota dim 0 : tensor<4x1xi32>
  %j = nova.iota dim 1 : tensor<1x4xi32>
  %keep = nova.cmp ge, %i, %j : tensor<4x1xi32>, tensor<1x4xi32>
  %ninf = nova.constant dense<0xFF800000> : tensor<1x1x1xf32>
  %m = nova.select %keep, %ss, %ninf : tensor<4x4xi1>, tensor<2x4x4xf32>, tensor<1x1x1xf32>
  %p = nova.softmax %m dim 2 : tensor<2x4x4xf32>
  %o = nova.matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x3xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}

// The mask first, the scale after it.
// CHECK-LABEL: func.func @mask_then_scale
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 1.250000e-01 causal
// CHECK-NEXT: return %[[O]]
func.func @mask_then_scale(%q: tensor<4x4x3xf32>, %k: tensor<4x4x3xf32>, %v: tensor<4x4x2xf32>) -> tensor<4x4x2xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x4x3xf32>, tensor<4x4x3xf32> -> tensor<4x4x4xf32>
  %i = nova.iota dim 0 : tensor<4x4xi64>
  %j = nova.iota dim 1 : tensor<4x4xi64>
  %keep = nova.cmp le, %j, %i : tensor<4x4xi64>, tensor<4x4xi64>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %keep, %s, %ninf : tensor<4x4xi1>, tensor<4x4x4xf32>, tensor<f32>
  %c = nova.constant dense<0.125> : tensor<f32>
  %ms = nova.mul %m, %c : tensor<4x4x4xf32>, tensor<f32>
  %p = nova.softmax %ms dim 2 : tensor<4x4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4x4xf32>, tensor<4x4x2xf32> -> tensor<4x4x2xf32>
  return %o : tensor<4x4x2xf32>
}

// A lower-triangular i1 constant; no scale (1).
// CHECK-LABEL: func.func @constant_mask
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 1.000000e+00 causal
// CHECK-NEXT: return %[[O]]
func.func @constant_mask(%q: tensor<3x2xf32>, %k: tensor<3x2xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<3x3xf32>
  %keep = nova.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %keep, %s, %ninf : tensor<3x3xi1>, tensor<3x3xf32>, tensor<f32>
  %p = nova.softmax %m dim 1 : tensor<3x3xf32>
  %o = nova.matmul %p, %v : tensor<3x3xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// -inf where the key is after the query (j > i), the scores elsewhere.
// CHECK-LABEL: func.func @anti_select
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 5.000000e-01 causal
// CHECK-NEXT: return %[[O]]
func.func @anti_select(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %c = nova.constant dense<0.5> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<4x4xf32>, tensor<f32>
  %i = nova.iota dim 0 : tensor<4x4xi64>
  %j = nova.iota dim 1 : tensor<4x4xi64>
  %masked = nova.cmp lt, %i, %j : tensor<4x4xi64>, tensor<4x4xi64>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %masked, %ninf, %ss : tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>
  %p = nova.softmax %m dim 1 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// Heads split by reshape + transpose from [B, T, H*D]; one key/value head
// shared by the four query heads (grouped-query attention), broadcast by
// the products: the key and value get an explicit broadcast.
// CHECK-LABEL: func.func @grouped_heads
// CHECK: %[[Q:.*]] = nova.transpose
// CHECK-DAG: %[[K:.*]] = nova.broadcast %arg1 : tensor<2x1x5x3xf32> -> tensor<2x4x5x3xf32>
// CHECK-DAG: %[[V:.*]] = nova.broadcast %arg2 : tensor<2x1x5x2xf32> -> tensor<2x4x5x2xf32>
// CHECK: %[[O:.*]] = nova.attention %[[Q]], %[[K]], %[[V]] scale 0.57{{[0-9]*}} causal
// CHECK-NEXT: return %[[O]]
func.func @grouped_heads(%x: tensor<2x5x12xf32>, %k: tensor<2x1x5x3xf32>, %v: tensor<2x1x5x2xf32>) -> tensor<2x4x5x2xf32> {
  %r = nova.reshape %x : tensor<2x5x12xf32> -> tensor<2x5x4x3xf32>
  %q = nova.transpose %r [0, 2, 1, 3] : tensor<2x5x4x3xf32> -> tensor<2x4x5x3xf32>
  %s = nova.matmul %q, %k transpose_rhs : tensor<2x4x5x3xf32>, tensor<2x1x5x3xf32> -> tensor<2x4x5x5xf32>
  %c = nova.constant dense<0.57735026918962584> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<2x4x5x5xf32>, tensor<f32>
  %i = nova.iota dim 0 : tensor<5x5xi64>
  %j = nova.iota dim 1 : tensor<5x5xi64>
  %keep = nova.cmp le, %j, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %ninf = nova.constant dense<0xFF800000> : tensor<f32>
  %m = nova.select %keep, %ss, %ninf : tensor<5x5xi1>, tensor<2x4x5x5xf32>, tensor<f32>
  %p = nova.softmax %m dim 3 : tensor<2x4x5x5xf32>
  %o = nova.matmul %p, %v : tensor<2x4x5x5xf32>, tensor<2x1x5x2xf32> -> tensor<2x4x5x2xf32>
  return %o : tensor<2x4x5x2xf32>
}

// No mask: non-causal attention over Tq != Tk; the key comes stored
// transposed ([D, Tk]) and is transposed back.
// CHECK-LABEL: func.func @not_causal
// CHECK-NEXT: %[[K:.*]] = nova.transpose %arg1 [0, 2, 1] : tensor<2x3x6xf32> -> tensor<2x6x3xf32>
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %[[K]], %arg2 scale 2.000000e+00 : tensor<2x4x3xf32>, tensor<2x6x3xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT: return %[[O]]
func.func @not_causal(%q: tensor<2x4x3xf32>, %kt: tensor<2x3x6xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %s = nova.matmul %q, %kt : tensor<2x4x3xf32>, tensor<2x3x6xf32> -> tensor<2x4x6xf32>
  %c = nova.constant dense<2.0> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<2x4x6xf32>, tensor<f32>
  %p = nova.softmax %ss dim 2 : tensor<2x4x6xf32>
  %o = nova.matmul %p, %v : tensor<2x4x6xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// nova-decompose's own expansion of attention (second RUN line) collapses
// back to the composite.
// CHECK-LABEL: func.func @round_trip
// CHECK-NEXT: %[[O:.*]] = nova.attention %arg0, %arg1, %arg2 scale 1.250000e-01 causal : tensor<2x3x6x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x6x5xf32>
// CHECK-NEXT: return %[[O]]
func.func @round_trip(%q: tensor<2x3x6x4xf32>, %k: tensor<2x3x6x4xf32>, %v: tensor<2x3x6x5xf32>) -> tensor<2x3x6x5xf32> {
  %o = nova.attention %q, %k, %v scale 0.125 causal : tensor<2x3x6x4xf32>, tensor<2x3x6x4xf32>, tensor<2x3x6x5xf32> -> tensor<2x3x6x5xf32>
  return %o : tensor<2x3x6x5xf32>
}

// ----- left alone

// j < i hides the diagonal too: not causal attention.
// CHECK-LABEL: func.func @strict_mask
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @strict_mask(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %i = nova.iota dim 0 : tensor<4x4xi64>
  %j = nova.iota dim 1 : tensor<4x4xi64>
  %keep = nova.cmp lt, %j, %i : tensor<4x4xi64>, tensor<4x4xi64>
  // Row 0 keeps nothing; a finite fill keeps it defined.
  %low = nova.constant dense<-1.0e+04> : tensor<f32>
  %m = nova.select %keep, %s, %low : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>
  %p = nova.softmax %m dim 1 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// A scale per query row is not one scalar.
// CHECK-LABEL: func.func @per_row_scale
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @per_row_scale(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %c = nova.constant dense<[[0.5], [1.0], [2.0], [4.0]]> : tensor<4x1xf32>
  %ss = nova.mul %s, %c : tensor<4x4xf32>, tensor<4x1xf32>
  %p = nova.softmax %ss dim 1 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// Softmax over the queries (dim 0), not the keys.
// CHECK-LABEL: func.func @query_softmax
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @query_softmax(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %p = nova.softmax %s dim 0 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// The scaled scores are also a result: the T x T tensor stays anyway.
// CHECK-LABEL: func.func @scores_returned
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @scores_returned(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x4xf32>) {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %c = nova.constant dense<0.5> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<4x4xf32>, tensor<f32>
  %p = nova.softmax %ss dim 1 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o, %ss : tensor<4x3xf32>, tensor<4x4xf32>
}

// -inf below the diagonal: queries see the keys after them.
// CHECK-LABEL: func.func @upper_mask
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @upper_mask(%q: tensor<3x3xf32>, %k: tensor<3x3xf32>, %v: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<3x3xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %mask = nova.constant dense<[[0.0, 0.0, 0.0], [0xFF800000, 0.0, 0.0], [0xFF800000, 0xFF800000, 0.0]]> : tensor<3x3xf32>
  %m = nova.add %s, %mask : tensor<3x3xf32>, tensor<3x3xf32>
  %p = nova.softmax %m dim 1 : tensor<3x3xf32>
  %o = nova.matmul %p, %v : tensor<3x3xf32>, tensor<3x2xf32> -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}

// A negative scale (attention's is positive; here it also flips the
// softmax) is not folded.
// CHECK-LABEL: func.func @negative_scale
// CHECK-NOT: nova.attention
// CHECK: nova.matmul %{{.*}}, %arg2 :
func.func @negative_scale(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = nova.matmul %q, %k transpose_rhs : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x4xf32>
  %c = nova.constant dense<-0.5> : tensor<f32>
  %ss = nova.mul %s, %c : tensor<4x4xf32>, tensor<f32>
  %p = nova.softmax %ss dim 1 : tensor<4x4xf32>
  %o = nova.matmul %p, %v : tensor<4x4xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}
