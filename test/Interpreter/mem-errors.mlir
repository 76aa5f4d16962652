// nova-run on nova_mem programs it cannot run: located errors, no crash.
// RUN: not nova-run %s --entry bytes --random-inputs 1 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: not nova-run %s --entry huge --random-inputs 1 2>&1 | FileCheck %s --check-prefix=HUGE

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}

// BYTES: mem-errors.mlir:[[@LINE+3]]:13: error: the reference interpreter has no 'i8' elements
func.func @bytes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %bx = nova_mem.input %x : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %unused = nova_mem.alloc : !nova_mem.buffer<4xi8>
  %r = nova_mem.output %bx : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// HUGE: mem-errors.mlir:[[@LINE+1]]:1: error: the arena of 17179869200 bytes is larger than the interpreter's limit of 8589934592
func.func @huge(%x: tensor<4xf32>) -> tensor<4xf32> {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 17179869184 : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  %r = nova_mem.output %a : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
