// Every op-level rule of nova_mem, one case each.
// RUN: nova-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a buffer holds integers or floats, not 'index'}}
func.func @f(%b: !nova_mem.buffer<4xindex>)

// -----

// expected-error @+1 {{leading dimension 4 is smaller than the innermost size}}
func.func @f(%b: !nova_mem.buffer<2x5xf32, ld 4>)

// -----

// expected-error @+1 {{leading dimension 8 is smaller than the innermost size or the buffer is a scalar}}
func.func @f(%b: !nova_mem.buffer<f32, ld 8>)

// -----

func.func @f(%x: tensor<4xf32>) {
  %c = nova.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{binds an argument of the enclosing function's body}}
  %b = nova_mem.input %c : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expected-error @+1 {{buffer type '!nova_mem.buffer<4xi32>' is not the argument's type 'tensor<4xf32>' with packed rows}}
  %b = nova_mem.input %x : tensor<4xf32> -> !nova_mem.buffer<4xi32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{is not the argument's type 'tensor<2x3xf32>' with packed rows}}
  %b = nova_mem.input %x : tensor<2x3xf32> -> !nova_mem.buffer<2x3xf32, ld 4>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{offset 8 is not a multiple of 16 bytes}}
  %b = nova_mem.alloc at 8 : !nova_mem.buffer<4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{offset -16 is negative}}
  %b = nova_mem.alloc at -16 : !nova_mem.buffer<4xf32>
  return
}

// -----

func.func @f() {
  %b = nova_mem.alloc : !nova_mem.buffer<4x2xf32>
  // expected-error @+1 {{a view keeps the element type and count}}
  %v = nova_mem.view %b : !nova_mem.buffer<4x2xf32> -> !nova_mem.buffer<6xf32>
  return
}

// -----

func.func @f() {
  %b = nova_mem.alloc : !nova_mem.buffer<4x5xf32, ld 8>
  // expected-error @+1 {{a buffer with a leading dimension keeps it and its innermost size}}
  %v = nova_mem.view %b : !nova_mem.buffer<4x5xf32, ld 8> -> !nova_mem.buffer<20xf32>
  return
}

// -----

nova_tile.kernel @k pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a, %a : tensor<4xf32>, tensor<4xf32>
}
func.func @f() {
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  %c = nova_mem.alloc : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{writes the same buffer twice}}
  nova_mem.launch @k(%c : !nova_mem.buffer<4xf32>) -> (%b, %b : !nova_mem.buffer<4xf32>, !nova_mem.buffer<4xf32>)
  return
}

// -----

nova_tile.kernel @k pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  %b = nova_mem.input %x : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  // expected-error @+1 {{writes a buffer that is not a nova_mem.alloc}}
  nova_mem.launch @k(%b : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  return
}

// -----

func.func @f() {
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{'@missing' is not a nova_tile.kernel of the module}}
  nova_mem.launch @missing() -> (%b : !nova_mem.buffer<4xf32>)
  return
}

// -----

nova_tile.kernel @k pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f() {
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{passes 0 input buffers to '@k', which has 1}}
  nova_mem.launch @k() -> (%b : !nova_mem.buffer<4xf32>)
  return
}

// -----

nova_tile.kernel @k pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f() {
  %a = nova_mem.alloc : !nova_mem.buffer<4xf32>
  %b = nova_mem.alloc : !nova_mem.buffer<2x2xf32>
  // expected-error @+1 {{output buffer #0 of type '!nova_mem.buffer<2x2xf32>' does not hold the kernel's 'tensor<4xf32>'}}
  nova_mem.launch @k(%a : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<2x2xf32>)
  return
}

// -----

func.func @f() -> tensor<4xf32> {
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{reads 'tensor<4xi32>' from a buffer of type '!nova_mem.buffer<4xf32>'}}
  %r = nova_mem.output %b : !nova_mem.buffer<4xf32> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @f() -> tensor<4xf32> {
  %b = nova_mem.alloc : !nova_mem.buffer<4xf32>
  // expected-error @+1 {{result is used by 'nova.neg'; outputs are only returned}}
  %r = nova_mem.output %b : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  %n = nova.neg %r : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown nova_mem attribute 'nova_mem.peak'}}
func.func @f() attributes {nova_mem.peak = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'nova_mem.peak_bytes' is a non-negative integer}}
func.func @f() attributes {nova_mem.peak_bytes = "big"} {
  return
}

// -----

// expected-error @+1 {{'nova_mem.naive_bytes' belongs on a func.func}}
module attributes {nova_mem.naive_bytes = 0 : i64} {
}

// -----

// expected-error @+1 {{buffer of more than 2^63 bytes}}
func.func @f(%b: !nova_mem.buffer<4294967296x4294967296xf32>)
