// The fused classifier as a GPT step has it: logits of an odd vocabulary
// (1001 or 50257 bf16: rows of 2002 or 100514 bytes) from a GEMM, one row
// kernel that sums the cross-entropy over every row and writes the logits'
// gradient in place over the logits, and the two backward GEMMs that read
// that gradient. nova-plan-memory pads the logits' rows (ld 1008 or 50264):
// the row kernel reads and writes them in 16-byte chunks from each row's
// start, and with single GEMMs nova-fuse makes no padded copy for the
// backward GEMMs (they load the padded rows through TMA; at width 320 such
// a copy would cost less than mma.sync's lower rate on these products).
func.func @classifier_1001(%h: tensor<128x320xbf16>, %e: tensor<1001x320xbf16>,
                           %labels: tensor<128x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<128x320xbf16>, tensor<1001x320xbf16>) {
  %l = nova.matmul %h, %e transpose_rhs : tensor<128x320xbf16>, tensor<1001x320xbf16> -> tensor<128x1001xbf16>
  %x = nova.cast %l : tensor<128x1001xbf16> to tensor<128x1001xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<128x1001xf32> -> tensor<128x1xf32>
  %z = nova.sub %x, %m : tensor<128x1001xf32>, tensor<128x1xf32>
  %ex = nova.exp %z : tensor<128x1001xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<128x1001xf32> -> tensor<128x1xf32>
  %lse = nova.log %se : tensor<128x1xf32>
  %logp = nova.sub %z, %lse : tensor<128x1001xf32>, tensor<128x1xf32>
  %io = nova.iota dim 1 : tensor<128x1001xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<128x1001xi32>, tensor<128x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<128x1001xi1>, tensor<128x1001xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<128x1001xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<128x1001xf32>, tensor<128x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<128x1001xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<128x1001xf32>, tensor<128x1001xf32>
  %gs = nova.mul %g, %scale : tensor<128x1001xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<128x1001xf32> to tensor<128x1001xbf16>
  %dx = nova.matmul %gb, %e : tensor<128x1001xbf16>, tensor<1001x320xbf16> -> tensor<128x320xbf16>
  %de = nova.matmul %gb, %h transpose_lhs : tensor<128x1001xbf16>, tensor<128x320xbf16> -> tensor<1001x320xbf16>
  return %total, %dx, %de : tensor<f32>, tensor<128x320xbf16>, tensor<1001x320xbf16>
}

// The same on few rows of GPT-2's vocabulary (ld 50264): every thread of a
// row keeps several 16-byte loads in flight.
func.func @classifier_50257(%h: tensor<16x64xbf16>, %e: tensor<50257x64xbf16>,
                            %labels: tensor<16x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<16x64xbf16>, tensor<50257x64xbf16>) {
  %l = nova.matmul %h, %e transpose_rhs : tensor<16x64xbf16>, tensor<50257x64xbf16> -> tensor<16x50257xbf16>
  %x = nova.cast %l : tensor<16x50257xbf16> to tensor<16x50257xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<16x50257xf32> -> tensor<16x1xf32>
  %z = nova.sub %x, %m : tensor<16x50257xf32>, tensor<16x1xf32>
  %ex = nova.exp %z : tensor<16x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<16x50257xf32> -> tensor<16x1xf32>
  %lse = nova.log %se : tensor<16x1xf32>
  %logp = nova.sub %z, %lse : tensor<16x50257xf32>, tensor<16x1xf32>
  %io = nova.iota dim 1 : tensor<16x50257xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<16x50257xi32>, tensor<16x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<16x50257xi1>, tensor<16x50257xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<16x50257xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<16x50257xf32>, tensor<16x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<16x50257xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<16x50257xf32>, tensor<16x50257xf32>
  %gs = nova.mul %g, %scale : tensor<16x50257xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<16x50257xf32> to tensor<16x50257xbf16>
  %dx = nova.matmul %gb, %e : tensor<16x50257xbf16>, tensor<50257x64xbf16> -> tensor<16x64xbf16>
  %de = nova.matmul %gb, %h transpose_lhs : tensor<16x50257xbf16>, tensor<16x64xbf16> -> tensor<50257x64xbf16>
  return %total, %dx, %de : tensor<f32>, tensor<16x64xbf16>, tensor<50257x64xbf16>
}

