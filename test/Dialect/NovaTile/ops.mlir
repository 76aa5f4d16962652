// One valid group per family: it parses, verifies and prints back to a form
// that parses again; --nova-print-hash shows each family's contract.
// RUN: nova-opt %s | nova-opt | FileCheck %s
// RUN: nova-opt %s --nova-print-hash -o /dev/null | FileCheck %s --check-prefix=CONTRACT

// CHECK-LABEL: func.func @pointwise
// CHECK: nova_tile.fusion pointwise(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) schedule <tile = [256], threads = 128, stages = 1, vector = 4, split_k = 1> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8x4xf32>):
// CHECK: nova_tile.yield %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xbf16>
// CONTRACT: fusion #0 pointwise {{[0-9a-f]+}} space 4x8 in [elementwise, broadcast(0), transposed(1,0)] out [elementwise, elementwise]
func.func @pointwise(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %t: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
  %y:2 = nova_tile.fusion pointwise (%x, %b, %t) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xbf16>)
      schedule #nova_tile.schedule<tile = [256], threads = 128, stages = 1, vector = 4, split_k = 1> {
  ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>, %ta: tensor<8x4xf32>):
    %tt = nova.transpose %ta [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
    %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32>
    %m = nova.mul %s, %tt : tensor<4x8xf32>, tensor<4x8xf32>
    %g = nova.gelu tanh %m : tensor<4x8xf32>
    %h = nova.cast %g : tensor<4x8xf32> to tensor<4x8xbf16>
    nova_tile.yield %g, %h : tensor<4x8xf32>, tensor<4x8xbf16>
  }
  return %y#0, %y#1 : tensor<4x8xf32>, tensor<4x8xbf16>
}

// Residual add + layer norm, and the per-row mean of the sum as a side
// output.
// CONTRACT: fusion #1 row_reduction {{[0-9a-f]+}} space 6x8 in [elementwise, elementwise, per-column, per-column] out [elementwise, per-row]
func.func @row_reduction(%x: tensor<2x3x8xf32>, %r: tensor<2x3x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3xf32>) {
  %y:2 = nova_tile.fusion row_reduction (%x, %r, %g, %b) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<2x3xf32>) {
  ^bb0(%xa: tensor<2x3x8xf32>, %ra: tensor<2x3x8xf32>, %ga: tensor<8xf32>, %ba: tensor<8xf32>):
    %s = nova.add %xa, %ra : tensor<2x3x8xf32>, tensor<2x3x8xf32>
    %n = nova.layer_norm %s, %ga, %ba eps 1.0e-05 : tensor<2x3x8xf32>, tensor<8xf32>
    %sum = nova.reduce sum %s dims [2] : tensor<2x3x8xf32> -> tensor<2x3xf32>
    nova_tile.yield %n, %sum : tensor<2x3x8xf32>, tensor<2x3xf32>
  }
  return %y#0, %y#1 : tensor<2x3x8xf32>, tensor<2x3xf32>
}

// Softmax cross-entropy: logits per element, labels per row, a scalar loss.
// CONTRACT: fusion #2 row_reduction {{[0-9a-f]+}} space 4x10 in [elementwise, per-row] out [scalar]
func.func @cross_entropy(%l: tensor<4x10xf32>, %t: tensor<4xi32>) -> tensor<f32> {
  %y = nova_tile.fusion row_reduction (%l, %t) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32> {
  ^bb0(%la: tensor<4x10xf32>, %ta: tensor<4xi32>):
    %c = nova.cross_entropy %la, %ta : tensor<4x10xf32>, tensor<4xi32> -> tensor<f32>
    nova_tile.yield %c : tensor<f32>
  }
  return %y : tensor<f32>
}

// A linear layer's bias gradient: the sum over every row.
// CONTRACT: fusion #3 column_reduction {{[0-9a-f]+}} space 6x8 in [elementwise] out [per-column]
func.func @column_reduction(%d: tensor<2x3x8xf32>) -> tensor<8xf32> {
  %y = nova_tile.fusion column_reduction (%d) : (tensor<2x3x8xf32>) -> tensor<8xf32> {
  ^bb0(%da: tensor<2x3x8xf32>):
    %s = nova.reduce sum %da dims [0, 1] : tensor<2x3x8xf32> -> tensor<8xf32>
    nova_tile.yield %s : tensor<8xf32>
  }
  return %y : tensor<8xf32>
}

