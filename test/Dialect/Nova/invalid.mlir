// One case per verifier rule of the nova dialect.
// RUN: nova-opt %s -split-input-file -verify-diagnostics

// ===== dtype rules (ODS type constraints)

func.func @exp_of_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = "nova.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @f64_not_a_nova_dtype(%x: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = "nova.neg"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = "nova.neg"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @add_of_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float or 32-bit signless integer or 64-bit signless integer values}}
  %0 = "nova.add"(%x, %x) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "nova.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// ===== broadcasting

func.func @not_broadcastable(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operands (lhs, rhs) are not broadcast-compatible: [3] vs [4]}}
  %0 = nova.add %a, %b : tensor<3xf32>, tensor<4xf32>
  return
}

// -----

func.func @mixed_element_types(%a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{operands must have the same element type, got 'f32' and 'bf16'}}
  %0 = nova.mul %a, %b : tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @wrong_broadcast_result(%a: tensor<4x1xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{result type 'tensor<4x4xf32>' does not match 'tensor<4x8xf32>', the type its operands and attributes imply}}
  %0 = "nova.sub"(%a, %b) : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @pow_of_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = "nova.pow"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @cmp_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{not broadcast-compatible: [2, 3] vs [2]}}
  %0 = nova.cmp eq, %a, %b : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @cmp_result_not_i1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = "nova.cmp"(%a, %a) <{predicate = 0 : i32}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @select_condition_not_i1(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = "nova.select"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_branch_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{on_true and on_false must have the same element type, got 'f32' and 'i32'}}
  %0 = nova.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @select_not_broadcastable(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operands (condition, on_true, on_false) are not broadcast-compatible: [3] vs [4] vs [4]}}
  %0 = nova.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @unknown_gelu(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximation' [tanh, erf]}}
  %0 = nova.gelu exact %x : tensor<4xf32>
  return
}

// -----

// ===== cast

func.func @cast_changes_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{must preserve the shape: [4] vs [2, 2]}}
  %0 = nova.cast %x : tensor<4xf32> to tensor<2x2xbf16>
  return
}

// -----

// ===== constant and iota

func.func @constant_type_mismatch() {
  // expected-error @+1 {{result type 'tensor<3xf32>' does not match 'tensor<2xf32>', the type its operands and attributes imply}}
  %0 = "nova.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @iota_dim_out_of_range() {
  // expected-error @+1 {{iota dim 2 is out of range for a tensor of rank 2}}
  %0 = nova.iota dim 2 : tensor<4x8xi64>
  return
}

// -----

func.func @iota_scalar() {
  // expected-error @+1 {{result must have rank >= 1}}
  %0 = nova.iota dim 0 : tensor<i64>
  return
}

// -----

// ===== reduce

func.func @reduce_no_dims(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{must reduce at least one dimension}}
  %0 = nova.reduce sum %x dims [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{reduction dimension 2 is out of range for a tensor of rank 2}}
  %0 = nova.reduce sum %x dims [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_twice(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{reduction dimension 1 is listed more than once}}
  %0 = nova.reduce max %x dims [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_wrong_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result type 'tensor<4xf32>' does not match 'tensor<4x1xf32>', the type its operands and attributes imply}}
  %0 = nova.reduce sum %x dims [1] keep_dims : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_of_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = nova.reduce sum %x dims [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

// ===== reshape

func.func @reshape_count(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{must preserve the element count: [4, 6] has 24 elements but [5, 5] has 25}}
  %0 = nova.reshape %x : tensor<4x6xf32> -> tensor<5x5xf32>
  return
}

// -----

// 2^32 x 2^32 elements wrap to 0 in 64-bit arithmetic; no nova op accepts a
// tensor whose element count overflows.
func.func @reshape_count_overflow(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'nova.reshape' op operand #0 of type 'tensor<4294967296x4294967296xf32>' has more than 2^63 elements}}
  %0 = nova.reshape %x : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
  return
}

// -----

func.func @result_count_overflow(%x: tensor<2xf32>) {
  // expected-error @+1 {{'nova.broadcast' op result #0 of type 'tensor<100000000000x100000000000x2xf32>' has more than 2^63 elements}}
  %0 = nova.broadcast %x : tensor<2xf32> -> tensor<100000000000x100000000000x2xf32>
  return
}

// -----

