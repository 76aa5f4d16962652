// Every rule of the nova_tile verifier and of each family contract.
// RUN: nova-opt %s -split-input-file -verify-diagnostics

// Block arguments must have the input types.
func.func @arg_types(%i0: tensor<4x8xf32>) {
  // expected-error @+1 {{body arguments ('tensor<4x9xf32>') must have the input types ('tensor<4x8xf32>')}}
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x9xf32>):
    nova_tile.yield %a0 : tensor<4x9xf32>
  }
  return
}

// -----

// The yielded values must have the result types.
func.func @yield_types(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    %n = nova.neg %a0 : tensor<4x8xf32>
    %c = nova.cast %n : tensor<4x8xf32> to tensor<4x8xbf16>
    // expected-error @+1 {{yields ('tensor<4x8xbf16>') but the group's results are ('tensor<4x8xf32>')}}
    nova_tile.yield %c : tensor<4x8xbf16>
  }
  return
}

// -----

// A kernel produces something.
func.func @no_outputs(%i0: tensor<4xf32>) {
  nova_tile.fusion pointwise (%i0) : (tensor<4xf32>) -> () {
  ^bb0(%a0: tensor<4xf32>):
    // expected-error @+1 {{pointwise contract: a kernel produces at least one output}}
    nova_tile.yield
  }
  return
}

// -----

// Bodies hold nova ops only.
func.func @not_nova(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    // expected-error @+1 {{pointwise contract: 'arith.constant' is not a nova op; bodies hold nova ops only}}
    %c = arith.constant dense<1.0> : tensor<4x8xf32>
    %s = nova.add %a0, %c : tensor<4x8xf32>, tensor<4x8xf32>
    nova_tile.yield %s : tensor<4x8xf32>
  }
  return
}

// -----

// Schedules are positive; threads fill whole warps.
func.func @schedule_tile_rank(%i0: tensor<4xf32>) {
  // expected-error @+1 {{schedule tile has 4 sizes; expected 1 to 3}}
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4xf32>) -> tensor<4xf32> schedule #nova_tile.schedule<tile = [1, 2, 3, 4], threads = 128, stages = 1, vector = 1, split_k = 1> {
  ^bb0(%a0: tensor<4xf32>):
    nova_tile.yield %a0 : tensor<4xf32>
  }
  return
}

// -----

// Schedules are positive; threads fill whole warps.
func.func @schedule_tile_size(%i0: tensor<4xf32>) {
  // expected-error @+1 {{schedule tile sizes must be positive, got 0}}
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4xf32>) -> tensor<4xf32> schedule #nova_tile.schedule<tile = [64, 0], threads = 128, stages = 1, vector = 1, split_k = 1> {
  ^bb0(%a0: tensor<4xf32>):
    nova_tile.yield %a0 : tensor<4xf32>
  }
  return
}

// -----

// Schedules are positive; threads fill whole warps.
func.func @schedule_stages(%i0: tensor<4xf32>) {
  // expected-error @+1 {{schedule stages must be positive, got 0}}
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4xf32>) -> tensor<4xf32> schedule #nova_tile.schedule<tile = [64], threads = 128, stages = 0, vector = 1, split_k = 1> {
  ^bb0(%a0: tensor<4xf32>):
    nova_tile.yield %a0 : tensor<4xf32>
  }
  return
}

// -----

// Schedules are positive; threads fill whole warps.
func.func @schedule_threads(%i0: tensor<4xf32>) {
  // expected-error @+1 {{schedule threads must be a multiple of 32 up to 1024, got 100}}
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4xf32>) -> tensor<4xf32> schedule #nova_tile.schedule<tile = [64], threads = 100, stages = 1, vector = 1, split_k = 1> {
  ^bb0(%a0: tensor<4xf32>):
    nova_tile.yield %a0 : tensor<4xf32>
  }
  return
}

// -----