// bf16 GEMM of a cast activation and a transposed weight, with bias, GELU
// and residual in the epilogue.
// CONTRACT: fusion #4 matmul {{[0-9a-f]+}} space 2x4x16x8 in [matmul-lhs@0[32,8,1], matmul-rhs(T)@0[0,1,8], broadcast(0,1), elementwise] out [elementwise]
func.func @matmul(%x: tensor<2x4x8xf32>, %w: tensor<16x8xbf16>, %b: tensor<16xf32>, %res: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %y = nova_tile.fusion matmul (%x, %w, %b, %res) : (tensor<2x4x8xf32>, tensor<16x8xbf16>, tensor<16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  ^bb0(%xa: tensor<2x4x8xf32>, %wa: tensor<16x8xbf16>, %ba: tensor<16xf32>, %ra: tensor<2x4x16xf32>):
    %xh = nova.cast %xa : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
    %wt = nova.transpose %wa [1, 0] : tensor<16x8xbf16> -> tensor<8x16xbf16>
    %wb = nova.broadcast %wt : tensor<8x16xbf16> -> tensor<2x8x16xbf16>
    %p = nova.matmul %xh, %wb : tensor<2x4x8xbf16>, tensor<2x8x16xbf16> -> tensor<2x4x16xbf16>
    %pf = nova.cast %p : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
    %pb = nova.add %pf, %ba : tensor<2x4x16xf32>, tensor<16xf32>
    %g = nova.gelu tanh %pb : tensor<2x4x16xf32>
    %o = nova.add %g, %ra : tensor<2x4x16xf32>, tensor<2x4x16xf32>
    nova_tile.yield %o : tensor<2x4x16xf32>
  }
  return %y : tensor<2x4x16xf32>
}

// CONTRACT: fusion #5 attention_forward {{[0-9a-f]+}} space 6x8x8x4 in [query@0[96,32,4,1], key@0[96,32,4,1], value@0[96,32,4,1]] out [elementwise]
func.func @attention(%q: tensor<2x3x8x4xf32>, %k: tensor<2x3x8x4xf32>, %v: tensor<2x3x8x4xf32>) -> tensor<2x3x8x4xf32> {
  %y = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>) -> tensor<2x3x8x4xf32> {
  ^bb0(%qa: tensor<2x3x8x4xf32>, %ka: tensor<2x3x8x4xf32>, %va: tensor<2x3x8x4xf32>):
    %o = nova.attention %qa, %ka, %va scale 0.5 causal : tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32>, tensor<2x3x8x4xf32> -> tensor<2x3x8x4xf32>
    nova_tile.yield %o : tensor<2x3x8x4xf32>
  }
  return %y : tensor<2x3x8x4xf32>
}

// Token embedding plus position embedding.
// CONTRACT: fusion #6 gather {{[0-9a-f]+}} space 8x16x50 in [table, indices, broadcast(0)] out [elementwise]
func.func @gather(%wte: tensor<50x16xf32>, %tok: tensor<2x4xi32>, %pos: tensor<4x16xf32>) -> tensor<2x4x16xf32> {
  %y = nova_tile.fusion gather (%wte, %tok, %pos) : (tensor<50x16xf32>, tensor<2x4xi32>, tensor<4x16xf32>) -> tensor<2x4x16xf32> {
  ^bb0(%t: tensor<50x16xf32>, %i: tensor<2x4xi32>, %p: tensor<4x16xf32>):
    %e = nova.gather %t[%i] axis 0 : tensor<50x16xf32>, tensor<2x4xi32> -> tensor<2x4x16xf32>
    %s = nova.add %e, %p : tensor<2x4x16xf32>, tensor<4x16xf32>
    nova_tile.yield %s : tensor<2x4x16xf32>
  }
  return %y : tensor<2x4x16xf32>
}

// CONTRACT: fusion #7 scatter_add {{[0-9a-f]+}} space 8x16x50 in [elementwise, indices] out [scattered]
func.func @scatter_add(%d: tensor<2x4x16xbf16>, %tok: tensor<2x4xi32>) -> tensor<50x16xf32> {
  %y = nova_tile.fusion scatter_add (%d, %tok) : (tensor<2x4x16xbf16>, tensor<2x4xi32>) -> tensor<50x16xf32> {
  ^bb0(%da: tensor<2x4x16xbf16>, %i: tensor<2x4xi32>):
    %df = nova.cast %da : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
    %s = nova.scatter_add %df[%i] axis 0 : tensor<2x4x16xf32>, tensor<2x4xi32> -> tensor<50x16xf32>
    nova_tile.yield %s : tensor<50x16xf32>
  }
  return %y : tensor<50x16xf32>
}

