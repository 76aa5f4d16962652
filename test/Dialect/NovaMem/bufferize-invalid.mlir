// What nova-bufferize and nova-plan-memory refuse, each a located error.
// RUN: nova-opt %s -split-input-file -verify-diagnostics --nova-bufferize --nova-plan-memory

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{nova-bufferize: 'nova.exp' is outside a kernel; a function body holds kernels, nova.reshape, nova.constant and func.return (run convert-nova-to-tile first)}}
  %e = nova.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// expected-error @+1 {{nova-bufferize: argument #0 has type 'tensor<?xf32>'; buffers need statically shaped tensors}}
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

func.func private @g(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{nova-bufferize: 'func.call' is outside a kernel}}
  %r = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The update of %w must follow the matmul that reads %w, but the matmul
// reads the update's other result.
func.func @f(%w: tensor<4x4xf32> {nova.param}, %g: tensor<4x4xf32>)
    -> (tensor<4x4xf32> {nova.alias = 0 : i64}, tensor<4x4xf32>) {
  // expected-error @+1 {{nova-bufferize: this kernel updates an argument in place, so it must run after the argument's last reader, but a value it computes is read before that}}
  %nw:2 = nova_tile.fusion pointwise (%w, %g) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%wa: tensor<4x4xf32>, %ga: tensor<4x4xf32>):
    %r = nova.sub %wa, %ga : tensor<4x4xf32>, tensor<4x4xf32>
    %s = nova.mul %ga, %ga : tensor<4x4xf32>, tensor<4x4xf32>
    nova_tile.yield %r, %s : tensor<4x4xf32>, tensor<4x4xf32>
  }
  // expected-note @+2 {{the argument's last reader}}
  // expected-note @+1 {{the early reader}}
  %p = nova_tile.fusion matmul (%nw#1, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%xa: tensor<4x4xf32>, %wa: tensor<4x4xf32>):
    %r = nova.matmul %xa, %wa : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    nova_tile.yield %r : tensor<4x4xf32>
  }
  return %nw#0, %p : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A hand-written program that writes the new %w before the last read of the
// old one: the planner cannot give it %w's bytes.
nova_tile.kernel @copy pointwise {
^bb0(%a: tensor<4xf32>):
  nova_tile.yield %a : tensor<4xf32>
}
func.func @f(%w: tensor<4xf32> {nova.param}) -> (tensor<4xf32> {nova.alias = 0 : i64}, tensor<4xf32>) {
  %bw = nova_mem.input %w : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %n = nova_mem.alloc : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bw : !nova_mem.buffer<4xf32>) -> (%n : !nova_mem.buffer<4xf32>)
  %c = nova_mem.alloc : !nova_mem.buffer<4xf32>
  nova_mem.launch @copy(%bw : !nova_mem.buffer<4xf32>) -> (%c : !nova_mem.buffer<4xf32>)
  // expected-error @+1 {{nova-plan-memory: result #0 replaces argument #0, but the argument is still read after the launch that writes the result}}
  %r = nova_mem.output %n : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  %s = nova_mem.output %c : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4xf32>
}