// A launch names a kernel and matches its type.
func.func @launch_missing(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nova_tile.launch' op 'nope' does not name a nova_tile.kernel}}
  %y = nova_tile.launch @nope(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nova_tile.launch' op types do not match kernel @k of type '(tensor<8xf32>) -> tensor<8xf32>'}}
  %y = nova_tile.launch @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
nova_tile.kernel @k pointwise {
^bb0(%a: tensor<8xf32>):
  nova_tile.yield %a : tensor<8xf32>
}

// -----

// Outlined kernels follow their family's contract too.
// expected-error @+1 {{column_reduction contract: a column reduction holds at least one reduction over the rows}}
nova_tile.kernel @k column_reduction {
^bb0(%a: tensor<8xf32>):
  nova_tile.yield %a : tensor<8xf32>
}

// -----

// Pointwise: elementwise ops and views only.
func.func @pw_reduce(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion pointwise (%i0) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    // expected-error @+1 {{pointwise contract: 'nova.reduce' is not allowed here; a pointwise kernel holds elementwise ops and views of its inputs}}
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Pointwise: transposes read inputs, not computed values.
func.func @pw_transpose_value(%i0: tensor<8x8xf32>) {
  %r = nova_tile.fusion pointwise (%i0) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a0: tensor<8x8xf32>):
    %e = nova.exp %a0 : tensor<8x8xf32>
    // expected-error @+1 {{pointwise contract: 'nova.transpose' applies to kernel inputs only: a kernel reads an input through a view but cannot permute or cut values it computes}}
    %t = nova.transpose %e [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
    nova_tile.yield %t : tensor<8x8xf32>
  }
  return
}

// -----

// Pointwise: every value broadcasts to the iteration space.
func.func @pw_value_shape(%i0: tensor<4x8xf32>, %i1: tensor<4x16xf32>) {
  %r:2 = nova_tile.fusion pointwise (%i0, %i1) : (tensor<4x8xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<4x16xf32>):
    // expected-error @+1 {{pointwise contract: value of shape 4x16 does not broadcast to the iteration space 4x8}}
    %e = nova.exp %a1 : tensor<4x16xf32>
    nova_tile.yield %a0, %a0 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return
}

// -----

// Pointwise: every output has the iteration-space shape.
func.func @pw_output_shapes(%i0: tensor<4x8xf32>, %i1: tensor<8xf32>) {
  %r:2 = nova_tile.fusion pointwise (%i0, %i1) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>):
    %e = nova.exp %a0 : tensor<4x8xf32>
    %n = nova.neg %a1 : tensor<8xf32>
    // expected-error @+1 {{pointwise contract: output #1 has shape 8, but every output has the iteration-space shape 4x8}}
    nova_tile.yield %e, %n : tensor<4x8xf32>, tensor<8xf32>
  }
  return
}

// -----

// Pointwise: each input is read one way.
func.func @pw_two_ways(%i0: tensor<8x8xf32>) {
  %r = nova_tile.fusion pointwise (%i0) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a0: tensor<8x8xf32>):
    // expected-error @+1 {{pointwise contract: input #0 is read both through 'nova.transpose' and directly; a kernel reads each input one way}}
    %t = nova.transpose %a0 [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
    %s = nova.add %t, %a0 : tensor<8x8xf32>, tensor<8x8xf32>
    nova_tile.yield %s : tensor<8x8xf32>
  }
  return
}

// -----

// Pointwise: every input is the iteration space or broadcast to it.
func.func @pw_input_shape(%i0: tensor<4x8xf32>, %i1: tensor<5xf32>) {
  // expected-error @+1 {{pointwise contract: input #1 of shape 5 is neither the iteration space 4x8 nor broadcast to it}}
  %r = nova_tile.fusion pointwise (%i0, %i1) : (tensor<4x8xf32>, tensor<5xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<5xf32>):
    %e = nova.exp %a0 : tensor<4x8xf32>
    nova_tile.yield %e : tensor<4x8xf32>
  }
  return
}

// -----

// Row reduction: at least one reduction.
func.func @rr_none(%i0: tensor<4x8xf32>) {
  // expected-error @+1 {{row_reduction contract: a row reduction holds at least one reduction along the innermost dim}}
  %r = nova_tile.fusion row_reduction (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    %e = nova.exp %a0 : tensor<4x8xf32>
    nova_tile.yield %e : tensor<4x8xf32>
  }
  return
}

// -----

// Row reduction: reduce the innermost dim (along the rows), or the leading
// dims or every dim (across them); never a middle dim.
func.func @rr_dims(%i0: tensor<2x4x8xf32>) {
  %r = nova_tile.fusion row_reduction (%i0) : (tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a0: tensor<2x4x8xf32>):
    // expected-error @+1 {{row_reduction contract: reduces dims [1] of a rank-3 tensor; a row reduction reduces dims [2] along the rows, or [0, 1] or every dim across them}}
    %s = nova.reduce sum %a0 dims [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
    nova_tile.yield %s : tensor<2x8xf32>
  }
  return
}

// -----

