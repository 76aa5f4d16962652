// A total over every dim of select(iota == label, v, 0), one label a row
// (the cross-entropy loss): each row holds at most one term, so
// convert-tile-to-gpu evaluates v once a row, at the label's column, after
// the row's reductions, and folds it from the row's lane 0 where the label
// lies in the row, instead of comparing, selecting and adding at every
// column (no i32 compare of a column with the label in any loop: the
// implicit check).
// RUN: nova-opt %s --convert-tile-to-gpu | FileCheck %s --implicit-check-not="arith.cmpi eq, %{{[0-9]+}}, %{{[0-9]+}} : i32"

// CHECK-LABEL: gpu.func @xent_total
// CHECK-SAME: (%[[X:.*]]: memref<300x1001xf32>, %[[LABEL:.*]]: memref<300x1xi32>, %[[LOSS:.*]]: memref<f32>, %[[Y:.*]]: memref<300x1001xf32>
// The row max (its own pass over the row).
// CHECK: scf.for
// CHECK: arith.maximumf
// After the row's reductions: its label, whether it lies in the row, v at
// that column, taken by lane 0 of a valid row.
// CHECK: %[[J:.*]] = memref.load %[[LABEL]][%{{.*}}, %c0]
// CHECK-DAG: arith.cmpi slt, %[[J]], %c1001_i32 : i32
// CHECK-DAG: arith.cmpi sge, %[[J]], %c0_i32 : i32
// CHECK: %[[COL:.*]] = arith.select %{{.*}}, %{{.*}}, %c0 : index
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %[[COL]]]
// CHECK: arith.subf %[[V]]
// CHECK: arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: arith.extf %{{.*}} : f32 to f64
// Then the outputs, x - max at every column.
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[Y]]
nova_tile.kernel @xent_total row_reduction schedule <tile = [1, 1001], threads = 256, stages = 1, vector = 4, split_k = 1> {
^bb0(%x: tensor<300x1001xf32>, %label: tensor<300x1xi32>):
  %m = nova.reduce max %x dims [1] keep_dims : tensor<300x1001xf32> -> tensor<300x1xf32>
  %s = nova.sub %x, %m : tensor<300x1001xf32>, tensor<300x1xf32>
  %iota = nova.iota dim 1 : tensor<300x1001xi32>
  %hit = nova.cmp eq, %label, %iota : tensor<300x1xi32>, tensor<300x1001xi32>
  %zero = nova.constant dense<0.000000e+00> : tensor<f32>
  %picked = nova.select %hit, %s, %zero : tensor<300x1001xi1>, tensor<300x1001xf32>, tensor<f32>
  %loss = nova.reduce sum %picked dims [0, 1] : tensor<300x1001xf32> -> tensor<f32>
  nova_tile.yield %loss, %s : tensor<f32>, tensor<300x1001xf32>
}
