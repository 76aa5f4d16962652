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

def NovaConfigure : Pass<"nova-configure", "ModuleOp"> {
  let summary = "Attach the configurator's schedule to every kernel";
  let description = [{
    For every `nova_tile.fusion` and `nova_tile.kernel` (nested modules
    included), derives the family contract (`Contracts.h`), turns it into the
    configurator's problem and attaches the schedule the analytic model
    chooses for `target` as `#nova_tile.schedule<...>`, replacing any
    schedule already there. No search and no timing runs: the same module
    and target always give byte-identical output.

    The schedule's `tile` is `[M, N, K]` for matmul and attention,
    `[rows, cols]` for reductions, gather and scatter_add, and `[elements]`
    for pointwise and optimizer kernels.

    `explain=true` prints to standard output, per kernel in order, the
    problem, the chosen schedule (tile, threads, grid, shared memory,
    instruction), the predicted time, whether it is compute- or
    memory-bound, the wave efficiency, and one line per consideration
    (arithmetic intensity against the machine balance, resident blocks,
    rejected alternatives). `nova-explain` prints the same without changing
    the IR.

    The target is the built-in one `target` names (h200, h100, a100,
    rtx3060, rtx6000ada; another name is an error at the module's location
    listing them); without `target=`, the module's own `nova.target` (one
    edited by hand, say), or h200 when it has none. The module then carries
    it as `nova.target = #nova.target<...>`, which the later stages read.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "GPU to configure for: h200, h100, a100, rtx3060, rtx6000ada "
           "(default: the module's nova.target, else h200)">,
    Option<"explain", "explain", "bool", "false",
           "print why each kernel gets its schedule">
  ];
  let dependentDialects = ["::mlir::nova_tile::NovaTileDialect",
                           "::mlir::nova::NovaDialect"];
}

def NovaExplain : Pass<"nova-explain", "ModuleOp"> {
  let summary = "Print why the configurator would schedule each kernel so";
  let description = [{
    `nova-configure{explain=true}` without changing the IR: for every
    kernel, the problem, the schedule the configurator chooses for `target`
    and its reasoning, on standard output.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "GPU to explain for: h200, h100, a100, rtx3060, rtx6000ada "
           "(default: the module's nova.target, else h200)">
  ];
}

def NovaReport : Pass<"nova-report", "ModuleOp"> {
  let summary = "Print kernels, launches, bytes moved and planned peak per function";
  let description = [{
    For every function with a body, prints to standard output what one call
    (one training step) costs at the level the pass runs. A kernel is what
    would be one GPU launch: a `nova_tile.fusion`, a `nova_tile.launch`, or
    a compute op outside any group (every op but `nova.reshape`, a view,
    `nova.constant` and the return).

    On `test/Transforms/Inputs/report-step.mlir` after
    `--nova-report=record=true --nova-fuse --nova-report`:

    ```
    nova-report @step
      kernels before fusion: 7
      kernels after fusion: 5
      distinct kernels: 5
      launches per step: 5
      bytes moved per step: 1796 (0.000 GB)
      floor: 900 (0.000 GB): inputs 384, outputs 260, saved activations 2 x 128
      bytes against the floor: 2.00x
      bytes before fusion: 2180 (0.000 GB); fusion removed 17.6%
      planned peak: not planned (no nova_mem.peak_bytes and nova_mem.naive_bytes)
    ```

    - *distinct kernels*: by structural hash for groups and outlined kernels;
      a loose op by its name, attributes and types.
    - *bytes moved*: the contracts' `streamedBytes` of each launch (inputs
      read, broadcast and scalar inputs aside, plus outputs written); a
      loose op reads every operand (splat constants aside) and writes every
      result once.
    - *floor*: every entry input read once, every output written once, and
      every saved activation (a value defined before the op computing the
      returned loss and used after it, views counted as their source)
      written once and read once.
    - *kernels / bytes before fusion*: what `nova-report{record=true}`
      stored as `nova_tile.unfused_kernels` and `nova_tile.unfused_bytes` on
      the function when it ran on the unfused step (it prints nothing then).
    - *planned peak*: the function attributes `nova_mem.peak_bytes` and
      `nova_mem.naive_bytes` that memory planning sets, when present.
  }];
  let options = [
    Option<"record", "record", "bool", "false",
           "store this level's kernel and byte counts on each function as "
           "the unfused baseline instead of printing">
  ];
  let dependentDialects = ["::mlir::nova_tile::NovaTileDialect"];
}

#endif // NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_TD
