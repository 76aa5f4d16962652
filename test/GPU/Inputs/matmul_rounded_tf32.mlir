// TF32 products whose weight nova-fuse rounds ahead (single GEMMs): y = x W^T
// over 2400 rows (3 x 800; ten 256-row tiles, so the copy costs less than
// the kernel's pass over W's tiles) with a ragged N of 600 and K of 200;
// the GEMM takes W's rounded copy as it is (nova.rounded) and rounds only
// x. dx = dy W reads the same weight N-major and rounds it in its kernel.
func.func @weight_tf32(%x: tensor<3x800x200xf32>, %w: tensor<600x200xf32>, %dy: tensor<3x800x600xf32>)
    -> (tensor<3x800x600xf32>, tensor<3x800x200xf32>) {
  %y = nova.matmul %x, %w transpose_rhs {nova.precision = "tf32"} : tensor<3x800x200xf32>, tensor<600x200xf32> -> tensor<3x800x600xf32>
  %dx = nova.matmul %dy, %w {nova.precision = "tf32"} : tensor<3x800x600xf32>, tensor<600x200xf32> -> tensor<3x800x200xf32>
  return %y, %dx : tensor<3x800x600xf32>, tensor<3x800x200xf32>
}
