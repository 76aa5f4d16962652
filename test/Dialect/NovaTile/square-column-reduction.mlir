// A column reduction of a square tensor: its output, a vector as long as a
// row and as a column, is per column (it used to be read as per row and the
// group rejected).
// RUN: nova-opt %s --nova-print-hash -o /dev/null | FileCheck %s
// CHECK: fusion #0 column_reduction {{[0-9a-f]+}} space 2x2 in [elementwise] out [per-column]
// CHECK: fusion #1 row_reduction {{[0-9a-f]+}} space 2x2 in [elementwise] out [per-row]
func.func @f(%x: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = nova_tile.fusion column_reduction (%x) : (tensor<2x2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %s = nova.reduce sum %a dims [0] : tensor<2x2xf32> -> tensor<2xf32>
    nova_tile.yield %s : tensor<2xf32>
  }
  %r = nova_tile.fusion row_reduction (%x) : (tensor<2x2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %s = nova.reduce sum %a dims [1] : tensor<2x2xf32> -> tensor<2xf32>
    nova_tile.yield %s : tensor<2xf32>
  }
  return %c, %r : tensor<2xf32>, tensor<2xf32>
}
