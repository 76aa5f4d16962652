// nova-fuse's matmul and attention phase: prologues (casts and views read
// by the GEMM), epilogues (pointwise groups on the product), grouped GEMMs
// (matmuls reading one operand, with its column sums) and attention groups
// that read q, k, v through views of the fused qkv tensor.
// RUN: nova-opt %s --nova-fuse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// Every group passes its contract; the contracts describe the reads.
// RUN: nova-opt %t.mlir --nova-print-hash -o /dev/null | FileCheck %s --check-prefix=CONTRACT
// A second run finds nothing left to fuse.
// RUN: nova-opt %t.mlir --nova-fuse | FileCheck %s
// The interpreter gives the same outputs before and after on fresh inputs.
// RUN: for f in prologue working_copy cast_read_elsewhere prologue_group batch_broadcast not_strided epilogue_and_product epilogue_cycle grouped grouped_copy grouped_cast chained attention attention_backward_reads_written attention_backward_into_dqkv attention_backward_zero_padded attention_key_is_value; do \
// RUN:   nova-run %s --entry $f --random-inputs 13 --save-inputs %t.$f.in -o %t.$f.out && \
// RUN:   nova-run %t.mlir --entry $f --inputs %t.$f.in --compare %t.$f.out --rtol 1e-6 --atol 0 || exit 1; \
// RUN: done | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// Casts of both operands and the weight's transpose are the prologue; the
// bias, GELU and cast are the epilogue: one kernel.
// CHECK-LABEL: func.func @prologue
// CHECK-NEXT: %[[G:.*]] = nova_tile.fusion matmul(%arg0, %arg1, %arg2)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.transpose
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.add
// CHECK-NEXT: nova.gelu
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]
// CONTRACT: matmul {{[0-9a-f]+}} space 2x4x16x8 in [matmul-lhs@0[32,8,1], matmul-rhs(T)@0[0,1,8], broadcast(0,1)] out [elementwise]
func.func @prologue(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %xh = nova.cast %x : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
  %wt = nova.transpose %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %wh = nova.cast %wt : tensor<8x16xf32> to tensor<8x16xbf16>
  %p = nova.matmul %xh, %wh : tensor<2x4x8xbf16>, tensor<8x16xbf16> -> tensor<2x4x16xbf16>
  %pf = nova.cast %p : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
  %s = nova.add %pf, %b : tensor<2x4x16xf32>, tensor<16xf32>
  %g = nova.gelu tanh %s : tensor<2x4x16xf32>
  return %g : tensor<2x4x16xf32>
}