// Row reduction: a column sum alone is no row reduction.
func.func @rr_only_across(%i0: tensor<4x8xf32>) {
  // expected-error @+1 {{row_reduction contract: a row reduction holds at least one reduction along the innermost dim}}
  %r = nova_tile.fusion row_reduction (%i0) : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    %s = nova.reduce sum %a0 dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    nova_tile.yield %s : tensor<8xf32>
  }
  return
}

// -----

// Row reduction: a reduction across the rows is complete only at the end of
// the kernel, so nothing in it reads the result.
func.func @rr_across_read(%i0: tensor<4x8xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%i0) : (tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<4x8xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    %c = nova.reduce sum %a0 dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    // expected-error @+1 {{row_reduction contract: reads the result of a reduction across the rows, which is complete only when every row is done; such a result is only yielded}}
    %n = nova.neg %c : tensor<8xf32>
    nova_tile.yield %s, %n : tensor<4xf32>, tensor<8xf32>
  }
  return
}

// -----

// Row reduction: a column sum reduces the kernel's own rows x cols space.
func.func @rr_column_sum_space(%i0: tensor<4x8xf32>, %i1: tensor<2x8xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<2x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<2x8xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    // expected-error @+1 {{row_reduction contract: reduces a 2x8 tensor, but the kernel's rows x cols space is 4x8 (from its first reduction); all reductions share it}}
    %c = nova.reduce sum %a1 dims [0] : tensor<2x8xf32> -> tensor<8xf32>
    nova_tile.yield %s, %c : tensor<4xf32>, tensor<8xf32>
  }
  return
}

// -----

// Row reduction: a total sums a value per element or per row.
func.func @rr_total_of_column(%i0: tensor<4x8xf32>, %i1: tensor<1x8xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<1x8xf32>) -> (tensor<4xf32>, tensor<f32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<1x8xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    // expected-error @+1 {{row_reduction contract: sums every element of a 1x8 tensor, which is neither per element nor per row of the kernel's 4x8 space}}
    %t = nova.reduce sum %a1 dims [0, 1] : tensor<1x8xf32> -> tensor<f32>
    nova_tile.yield %s, %t : tensor<4xf32>, tensor<f32>
  }
  return
}

// -----

// Row reduction: a transposed input is read one element per point of the
// space.
func.func @rr_view_shape(%i0: tensor<4x8xf32>, %i1: tensor<8x1xf32>) {
  %r = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<8x1xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x1xf32>):
    // expected-error @+1 {{row_reduction contract: reads input #1 as a 1x8 value, which is not one element per point of the reduced 4x8 tensor; a reduction kernel reads transposed, sliced or reshaped inputs element by element}}
    %t = nova.transpose %a1 [1, 0] : tensor<8x1xf32> -> tensor<1x8xf32>
    %m = nova.mul %a0, %t : tensor<4x8xf32>, tensor<1x8xf32>
    %s = nova.reduce sum %m dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Row reduction: an input is read through one view or directly, not both.
