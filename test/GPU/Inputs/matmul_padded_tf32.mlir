// TF32 GEMMs (y = x W^T, both operands K-major) whose K of 201 makes rows of
// 804 bytes, which TMA cannot load: with single GEMMs, nova-fuse gives each
// operand a copy kernel whose buffer the planner pads to 816-byte rows, so
// the GEMM runs on wgmma (the copies cost less than mma.sync's lower rate);
// the output's odd N (701) is stored by the consumers' direct stores.
func.func @copy_odd_tf32(%a: tensor<600x201xf32>, %b: tensor<701x201xf32>)
    -> tensor<600x701xf32> {
  %p = nova.matmul %a, %b transpose_rhs {nova.precision = "tf32"} : tensor<600x201xf32>, tensor<701x201xf32> -> tensor<600x701xf32>
  return %p : tensor<600x701xf32>
}

// W stored [K, N] (N-major) with rows of 2804 bytes: W gets a copy padded
// to 2816-byte rows, which TMA loads N-major and the consumers transpose
// to K-major in shared memory (wgmma reads 32-bit operands K-major only).
func.func @nmajor_tf32(%a: tensor<600x256xf32>, %b: tensor<256x701xf32>)
    -> tensor<600x701xf32> {
  %p = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<600x256xf32>, tensor<256x701xf32> -> tensor<600x701xf32>
  return %p : tensor<600x701xf32>
}

// f32 without the TF32 mark keeps f32 accuracy on mma.sync (3xTF32): no copy.
func.func @exact_f32(%a: tensor<600x201xf32>, %b: tensor<701x201xf32>)
    -> tensor<600x701xf32> {
  %p = nova.matmul %a, %b transpose_rhs : tensor<600x201xf32>, tensor<701x201xf32> -> tensor<600x701xf32>
  return %p : tensor<600x701xf32>
}

// Both operands copied (K = 201) and so rounded ahead, with 3391 x 1087
// outputs: 135 tiles of 128 x 256 would take two waves of 132 SMs, 126 of
// 256 x 128 take one, so the kernel runs two m64 groups a consumer on B's
// rounded copy (no pass); N odd, stored by the consumers.
func.func @tall_tf32(%a: tensor<3391x201xf32>, %b: tensor<1087x201xf32>)
    -> tensor<3391x1087xf32> {
  %p = nova.matmul %a, %b transpose_rhs {nova.precision = "tf32"} : tensor<3391x201xf32>, tensor<1087x201xf32> -> tensor<3391x1087xf32>
  return %p : tensor<3391x1087xf32>
}
