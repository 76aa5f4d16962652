// An output planned in place over an input that another output of the same
// kernel reads: t (a matmul's product) dies at the row kernel, so the
// planner puts y over t, and z must still read t's values, not y's.
func.func @row(%a: tensor<64x32xf32>, %b: tensor<32x96xf32>) -> (tensor<64x96xf32>, tensor<64x96xbf16>) {
  %t = nova.matmul %a, %b {nova.precision = "tf32"} : tensor<64x32xf32>, tensor<32x96xf32> -> tensor<64x96xf32>
  %s = nova.reduce sum %t dims [1] keep_dims : tensor<64x96xf32> -> tensor<64x1xf32>
  %y = nova.sub %t, %s : tensor<64x96xf32>, tensor<64x1xf32>
  %p = nova.mul %y, %t : tensor<64x96xf32>, tensor<64x96xf32>
  %z = nova.cast %p : tensor<64x96xf32> to tensor<64x96xbf16>
  return %y, %z : tensor<64x96xf32>, tensor<64x96xbf16>
}