func.func @rr_view_twice(%i0: tensor<8x8xf32>) {
  %r = nova_tile.fusion row_reduction (%i0) : (tensor<8x8xf32>) -> tensor<8xf32> {
  ^bb0(%a0: tensor<8x8xf32>):
    // expected-error @+1 {{row_reduction contract: input #0 is read both through 'nova.transpose' and directly; a kernel reads each input one way}}
    %t = nova.transpose %a0 [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
    %p = nova.add %t, %a0 : tensor<8x8xf32>, tensor<8x8xf32>
    %s = nova.reduce sum %p dims [1] : tensor<8x8xf32> -> tensor<8xf32>
    nova_tile.yield %s : tensor<8xf32>
  }
  return
}

// -----

// Row reduction: softmax along the innermost dim.
func.func @rr_softmax_dim(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion row_reduction (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    // expected-error @+1 {{row_reduction contract: normalizes along dim 0 of a rank-2 tensor; a row reduction reduces only the innermost dim}}
    %s = nova.softmax %a0 dim 0 : tensor<4x8xf32>
    nova_tile.yield %s : tensor<4x8xf32>
  }
  return
}

// -----

// Row reduction: one rows x cols space.
func.func @rr_two_spaces(%i0: tensor<4x8xf32>, %i1: tensor<4x16xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<4x16xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    // expected-error @+1 {{row_reduction contract: reduces a 4x16 tensor, but the kernel's rows x cols space is 4x8 (from its first reduction); all reductions share it}}
    %t = nova.reduce max %a1 dims [1] : tensor<4x16xf32> -> tensor<4xf32>
    nova_tile.yield %s, %t : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// Row reduction: no matmul.
func.func @rr_matmul(%i0: tensor<4x8xf32>, %i1: tensor<8x8xf32>) {
  %r = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x8xf32>):
    // expected-error @+1 {{row_reduction contract: 'nova.matmul' is not allowed here; a row reduction holds elementwise ops, views and reductions along the innermost dim (reduce, softmax, log_softmax, layer_norm, cross_entropy)}}
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %s = nova.reduce sum %p dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Row reduction: outputs per element, per row or scalar.
func.func @rr_output(%i0: tensor<4x8xf32>, %i1: tensor<8xf32>) {
  %r:2 = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    %n = nova.neg %a1 : tensor<8xf32>
    // expected-error @+1 {{row_reduction contract: output #1 of shape 8 is not per element, per row or a scalar of the reduced 4x8 tensor}}
    nova_tile.yield %s, %n : tensor<4xf32>, tensor<8xf32>
  }
  return
}

// -----

// Row reduction: values per element, row or column.
func.func @rr_value(%i0: tensor<4x8xf32>, %i1: tensor<3xf32>) {
  %r = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<3xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    // expected-error @+1 {{row_reduction contract: value of shape 3 is not per element, per row or per column of the reduced 4x8 tensor}}
    %n = nova.neg %a1 : tensor<3xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Row reduction: inputs per element, row or column.
func.func @rr_input(%i0: tensor<4x8xf32>, %i1: tensor<3xf32>) {
  // expected-error @+1 {{row_reduction contract: input #1 of shape 3 is not per element, per row or per column of the reduced 4x8 tensor}}
  %r = nova_tile.fusion row_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<3xf32>):
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Column reduction: reduce every dim but the innermost, or every dim.
func.func @cr_dims(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion column_reduction (%i0) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    // expected-error @+1 {{column_reduction contract: reduces dims [1] of a rank-2 tensor; a column reduction reduces dims [0] or every dim}}
    %s = nova.reduce sum %a0 dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Column reduction: a column sum is complete only at the end of the kernel.
func.func @cr_across_read(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion column_reduction (%i0) : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    %c = nova.reduce sum %a0 dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    // expected-error @+1 {{column_reduction contract: reads the result of a reduction across the rows, which is complete only when every row is done; such a result is only yielded}}
    %e = nova.exp %c : tensor<8xf32>
    nova_tile.yield %e : tensor<8xf32>
  }
  return
}

// -----

// Column reduction: every column sum splits rows and columns alike.
func.func @cr_two_splits(%i0: tensor<2x4x8xf32>) {
  %r:2 = nova_tile.fusion column_reduction (%i0) : (tensor<2x4x8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<2x4x8xf32>):
    %s = nova.reduce sum %a0 dims [0] : tensor<2x4x8xf32> -> tensor<4x8xf32>
    // expected-error @+1 {{column_reduction contract: reduces the first 2 dims of a 2x4x8 tensor, but the kernel's rows are its first 1 dims (from its first reduction); all reductions share them}}
    %t = nova.reduce sum %a0 dims [0, 1] : tensor<2x4x8xf32> -> tensor<8xf32>
    nova_tile.yield %s, %t : tensor<4x8xf32>, tensor<8xf32>
  }
  return
}

// -----

// Column reduction: leading dims only.
func.func @cr_middle(%i0: tensor<2x4x8xf32>) {
  %r = nova_tile.fusion column_reduction (%i0) : (tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a0: tensor<2x4x8xf32>):
    // expected-error @+1 {{column_reduction contract: reduces dims [1] of a rank-3 tensor; a column reduction reduces dims [0] to [0, 1] (leading dims) or every dim}}
    %s = nova.reduce sum %a0 dims [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
    nova_tile.yield %s : tensor<2x8xf32>
  }
  return
}

// -----

// Column reduction: outputs per element, per column or scalar.
func.func @cr_output(%i0: tensor<4x8xf32>, %i1: tensor<4x1xf32>) {
  %r:2 = nova_tile.fusion column_reduction (%i0, %i1) : (tensor<4x8xf32>, tensor<4x1xf32>) -> (tensor<8xf32>, tensor<4x1xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<4x1xf32>):
    %s = nova.reduce sum %a0 dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    %n = nova.neg %a1 : tensor<4x1xf32>
    // expected-error @+1 {{column_reduction contract: output #1 of shape 4x1 is not per element, per column or a scalar of the reduced 4x8 tensor}}
    nova_tile.yield %s, %n : tensor<8xf32>, tensor<4x1xf32>
  }
  return
}

