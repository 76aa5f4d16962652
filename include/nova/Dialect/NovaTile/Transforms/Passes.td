//===- Passes.td - passes of the nova_tile dialect ----------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_TD
#define NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaPrintHash : Pass<"nova-print-hash", "ModuleOp"> {
  let summary = "Print every kernel's family, structural hash and contract";
  let description = [{
    For each `nova_tile.fusion` and `nova_tile.kernel`, in order, prints one
    line to standard output: which group, its family, its 128-bit hash (32
    hex digits) and its contract (iteration space, then how each input and
    output is accessed):

    ```
    fusion #0 pointwise fc3a29d4c9c6bf04c6dc5f8ae47ce9d8 space 4x8 in [elementwise, broadcast(0)] out [elementwise]
    kernel @matmul_0f1e2d3c4b5a6978 matmul 0f1e... space 1x4x16x8 in [matmul-lhs, matmul-rhs(T), broadcast(0)] out [elementwise]
    ```

    The hash covers the family, the schedule, the input and output types
    and the body's ops, operand wiring, result types and attributes; never
    SSA names, locations or the kernel's symbol name. It is stable across
    runs and processes. The IR is not changed.
  }];
}

def NovaOutlineKernels : Pass<"nova-outline-kernels", "ModuleOp"> {
  let summary = "Move fusion groups into shared kernel symbols";
  let description = [{
    Replaces every `nova_tile.fusion` with a `nova_tile.launch` of a
    `nova_tile.kernel` holding its body, placed at the end of the module.
    Groups with equal structural hashes (identical transformer blocks, say)
    share one kernel, named `@<family>_<first 16 hex digits of the hash>`;
    kernels already in the module are reused the same way. Groups inside
    nested modules are left inline.
  }];
  let dependentDialects = ["::mlir::nova_tile::NovaTileDialect"];
}

#endif // NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_TD
