// The matmul and attention contract rules of grouped GEMMs and strided
// views, one violation each.
// RUN: nova-opt %s --split-input-file --verify-diagnostics

// A grouped GEMM's epilogue value follows one problem, not two.
func.func @mm_combines(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>, %i2: tensor<4x8xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1, %i2) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x8xf32>) -> tensor<4x16xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>, %a2: tensor<4x8xf32>):
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %q = nova.matmul %a2, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    // expected-error @+1 {{matmul contract: combines two problems of a grouped GEMM; each epilogue value follows one matmul or column sum}}
    %s = nova.add %p, %q : tensor<4x16xf32>, tensor<4x16xf32>
    nova_tile.yield %s : tensor<4x16xf32>
  }
  return
}

// -----

// A grouped GEMM has no work that follows none of its problems.
func.func @mm_orphan(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>, %i2: tensor<4x8xf32>, %i3: tensor<4x16xf32>) {
  %r:3 = nova_tile.fusion matmul (%i0, %i1, %i2, %i3) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x8xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>, %a2: tensor<4x8xf32>, %a3: tensor<4x16xf32>):
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %q = nova.matmul %a2, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    // expected-error @+1 {{matmul contract: follows no problem of the grouped GEMM; each epilogue value follows one matmul or column sum}}
    %n = nova.neg %a3 : tensor<4x16xf32>
    nova_tile.yield %p, %q, %n : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  }
  return
}

// -----

// A prologue is one strided view: heads moved next to the batch and then
// merged with the rows are not.
func.func @mm_not_strided(%i0: tensor<2x2x4x3xf32>, %i1: tensor<6x5xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1) : (tensor<2x2x4x3xf32>, tensor<6x5xf32>) -> tensor<8x5xf32> {
  ^bb0(%a0: tensor<2x2x4x3xf32>, %a1: tensor<6x5xf32>):
    %t = nova.transpose %a0 [0, 2, 1, 3] : tensor<2x2x4x3xf32> -> tensor<2x4x2x3xf32>
    // expected-error @+1 {{matmul contract: the matmul's lhs prologue is not one strided view of input #0: this reshape merges dims that are not contiguous}}
    %m = nova.reshape %t : tensor<2x4x2x3xf32> -> tensor<8x6xf32>
    %p = nova.matmul %m, %a1 : tensor<8x6xf32>, tensor<6x5xf32> -> tensor<8x5xf32>
    nova_tile.yield %p : tensor<8x5xf32>
  }
  return
}

// -----

// A column sum reads its operand as rows x columns of one strided view.
func.func @mm_column_sum_view(%i0: tensor<4x8xf32>, %i1: tensor<8x4xf32>, %i2: tensor<2x3x4xf32>) {
  %r:2 = nova_tile.fusion matmul (%i0, %i1, %i2) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<2x3x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x4xf32>, %a2: tensor<2x3x4xf32>):
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
    %t = nova.transpose %a2 [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
    // expected-error @+1 {{matmul contract: the column sum's operand is not one rows x columns strided view of its input}}
    %s = nova.reduce sum %t dims [0, 1] : tensor<3x2x4xf32> -> tensor<4xf32>
    nova_tile.yield %p, %s : tensor<4x4xf32>, tensor<4xf32>
  }
  return
}

// -----

// An attention output written through views is one strided view of what
// the kernel computes.
func.func @attn_output_view(%q: tensor<2x6x4xf32>) {
  %r = nova_tile.fusion attention_forward (%q) : (tensor<2x6x4xf32>) -> tensor<2x4x6xf32> {
  ^bb0(%a0: tensor<2x6x4xf32>):
    %o = nova.attention %a0, %a0, %a0 scale 0.5 : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
    %f = nova.reshape %o : tensor<2x6x4xf32> -> tensor<2x24xf32>
    // expected-error @+1 {{attention_forward contract: output #0 is not one strided view of the value the kernel computes: this reshape splits dims that are not contiguous}}
    %s = nova.reshape %f : tensor<2x24xf32> -> tensor<2x4x6xf32>
    %t = nova.transpose %s [0, 2, 1] : tensor<2x4x6xf32> -> tensor<2x6x4xf32>
    %u = nova.reshape %t : tensor<2x6x4xf32> -> tensor<2x4x6xf32>
    nova_tile.yield %u : tensor<2x4x6xf32>
  }
  return
}

// -----

// An attention input is read as operands or elementwise, not both.
func.func @attn_input_twice(%q: tensor<2x6x4xf32>) {
  %r = nova_tile.fusion attention_forward (%q) : (tensor<2x6x4xf32>) -> tensor<2x6x4xf32> {
  ^bb0(%a0: tensor<2x6x4xf32>):
    %o = nova.attention %a0, %a0, %a0 scale 0.5 : tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32> -> tensor<2x6x4xf32>
    // expected-error @+1 {{attention_forward contract: input #0 is a query operand and also read here; a kernel reads an input as main-op operands or elementwise, not both}}
    %s = nova.add %o, %a0 : tensor<2x6x4xf32>, tensor<2x6x4xf32>
    nova_tile.yield %s : tensor<2x6x4xf32>
  }
  return
}

// -----

// An output concatenated from results holds one result per window.
func.func @attn_concat_window(%q: tensor<2x8x4xf32>, %o: tensor<2x8x4xf32>, %l: tensor<2x8xf32>) {
  %r = nova_tile.fusion attention_backward (%q, %o, %l) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8xf32>) -> tensor<2x8x8xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8xf32>):
    %dq, %dk, %dv = nova.attention_bwd %a0, %a0, %a0, %a1, %a2, %a1 scale 0.5 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8x4xf32>
    %s = nova.add %dk, %dv : tensor<2x8x4xf32>, tensor<2x8x4xf32>
    %c = nova.concat %dq, %s dim 2 : tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x8xf32>
    // expected-error @+1 {{attention_backward contract: output #0 of shape 2x8x4 is not one of dQ, dK, dV (through an elementwise epilogue, same shape)}}
    nova_tile.yield %c : tensor<2x8x8xf32>
  }
  return
}

// -----

// A prologue value feeds main-op operands only, also through a cast.
func.func @mm_prologue_to_epilogue(%i0: tensor<4x4xf32>, %i1: tensor<4x4xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a0: tensor<4x4xf32>, %a1: tensor<4x4xf32>):
    // expected-error @+1 {{matmul contract: this prologue value is also used elsewhere; prologue values feed only main-op operands}}
    %t = nova.transpose %a1 [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %p = nova.matmul %a0, %t : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %c = nova.cast %t : tensor<4x4xf32> to tensor<4x4xf32>
    %e = nova.add %p, %c : tensor<4x4xf32>, tensor<4x4xf32>
    nova_tile.yield %e : tensor<4x4xf32>
  }
  return
}
