// Constants held as resources hash by their bytes, not by their key: two
// keys with the same data give one hash, the same layout with other data
// another.
// RUN: nova-opt %s --nova-print-hash -o /dev/null | FileCheck %s

// CHECK: fusion #0 pointwise [[SAME:[0-9a-f]+]] space 2
// CHECK-NEXT: fusion #1 pointwise [[SAME]] space 2
// CHECK-NOT: [[SAME]]
// CHECK: fusion #2 pointwise
// CHECK-NOT: [[SAME]]
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = nova_tile.fusion pointwise (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%xa: tensor<2xf32>):
    %c = nova.constant dense_resource<one_two> : tensor<2xf32>
    %s = nova.add %xa, %c : tensor<2xf32>, tensor<2xf32>
    nova_tile.yield %s : tensor<2xf32>
  }
  %b = nova_tile.fusion pointwise (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%xa: tensor<2xf32>):
    %c = nova.constant dense_resource<also_one_two> : tensor<2xf32>
    %s = nova.add %xa, %c : tensor<2xf32>, tensor<2xf32>
    nova_tile.yield %s : tensor<2xf32>
  }
  %d = nova_tile.fusion pointwise (%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%xa: tensor<2xf32>):
    %c = nova.constant dense_resource<one_three> : tensor<2xf32>
    %s = nova.add %xa, %c : tensor<2xf32>, tensor<2xf32>
    nova_tile.yield %s : tensor<2xf32>
  }
  return %a, %b, %d : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      one_two: "0x040000000000803f00000040",
      also_one_two: "0x040000000000803f00000040",
      one_three: "0x040000000000803f00004040"
    }
  }
#-}
