// Column kernels: a bias gradient over ragged rows (sum over every dim but
// the last), a second sum of a product in the same pass, and a bf16 input.
func.func @bias_grad(%dy: tensor<8x125x1023xf32>, %x: tensor<8x125x1023xbf16>)
    -> (tensor<1023xf32>, tensor<1x1x1023xf32>) {
  %r:2 = nova_tile.fusion column_reduction (%dy, %x)
      : (tensor<8x125x1023xf32>, tensor<8x125x1023xbf16>)
      -> (tensor<1023xf32>, tensor<1x1x1023xf32>) {
  ^bb0(%g: tensor<8x125x1023xf32>, %xa: tensor<8x125x1023xbf16>):
    %db = nova.reduce sum %g dims [0, 1] : tensor<8x125x1023xf32> -> tensor<1023xf32>
    %xf = nova.cast %xa : tensor<8x125x1023xbf16> to tensor<8x125x1023xf32>
    %p = nova.mul %g, %xf : tensor<8x125x1023xf32>, tensor<8x125x1023xf32>
    %dw = nova.reduce sum %p dims [0, 1] keep_dims : tensor<8x125x1023xf32> -> tensor<1x1x1023xf32>
    nova_tile.yield %db, %dw : tensor<1023xf32>, tensor<1x1x1023xf32>
  }
  return %r#0, %r#1 : tensor<1023xf32>, tensor<1x1x1023xf32>
}

// A total in a column kernel (the count of labels that the cross-entropy
// mean divides by): the sum runs along the rows too, across every block.
func.func @label_count(%labels: tensor<16x1024xi32>) -> tensor<f32> {
  %r = nova_tile.fusion column_reduction (%labels) : (tensor<16x1024xi32>) -> tensor<f32> {
  ^bb0(%l: tensor<16x1024xi32>):
    %c = nova.constant dense<3> : tensor<i32>
    %keep = nova.cmp ne, %l, %c : tensor<16x1024xi32>, tensor<i32>
    %f = nova.cast %keep : tensor<16x1024xi1> to tensor<16x1024xf32>
    %n = nova.reduce sum %f dims [0, 1] : tensor<16x1024xf32> -> tensor<f32>
    nova_tile.yield %n : tensor<f32>
  }
  return %r : tensor<f32>
}

// A sum over the batch only (the positional embedding's gradient): the
// columns are the kept T x C elements, not the last dim alone.
func.func @batch_sum(%x: tensor<4x100x96xf32>) -> tensor<1x100x96xf32> {
  %r = nova_tile.fusion column_reduction (%x) : (tensor<4x100x96xf32>) -> tensor<1x100x96xf32> {
  ^bb0(%a: tensor<4x100x96xf32>):
    %s = nova.reduce sum %a dims [0] keep_dims : tensor<4x100x96xf32> -> tensor<1x100x96xf32>
    nova_tile.yield %s : tensor<1x100x96xf32>
  }
  return %r : tensor<1x100x96xf32>
}

// Many rows in one pass: strips of 8 bf16 over 1000 columns (the last of 4
// column blocks ragged), 400 rows in 4 chunks folded through the
// workspace, an element-wise output written with 16-byte stores.
func.func @gelu_bias_grad(%dh: tensor<2x200x1000xbf16>, %pre: tensor<2x200x1000xbf16>)
    -> (tensor<2x200x1000xbf16>, tensor<1000xf32>) {
  %r:2 = nova_tile.fusion column_reduction (%dh, %pre)
      : (tensor<2x200x1000xbf16>, tensor<2x200x1000xbf16>)
      -> (tensor<2x200x1000xbf16>, tensor<1000xf32>) {
  ^bb0(%g: tensor<2x200x1000xbf16>, %x: tensor<2x200x1000xbf16>):
    %t = nova.tanh %x : tensor<2x200x1000xbf16>
    %d = nova.mul %g, %t : tensor<2x200x1000xbf16>, tensor<2x200x1000xbf16>
    %df = nova.cast %d : tensor<2x200x1000xbf16> to tensor<2x200x1000xf32>
    %db = nova.reduce sum %df dims [0, 1] : tensor<2x200x1000xf32> -> tensor<1000xf32>
    nova_tile.yield %d, %db : tensor<2x200x1000xbf16>, tensor<1000xf32>
  }
  return %r#0, %r#1 : tensor<2x200x1000xbf16>, tensor<1000xf32>
}

// Many short rows: 24 columns (6 strips of 4 for 8 column lanes: lanes past
// the last strip keep nothing), a bf16 input read 4 at a time next to the
// f32 one, an f32 output per element, a max and a sum in 8 row chunks.
func.func @narrow_many_rows(%a: tensor<4096x24xf32>, %s: tensor<4096x24xbf16>)
    -> (tensor<4096x24xf32>, tensor<24xf32>, tensor<1x24xf32>) {
  %r:3 = nova_tile.fusion column_reduction (%a, %s)
      : (tensor<4096x24xf32>, tensor<4096x24xbf16>)
      -> (tensor<4096x24xf32>, tensor<24xf32>, tensor<1x24xf32>) {
  ^bb0(%x: tensor<4096x24xf32>, %y: tensor<4096x24xbf16>):
    %yf = nova.cast %y : tensor<4096x24xbf16> to tensor<4096x24xf32>
    %p = nova.mul %x, %yf : tensor<4096x24xf32>, tensor<4096x24xf32>
    %m = nova.reduce max %p dims [0] : tensor<4096x24xf32> -> tensor<24xf32>
    %s2 = nova.reduce sum %x dims [0] keep_dims : tensor<4096x24xf32> -> tensor<1x24xf32>
    nova_tile.yield %p, %m, %s2 : tensor<4096x24xf32>, tensor<24xf32>, tensor<1x24xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4096x24xf32>, tensor<24xf32>, tensor<1x24xf32>
}

// Few rows, two reduces: one row chunk, each block's totals are the results
// (no workspace); 40 bf16 columns in strips of 8, the last lanes idle.
func.func @few_rows(%x: tensor<6x40xbf16>) -> (tensor<40xf32>, tensor<40xbf16>) {
  %r:2 = nova_tile.fusion column_reduction (%x) : (tensor<6x40xbf16>) -> (tensor<40xf32>, tensor<40xbf16>) {
  ^bb0(%a: tensor<6x40xbf16>):
    %f = nova.cast %a : tensor<6x40xbf16> to tensor<6x40xf32>
    %s = nova.reduce sum %f dims [0] : tensor<6x40xf32> -> tensor<40xf32>
    %m = nova.reduce min %a dims [0] : tensor<6x40xbf16> -> tensor<40xbf16>
    nova_tile.yield %s, %m : tensor<40xf32>, tensor<40xbf16>
  }
  return %r#0, %r#1 : tensor<40xf32>, tensor<40xbf16>
}