// Packed rows (the logits are an argument, the gradient a result): rows of
// an odd width start mid-chunk, so each row reads and writes its first and
// last columns one by one around the 16-byte chunks.
func.func @classifier_packed(%l: tensor<24x1001xbf16>, %labels: tensor<24x1xi32>,
                             %scale: tensor<f32>)
    -> (tensor<f32>, tensor<24x1001xbf16>) {
  %x = nova.cast %l : tensor<24x1001xbf16> to tensor<24x1001xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<24x1001xf32> -> tensor<24x1xf32>
  %z = nova.sub %x, %m : tensor<24x1001xf32>, tensor<24x1xf32>
  %ex = nova.exp %z : tensor<24x1001xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<24x1001xf32> -> tensor<24x1xf32>
  %lse = nova.log %se : tensor<24x1xf32>
  %logp = nova.sub %z, %lse : tensor<24x1001xf32>, tensor<24x1xf32>
  %io = nova.iota dim 1 : tensor<24x1001xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<24x1001xi32>, tensor<24x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<24x1001xi1>, tensor<24x1001xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<24x1001xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<24x1001xf32>, tensor<24x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<24x1001xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<24x1001xf32>, tensor<24x1001xf32>
  %gs = nova.mul %g, %scale : tensor<24x1001xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<24x1001xf32> to tensor<24x1001xbf16>
  return %total, %gb : tensor<f32>, tensor<24x1001xbf16>
}

// A softmax over packed wide f32 rows (50257 columns: each row starts
// mid-chunk; several chunks in flight per thread).
func.func @softmax_50257(%x: tensor<8x50257xf32>) -> tensor<8x50257xf32> {
  %m = nova.reduce max %x dims [1] keep_dims : tensor<8x50257xf32> -> tensor<8x1xf32>
  %z = nova.sub %x, %m : tensor<8x50257xf32>, tensor<8x1xf32>
  %ex = nova.exp %z : tensor<8x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<8x50257xf32> -> tensor<8x1xf32>
  %p = nova.div %ex, %se : tensor<8x50257xf32>, tensor<8x1xf32>
  return %p : tensor<8x50257xf32>
}

// More rows than the grid (eight 1001-wide rows a block, 563 batches on
// 396 blocks): blocks loop over their rows, and the loss total folds 396
// partials (one block, in slices).
func.func @classifier_1001_rows(%h: tensor<4500x64xbf16>, %e: tensor<1001x64xbf16>,
                           %labels: tensor<4500x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<4500x64xbf16>, tensor<1001x64xbf16>) {
  %l = nova.matmul %h, %e transpose_rhs : tensor<4500x64xbf16>, tensor<1001x64xbf16> -> tensor<4500x1001xbf16>
  %x = nova.cast %l : tensor<4500x1001xbf16> to tensor<4500x1001xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<4500x1001xf32> -> tensor<4500x1xf32>
  %z = nova.sub %x, %m : tensor<4500x1001xf32>, tensor<4500x1xf32>
  %ex = nova.exp %z : tensor<4500x1001xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<4500x1001xf32> -> tensor<4500x1xf32>
  %lse = nova.log %se : tensor<4500x1xf32>
  %logp = nova.sub %z, %lse : tensor<4500x1001xf32>, tensor<4500x1xf32>
  %io = nova.iota dim 1 : tensor<4500x1001xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<4500x1001xi32>, tensor<4500x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<4500x1001xi1>, tensor<4500x1001xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<4500x1001xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<4500x1001xf32>, tensor<4500x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<4500x1001xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<4500x1001xf32>, tensor<4500x1001xf32>
  %gs = nova.mul %g, %scale : tensor<4500x1001xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<4500x1001xf32> to tensor<4500x1001xbf16>
  %dx = nova.matmul %gb, %e : tensor<4500x1001xbf16>, tensor<1001x64xbf16> -> tensor<4500x64xbf16>
  %de = nova.matmul %gb, %h transpose_lhs : tensor<4500x1001xbf16>, tensor<4500x64xbf16> -> tensor<1001x64xbf16>
  return %total, %dx, %de : tensor<f32>, tensor<4500x64xbf16>, tensor<1001x64xbf16>
}

