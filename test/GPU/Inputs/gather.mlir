// gather kernels: token embeddings (a GPT-2 sized vocabulary, ragged
// batch x sequence, 16-byte row loads) with an elementwise epilogue that
// adds the positional rows gathered by another kernel, and bf16 rows of an
// odd width (scalar accesses).
func.func @embed(%wte: tensor<50257x32xf32>, %tokens: tensor<3x257xi32>,
                 %pos: tensor<257xi64>, %wpe: tensor<300x32xf32>)
    -> (tensor<3x257x32xf32>, tensor<257x32xf32>) {
  %p = nova_tile.fusion gather (%wpe, %pos)
      : (tensor<300x32xf32>, tensor<257xi64>) -> tensor<257x32xf32> {
  ^bb0(%t: tensor<300x32xf32>, %i: tensor<257xi64>):
    %g = nova.gather %t[%i] axis 0 : tensor<300x32xf32>, tensor<257xi64> -> tensor<257x32xf32>
    nova_tile.yield %g : tensor<257x32xf32>
  }
  %e = nova_tile.fusion gather (%wte, %tokens, %p)
      : (tensor<50257x32xf32>, tensor<3x257xi32>, tensor<257x32xf32>) -> tensor<3x257x32xf32> {
  ^bb0(%t: tensor<50257x32xf32>, %i: tensor<3x257xi32>, %q: tensor<257x32xf32>):
    %g = nova.gather %t[%i] axis 0 : tensor<50257x32xf32>, tensor<3x257xi32> -> tensor<3x257x32xf32>
    %s = nova.add %g, %q : tensor<3x257x32xf32>, tensor<257x32xf32>
    nova_tile.yield %s : tensor<3x257x32xf32>
  }
  return %e, %p : tensor<3x257x32xf32>, tensor<257x32xf32>
}

func.func @rows_bf16(%table: tensor<1000x37xbf16>, %idx: tensor<5x111xi32>)
    -> tensor<5x111x37xf32> {
  %r = nova_tile.fusion gather (%table, %idx)
      : (tensor<1000x37xbf16>, tensor<5x111xi32>) -> tensor<5x111x37xf32> {
  ^bb0(%t: tensor<1000x37xbf16>, %i: tensor<5x111xi32>):
    %g = nova.gather %t[%i] axis 0 : tensor<1000x37xbf16>, tensor<5x111xi32> -> tensor<5x111x37xbf16>
    %c = nova.cast %g : tensor<5x111x37xbf16> to tensor<5x111x37xf32>
    nova_tile.yield %c : tensor<5x111x37xf32>
  }
  return %r : tensor<5x111x37xf32>
}
