func.func @want() -> tensor<2xf32> {
  %c = nova.constant dense<[3.0, 4.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @close() -> tensor<2xf32> {
  %c = nova.constant dense<[3.0, 4.04]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @far() -> tensor<2xf32> {
  %c = nova.constant dense<[3.0, 4.1]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
