// scatter_add kernels, the gradients of the gathers: token-embedding rows
// of a GPT-2 sized vocabulary (most rows get nothing and must be written
// as zeros, a few get many updates), with an elementwise prologue on the
// updates, and positional rows of a small table where every row is hit
// from every batch, and 4000 updates into 7 rows (about 570 per row).
// 4000 updates and the embeddings' indices take buckets (sorted in shared
// memory, index order per row); @many_indices takes tiles.
// Compiled once with shared-memory float atomics (f32 sums in an order that
// changes from run to run: on the hot rows, where the sums cancel to small
// values, 5e-5 absolute error was seen on the H200) and once with
// deterministic=true (f64 adds in index order: the interpreter's result
// exactly, the same bits every run).
func.func @embed_grad(%demb: tensor<3x257x32xf32>, %tokens: tensor<3x257xi32>,
                      %scale: tensor<f32>) -> tensor<50257x32xf32> {
  %r = nova_tile.fusion scatter_add (%demb, %tokens, %scale)
      : (tensor<3x257x32xf32>, tensor<3x257xi32>, tensor<f32>) -> tensor<50257x32xf32> {
  ^bb0(%u: tensor<3x257x32xf32>, %i: tensor<3x257xi32>, %s: tensor<f32>):
    %m = nova.mul %u, %s : tensor<3x257x32xf32>, tensor<f32>
    %g = nova.scatter_add %m[%i] axis 0 : tensor<3x257x32xf32>, tensor<3x257xi32> -> tensor<50257x32xf32>
    nova_tile.yield %g : tensor<50257x32xf32>
  }
  return %r : tensor<50257x32xf32>
}

func.func @pos_grad(%demb: tensor<4x300x37xbf16>, %pos: tensor<4x300xi64>)
    -> tensor<300x37xbf16> {
  %r = nova_tile.fusion scatter_add (%demb, %pos)
      : (tensor<4x300x37xbf16>, tensor<4x300xi64>) -> tensor<300x37xbf16> {
  ^bb0(%u: tensor<4x300x37xbf16>, %i: tensor<4x300xi64>):
    %g = nova.scatter_add %u[%i] axis 0 : tensor<4x300x37xbf16>, tensor<4x300xi64> -> tensor<300x37xbf16>
    nova_tile.yield %g : tensor<300x37xbf16>
  }
  return %r : tensor<300x37xbf16>
}

func.func @hot_rows(%demb: tensor<4x1000x64xf32>, %idx: tensor<4x1000xi32>)
    -> tensor<7x64xf32> {
  %r = nova_tile.fusion scatter_add (%demb, %idx)
      : (tensor<4x1000x64xf32>, tensor<4x1000xi32>) -> tensor<7x64xf32> {
  ^bb0(%u: tensor<4x1000x64xf32>, %i: tensor<4x1000xi32>):
    %g = nova.scatter_add %u[%i] axis 0 : tensor<4x1000x64xf32>, tensor<4x1000xi32> -> tensor<7x64xf32>
    nova_tile.yield %g : tensor<7x64xf32>
  }
  return %r : tensor<7x64xf32>
}

// Buckets with rows wider than a lane's registers: 2050 columns (pairs of
// f32, 1025 chunks: three passes over each row's matches, the last one
// ragged), 600 indices into 90 rows (about 7 per row, repeated).
func.func @wide_rows(%demb: tensor<600x2050xf32>, %idx: tensor<600xi64>)
    -> tensor<90x2050xf32> {
  %r = nova_tile.fusion scatter_add (%demb, %idx)
      : (tensor<600x2050xf32>, tensor<600xi64>) -> tensor<90x2050xf32> {
  ^bb0(%u: tensor<600x2050xf32>, %i: tensor<600xi64>):
    %g = nova.scatter_add %u[%i] axis 0 : tensor<600x2050xf32>, tensor<600xi64> -> tensor<90x2050xf32>
    nova_tile.yield %g : tensor<90x2050xf32>
  }
  return %r : tensor<90x2050xf32>
}

// More indices than a block's shared memory sorts (40000): tiles, each
// block scanning every index (about 40 updates per row).
func.func @many_indices(%demb: tensor<40000x8xf32>, %idx: tensor<40000xi32>)
    -> tensor<1000x8xf32> {
  %r = nova_tile.fusion scatter_add (%demb, %idx)
      : (tensor<40000x8xf32>, tensor<40000xi32>) -> tensor<1000x8xf32> {
  ^bb0(%u: tensor<40000x8xf32>, %i: tensor<40000xi32>):
    %g = nova.scatter_add %u[%i] axis 0 : tensor<40000x8xf32>, tensor<40000xi32> -> tensor<1000x8xf32>
    nova_tile.yield %g : tensor<1000x8xf32>
  }
  return %r : tensor<1000x8xf32>
}