// A few hundred rows of GPT-2's vocabulary: the online max and sum of
// exponentials in one read, four chunks in flight per lane, the loss total
// folded in the gradient's read of the row, in place over the padded logits.
func.func @classifier_50257_rows(%h: tensor<384x32xbf16>, %e: tensor<50257x32xbf16>,
                           %labels: tensor<384x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<384x32xbf16>, tensor<50257x32xbf16>) {
  %l = nova.matmul %h, %e transpose_rhs : tensor<384x32xbf16>, tensor<50257x32xbf16> -> tensor<384x50257xbf16>
  %x = nova.cast %l : tensor<384x50257xbf16> to tensor<384x50257xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<384x50257xf32> -> tensor<384x1xf32>
  %z = nova.sub %x, %m : tensor<384x50257xf32>, tensor<384x1xf32>
  %ex = nova.exp %z : tensor<384x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<384x50257xf32> -> tensor<384x1xf32>
  %lse = nova.log %se : tensor<384x1xf32>
  %logp = nova.sub %z, %lse : tensor<384x50257xf32>, tensor<384x1xf32>
  %io = nova.iota dim 1 : tensor<384x50257xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<384x50257xi32>, tensor<384x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<384x50257xi1>, tensor<384x50257xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<384x50257xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<384x50257xf32>, tensor<384x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<384x50257xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<384x50257xf32>, tensor<384x50257xf32>
  %gs = nova.mul %g, %scale : tensor<384x50257xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<384x50257xf32> to tensor<384x50257xbf16>
  %dx = nova.matmul %gb, %e : tensor<384x50257xbf16>, tensor<50257x32xbf16> -> tensor<384x32xbf16>
  %de = nova.matmul %gb, %h transpose_lhs : tensor<384x50257xbf16>, tensor<384x32xbf16> -> tensor<50257x32xbf16>
  return %total, %dx, %de : tensor<f32>, tensor<384x32xbf16>, tensor<50257x32xbf16>
}

// Large-magnitude packed f32 rows: the running max grows often and the sum
// of exponentials is rescaled each time, most terms underflowing.
func.func @softmax_large(%x: tensor<32x50257xf32>) -> tensor<32x50257xf32> {
  %c = nova.constant dense<40.0> : tensor<f32>
  %xs = nova.mul %x, %c : tensor<32x50257xf32>, tensor<f32>
  %m = nova.reduce max %xs dims [1] keep_dims : tensor<32x50257xf32> -> tensor<32x1xf32>
  %z = nova.sub %xs, %m : tensor<32x50257xf32>, tensor<32x1xf32>
  %ex = nova.exp %z : tensor<32x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<32x50257xf32> -> tensor<32x1xf32>
  %p = nova.div %ex, %se : tensor<32x50257xf32>, tensor<32x1xf32>
  return %p : tensor<32x50257xf32>
}

// A bf16 softmax over padded rows of GPT-2's vocabulary (a GEMM's logits,
// ld 50264): the row is read twice (the max and sum of exponentials, then
// the probabilities), so the row kernel stages each row in shared memory
// on its first read and takes the second from there.
func.func @softmax_50257_staged(%h: tensor<40x32xbf16>, %e: tensor<50257x32xbf16>)
    -> tensor<40x50257xbf16> {
  %l = nova.matmul %h, %e transpose_rhs : tensor<40x32xbf16>, tensor<50257x32xbf16> -> tensor<40x50257xbf16>
  %x = nova.cast %l : tensor<40x50257xbf16> to tensor<40x50257xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<40x50257xf32> -> tensor<40x1xf32>
  %z = nova.sub %x, %m : tensor<40x50257xf32>, tensor<40x1xf32>
  %ex = nova.exp %z : tensor<40x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<40x50257xf32> -> tensor<40x1xf32>
  %p = nova.div %ex, %se : tensor<40x50257xf32>, tensor<40x1xf32>
  %pb = nova.cast %p : tensor<40x50257xf32> to tensor<40x50257xbf16>
  return %pb : tensor<40x50257xbf16>
}