func.func @constant_count_overflow() {
  // expected-error @+1 {{'nova.constant' op result #0 of type 'tensor<3037000500x3037000500xf32>' has more than 2^63 elements}}
  %0 = nova.constant dense<0.0> : tensor<3037000500x3037000500xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{must preserve the element type}}
  %0 = nova.reshape %x : tensor<4x6xf32> -> tensor<24xf16>
  return
}

// -----

// ===== transpose

func.func @transpose_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{permutation has 3 entries but the input has rank 2}}
  %0 = nova.transpose %x [0, 1, 2] : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @transpose_not_permutation(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{permutation is not a permutation of [0, 2)}}
  %0 = nova.transpose %x [1, 1] : tensor<4x6xf32> -> tensor<6x6xf32>
  return
}

// -----

func.func @transpose_wrong_result(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result type 'tensor<4x6xf32>' does not match 'tensor<6x4xf32>', the type its operands and attributes imply}}
  %0 = nova.transpose %x [1, 0] : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

// ===== broadcast

func.func @broadcast_to_smaller_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{cannot broadcast rank 2 to the smaller rank 1}}
  %0 = nova.broadcast %x : tensor<4x6xf32> -> tensor<6xf32>
  return
}

// -----

func.func @broadcast_incompatible(%x: tensor<3x6xf32>) {
  // expected-error @+1 {{cannot broadcast [3, 6] to [2, 4, 6]: dimension 0 has size 3, which is neither 1 nor 4}}
  %0 = nova.broadcast %x : tensor<3x6xf32> -> tensor<2x4x6xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<6xf32>) {
  // expected-error @+1 {{must preserve the element type}}
  %0 = nova.broadcast %x : tensor<6xf32> -> tensor<2x6xi32>
  return
}

// -----

// ===== slice

func.func @slice_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{starts, limits and strides need one entry per dimension (rank 2)}}
  %0 = nova.slice %x starts [0] limits [4] strides [1] : tensor<4x6xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{stride 0 of dimension 1 must be >= 1}}
  %0 = nova.slice %x starts [0, 0] limits [4, 6] strides [1, 0] : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{slice bounds [2, 7) of dimension 1 are outside [0, 6]}}
  %0 = nova.slice %x starts [0, 2] limits [4, 7] strides [1, 1] : tensor<4x6xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @slice_reversed(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{slice bounds [3, 1) of dimension 0 are outside [0, 4]}}
  %0 = nova.slice %x starts [3, 0] limits [1, 6] strides [1, 1] : tensor<4x6xf32> -> tensor<0x6xf32>
  return
}

// -----

func.func @slice_wrong_result(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result type 'tensor<4x6xf32>' does not match 'tensor<2x6xf32>', the type its operands and attributes imply}}
  %0 = nova.slice %x starts [0, 0] limits [4, 6] strides [2, 1] : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

// ===== concat

func.func @concat_nothing() {
  // expected-error @+1 {{requires at least one input}}
  %0 = "nova.concat"() <{dim = 0 : i64}> : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_dim_out_of_range(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{concat dim 2 is out of range for a tensor of rank 2}}
  %0 = nova.concat %x, %x dim 2 : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x12xf32>
  return
}

// -----

func.func @concat_rank(%x: tensor<4x6xf32>, %y: tensor<6xf32>) {
  // expected-error @+1 {{input 1 has rank 1 but input 0 has rank 2}}
  %0 = nova.concat %x, %y dim 1 : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x12xf32>
  return
}

// -----

func.func @concat_other_dims(%x: tensor<4x6xf32>, %y: tensor<3x6xf32>) {
  // expected-error @+1 {{input 1 has size 3 in dimension 0 but input 0 has 4 (only dimension 1 may differ)}}
  %0 = nova.concat %x, %y dim 1 : tensor<4x6xf32>, tensor<3x6xf32> -> tensor<4x12xf32>
  return
}

// -----

func.func @concat_element_type(%x: tensor<4x6xf32>, %y: tensor<4x6xf16>) {
  // expected-error @+1 {{input 1 has element type 'f16' but input 0 has 'f32'}}
  %0 = nova.concat %x, %y dim 1 : tensor<4x6xf32>, tensor<4x6xf16> -> tensor<4x12xf32>
  return
}

// -----

