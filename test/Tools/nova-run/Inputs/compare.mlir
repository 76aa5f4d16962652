// Constants for --compare: each entry pairs with one that differs in a way
// a tolerance must not hide.
func.func @inf() -> tensor<3xf32> {
  %c = nova.constant dense<[0x7F800000, 0xFF800000, 1.0]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func @finite_for_inf() -> tensor<3xf32> {
  %c = nova.constant dense<[3.0e38, 0xFF800000, 1.0]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func @max_i64() -> tensor<2xi64> {
  %c = nova.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
  return %c : tensor<2xi64>
}
func.func @max_i64_minus_one() -> tensor<2xi64> {
  %c = nova.constant dense<[9223372036854775806, -9223372036854775808]> : tensor<2xi64>
  return %c : tensor<2xi64>
}
