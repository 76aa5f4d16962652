// Debian's mlir-opt loads nova_tile (with the nova ops its bodies hold) and
// its passes from nova-tile-plugin alone, runs its verifier, and computes the
// same structural hashes as nova-opt in another process.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(nova-outline-kernels)' | FileCheck %s
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --load-pass-plugin=%nova_libs/nova-tile-plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(nova-print-hash)' -o /dev/null > %t.plugin
// RUN: nova-opt %s --nova-print-hash -o /dev/null > %t.nova
// RUN: diff %t.plugin %t.nova
// RUN: FileCheck %s --check-prefix=HASH < %t.plugin
// nova-plugin holds the dialect too.
// RUN: %upstream_mlir_opt %s --load-dialect-plugin=%nova_libs/nova-plugin%shlibext | FileCheck %s --check-prefix=ROUNDTRIP
// Without a plugin, mlir-opt does not know the dialect.
// RUN: not %upstream_mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK: %[[Y:.*]] = nova_tile.launch @[[K:pointwise_[0-9a-f]+]](%arg0)
// CHECK: nova_tile.launch @[[K]](%[[Y]])
// CHECK: nova_tile.kernel @[[K]] pointwise
// HASH: fusion #0 pointwise [[H:[0-9a-f]+]] space 8
// HASH-NEXT: fusion #1 pointwise [[H]] space 8
// ROUNDTRIP: nova_tile.fusion pointwise
// NOPLUGIN: Dialect `nova_tile' not found for custom op 'nova_tile.fusion'
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = nova_tile.fusion pointwise (%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %e = nova.exp %a : tensor<8xf32>
    nova_tile.yield %e : tensor<8xf32>
  }
  %z = nova_tile.fusion pointwise (%y) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%b: tensor<8xf32>):
    %e = nova.exp %b : tensor<8xf32>
    nova_tile.yield %e : tensor<8xf32>
  }
  return %z : tensor<8xf32>
}