func.func @concat_wrong_result(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result type 'tensor<4x12xf32>' does not match 'tensor<8x6xf32>', the type its operands and attributes imply}}
  %0 = nova.concat %x, %x dim 0 : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x12xf32>
  return
}

// -----

// ===== gather / scatter_add

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "nova.gather"(%t, %i) <{axis = 0 : i64}> : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{gather axis 2 is out of range for a tensor of rank 2}}
  %0 = nova.gather %t[%i] axis 2 : tensor<10x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_wrong_result(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{result type 'tensor<3x4xf32>' does not match 'tensor<10x3xf32>', the type its operands and attributes imply}}
  %0 = nova.gather %t[%i] axis 1 : tensor<10x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_float_indices(%u: tensor<3x4xf32>, %i: tensor<3xf16>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "nova.scatter_add"(%u, %i) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<3xf16>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_axis(%u: tensor<3x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{scatter axis 5 is out of range for a tensor of rank 2}}
  %0 = nova.scatter_add %u[%i] axis 5 : tensor<3x4xf32>, tensor<3xi32> -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_updates_shape(%u: tensor<3x5xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{updates have shape [3, 5] but indices and result need [3, 4]}}
  %0 = nova.scatter_add %u[%i] axis 0 : tensor<3x5xf32>, tensor<3xi32> -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_element_type(%u: tensor<3x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{updates and result must have the same element type}}
  %0 = nova.scatter_add %u[%i] axis 0 : tensor<3x4xf32>, tensor<3xi32> -> tensor<10x4xi32>
  return
}

// -----

// ===== matmul

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{operands must have rank >= 2, got 1 and 2}}
  %0 = nova.matmul %a, %b : tensor<8xf32>, tensor<8x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 8 but rhs has K = 6}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<6x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_contraction_transposed(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs has K = 4 but rhs has K = 8}}
  %0 = nova.matmul %a, %b transpose_lhs : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch dimensions are not broadcast-compatible}}
  %0 = nova.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<4x8xf32>, %b: tensor<8x4xbf16>) {
  // expected-error @+1 {{operands must have the same element type, got 'f32' and 'bf16'}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xbf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_integer(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = "nova.matmul"(%a, %a) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{result type 'tensor<4x4xf32>' does not match 'tensor<4x2xf32>', the type its operands and attributes imply}}
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x4xf32>
  return
}

// -----

// ===== softmax / log_softmax

func.func @softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{softmax dim 2 is out of range for a tensor of rank 2}}
  %0 = nova.softmax %x dim 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{log_softmax dim -1 is out of range for a tensor of rank 2}}
  %0 = nova.log_softmax %x dim -1 : tensor<4x8xf32>
  return
}

// -----

func.func @softmax_integer(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nova.softmax %x dim 1 : tensor<4x8xi32>
  return
}

// -----

// ===== layer_norm