// Two parameters updated in one kernel, one gradient clipped by a scale,
// and a bf16 working copy written beside the f32 master weight.
// CONTRACT: fusion #8 optimizer {{[0-9a-f]+}} space 40 in [elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, scalar, scalar] out [elementwise, elementwise, elementwise, elementwise, elementwise, elementwise, elementwise]
func.func @optimizer(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %v: tensor<4x8xf32>,
                     %q: tensor<8xf32>, %h: tensor<8xf32>, %mq: tensor<8xf32>, %vq: tensor<8xf32>,
                     %step: tensor<i64>, %clip: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %y:7 = nova_tile.fusion optimizer (%p, %g, %m, %v, %q, %h, %mq, %vq, %step, %clip)
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<f32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%pa: tensor<4x8xf32>, %ga: tensor<4x8xf32>, %ma: tensor<4x8xf32>, %va: tensor<4x8xf32>,
       %qa: tensor<8xf32>, %ha: tensor<8xf32>, %mqa: tensor<8xf32>, %vqa: tensor<8xf32>,
       %sa: tensor<i64>, %ca: tensor<f32>):
    %gc = nova.mul %ga, %ca : tensor<4x8xf32>, tensor<f32>
    %lr = nova.constant dense<1.0e-3> : tensor<f32>
    %u:3 = nova.adamw %pa, %gc, %ma, %va, %sa, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<4x8xf32>, tensor<i64>
    %w = nova.cast %u#0 : tensor<4x8xf32> to tensor<4x8xbf16>
    %hc = nova.mul %ha, %ca : tensor<8xf32>, tensor<f32>
    %lr1 = nova.constant dense<1.0e-3> : tensor<f32>
    %z:3 = nova.adamw %qa, %hc, %mqa, %vqa, %sa, %lr1 beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<i64>
    nova_tile.yield %u#0, %u#1, %u#2, %w, %z#0, %z#1, %z#2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  return %y#0, %y#1, %y#2, %y#3, %y#4, %y#5, %y#6 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// The forward that also returns the row log-sum-exp, with a cast epilogue.
// CONTRACT: fusion #9 attention_forward {{[0-9a-f]+}} space 6x8x8x4 in [query@0[96,32,4,1], key@0[96,32,4,1], value@0[96,32,4,1]] out [elementwise, log-sum-exp]
func.func @attention_fwd(%q: tensor<2x3x8x4xbf16>, %k: tensor<2x3x8x4xbf16>, %v: tensor<2x3x8x4xbf16>) -> (tensor<2x3x8x4xf32>, tensor<2x3x8xf32>) {
  %y:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) -> (tensor<2x3x8x4xf32>, tensor<2x3x8xf32>) {
  ^bb0(%qa: tensor<2x3x8x4xbf16>, %ka: tensor<2x3x8x4xbf16>, %va: tensor<2x3x8x4xbf16>):
    %o, %lse = nova.attention_fwd %qa, %ka, %va scale 0.5 causal : tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16> -> tensor<2x3x8x4xbf16>, tensor<2x3x8xf32>
    %of = nova.cast %o : tensor<2x3x8x4xbf16> to tensor<2x3x8x4xf32>
    nova_tile.yield %of, %lse : tensor<2x3x8x4xf32>, tensor<2x3x8xf32>
  }
  return %y#0, %y#1 : tensor<2x3x8x4xf32>, tensor<2x3x8xf32>
}

// CONTRACT: fusion #10 attention_backward {{[0-9a-f]+}} space 6x8x8x4 in [query@0[96,32,4,1], key@0[96,32,4,1], value@0[96,32,4,1], attention-output@0[96,32,4,1], log-sum-exp@0[24,8,1], grad-output@0[96,32,4,1]] out [query, key, value]
func.func @attention_bwd(%q: tensor<2x3x8x4xbf16>, %k: tensor<2x3x8x4xbf16>, %v: tensor<2x3x8x4xbf16>, %o: tensor<2x3x8x4xbf16>, %lse: tensor<2x3x8xf32>, %do: tensor<2x3x8x4xf32>) -> (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) {
  %y:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %do) : (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8xf32>, tensor<2x3x8x4xf32>) -> (tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>) {
  ^bb0(%qa: tensor<2x3x8x4xbf16>, %ka: tensor<2x3x8x4xbf16>, %va: tensor<2x3x8x4xbf16>, %oa: tensor<2x3x8x4xbf16>, %la: tensor<2x3x8xf32>, %da: tensor<2x3x8x4xf32>):
    %dh = nova.cast %da : tensor<2x3x8x4xf32> to tensor<2x3x8x4xbf16>
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %dh scale 0.5 causal : tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8xf32>, tensor<2x3x8x4xbf16>
    nova_tile.yield %dq, %dk, %dv : tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>
  }
  return %y#0, %y#1, %y#2 : tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>, tensor<2x3x8x4xbf16>
}

