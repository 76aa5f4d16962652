// RUN: nova-opt %s --convert-nova-to-tile | FileCheck %s
// RUN: nova-opt %s --convert-nova-to-tile -o %t.tile.mlir
// RUN: nova-run %s --random-inputs 2 --save-inputs %t.in -o %t.out
// RUN: nova-run %t.tile.mlir --inputs %t.in --compare %t.out --rtol 0 --atol 0 \
// RUN:   | FileCheck %s --check-prefix=SAME --implicit-check-not=MISMATCH
// SAME: match

// A column sum of a single-element tensor keeping its dims: its 1x1 result
// is per column and the total at once, which the column-reduction contract
// accepts (it used to call it per element and refuse the kernel; found by
// the fuzz campaign's equiv target).
// CHECK-LABEL: func.func @single_element_column_sum
// CHECK: nova_tile.fusion column_reduction
// CHECK: nova.reduce sum %{{.*}} dims [0] keep_dims : tensor<1x1xf32> -> tensor<1x1xf32>
func.func @single_element_column_sum(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %s = nova.reduce sum %x dims [0] keep_dims : tensor<1x1xf32> -> tensor<1x1xf32>
  return %s : tensor<1x1xf32>
}
