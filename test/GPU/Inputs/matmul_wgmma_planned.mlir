// The wgmma GEMM in a planned executable (nova-plan-memory's arena,
// nova-translate binds the TMA descriptors to the planned offsets): a
// linear layer y = x W^T + b in TF32, two launches in one entry,
// the second reading the first's output.
func.func @linears(%x: tensor<300x200xf32>, %w1: tensor<256x200xf32>, %b1: tensor<256xf32>,
                   %w2: tensor<136x256xf32>) -> tensor<300x136xf32> {
  %h = nova.matmul %x, %w1 transpose_rhs {nova.precision = "tf32"} : tensor<300x200xf32>, tensor<256x200xf32> -> tensor<300x256xf32>
  %hb = nova.add %h, %b1 : tensor<300x256xf32>, tensor<256xf32>
  %g = nova.gelu tanh %hb : tensor<300x256xf32>
  %y = nova.matmul %g, %w2 transpose_rhs {nova.precision = "tf32"} : tensor<300x256xf32>, tensor<136x256xf32> -> tensor<300x136xf32>
  return %y : tensor<300x136xf32>
}
