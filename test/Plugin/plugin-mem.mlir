// Debian's mlir-opt loads nova_mem (with nova_tile and nova, which its
// launches and kernels hold) and its passes from nova-mem-plugin alone, and
// plans the same program as nova-opt; nova-tile-plugin registers
// convert-nova-to-tile.
// RUN: nova-opt %s --convert-nova-to-tile -o %t.tile.mlir
// RUN: %upstream_mlir_opt %t.tile.mlir --load-dialect-plugin=%nova_libs/nova-mem-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-mem-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(nova-bufferize,nova-plan-memory)' -o %t.plugin.mlir
// RUN: nova-opt %t.tile.mlir --nova-bufferize --nova-plan-memory -o %t.nova.mlir
// RUN: diff %t.plugin.mlir %t.nova.mlir
// RUN: FileCheck %s < %t.plugin.mlir
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(convert-nova-to-tile))' | FileCheck %s --check-prefix=TILE

// CHECK: func.func @f
// CHECK-SAME: nova_mem.peak_bytes
// CHECK: nova_mem.launch @pointwise_{{[0-9a-f]+}}
// TILE: nova_tile.fusion pointwise
// TILE-NEXT: ^bb0
// TILE-NEXT: nova.exp
// TILE-NEXT: nova_tile.yield
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = nova.exp %x : tensor<8xf32>
  %y = nova_tile.fusion pointwise (%e) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %n = nova.neg %a : tensor<8xf32>
    nova_tile.yield %n : tensor<8xf32>
  }
  return %y : tensor<8xf32>
}