// -----

// Matmul: at least one matmul.
func.func @mm_none(%i0: tensor<4x8xf32>) {
  // expected-error @+1 {{matmul contract: a matmul kernel holds at least one 'nova.matmul', the body has none}}
  %r = nova_tile.fusion matmul (%i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    nova_tile.yield %a0 : tensor<4x8xf32>
  }
  return
}

// -----

// Matmul: the problems of a grouped GEMM are independent; one matmul does
// not read another's product.
func.func @mm_two(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>, %i2: tensor<16x16xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1, %i2) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>, %a2: tensor<16x16xf32>):
    // expected-error @+1 {{matmul contract: 'nova.matmul' computes the matmul's lhs; a prologue only casts, transposes, reshapes, broadcasts or slices an input}}
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %q = nova.matmul %p, %a2 : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
    nova_tile.yield %q : tensor<4x16xf32>
  }
  return
}

// -----

// Matmul: the prologue only casts, transposes, reshapes, broadcasts or
// slices.
func.func @mm_prologue(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>):
    // expected-error @+1 {{matmul contract: 'nova.exp' computes the matmul's lhs; a prologue only casts, transposes, reshapes, broadcasts or slices an input}}
    %e = nova.exp %a0 : tensor<4x8xf32>
    %p = nova.matmul %e, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    nova_tile.yield %p : tensor<4x16xf32>
  }
  return
}

// -----

// Matmul: prologue values feed the matmul only.
func.func @mm_prologue_shared(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>) {
  %r:2 = nova_tile.fusion matmul (%i0, %i1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> (tensor<4x16xbf16>, tensor<4x8xbf16>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>):
    // expected-error @+1 {{matmul contract: the matmul's lhs prologue value is also used elsewhere; prologue values feed only their operand}}
    %c = nova.cast %a0 : tensor<4x8xf32> to tensor<4x8xbf16>
    %w = nova.cast %a1 : tensor<8x16xf32> to tensor<8x16xbf16>
    %p = nova.matmul %c, %w : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
    nova_tile.yield %p, %c : tensor<4x16xbf16>, tensor<4x8xbf16>
  }
  return
}

// -----

// Matmul: the epilogue is elementwise.
func.func @mm_epilogue(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>) {
  %r = nova_tile.fusion matmul (%i0, %i1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4xf32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>):
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    // expected-error @+1 {{matmul contract: 'nova.reduce' is not allowed here; a matmul kernel holds matmuls, column sums, a prologue (cast, transpose, reshape, broadcast or slice of an input) per operand and an elementwise epilogue per result}}
    %s = nova.reduce sum %p dims [1] : tensor<4x16xf32> -> tensor<4xf32>
    nova_tile.yield %s : tensor<4xf32>
  }
  return
}

// -----

// Matmul: every output has the product's shape.
func.func @mm_output(%i0: tensor<4x8xf32>, %i1: tensor<8x16xf32>, %i2: tensor<16xf32>) {
  %r:2 = nova_tile.fusion matmul (%i0, %i1, %i2) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<16xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8x16xf32>, %a2: tensor<16xf32>):
    %p = nova.matmul %a0, %a1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %b = nova.neg %a2 : tensor<16xf32>
    // expected-error @+1 {{matmul contract: output #1 has shape 16, but every output has its matmul product's shape 4x16}}
    nova_tile.yield %p, %b : tensor<4x16xf32>, tensor<16xf32>
  }
  return
}

// -----

// Matmul: an operand input is read by main ops and their prologues only
// (x @ x is two reads of one input; the epilogue may not read it too).
func.func @mm_same_input(%i0: tensor<8x8xf32>) {
  %r = nova_tile.fusion matmul (%i0) : (tensor<8x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%a0: tensor<8x8xf32>):
    %p = nova.matmul %a0, %a0 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
    // expected-error @+1 {{matmul contract: input #0 is a matmul-lhs operand and also read here; a kernel reads an input as main-op operands or elementwise, not both}}
    %s = nova.add %p, %a0 : tensor<8x8xf32>, tensor<8x8xf32>
    nova_tile.yield %s : tensor<8x8xf32>
  }
  return
}

// -----