// A weight's bf16 copy that only matmuls read is converted on load by each
// (no copy kernel); the two products read one weight and depend on nothing
// of each other, so they are one grouped GEMM.
// CHECK-LABEL: func.func @working_copy
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion matmul(%arg2, %arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.matmul
// CHECK: return %[[G]]#0, %[[G]]#1
// CONTRACT: matmul {{[0-9a-f]+}} space 1x4x16x8 {{.*}} | gemm 1x4x16x8 reads #1@0[8,1] #0@0[16,1] | gemm 1x4x8x16 reads #2@0[16,1] #0@0[1,16]
func.func @working_copy(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xbf16>, tensor<4x8xbf16>) {
  %wh = nova.cast %w : tensor<8x16xf32> to tensor<8x16xbf16>
  %xh = nova.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %yh = nova.cast %y : tensor<4x16xf32> to tensor<4x16xbf16>
  %p = nova.matmul %xh, %wh : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  %q = nova.matmul %yh, %wh transpose_rhs : tensor<4x16xbf16>, tensor<8x16xbf16> -> tensor<4x8xbf16>
  return %p, %q : tensor<4x16xbf16>, tensor<4x8xbf16>
}

// A cast something else reads too stays a kernel that the matmul reads.
// CHECK-LABEL: func.func @cast_read_elsewhere
// CHECK-NEXT: %[[C:.*]] = nova_tile.fusion pointwise(%arg1)
// CHECK: nova_tile.fusion matmul(%arg0, %[[C]])
func.func @cast_read_elsewhere(%x: tensor<4x8xbf16>, %w: tensor<8x16xf32>) -> (tensor<4x16xbf16>, tensor<8x16xbf16>) {
  %wh = nova.cast %w : tensor<8x16xf32> to tensor<8x16xbf16>
  %p = nova.matmul %x, %wh : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  return %p, %wh : tensor<4x16xbf16>, tensor<8x16xbf16>
}

// A pointwise kernel that only transposes and casts one input (as the
// reduction phase may leave it) is a prologue too.
// CHECK-LABEL: func.func @prologue_group
// CHECK-NEXT: nova_tile.fusion matmul(%arg1, %arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.transpose
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.matmul
func.func @prologue_group(%x: tensor<4x8xbf16>, %w: tensor<16x8xf32>) -> tensor<4x16xbf16> {
  %wh = nova_tile.fusion pointwise (%w) : (tensor<16x8xf32>) -> tensor<8x16xbf16> {
  ^bb0(%a: tensor<16x8xf32>):
    %t = nova.transpose %a [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
    %c = nova.cast %t : tensor<8x16xf32> to tensor<8x16xbf16>
    nova_tile.yield %c : tensor<8x16xbf16>
  }
  %p = nova.matmul %x, %wh : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  return %p : tensor<4x16xbf16>
}

// A weight broadcast over the batch is read with stride 0.
// CHECK-LABEL: func.func @batch_broadcast
// CHECK-NEXT: nova_tile.fusion matmul(%arg1, %arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.broadcast
// CHECK-NEXT: nova.matmul
// CONTRACT: matmul {{[0-9a-f]+}} space 3x4x16x8 in [matmul-rhs@0[0,16,1], matmul-lhs@0[32,8,1]]
func.func @batch_broadcast(%x: tensor<3x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<3x4x16xf32> {
  %wb = nova.broadcast %w : tensor<8x16xf32> -> tensor<3x8x16xf32>
  %p = nova.matmul %x, %wb : tensor<3x4x8xf32>, tensor<3x8x16xf32> -> tensor<3x4x16xf32>
  return %p : tensor<3x4x16xf32>
}

// Heads transposed and then merged into rows are not one strided view: the
// kernel keeps the reshape (a strided view of the transposed copy), the
// transpose stays outside.
// CHECK-LABEL: func.func @not_strided
// CHECK-NEXT: %[[T:.*]] = nova.transpose %arg0
// CHECK-NEXT: nova_tile.fusion matmul(%[[T]], %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.reshape
// CHECK-NEXT: nova.matmul
func.func @not_strided(%o: tensor<2x2x4x3xf32>, %w: tensor<6x5xf32>) -> tensor<8x5xf32> {
  %t = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %r = nova.reshape %t : tensor<2x4x2x3xf32> -> tensor<8x6xf32>
  %p = nova.matmul %r, %w : tensor<8x6xf32>, tensor<6x5xf32> -> tensor<8x5xf32>
  return %p : tensor<8x5xf32>
}

// The product is used outside too: the kernel yields it and the epilogue.
// CHECK-LABEL: func.func @epilogue_and_product
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion matmul(%arg0, %arg1, %arg2, %arg3)
// CHECK: %[[P:.*]] = nova.matmul
// CHECK-NEXT: nova.add %[[P]]
// CHECK-NEXT: %[[R:.*]] = nova.add
// CHECK-NEXT: nova_tile.yield %[[P]], %[[R]]
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @epilogue_and_product(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>, %res: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %s = nova.add %p, %b : tensor<4x16xf32>, tensor<16xf32>
  %r = nova.add %s, %res : tensor<4x16xf32>, tensor<4x16xf32>
  return %p, %r : tensor<4x16xf32>, tensor<4x16xf32>
}

// The subtraction also reads the product through a concat (a copy kernel):
// merging it would put the concat both before and after the kernel.
// CHECK-LABEL: func.func @epilogue_cycle
// CHECK-NEXT: %[[P:.*]] = nova_tile.fusion matmul
// CHECK: nova.matmul
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[C:.*]] = nova.concat %[[P]], %[[P]]
// CHECK: nova_tile.fusion pointwise
// CHECK: nova.sub
func.func @epilogue_cycle(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %c = nova.concat %p, %p dim 1 : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x32xf32>
  %m = nova.slice %c starts [0, 8] limits [4, 24] strides [1, 1] : tensor<4x32xf32> -> tensor<4x16xf32>
  %s = nova.sub %p, %m : tensor<4x16xf32>, tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// A layer's backward: dX = dY.W^T and dW = X^T.dY in one grouped GEMM. The
// reduction phase (first) already put the bias gradient, the column sum of
// dY in f32, in the kernel that computes dY and its bf16 copy: two kernels,
// and dY's f32 copy is never written (grouped_copy below has the column sum
// join the GEMM instead when dY's kernel cannot take it).
// CHECK-LABEL: func.func @grouped
// CHECK-NEXT: %[[D:.*]]:2 = nova_tile.fusion column_reduction(%arg0) : (tensor<2x4x16xf32>) -> (tensor<2x4x16xbf16>, tensor<1x1x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.add
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova.reduce sum %{{.*}} dims [0, 1] keep_dims
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[B:.*]] = nova.reshape %[[D]]#1
// CHECK-NEXT: %[[G:.*]]:2 = nova_tile.fusion matmul(%[[D]]#0, %arg2, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.reshape
// CHECK-NEXT: nova.reshape
// CHECK-NEXT: nova.matmul
// CHECK-NEXT: nova.cast
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#0, %[[G]]#1, %[[B]]
// CONTRACT: column_reduction {{[0-9a-f]+}} space 8x16 in [elementwise] out [elementwise, per-column]
// CONTRACT-NEXT: matmul {{[0-9a-f]+}} space 2x4x8x16 {{.*}} out [elementwise, elementwise] | gemm 2x4x8x16 reads #0@0[64,16,1] #1@0[0,1,16] | gemm 1x8x16x8 reads #2@0[1,8] #0@0[16,1]{{$}}
func.func @grouped(%dy: tensor<2x4x16xf32>, %x: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>) -> (tensor<2x4x8xbf16>, tensor<8x16xf32>, tensor<16xf32>) {
  %d = nova.add %dy, %dy : tensor<2x4x16xf32>, tensor<2x4x16xf32>
  %dh = nova.cast %d : tensor<2x4x16xf32> to tensor<2x4x16xbf16>
  %dx = nova.matmul %dh, %w transpose_rhs : tensor<2x4x16xbf16>, tensor<8x16xbf16> -> tensor<2x4x8xbf16>
  %xr = nova.reshape %x : tensor<2x4x8xbf16> -> tensor<8x8xbf16>
  %dr = nova.reshape %dh : tensor<2x4x16xbf16> -> tensor<8x16xbf16>
  %dw = nova.matmul %xr, %dr transpose_lhs : tensor<8x8xbf16>, tensor<8x16xbf16> -> tensor<8x16xbf16>
  %dwf = nova.cast %dw : tensor<8x16xbf16> to tensor<8x16xf32>
  %db = nova.reduce sum %d dims [0, 1] keep_dims : tensor<2x4x16xf32> -> tensor<1x1x16xf32>
  %dbr = nova.reshape %db : tensor<1x1x16xf32> -> tensor<16xf32>
  return %dx, %dwf, %dbr : tensor<2x4x8xbf16>, tensor<8x16xf32>, tensor<16xf32>
}

// dY and its f32 copy come from a kernel formed before (a pointwise group in
// the input, which the reduction phase leaves as it is): the column sum of
// the f32 copy from the same kernel joins the grouped GEMM.
// CHECK-LABEL: func.func @grouped_copy
// CHECK-NEXT: %[[D:.*]]:2 = nova_tile.fusion pointwise(%arg0)
// CHECK: %[[G:.*]]:3 = nova_tile.fusion matmul(%[[D]]#1, %arg2, %arg1, %[[D]]#0)
// CHECK: nova.matmul
// CHECK: nova.matmul
// CHECK: nova.reduce sum
// CHECK: nova.cast
// CHECK: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[B:.*]] = nova.reshape %[[G]]#1
// CHECK-NEXT: return %[[G]]#0, %[[G]]#2, %[[B]]
// CONTRACT: matmul {{[0-9a-f]+}} space 2x4x8x16 {{.*}} out [elementwise, per-column, elementwise] | gemm 2x4x8x16 reads #0@0[64,16,1] #1@0[0,1,16] | gemm 1x8x16x8 reads #2@0[1,8] #0@0[16,1] | column-sum 1x1x16x8 reads #3@0[16,1]
func.func @grouped_copy(%dy: tensor<2x4x16xf32>, %x: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>) -> (tensor<2x4x8xbf16>, tensor<8x16xf32>, tensor<16xf32>) {
  %dd:2 = nova_tile.fusion pointwise(%dy) : (tensor<2x4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xbf16>) {
  ^bb0(%a: tensor<2x4x16xf32>):
    %d = nova.add %a, %a : tensor<2x4x16xf32>, tensor<2x4x16xf32>
    %dh = nova.cast %d : tensor<2x4x16xf32> to tensor<2x4x16xbf16>
    nova_tile.yield %d, %dh : tensor<2x4x16xf32>, tensor<2x4x16xbf16>
  }
  %dx = nova.matmul %dd#1, %w transpose_rhs : tensor<2x4x16xbf16>, tensor<8x16xbf16> -> tensor<2x4x8xbf16>
  %xr = nova.reshape %x : tensor<2x4x8xbf16> -> tensor<8x8xbf16>
  %dr = nova.reshape %dd#1 : tensor<2x4x16xbf16> -> tensor<8x16xbf16>
  %dw = nova.matmul %xr, %dr transpose_lhs : tensor<8x8xbf16>, tensor<8x16xbf16> -> tensor<8x16xbf16>
  %dwf = nova.cast %dw : tensor<8x16xbf16> to tensor<8x16xf32>
  %db = nova.reduce sum %dd#0 dims [0, 1] keep_dims : tensor<2x4x16xf32> -> tensor<1x1x16xf32>
  %dbr = nova.reshape %db : tensor<1x1x16xf32> -> tensor<16xf32>
  return %dx, %dwf, %dbr : tensor<2x4x8xbf16>, tensor<8x16xf32>, tensor<16xf32>
}

// The same with dY itself bf16: the bias gradient sums its f32 cast, a
// prologue of the column sum.
// CHECK-LABEL: func.func @grouped_cast
// CHECK-NEXT: %[[G:.*]]:3 = nova_tile.fusion matmul(%arg0, %arg2, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: nova.matmul
// CHECK: nova.matmul
// CHECK: %[[F:.*]] = nova.cast %{{.*}} : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
// CHECK-NEXT: nova.reduce sum %[[F]] dims [0, 1]
// CONTRACT: matmul {{[0-9a-f]+}} space 2x4x8x16 {{.*}} | gemm 2x4x8x16 reads #0@0[64,16,1] #1@0[0,1,16] | gemm 1x8x16x8 reads #2@0[1,8] #0@0[16,1] | column-sum 1x1x16x8 reads #0@0[16,1]
func.func @grouped_cast(%dy: tensor<2x4x16xbf16>, %x: tensor<2x4x8xbf16>, %w: tensor<8x16xbf16>) -> (tensor<2x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>) {
  %dx = nova.matmul %dy, %w transpose_rhs : tensor<2x4x16xbf16>, tensor<8x16xbf16> -> tensor<2x4x8xbf16>
  %xr = nova.reshape %x : tensor<2x4x8xbf16> -> tensor<8x8xbf16>
  %dr = nova.reshape %dy : tensor<2x4x16xbf16> -> tensor<8x16xbf16>
  %dw = nova.matmul %xr, %dr transpose_lhs : tensor<8x8xbf16>, tensor<8x16xbf16> -> tensor<8x16xbf16>
  %df = nova.cast %dy : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
  %db = nova.reduce sum %df dims [0, 1] : tensor<2x4x16xf32> -> tensor<16xf32>
  return %dx, %dw, %db : tensor<2x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>
}

// A matmul that reads another's product is not grouped with it.
// CHECK-LABEL: func.func @chained
// CHECK-NEXT: %[[P:.*]] = nova_tile.fusion matmul(%arg0, %arg1)
// CHECK: nova_tile.fusion matmul(%[[P]], %arg1)
func.func @chained(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %p = nova.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %q = nova.matmul %p, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %q : tensor<4x8xf32>
}

// q, k and v are slices of one qkv tensor split into heads: three strided
// reads of one input. The output is written back as [B, T, C] through the
// transpose and reshape, and as it is for the other reader.
// CHECK-LABEL: func.func @attention
// CHECK-NEXT: %[[A:.*]]:3 = nova_tile.fusion attention_forward(%arg0)
// CHECK-COUNT-3: nova.slice
// CHECK: nova.attention_fwd
// CHECK-NEXT: nova.transpose
// CHECK-NEXT: nova.reshape
// CHECK-NEXT: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]]#2, %[[A]]#0, %[[A]]#1
// CONTRACT: attention_forward {{[0-9a-f]+}} space 4x4x4x3 in [query@0[72,3,18,1]] out [elementwise, log-sum-exp, elementwise@0[24,3,6,1]]
func.func @attention(%qkv: tensor<2x4x18xf32>) -> (tensor<2x4x6xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4xf32>) {
  %qs = nova.slice %qkv starts [0, 0, 0] limits [2, 4, 6] strides [1, 1, 1] : tensor<2x4x18xf32> -> tensor<2x4x6xf32>
  %qr = nova.reshape %qs : tensor<2x4x6xf32> -> tensor<2x4x2x3xf32>
  %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x4x2x3xf32> -> tensor<2x2x4x3xf32>
  %ks = nova.slice %qkv starts [0, 0, 6] limits [2, 4, 12] strides [1, 1, 1] : tensor<2x4x18xf32> -> tensor<2x4x6xf32>
  %kr = nova.reshape %ks : tensor<2x4x6xf32> -> tensor<2x4x2x3xf32>
  %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x4x2x3xf32> -> tensor<2x2x4x3xf32>
  %vs = nova.slice %qkv starts [0, 0, 12] limits [2, 4, 18] strides [1, 1, 1] : tensor<2x4x18xf32> -> tensor<2x4x6xf32>
  %vr = nova.reshape %vs : tensor<2x4x6xf32> -> tensor<2x4x2x3xf32>
  %v = nova.transpose %vr [0, 2, 1, 3] : tensor<2x4x2x3xf32> -> tensor<2x2x4x3xf32>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32> -> tensor<2x2x4x3xf32>, tensor<2x2x4xf32>
  %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %y = nova.reshape %ot : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  return %y, %o, %lse : tensor<2x4x6xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4xf32>
}

// The backward reads O, which the forward writes as [B, T, C]: it reads
// that through the inverse views, so O is written once. dq, dk, dv are
// written as [B, T, C] through their transposes and reshapes.
// CHECK-LABEL: func.func @attention_backward_reads_written
// CHECK-NEXT: %[[F:.*]]:2 = nova_tile.fusion attention_forward(%arg0, %arg1, %arg2) : ({{.*}}) -> (tensor<2x2x4xf32>, tensor<2x4x6xf32>)
// CHECK: nova_tile.yield %lse, %{{.*}} : tensor<2x2x4xf32>, tensor<2x4x6xf32>
// CHECK: %[[B:.*]]:3 = nova_tile.fusion attention_backward(%[[F]]#1, %arg0, %arg1, %arg2, %[[F]]#0, %arg3) : ({{.*}}) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>)
// CHECK: nova.reshape
// CHECK-NEXT: nova.transpose
// CHECK-NEXT: nova.attention_bwd
// CHECK: return %[[F]]#1, %[[B]]#0, %[[B]]#1, %[[B]]#2
// CONTRACT: attention_forward {{[0-9a-f]+}} space 4x4x4x3 in [query@0[24,12,3,1], key@0[24,12,3,1], value@0[24,12,3,1]] out [log-sum-exp, elementwise@0[24,3,6,1]]
// CONTRACT: attention_backward {{[0-9a-f]+}} space 4x4x4x3 in [attention-output@0[24,3,6,1], query@0[24,12,3,1], key@0[24,12,3,1], value@0[24,12,3,1], log-sum-exp@0[8,4,1], grad-output@0[24,12,3,1]] out [query@0[24,3,6,1], key@0[24,3,6,1], value@0[24,3,6,1]]
func.func @attention_backward_reads_written(%q: tensor<2x2x4x3xf32>, %k: tensor<2x2x4x3xf32>, %v: tensor<2x2x4x3xf32>, %dy: tensor<2x2x4x3xf32>) -> (tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>) {
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32> -> tensor<2x2x4x3xf32>, tensor<2x2x4xf32>
  %ot = nova.transpose %o [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %y = nova.reshape %ot : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %dy scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4xf32>, tensor<2x2x4x3xf32>
  %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dqr = nova.reshape %dqt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dkr = nova.reshape %dkt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dvr = nova.reshape %dvt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  return %y, %dqr, %dkr, %dvr : tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32>
}

// dq, dk and dv merged back into one dqkv by a concat: the backward writes
// one window of dqkv per gradient.
// CHECK-LABEL: func.func @attention_backward_into_dqkv
// CHECK-NEXT: %[[B:.*]] = nova_tile.fusion attention_backward({{.*}}) : ({{.*}}) -> tensor<2x4x18xf32>
// CHECK: nova.attention_bwd
// CHECK-COUNT-3: nova.reshape
// CHECK-NEXT: %[[C:.*]] = nova.concat
// CHECK-NEXT: nova_tile.yield %[[C]]
// CHECK: return %[[B]]
// CONTRACT: attention_backward {{[0-9a-f]+}} space 4x4x4x3 in [{{.*}}] out [query] | writes query->#0@0[72,3,18,1] key->#0@6[72,3,18,1] value->#0@12[72,3,18,1]
func.func @attention_backward_into_dqkv(%q: tensor<2x2x4x3xf32>, %k: tensor<2x2x4x3xf32>, %v: tensor<2x2x4x3xf32>, %o: tensor<2x2x4x3xf32>, %lse: tensor<2x2x4xf32>, %dy: tensor<2x2x4x3xf32>) -> tensor<2x4x18xf32> {
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %dy scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4xf32>, tensor<2x2x4x3xf32>
  %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dqr = nova.reshape %dqt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dkr = nova.reshape %dkt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dvr = nova.reshape %dvt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dqkv = nova.concat %dqr, %dkr, %dvr dim 2 : tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32> -> tensor<2x4x18xf32>
  return %dqkv : tensor<2x4x18xf32>
}

// The gradient of three slices of one tensor, as autodiff writes it: each
// of dq, dk, dv zero-padded back to the sliced tensor's shape by a concat
// with a repeated zero. The backward writes the three padded tensors (its
// windows and the zeros), so no copy kernel is left; the sum stays outside.
// CHECK-LABEL: func.func @attention_backward_zero_padded
// CHECK-NEXT: %[[B:.*]]:3 = nova_tile.fusion attention_backward({{.*}}) : ({{.*}}) -> (tensor<2x4x18xf32>, tensor<2x4x18xf32>, tensor<2x4x18xf32>)
// CHECK: nova.attention_bwd
// CHECK: nova.concat
// CHECK: nova.concat
// CHECK: nova.concat
// CHECK: nova_tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: nova_tile.fusion pointwise(%[[B]]#0, %[[B]]#1, %[[B]]#2)
// CONTRACT: attention_backward {{[0-9a-f]+}} space 4x4x4x3 in [{{.*}}] out [query, key, value] | writes query->#0@0[72,3,18,1] key->#1@6[72,3,18,1] value->#2@12[72,3,18,1]
func.func @attention_backward_zero_padded(%q: tensor<2x2x4x3xf32>, %k: tensor<2x2x4x3xf32>, %v: tensor<2x2x4x3xf32>, %o: tensor<2x2x4x3xf32>, %lse: tensor<2x2x4xf32>, %dy: tensor<2x2x4x3xf32>) -> tensor<2x4x18xf32> {
  %z6 = nova.constant dense<0.0> : tensor<2x4x6xf32>
  %z12 = nova.constant dense<0.0> : tensor<2x4x12xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %dy scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4xf32>, tensor<2x2x4x3xf32>
  %dqt = nova.transpose %dq [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dqr = nova.reshape %dqt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dkt = nova.transpose %dk [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dkr = nova.reshape %dkt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %dvt = nova.transpose %dv [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
  %dvr = nova.reshape %dvt : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
  %pq = nova.concat %dqr, %z12 dim 2 : tensor<2x4x6xf32>, tensor<2x4x12xf32> -> tensor<2x4x18xf32>
  %pk = nova.concat %z6, %dkr, %z6 dim 2 : tensor<2x4x6xf32>, tensor<2x4x6xf32>, tensor<2x4x6xf32> -> tensor<2x4x18xf32>
  %pv = nova.concat %z12, %dvr dim 2 : tensor<2x4x12xf32>, tensor<2x4x6xf32> -> tensor<2x4x18xf32>
  %s = nova.add %pq, %pk : tensor<2x4x18xf32>, tensor<2x4x18xf32>
  %t = nova.add %s, %pv : tensor<2x4x18xf32>, tensor<2x4x18xf32>
  return %t : tensor<2x4x18xf32>
}

// Key and value are one tensor: one view of the input feeds both operands.
// CHECK-LABEL: func.func @attention_key_is_value
// CHECK-NEXT: nova_tile.fusion attention_forward(%arg0) : (tensor<2x4x12xf32>) -> tensor<2x2x4x3xf32>
// CONTRACT: attention_forward {{[0-9a-f]+}} space 4x4x4x3 in [query@0[48,3,12,1]] out [elementwise]{{$}}
func.func @attention_key_is_value(%qkv: tensor<2x4x12xf32>) -> tensor<2x2x4x3xf32> {
  %qs = nova.slice %qkv starts [0, 0, 0] limits [2, 4, 6] strides [1, 1, 1] : tensor<2x4x12xf32> -> tensor<2x4x6xf32>
  %qr = nova.reshape %qs : tensor<2x4x6xf32> -> tensor<2x4x2x3xf32>
  %q = nova.transpose %qr [0, 2, 1, 3] : tensor<2x4x2x3xf32> -> tensor<2x2x4x3xf32>
  %ks = nova.slice %qkv starts [0, 0, 6] limits [2, 4, 12] strides [1, 1, 1] : tensor<2x4x12xf32> -> tensor<2x4x6xf32>
  %kr = nova.reshape %ks : tensor<2x4x6xf32> -> tensor<2x4x2x3xf32>
  %k = nova.transpose %kr [0, 2, 1, 3] : tensor<2x4x2x3xf32> -> tensor<2x2x4x3xf32>
  %o = nova.attention %q, %k, %k scale 0.5 causal : tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32>, tensor<2x2x4x3xf32> -> tensor<2x2x4x3xf32>
  return %o : tensor<2x2x4x3xf32>
}
