// A training loss whose f32 kernels take exp and a division by a row sum
// (a softmax's log-likelihood of a target distribution): the kernels
// --nova-gpu-pipeline's f32-math option changes. Used by gpu-pipeline.test.
func.func @loss(%w: tensor<203xf32> {nova.name = "w", nova.param},
                %x: tensor<37x203xf32> {nova.name = "x"},
                %t: tensor<37x203xf32> {nova.name = "t"}) -> tensor<f32> {
  %y = nova.mul %x, %w : tensor<37x203xf32>, tensor<203xf32>
  %p = nova.softmax %y dim 1 : tensor<37x203xf32>
  %q = nova.mul %p, %t : tensor<37x203xf32>, tensor<37x203xf32>
  %s = nova.reduce sum %q dims [0, 1] : tensor<37x203xf32> -> tensor<f32>
  return %s : tensor<f32>
}