// Attention: the epilogue is elementwise.
func.func @attn_epilogue(%i0: tensor<2x8x4xf32>, %i1: tensor<2x8x4xf32>, %i2: tensor<2x8x4xf32>) {
  %r = nova_tile.fusion attention_forward (%i0, %i1, %i2) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8x4xf32>):
    %o = nova.attention %a0, %a1, %a2 scale 0.5 causal : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
    // expected-error @+1 {{attention_forward contract: 'nova.reduce' is not allowed here; an attention kernel holds one attention op, a prologue on its operands and an elementwise epilogue on its results}}
    %s = nova.reduce sum %o dims [2] : tensor<2x8x4xf32> -> tensor<2x8xf32>
    nova_tile.yield %s : tensor<2x8xf32>
  }
  return
}

// -----

// Attention: the prologue only casts and rearranges q, k, v.
func.func @attn_prologue(%i0: tensor<2x8x4xf32>, %i1: tensor<2x8x4xf32>, %i2: tensor<2x8x4xf32>) {
  %r = nova_tile.fusion attention_forward (%i0, %i1, %i2) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8x4xf32>):
    // expected-error @+1 {{attention_forward contract: 'nova.mul' computes the key; a prologue only casts, transposes, reshapes, broadcasts or slices an input}}
    %k = nova.mul %a1, %a1 : tensor<2x8x4xf32>, tensor<2x8x4xf32>
    %o = nova.attention %a0, %k, %a2 scale 0.5 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
    nova_tile.yield %o : tensor<2x8x4xf32>
  }
  return
}

// -----

// Attention backward: exactly one attention_bwd.
func.func @attn_bwd_none(%i0: tensor<2x8x4xf32>) {
  // expected-error @+1 {{attention_backward contract: an attention kernel holds exactly one 'nova.attention_bwd', the body has none}}
  %r = nova_tile.fusion attention_backward (%i0) : (tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>):
    nova_tile.yield %a0 : tensor<2x8x4xf32>
  }
  return
}

// -----

// Attention forward: exactly one attention op.
func.func @attn_two(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) {
  %r = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8x4xf32>):
    %o = nova.attention %a0, %a1, %a2 scale 0.5 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
    // expected-error @+1 {{attention_forward contract: an attention kernel holds exactly one 'nova.attention' or 'nova.attention_fwd', this is the second}}
    %o2, %l = nova.attention_fwd %o, %o, %o scale 0.5 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>, tensor<2x8xf32>
    nova_tile.yield %o2 : tensor<2x8x4xf32>
  }
  return
}

// -----

// Attention forward: outputs are the output (through an epilogue) or the
// log-sum-exp as it is.
func.func @attn_lse_epilogue(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>) {
  %r:2 = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8xf32>) {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8x4xf32>):
    %o, %l = nova.attention_fwd %a0, %a1, %a2 scale 0.5 causal : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>, tensor<2x8xf32>
    %e = nova.exp %l : tensor<2x8xf32>
    // expected-error @+1 {{attention_forward contract: output #1 of shape 2x8 is neither the attention output (through an elementwise epilogue, same shape) nor its log-sum-exp}}
    nova_tile.yield %o, %e : tensor<2x8x4xf32>, tensor<2x8xf32>
  }
  return
}

// -----

// Attention backward: the outputs are the gradients of q, k and v.
func.func @attn_bwd_output(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>, %o: tensor<2x8x4xf32>, %l: tensor<2x8xf32>, %d: tensor<2x8x4xf32>, %z: tensor<2x2x8x4xf32>) {
  %r = nova_tile.fusion attention_backward (%q, %k, %v, %o, %l, %d, %z) : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8x4xf32>, tensor<2x2x8x4xf32>) -> tensor<2x2x8x4xf32> {
  ^bb0(%a0: tensor<2x8x4xf32>, %a1: tensor<2x8x4xf32>, %a2: tensor<2x8x4xf32>, %a3: tensor<2x8x4xf32>, %a4: tensor<2x8xf32>, %a5: tensor<2x8x4xf32>, %a6: tensor<2x2x8x4xf32>):
    %dq, %dk, %dv = nova.attention_bwd %a0, %a1, %a2, %a3, %a4, %a5 scale 0.5 causal : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8x4xf32>
    %s = nova.add %dq, %a6 : tensor<2x8x4xf32>, tensor<2x2x8x4xf32>
    // expected-error @+1 {{attention_backward contract: output #0 of shape 2x2x8x4 is not one of dQ, dK, dV (through an elementwise epilogue, same shape)}}
    nova_tile.yield %s : tensor<2x2x8x4xf32>
  }
  return
}

