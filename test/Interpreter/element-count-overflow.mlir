// 2^32 x 2^32 elements used to count as 0: the reduction verified and summed
// to [0]. Now the verifier rejects the op at its location.
// RUN: not nova-run %s --random-inputs 1 --print 2>&1 | FileCheck %s --implicit-check-not=result0
// CHECK: element-count-overflow.mlir:[[@LINE+2]]:8: error: 'nova.reduce' op operand #0 of type 'tensor<4294967296x4294967296xf32>' has more than 2^63 elements
func.func @sum(%x: tensor<4294967296x4294967296xf32>) -> tensor<f32> {
  %0 = nova.reduce sum %x dims [0, 1] : tensor<4294967296x4294967296xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