func.func @layer_norm_weight_shape(%x: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{weight and bias must have shape [8] (the normalized last dimension), got [4]}}
  %0 = nova.layer_norm %x, %g, %g eps 1.0e-05 : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_bias_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{all of {weight, bias} have same type}}
  %0 = "nova.layer_norm"(%x, %g, %b) <{epsilon = 1.0e-05 : f64}> : (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_element_type(%x: tensor<4x8xf32>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{weight and bias must have the input's element type}}
  %0 = nova.layer_norm %x, %g, %g eps 1.0e-05 : tensor<4x8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{epsilon must be positive}}
  %0 = nova.layer_norm %x, %g, %g eps 0.0 : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_scalar(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = nova.layer_norm %x, %g, %g eps 1.0e-05 : tensor<f32>, tensor<1xf32>
  return
}

// -----

// ===== cross_entropy

func.func @cross_entropy_labels_shape(%l: tensor<4x8x10xf32>, %t: tensor<4x10xi32>) {
  // expected-error @+1 {{labels must have the shape of logits without the class dimension: expected [4, 8], got [4, 10]}}
  %0 = nova.cross_entropy %l, %t : tensor<4x8x10xf32>, tensor<4x10xi32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_float_labels(%l: tensor<4x10xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "nova.cross_entropy"(%l, %t) : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_logits_scalar(%l: tensor<f32>, %t: tensor<i32>) {
  // expected-error @+1 {{logits need a class dimension (rank >= 1)}}
  %0 = nova.cross_entropy %l, %t : tensor<f32>, tensor<i32> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_result_not_scalar(%l: tensor<4x10xf32>, %t: tensor<4xi32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = "nova.cross_entropy"(%l, %t) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @cross_entropy_ignore_index_too_wide(%l: tensor<4x10xf32>, %t: tensor<4xi32>) {
  // expected-error @+1 {{ignore_index 4294967297 does not fit the labels' element type 'i32'}}
  %0 = nova.cross_entropy %l, %t ignore_index 4294967297 : tensor<4x10xf32>, tensor<4xi32> -> tensor<f32>
  return
}

// -----

// ===== check_labels

func.func @check_labels_negative_classes(%t: tensor<4xi64>) {
  // expected-error @+1 {{'nova.check_labels' op classes must be >= 0, got -3}}
  %0 = nova.check_labels %t classes -3 ignore_index -100 : tensor<4xi64>
  return
}

// -----

func.func @check_labels_ignore_index_too_wide(%t: tensor<4xi32>) {
  // expected-error @+1 {{'nova.check_labels' op ignore_index -2147483649 does not fit the element type 'i32'}}
  %0 = nova.check_labels %t classes 3 ignore_index -2147483649 : tensor<4xi32>
  return
}

// -----

func.func @check_labels_float(%t: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "nova.check_labels"(%t) {classes = 3 : i64, ignore_index = -100 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ===== attention

func.func @attention_rank(%q: tensor<2x8x16xf32>, %k: tensor<8x16xf32>) {
  // expected-error @+1 {{query, key and value must have one rank >= 2, got 3, 2, 2}}
  %0 = nova.attention %q, %k, %k scale 0.25 : tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x8x16xf32>, %k: tensor<3x8x16xf32>) {
  // expected-error @+1 {{leading (batch, head) dimensions of query, key and value must match}}
  %0 = nova.attention %q, %k, %k scale 0.25 : tensor<2x8x16xf32>, tensor<3x8x16xf32>, tensor<3x8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<2x8x16xf32>, %k: tensor<2x8x32xf32>) {
  // expected-error @+1 {{query and key head sizes differ: 16 vs 32}}
  %0 = nova.attention %q, %k, %k scale 0.25 : tensor<2x8x16xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  return
}

// -----

func.func @attention_kv_length(%q: tensor<2x8x16xf32>, %k: tensor<2x6x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{key and value sequence lengths differ: 6 vs 8}}
  %0 = nova.attention %q, %k, %v scale 0.25 : tensor<2x8x16xf32>, tensor<2x6x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_causal_square(%q: tensor<2x8x16xf32>, %k: tensor<2x6x16xf32>) {
  // expected-error @+1 {{causal attention needs square scores, got 8x6}}
  %0 = nova.attention %q, %k, %k scale 0.25 causal : tensor<2x8x16xf32>, tensor<2x6x16xf32>, tensor<2x6x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<2x8x16xf32>) {
  // expected-error @+1 {{scale must be positive and finite}}
  %0 = nova.attention %q, %q, %q scale -1.0 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_element_type(%q: tensor<2x8x16xf32>, %k: tensor<2x8x16xbf16>) {
  // expected-error @+1 {{query, key and value must have one element type}}
  %0 = nova.attention %q, %k, %k scale 0.25 : tensor<2x8x16xf32>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xf32>
  return
}

// -----

// ===== attention_fwd and attention_bwd: attention's rules, plus their own

func.func @attention_fwd_causal_square(%q: tensor<2x8x16xf32>, %k: tensor<2x6x16xf32>) {
  // expected-error @+1 {{causal attention needs square scores, got 8x6}}
  %0, %1 = nova.attention_fwd %q, %k, %k scale 0.25 causal : tensor<2x8x16xf32>, tensor<2x6x16xf32>, tensor<2x6x16xf32> -> tensor<2x8x16xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @attention_fwd_lse_type(%q: tensor<2x8x16xbf16>) {
  // lse is f32 for any operand type.
  // expected-error @+1 {{'nova.attention_fwd' op result #1 must be statically shaped tensor of 32-bit float values, but got 'tensor<2x8xbf16>'}}
  %0, %1 = nova.attention_fwd %q, %q, %q scale 0.25 : tensor<2x8x16xbf16>, tensor<2x8x16xbf16>, tensor<2x8x16xbf16> -> tensor<2x8x16xbf16>, tensor<2x8xbf16>
  return
}

// -----

func.func @attention_fwd_lse_shape(%q: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'nova.attention_fwd' op result type 'tensor<2x8x16xf32>', 'tensor<2x16xf32>' does not match 'tensor<2x8x16xf32>', 'tensor<2x8xf32>', the type its operands and attributes imply}}
  %0, %1 = nova.attention_fwd %q, %q, %q scale 0.25 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>, tensor<2x16xf32>
  return
}

// -----

func.func @attention_bwd_scale(%q: tensor<8x16xf32>, %lse: tensor<8xf32>) {
  // expected-error @+1 {{scale must be positive and finite}}
  %0, %1, %2 = nova.attention_bwd %q, %q, %q, %q, %lse, %q scale 0.0 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @attention_bwd_output(%q: tensor<8x16xf32>, %v: tensor<8x4xf32>, %lse: tensor<8xf32>) {
  // expected-error @+1 {{output must have the attention result's type 'tensor<8x4xf32>', got 'tensor<8x16xf32>'}}
  %0, %1, %2 = nova.attention_bwd %q, %q, %v, %q, %lse, %q scale 0.25 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @attention_bwd_grad_output(%q: tensor<8x16xf32>, %v: tensor<8x4xf32>, %o: tensor<8x4xf32>, %lse: tensor<8xf32>, %do: tensor<8x4xbf16>) {
  // expected-error @+1 {{grad_output must have the attention result's type 'tensor<8x4xf32>', got 'tensor<8x4xbf16>'}}
  %0, %1, %2 = nova.attention_bwd %q, %q, %v, %o, %lse, %do scale 0.25 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x4xbf16>
  return
}

// -----

func.func @attention_bwd_lse(%q: tensor<8x16xbf16>, %lse: tensor<8xbf16>) {
  // expected-error @+1 {{lse must be 'tensor<8xf32>' (one f32 per query row), got 'tensor<8xbf16>'}}
  %0, %1, %2 = nova.attention_bwd %q, %q, %q, %q, %lse, %q scale 0.25 : tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8x16xbf16>, tensor<8xbf16>, tensor<8x16xbf16>
  return
}

// -----

// ===== adamw

func.func @adamw_types(%p: tensor<8xf32>, %g: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{all of {param, grad, m, v, new_param, new_m, new_v} have same type}}
  %0:3 = "nova.adamw"(%p, %g, %p, %p, %t, %lr) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64, weight_decay = 0.0 : f64}> : (tensor<8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<f32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @adamw_step_not_scalar(%p: tensor<8xf32>, %t: tensor<1xi64>, %lr: tensor<f32>) {
  // expected-error @+1 {{operand #4 must be 0D tensor of}}
  %0:3 = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<1xi64>
  return
}

// -----

func.func @adamw_lr_not_f32_scalar(%p: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<1xf32>) {
  // expected-error @+1 {{operand #5 must be 0D tensor of 32-bit float values}}
  %0:3 = "nova.adamw"(%p, %p, %p, %p, %t, %lr) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64, weight_decay = 0.0 : f64}> : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<1xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

func.func @adamw_beta(%p: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{beta1 and beta2 must be in [0, 1)}}
  %0:3 = nova.adamw %p, %p, %p, %p, %t, %lr beta1 1.0 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<8xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_eps(%p: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{epsilon must be positive}}
  %0:3 = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 0.0 weight_decay 0.0 : tensor<8xf32>, tensor<i64>
  return
}

// -----

func.func @adamw_weight_decay(%p: tensor<8xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{weight decay must be >= 0}}
  %0:3 = nova.adamw %p, %p, %p, %p, %t, %lr beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay -0.1 : tensor<8xf32>, tensor<i64>
  return
}

// -----

// ===== nova.param argument attribute

// expected-error @+1 {{'nova.param' marks a trainable parameter: argument #1 must be a floating-point tensor, got 'tensor<8xi32>'}}
func.func @param_on_integers(%x: tensor<8xf32> {nova.param}, %labels: tensor<8xi32> {nova.param}) {
  return
}

// -----

// expected-error @+1 {{'nova.param' is a unit attribute, got 1 : i64}}
func.func @param_not_unit(%x: tensor<8xf32> {nova.param = 1}) {
  return
}

// -----

// expected-error @+1 {{unknown nova argument attribute 'nova.parameter'}}
func.func @param_misspelled(%x: tensor<8xf32> {nova.parameter}) {
  return
}

// -----

// ===== nova.name, nova.grad_of and nova.alias

// expected-error @+1 {{'nova.name' must be a string, got 3 : i64}}
func.func @name_not_string(%x: tensor<8xf32> {nova.name = 3}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #2 are both named 'w' (nova.name must be unique)}}
func.func @name_duplicate(%a: tensor<8xf32> {nova.name = "w"}, %b: tensor<8xf32>, %c: tensor<8xf32> {nova.name = "w"}) {
  return
}

// -----

// An unnamed argument's name is argN.
// expected-error @+1 {{arguments #0 and #1 are both named 'arg1' (nova.name must be unique)}}
func.func @name_duplicates_default(%a: tensor<8xf32> {nova.name = "arg1"}, %b: tensor<8xf32>) {
  return
}

// -----

// expected-error @+1 {{results #0 and #1 are both named 'y' (nova.name must be unique)}}
func.func @result_name_duplicate(%a: tensor<8xf32>) -> (tensor<8xf32> {nova.name = "y"}, tensor<8xf32> {nova.name = "y"}) {
  return %a, %a : tensor<8xf32>, tensor<8xf32>
}

// -----

// expected-error @+1 {{'nova.name' of argument #0 must not be empty}}
func.func @name_empty(%a: tensor<8xf32> {nova.name = ""}) {
  return
}

// -----

// expected-error @+1 {{'nova.grad_of' on result #0 names argument #2, but the function has 1 arguments}}
func.func @grad_of_out_of_range(%x: tensor<8xf32>) -> (tensor<8xf32> {nova.grad_of = 2}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{'nova.alias': result #0 has type 'tensor<4xf32>' but argument #0 has type 'tensor<8xf32>'}}
func.func @alias_type_mismatch(%x: tensor<8xf32>, %y: tensor<4xf32>) -> (tensor<4xf32> {nova.alias = 0}) {
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'nova.alias' is an argument index on a function result}}
func.func @alias_not_integer(%x: tensor<8xf32>) -> (tensor<8xf32> {nova.alias = "x"}) {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{unknown nova result attribute 'nova.gradient'}}
func.func @unknown_result_attr(%x: tensor<8xf32>) -> (tensor<8xf32> {nova.gradient = 0}) {
  return %x : tensor<8xf32>
}

// -----

func.func @precision_not_tf32(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'nova.precision' must be "tf32", got "fp8"}}
  %c = nova.matmul %a, %b {nova.precision = "fp8"} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @precision_on_add(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'nova.precision' belongs on a matmul or attention op, not on 'nova.add'}}
  %c = nova.add %a, %a {nova.precision = "tf32"} : tensor<4xf32>, tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @precision_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  // expected-error @+1 {{'nova.precision' = "tf32" needs f32 operands}}
  %c = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
  return %c : tensor<4x2xbf16>
}

// -----

func.func @rounded_without_tf32(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'nova.rounded' belongs on a matmul with 'nova.precision' = "tf32"}}
  %c = nova.matmul %a, %b {nova.rounded = array<i64: 1>} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @rounded_operand_out_of_range(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'nova.rounded' lists operand numbers below 2 in increasing order, got array<i64: 1, 2>}}
  %c = nova.matmul %a, %b {nova.precision = "tf32", nova.rounded = array<i64: 1, 2>} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @rounded_not_increasing(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'nova.rounded' lists operand numbers below 2 in increasing order, got array<i64: 1, 0>}}
  %c = nova.matmul %a, %b {nova.precision = "tf32", nova.rounded = array<i64: 1, 0>} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @rounded_not_an_array(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'nova.rounded' must be an array<i64> of operand numbers, got 1 : i64}}
  %c = nova.matmul %a, %b {nova.precision = "tf32", nova.rounded = 1} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

func.func @round_tf32_of_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float values}}
  %0 = "nova.round_tf32"(%x) : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @unknown_op_attr(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown nova attribute 'nova.fast'}}
  %c = nova.neg %a {nova.fast} : tensor<4xf32>
  return %c : tensor<4xf32>
}