// -----

// Gather: whole rows.
func.func @gather_axis(%i0: tensor<4x10xf32>, %i1: tensor<3xi32>) {
  %r = nova_tile.fusion gather (%i0, %i1) : (tensor<4x10xf32>, tensor<3xi32>) -> tensor<4x3xf32> {
  ^bb0(%a0: tensor<4x10xf32>, %a1: tensor<3xi32>):
    // expected-error @+1 {{gather contract: gathers along axis 1; a gather kernel gathers whole rows (axis 0)}}
    %g = nova.gather %a0[%a1] axis 1 : tensor<4x10xf32>, tensor<3xi32> -> tensor<4x3xf32>
    nova_tile.yield %g : tensor<4x3xf32>
  }
  return
}

// -----

// Gather: the table is read straight from an input.
func.func @gather_table(%i0: tensor<10x4xf32>, %i1: tensor<3xi32>) {
  %r = nova_tile.fusion gather (%i0, %i1) : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32> {
  ^bb0(%a0: tensor<10x4xf32>, %a1: tensor<3xi32>):
    %t = nova.cast %a0 : tensor<10x4xf32> to tensor<10x4xf32>
    // expected-error @+1 {{gather contract: the table and the indices are kernel inputs read only by the gather}}
    %g = nova.gather %t[%a1] axis 0 : tensor<10x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
    nova_tile.yield %g : tensor<3x4xf32>
  }
  return
}

// -----

// Gather: the epilogue is elementwise.
func.func @gather_epilogue(%i0: tensor<10x4xf32>, %i1: tensor<3xi32>) {
  %r = nova_tile.fusion gather (%i0, %i1) : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3xf32> {
  ^bb0(%a0: tensor<10x4xf32>, %a1: tensor<3xi32>):
    %g = nova.gather %a0[%a1] axis 0 : tensor<10x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
    // expected-error @+1 {{gather contract: 'nova.reduce' is not allowed here; a gather kernel holds one gather and an elementwise epilogue on the gathered rows}}
    %s = nova.reduce sum %g dims [1] : tensor<3x4xf32> -> tensor<3xf32>
    nova_tile.yield %s : tensor<3xf32>
  }
  return
}

// -----

// Scatter_add: nothing reads the scattered rows in the same kernel.
func.func @scatter_follow(%i0: tensor<3x4xf32>, %i1: tensor<3xi32>) {
  %r = nova_tile.fusion scatter_add (%i0, %i1) : (tensor<3x4xf32>, tensor<3xi32>) -> tensor<10x4xf32> {
  ^bb0(%a0: tensor<3x4xf32>, %a1: tensor<3xi32>):
    %s = nova.scatter_add %a0[%a1] axis 0 : tensor<3x4xf32>, tensor<3xi32> -> tensor<10x4xf32>
    %n = nova.neg %s : tensor<10x4xf32>
    // expected-error @+1 {{scatter_add contract: the scatter_add's result is the kernel's only output; nothing may follow it}}
    nova_tile.yield %n : tensor<10x4xf32>
  }
  return
}

// -----

// Scatter_add: whole rows.
func.func @scatter_axis(%i0: tensor<4x3xf32>, %i1: tensor<3xi32>) {
  %r = nova_tile.fusion scatter_add (%i0, %i1) : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x10xf32> {
  ^bb0(%a0: tensor<4x3xf32>, %a1: tensor<3xi32>):
    // expected-error @+1 {{scatter_add contract: scatters along axis 1; a scatter_add kernel adds whole rows (axis 0)}}
    %s = nova.scatter_add %a0[%a1] axis 1 : tensor<4x3xf32>, tensor<3xi32> -> tensor<4x10xf32>
    nova_tile.yield %s : tensor<4x10xf32>
  }
  return
}

// -----

// Scatter_add: indices straight from an input.
func.func @scatter_indices(%i0: tensor<3x4xf32>, %i1: tensor<3xi64>) {
  %r = nova_tile.fusion scatter_add (%i0, %i1) : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32> {
  ^bb0(%a0: tensor<3x4xf32>, %a1: tensor<3xi64>):
    %i = nova.cast %a1 : tensor<3xi64> to tensor<3xi32>
    // expected-error @+1 {{scatter_add contract: the indices are a kernel input read only by the scatter_add}}
    %s = nova.scatter_add %a0[%i] axis 0 : tensor<3x4xf32>, tensor<3xi32> -> tensor<10x4xf32>
    nova_tile.yield %s : tensor<10x4xf32>
  }
  return
}

