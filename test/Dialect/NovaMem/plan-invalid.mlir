// Every rule of a planned program (one with nova_mem.peak_bytes), one case
// each. The last two are the programs of test/Interpreter/mem-poison.test,
// whose bugs the interpreter shows when they are not marked planned.
// RUN: nova-opt %s -split-input-file -verify-diagnostics

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 32 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-error @+1 {{a planned program places every buffer; this one has no offset}}
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  %r = nova_mem.output %b : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 24 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-error @+1 {{buffer [16, 32) ends past the arena of 24 bytes (nova_mem.peak_bytes)}}
  %b = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  %r = nova_mem.output %b : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 64 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  %b = nova_mem.alloc at 32 : !nova_mem.buffer<4xf32>
  // The first launch reads %b, which the second writes.
  // expected-error @-2 {{buffer is read by launch #0 before launch #1 writes it}}
  nova_mem.launch @copy(%b : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  %r = nova_mem.output %a : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 64 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  // expected-error @+1 {{writes a buffer that launch #0 already wrote}}
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  %r = nova_mem.output %a : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) attributes {nova_mem.peak_bytes = 64 : i64} {
  %a = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-error @+1 {{argument #0 is bound twice}}
  %b = nova_mem.input %x at 16 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 64 : i64} {
  %a = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-error @+1 {{'nova.neg' in a nova_mem program; its body holds nova_mem ops and func.return only}}
  %n = nova.neg %x : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32> {nova.param}) -> (tensor<4xf32> {nova.alias = 0 : i64}) attributes {nova_mem.peak_bytes = 64 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  // expected-error @+1 {{result #0 replaces argument #0 in place, but its buffer is not at the argument's offset with its type}}
  %r = nova_mem.output %a : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A matmul reads whole rows and columns of its operands: its output never
// takes an operand's bytes, even when the operand dies there.
nova_tile.kernel @mm matmul {
^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
  %p = nova.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  nova_tile.yield %p : tensor<4x4xf32>
}
nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4x4xf32>):
  nova_tile.yield %a : tensor<4x4xf32>
}
func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {nova_mem.peak_bytes = 192 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4x4xf32> -> !nova_mem.buffer<4x4xf32>
  // expected-note @+1 {{the other buffer}}
  %a = nova_mem.alloc at 64 : !nova_mem.buffer<4x4xf32>
  nova_mem.launch @copy(%bx : !nova_mem.buffer<4x4xf32>) -> (%a : !nova_mem.buffer<4x4xf32>)
  // expected-error @+1 {{buffer [64, 128) live over launches [1, 2] shares bytes with buffer [64, 128) live over [0, 1]}}
  %p = nova_mem.alloc at 64 : !nova_mem.buffer<4x4xf32>
  nova_mem.launch @mm(%a, %bx : !nova_mem.buffer<4x4xf32>, !nova_mem.buffer<4x4xf32>) -> (%p : !nova_mem.buffer<4x4xf32>)
  %r = nova_mem.output %p : !nova_mem.buffer<4x4xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// mem-poison.test's overlap: y * y placed over x + x while x + x is live.
nova_tile.kernel @twice pointwise {
^bb0(%a: tensor<4xf32>):
  %r = nova.add %a, %a : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
nova_tile.kernel @minus pointwise {
^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
  %r = nova.sub %a, %b : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
func.func @overlap(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 64 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %by = nova_mem.input %y at 16 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-note @+1 {{the other buffer}}
  %a = nova_mem.alloc at 32 : !nova_mem.buffer<4xf32>
  nova_mem.launch @twice(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  // expected-error @+1 {{buffer [32, 48) live over launches [1, 2] shares bytes with buffer [32, 48) live over [0, 2]}}
  %b = nova_mem.alloc at 32 : !nova_mem.buffer<4xf32>
  nova_mem.launch @twice(%by : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  %c = nova_mem.alloc at 48 : !nova_mem.buffer<4xf32>
  nova_mem.launch @minus(%a, %b : !nova_mem.buffer<4xf32>, !nova_mem.buffer<4xf32>) -> (%c : !nova_mem.buffer<4xf32>)
  %rc = nova_mem.output %c : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %rc : tensor<4xf32>
}

// -----

// mem-poison.test's stale read: a buffer nothing writes.
nova_tile.kernel @twice pointwise {
^bb0(%a: tensor<4xf32>):
  %r = nova.add %a, %a : tensor<4xf32>, tensor<4xf32>
  nova_tile.yield %r : tensor<4xf32>
}
func.func @stale(%x: tensor<4xf32>) -> tensor<4xf32> attributes {nova_mem.peak_bytes = 64 : i64} {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  nova_mem.launch @twice(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  // expected-error @+1 {{buffer is read but no launch writes it}}
  %stale = nova_mem.alloc at 16 : !nova_mem.buffer<4xf32>
  %c = nova_mem.alloc at 32 : !nova_mem.buffer<4xf32>
  nova_mem.launch @twice(%stale : !nova_mem.buffer<4xf32>) -> (%c : !nova_mem.buffer<4xf32>)
  %rc = nova_mem.output %c : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %rc : tensor<4xf32>
}

// -----

nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%b: !nova_mem.buffer<4xf32>) attributes {nova_mem.peak_bytes = 64 : i64} {
  %a = nova_mem.alloc at 0 : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{reads or writes a buffer that is not a nova_mem.input, nova_mem.alloc or nova_mem.view of this program}}
  nova_mem.launch @copy(%b : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  return
}
