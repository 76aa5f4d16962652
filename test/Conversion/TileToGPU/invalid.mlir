// Kernels convert-tile-to-gpu cannot lower are located errors naming the
// kernel and the family or op, never a crash; the other kernels of the
// module are still checked.
// RUN: nova-opt %s --convert-tile-to-gpu -split-input-file -verify-diagnostics

// Tensor cores take bf16, or f32 as TF32: other operand types are refused.
// expected-error @below {{convert-tile-to-gpu: kernel @mm (matmul): matmuls of f16 operands are not lowered (tensor cores take bf16, or f32 as TF32)}}
nova_tile.kernel @mm matmul schedule <tile = [128, 128, 64], threads = 256, stages = 3, vector = 8, split_k = 1> {
^bb0(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>):
  %p = nova.matmul %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf16>
  nova_tile.yield %p : tensor<4x16xf16>
}

// -----

// A grouped GEMM of a bf16 and an f32 product would need two tile shapes.
// expected-error @below {{convert-tile-to-gpu: kernel @mixed (matmul): a grouped GEMM whose matmuls take different operand types is not lowered}}
nova_tile.kernel @mixed matmul schedule <tile = [128, 128, 64], threads = 256, stages = 3, vector = 8, split_k = 1> {
^bb0(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %c: tensor<8x16xf32>):
  %p = nova.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  %ac = nova.cast %a : tensor<4x8xbf16> to tensor<4x8xf32>
  %q = nova.matmul %ac, %c : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  nova_tile.yield %p, %q : tensor<4x16xbf16>, tensor<4x16xf32>
}

// -----

// Zero-sized buffers do not lower to NVVM: an empty operand is refused.
// expected-error @below {{convert-tile-to-gpu: kernel @empty (matmul): an empty product or column sum (a dim of size 0) is not lowered}}
nova_tile.kernel @empty matmul schedule <tile = [128, 128, 64], threads = 256, stages = 3, vector = 8, split_k = 1> {
^bb0(%a: tensor<4x0xf32>, %b: tensor<0x16xf32>):
  %p = nova.matmul %a, %b : tensor<4x0xf32>, tensor<0x16xf32> -> tensor<4x16xf32>
  nova_tile.yield %p : tensor<4x16xf32>
}

// -----

// expected-error @below {{convert-tile-to-gpu: kernel @relu (pointwise): has no schedule; run nova-configure first}}
nova_tile.kernel @relu pointwise {
^bb0(%x: tensor<4x8xf32>):
  %y = nova.relu %x : tensor<4x8xf32>
  nova_tile.yield %y : tensor<4x8xf32>
}

// -----

func.func @inline(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{convert-tile-to-gpu: an inline fusion group; run nova-outline-kernels first}}
  %y = nova_tile.fusion pointwise (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%xa: tensor<4x8xf32>):
    %r = nova.relu %xa : tensor<4x8xf32>
    nova_tile.yield %r : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}

// -----

nova_tile.kernel @ln row_reduction schedule <tile = [8, 8], threads = 256, stages = 1, vector = 1, split_k = 1> {
^bb0(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>):
  // expected-error @below {{convert-tile-to-gpu: kernel @ln (row_reduction): 'nova.layer_norm' is not lowered to the GPU yet}}
  %y = nova.layer_norm %x, %g, %b eps 1.0e-05 : tensor<4x8xf32>, tensor<8xf32>
  nova_tile.yield %y : tensor<4x8xf32>
}

// -----

nova_tile.kernel @table pointwise schedule <tile = [1024], threads = 256, stages = 1, vector = 1, split_k = 1> {
^bb0(%x: tensor<4xf32>):
  // expected-error @below {{convert-tile-to-gpu: kernel @table (pointwise): 'nova.constant' with more than one distinct value is not lowered to the GPU yet}}
  %c = nova.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = nova.add %x, %c : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %y : tensor<4xf32>
}

// -----

// Integer partial sums do not travel through the f64 shared-memory slots.
// expected-error @below {{convert-tile-to-gpu: kernel @count (row_reduction): integer reductions over more than a warp per row are not lowered yet}}
nova_tile.kernel @count row_reduction schedule <tile = [1, 4096], threads = 256, stages = 1, vector = 1, split_k = 1> {
^bb0(%x: tensor<4x4096xi32>):
  %s = nova.reduce sum %x dims [1] : tensor<4x4096xi32> -> tensor<4xi32>
  nova_tile.yield %s : tensor<4xi32>
}

// -----

// A gather from an empty index tensor has no rows to read.
// expected-error @below {{convert-tile-to-gpu: kernel @gather_nothing (gather): an empty table or index tensor is not lowered yet}}
nova_tile.kernel @gather_nothing gather schedule <tile = [8, 64], threads = 128, stages = 1, vector = 4, split_k = 1> {
^bb0(%t: tensor<10x4xf32>, %i: tensor<0xi32>):
  %g = nova.gather %t[%i] axis 0 : tensor<10x4xf32>, tensor<0xi32> -> tensor<0x4xf32>
  nova_tile.yield %g : tensor<0x4xf32>
}

// -----

// A column kernel with a total runs as a row kernel over its first
// reduction's input: a total of another tensor would be summed over the
// wrong space.
// expected-error @below {{convert-tile-to-gpu: kernel @two_totals (column_reduction): a column kernel with a total whose reductions read tensors of different shapes is not lowered yet}}
nova_tile.kernel @two_totals column_reduction schedule <tile = [8, 1024], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%a: tensor<16x1xf32>, %l: tensor<16x1024xf32>):
  %s = nova.reduce sum %a dims [0, 1] : tensor<16x1xf32> -> tensor<f32>
  %t = nova.reduce sum %l dims [0, 1] : tensor<16x1024xf32> -> tensor<f32>
  nova_tile.yield %s, %t : tensor<f32>, tensor<f32>
}

// -----

// Nor can its column sums skip a leading dim (a sum over the batch alone).
// expected-error @below {{convert-tile-to-gpu: kernel @batch_sum_and_total (column_reduction): a column kernel with a total and a column sum over only some leading dims is not lowered yet}}
nova_tile.kernel @batch_sum_and_total column_reduction schedule <tile = [4, 256], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%a: tensor<4x512x768xf32>):
  %s = nova.reduce sum %a dims [0] keep_dims : tensor<4x512x768xf32> -> tensor<1x512x768xf32>
  %t = nova.reduce sum %a dims [0, 1, 2] : tensor<4x512x768xf32> -> tensor<f32>
  nova_tile.yield %s, %t : tensor<1x512x768xf32>, tensor<f32>
}