// Inputs read through a reshape (same linear order) and a strided slice.
// CONTRACT: fusion #11 pointwise {{[0-9a-f]+}} space 4x8 in [reshaped, sliced(0,0,4,16,1,2)] out [elementwise]
func.func @views(%x: tensor<32xf32>, %y: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %r = nova_tile.fusion pointwise (%x, %y) : (tensor<32xf32>, tensor<4x16xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<32xf32>, %ya: tensor<4x16xf32>):
    %xr = nova.reshape %xa : tensor<32xf32> -> tensor<4x8xf32>
    %ys = nova.slice %ya starts [0, 0] limits [4, 16] strides [1, 2] : tensor<4x16xf32> -> tensor<4x8xf32>
    %s = nova.sub %xr, %ys : tensor<4x8xf32>, tensor<4x8xf32>
    nova_tile.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// LayerNorm backward in one pass: two sums along each row for dx, and the
// column sums dgamma and dbeta plus a total across the rows, each yielded as
// it is; the rows are read through a transpose.
// CONTRACT: fusion #12 row_reduction {{[0-9a-f]+}} space 6x8 in [transposed(1,0,2), elementwise, per-row, per-column] out [elementwise, per-column, per-column, scalar]
func.func @row_with_column_sums(%dyt: tensor<3x2x8xf32>, %xhat: tensor<2x3x8xf32>, %rstd: tensor<2x3x1xf32>, %g: tensor<8xf32>)
    -> (tensor<2x3x8xf32>, tensor<8xf32>, tensor<1x1x8xf32>, tensor<f32>) {
  %y:4 = nova_tile.fusion row_reduction (%dyt, %xhat, %rstd, %g) : (tensor<3x2x8xf32>, tensor<2x3x8xf32>, tensor<2x3x1xf32>, tensor<8xf32>) -> (tensor<2x3x8xf32>, tensor<8xf32>, tensor<1x1x8xf32>, tensor<f32>) {
  ^bb0(%dyta: tensor<3x2x8xf32>, %xa: tensor<2x3x8xf32>, %ra: tensor<2x3x1xf32>, %ga: tensor<8xf32>):
    %dy = nova.transpose %dyta [1, 0, 2] : tensor<3x2x8xf32> -> tensor<2x3x8xf32>
    %dxh = nova.mul %dy, %ga : tensor<2x3x8xf32>, tensor<8xf32>
    %a = nova.reduce sum %dxh dims [2] keep_dims : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %p = nova.mul %dxh, %xa : tensor<2x3x8xf32>, tensor<2x3x8xf32>
    %b = nova.reduce sum %p dims [2] keep_dims : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %t0 = nova.sub %dxh, %a : tensor<2x3x8xf32>, tensor<2x3x1xf32>
    %t1 = nova.mul %xa, %b : tensor<2x3x8xf32>, tensor<2x3x1xf32>
    %t2 = nova.sub %t0, %t1 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
    %dx = nova.mul %t2, %ra : tensor<2x3x8xf32>, tensor<2x3x1xf32>
    %q = nova.mul %dy, %xa : tensor<2x3x8xf32>, tensor<2x3x8xf32>
    %dg = nova.reduce sum %q dims [0, 1] : tensor<2x3x8xf32> -> tensor<8xf32>
    %db = nova.reduce sum %dy dims [0, 1] keep_dims : tensor<2x3x8xf32> -> tensor<1x1x8xf32>
    %all = nova.reduce sum %a dims [0, 1, 2] : tensor<2x3x1xf32> -> tensor<f32>
    nova_tile.yield %dx, %dg, %db, %all : tensor<2x3x8xf32>, tensor<8xf32>, tensor<1x1x8xf32>, tensor<f32>
  }
  return %y#0, %y#1, %y#2, %y#3 : tensor<2x3x8xf32>, tensor<8xf32>, tensor<1x1x8xf32>, tensor<f32>
}

// A column reduction made of totals only iterates over the largest summed
// tensor; the other is per row of it.
// CONTRACT: fusion #13 column_reduction {{[0-9a-f]+}} space 4x8 in [elementwise, per-row] out [scalar, scalar]
func.func @totals(%x: tensor<4x8xf32>, %m: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %y:2 = nova_tile.fusion column_reduction (%x, %m) : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%xa: tensor<4x8xf32>, %ma: tensor<4xf32>):
    %c = nova.reduce sum %ma dims [0] : tensor<4xf32> -> tensor<f32>
    %sq = nova.mul %xa, %xa : tensor<4x8xf32>, tensor<4x8xf32>
    %s = nova.reduce sum %sq dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
    nova_tile.yield %s, %c : tensor<f32>, tensor<f32>
  }
  return %y#0, %y#1 : tensor<f32>, tensor<f32>
}