// More rows of GPT-2's vocabulary than the staged grid holds (two blocks
// an SM): blocks loop over their rows, each staged in shared memory, and
// the loss total folds the blocks' partials.
func.func @classifier_50257_large(%h: tensor<600x16xbf16>, %e: tensor<50257x16xbf16>,
                           %labels: tensor<600x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<600x16xbf16>, tensor<50257x16xbf16>) {
  %l = nova.matmul %h, %e transpose_rhs : tensor<600x16xbf16>, tensor<50257x16xbf16> -> tensor<600x50257xbf16>
  %x = nova.cast %l : tensor<600x50257xbf16> to tensor<600x50257xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<600x50257xf32> -> tensor<600x1xf32>
  %z = nova.sub %x, %m : tensor<600x50257xf32>, tensor<600x1xf32>
  %ex = nova.exp %z : tensor<600x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<600x50257xf32> -> tensor<600x1xf32>
  %lse = nova.log %se : tensor<600x1xf32>
  %logp = nova.sub %z, %lse : tensor<600x50257xf32>, tensor<600x1xf32>
  %io = nova.iota dim 1 : tensor<600x50257xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<600x50257xi32>, tensor<600x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<600x50257xi1>, tensor<600x50257xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<600x50257xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<600x50257xf32>, tensor<600x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<600x50257xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<600x50257xf32>, tensor<600x50257xf32>
  %gs = nova.mul %g, %scale : tensor<600x50257xf32>, tensor<f32>
  %gb = nova.cast %gs : tensor<600x50257xf32> to tensor<600x50257xbf16>
  %dx = nova.matmul %gb, %e : tensor<600x50257xbf16>, tensor<50257x16xbf16> -> tensor<600x16xbf16>
  %de = nova.matmul %gb, %h transpose_lhs : tensor<600x50257xbf16>, tensor<600x16xbf16> -> tensor<50257x16xbf16>
  return %total, %dx, %de : tensor<f32>, tensor<600x16xbf16>, tensor<50257x16xbf16>
}

// The TF32 step's classifier: f32 logits of GPT-2's vocabulary, padded to
// a 16-byte pitch by the planner. A 201 KB row leaves no room for a second
// block's, so each block stages its row alone on its SM and loops over
// rows (more rows than SMs); the loss total folds the blocks' partials.
func.func @classifier_50257_f32(%h: tensor<300x16xf32>, %e: tensor<50257x16xf32>,
                           %labels: tensor<300x1xi32>, %scale: tensor<f32>)
    -> (tensor<f32>, tensor<300x16xf32>, tensor<50257x16xf32>) {
  %x = nova.matmul %h, %e transpose_rhs {nova.precision = "tf32"} : tensor<300x16xf32>, tensor<50257x16xf32> -> tensor<300x50257xf32>
  %m = nova.reduce max %x dims [1] keep_dims : tensor<300x50257xf32> -> tensor<300x1xf32>
  %z = nova.sub %x, %m : tensor<300x50257xf32>, tensor<300x1xf32>
  %ex = nova.exp %z : tensor<300x50257xf32>
  %se = nova.reduce sum %ex dims [1] keep_dims : tensor<300x50257xf32> -> tensor<300x1xf32>
  %lse = nova.log %se : tensor<300x1xf32>
  %logp = nova.sub %z, %lse : tensor<300x50257xf32>, tensor<300x1xf32>
  %io = nova.iota dim 1 : tensor<300x50257xi32>
  %hit = nova.cmp eq, %io, %labels : tensor<300x50257xi32>, tensor<300x1xi32>
  %zero = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %picked = nova.select %hit, %logp, %zero : tensor<300x50257xi1>, tensor<300x50257xf32>, tensor<f32>
  %total = nova.reduce sum %picked dims [0, 1] : tensor<300x50257xf32> -> tensor<f32>
  %p = nova.div %ex, %se : tensor<300x50257xf32>, tensor<300x1xf32>
  %t = nova.select %hit, %one, %zero : tensor<300x50257xi1>, tensor<f32>, tensor<f32>
  %g = nova.sub %p, %t : tensor<300x50257xf32>, tensor<300x50257xf32>
  %gs = nova.mul %g, %scale : tensor<300x50257xf32>, tensor<f32>
  %dx = nova.matmul %gs, %e {nova.precision = "tf32"} : tensor<300x50257xf32>, tensor<50257x16xf32> -> tensor<300x16xf32>
  %de = nova.matmul %gs, %h transpose_lhs {nova.precision = "tf32"} : tensor<300x50257xf32>, tensor<300x16xf32> -> tensor<50257x16xf32>
  return %total, %dx, %de : tensor<f32>, tensor<300x16xf32>, tensor<50257x16xf32>
}
