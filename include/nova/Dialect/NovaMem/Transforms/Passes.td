//===- Passes.td - passes that produce nova_mem -------------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_TD
#define NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaBufferize : Pass<"nova-bufferize", "::mlir::ModuleOp"> {
  let summary = "Turn functions of kernels into nova_mem programs on buffers";
  let description = [{
    Takes functions whose bodies are kernels (`nova_tile.launch`, or inline
    `nova_tile.fusion` groups, which it first outlines like
    `nova-outline-kernels`), `nova.reshape`, `nova.constant` and
    `func.return`, as `convert-nova-to-tile` leaves them, and rewrites each
    body into a `nova_mem` program: every argument bound to a buffer
    (`nova_mem.input`), every kernel result an unplaced `nova_mem.alloc`
    written by a `nova_mem.launch`, every reshape a `nova_mem.view`, every
    result a `nova_mem.output`. A non-splat constant becomes a pointwise
    kernel that writes it. The launch that writes an output replacing
    argument `i` (`nova.alias = i`: an updated parameter, moment or working
    copy) moves after every other kernel that reads argument `i`, so the
    planner can update it in place; a launch whose other results are read
    before that point cannot move and is an error.

    Any other op in a body (a `nova` op outside a kernel, an op of another
    dialect), a dynamically shaped type or a function of several blocks is
    a located error. Offsets are left to `nova-plan-memory`; the
    interpreter runs an unplanned program with every buffer in its own
    bytes.
  }];
  let dependentDialects = ["::mlir::nova_mem::NovaMemDialect",
                           "::mlir::nova_tile::NovaTileDialect"];
}

def NovaPlanMemory : Pass<"nova-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every buffer of a nova_mem program in one arena";
  let description = [{
    For each unplanned `nova_mem` program: pads the leading dimension of
    every internal buffer (not an input, output or view) whose rows are not
    a multiple of 16 bytes; lets a pointwise or optimizer kernel write an
    output over an input whose live range ends at that launch when the
    kernel reads it element for element (`mayWriteInPlace`, never a matmul
    or attention operand); puts every output that replaces an argument
    (`nova.alias`) in that argument's bytes; then places the buffers, largest
    first, each in the smallest free gap (16-byte aligned) among the buffers
    whose live ranges meet its own (best fit on liveness intervals).

    Sets `nova_mem.peak_bytes` (the arena size) and `nova_mem.naive_bytes`
    (every buffer in its own bytes) on the function; the dialect's plan
    verifier then checks the result. With `report=true` it prints, per
    function, the peak, the naive sum, the largest sum of bytes live at one
    launch (a lower bound for any placement of this schedule) and what is
    live there: arguments by role (`nova.param` parameters, `.adam_m` /
    `.adam_v` optimizer state, `.bf16` working copies, other inputs) and
    computed buffers by type, largest first.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Print, per function, the peak, the naive sum, the live lower "
           "bound and what is live at the launch where the live bytes peak">
  ];
  let dependentDialects = ["::mlir::nova_mem::NovaMemDialect"];
}

#endif // NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_TD