// A global gradient norm's sums of squares over two tensors in one
// multi-tensor kernel.
// CONTRACT: fusion #14 optimizer {{[0-9a-f]+}} space 40 in [elementwise, elementwise] out [scalar, scalar]
func.func @global_norm(%g1: tensor<4x8xf32>, %g2: tensor<8xbf16>) -> (tensor<f32>, tensor<f32>) {
  %y:2 = nova_tile.fusion optimizer (%g1, %g2) : (tensor<4x8xf32>, tensor<8xbf16>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8xbf16>):
    %sa = nova.mul %a, %a : tensor<4x8xf32>, tensor<4x8xf32>
    %ra = nova.reduce sum %sa dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
    %bf = nova.cast %b : tensor<8xbf16> to tensor<8xf32>
    %sb = nova.mul %bf, %bf : tensor<8xf32>, tensor<8xf32>
    %rb = nova.reduce sum %sb dims [0] : tensor<8xf32> -> tensor<f32>
    nova_tile.yield %ra, %rb : tensor<f32>, tensor<f32>
  }
  return %y#0, %y#1 : tensor<f32>, tensor<f32>
}

// A sum over the batch dim alone: rows are the batch, columns the other
// two dims; a value per column is 4x8.
// CONTRACT: fusion #15 column_reduction {{[0-9a-f]+}} space 2x32 in [elementwise, per-column] out [per-column, elementwise]
func.func @batch_sum(%x: tensor<2x4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<1x4x8xf32>, tensor<2x4x8xf32>) {
  %y:2 = nova_tile.fusion column_reduction (%x, %b) : (tensor<2x4x8xf32>, tensor<4x8xf32>) -> (tensor<1x4x8xf32>, tensor<2x4x8xf32>) {
  ^bb0(%xa: tensor<2x4x8xf32>, %ba: tensor<4x8xf32>):
    %a = nova.add %xa, %ba : tensor<2x4x8xf32>, tensor<4x8xf32>
    %s = nova.reduce sum %a dims [0] keep_dims : tensor<2x4x8xf32> -> tensor<1x4x8xf32>
    nova_tile.yield %s, %a : tensor<1x4x8xf32>, tensor<2x4x8xf32>
  }
  return %y#0, %y#1 : tensor<1x4x8xf32>, tensor<2x4x8xf32>
}

// A position table added to every sequence of the batch is broadcast over
// the batch dim, not one value per column.
// CONTRACT: fusion #16 row_reduction {{[0-9a-f]+}} space 6x8 in [elementwise, broadcast(0)] out [per-row]
func.func @row_broadcast(%x: tensor<2x3x8xf32>, %pos: tensor<3x8xf32>) -> tensor<2x3xf32> {
  %y = nova_tile.fusion row_reduction (%x, %pos) : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3xf32> {
  ^bb0(%xa: tensor<2x3x8xf32>, %pa: tensor<3x8xf32>):
    %a = nova.add %xa, %pa : tensor<2x3x8xf32>, tensor<3x8xf32>
    %s = nova.reduce max %a dims [2] : tensor<2x3x8xf32> -> tensor<2x3xf32>
    nova_tile.yield %s : tensor<2x3xf32>
  }
  return %y : tensor<2x3xf32>
}

// The outlined form: a kernel symbol and its launch.
// CHECK-LABEL: func.func @launch
// CHECK: nova_tile.launch @relu_kernel(%{{.*}}) : (tensor<16xf32>) -> tensor<16xf32>
// CHECK: nova_tile.kernel @relu_kernel pointwise {
// CONTRACT: kernel @relu_kernel pointwise {{[0-9a-f]+}} space 16 in [elementwise] out [elementwise]
func.func @launch(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = nova_tile.launch @relu_kernel(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
nova_tile.kernel @relu_kernel pointwise {
^bb0(%a: tensor<16xf32>):
  %r = nova.relu %a : tensor<16xf32>
  nova_tile.yield %r : tensor<16xf32>
}