// -----

// Optimizer: adamw updates or sums over whole tensors.
func.func @opt_none(%i0: tensor<8xf32>) {
  // expected-error @+1 {{optimizer contract: an optimizer kernel holds 'nova.adamw' updates or sums over whole tensors (a global norm), the body has neither}}
  %r = nova_tile.fusion optimizer (%i0) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a0: tensor<8xf32>):
    %n = nova.neg %a0 : tensor<8xf32>
    nova_tile.yield %n : tensor<8xf32>
  }
  return
}

// -----

// Optimizer: a global norm's sums cover whole tensors.
func.func @opt_partial_sum(%i0: tensor<4x8xf32>) {
  %r = nova_tile.fusion optimizer (%i0) : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%a0: tensor<4x8xf32>):
    // expected-error @+1 {{optimizer contract: reduces part of a tensor; an optimizer kernel sums whole tensors only}}
    %s = nova.reduce sum %a0 dims [0] : tensor<4x8xf32> -> tensor<8xf32>
    nova_tile.yield %s : tensor<8xf32>
  }
  return
}

// -----

// Optimizer: a sum over a whole tensor is only yielded.
func.func @opt_sum_read(%i0: tensor<4x8xf32>, %i1: tensor<8xf32>) {
  %r = nova_tile.fusion optimizer (%i0, %i1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<f32> {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>):
    %s = nova.reduce sum %a0 dims [0, 1] : tensor<4x8xf32> -> tensor<f32>
    %t = nova.reduce sum %a1 dims [0] : tensor<8xf32> -> tensor<f32>
    // expected-error @+1 {{optimizer contract: reads a sum over a whole tensor, which is complete only at the end of the kernel; such a sum is only yielded}}
    %n = nova.add %s, %t : tensor<f32>, tensor<f32>
    nova_tile.yield %n : tensor<f32>
  }
  return
}

// -----

// Optimizer: updates and the sums they read are two kernels.
func.func @opt_sum_and_update(%i0: tensor<8xf32>, %i1: tensor<i64>) {
  // expected-error @+1 {{optimizer contract: an optimizer kernel holds either 'nova.adamw' updates or sums over whole tensors, not both: the updates read the finished sums}}
  %r:2 = nova_tile.fusion optimizer (%i0, %i1) : (tensor<8xf32>, tensor<i64>) -> (tensor<f32>, tensor<8xf32>) {
  ^bb0(%a0: tensor<8xf32>, %a1: tensor<i64>):
    %s = nova.reduce sum %a0 dims [0] : tensor<8xf32> -> tensor<f32>
    %lr = nova.constant dense<1.0e-3> : tensor<f32>
    %u:3 = nova.adamw %a0, %a0, %a0, %a0, %a1, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<i64>
    nova_tile.yield %s, %u#0 : tensor<f32>, tensor<8xf32>
  }
  return
}

// -----

// Optimizer: no views that move elements.
func.func @opt_transpose(%i0: tensor<8x8xf32>, %i1: tensor<8x8xf32>, %i2: tensor<i64>) {
  %r = nova_tile.fusion optimizer (%i0, %i1, %i2) : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<i64>) -> tensor<8x8xf32> {
  ^bb0(%a0: tensor<8x8xf32>, %a1: tensor<8x8xf32>, %a2: tensor<i64>):
    // expected-error @+1 {{optimizer contract: 'nova.transpose' is not allowed here; an optimizer kernel holds adamw updates and elementwise ops on the tensors they update (clipping, casts)}}
    %g = nova.transpose %a1 [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
    %lr = nova.constant dense<1.0e-3> : tensor<f32>
    %u:3 = nova.adamw %a0, %g, %a0, %a0, %a2, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8x8xf32>, tensor<i64>
    nova_tile.yield %u#0 : tensor<8x8xf32>
  }
  return
}

// -----

// An empty body is an error, not a crash.
func.func @empty_body(%x: tensor<4xf32>) {
  // expected-error @+1 {{empty block: expect at least a terminator}}
  %y = nova_tile.fusion pointwise (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
  }
  return
}

// -----

// A kernel's inputs are static tensors.
// expected-error @+1 {{'nova_tile.kernel' op body argument #0 must be a statically shaped tensor, got 'i32'}}
nova_tile.kernel @k pointwise {
^bb0(%i: i32, %a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
