//===- Passes.td - lowerings between the Nova dialects -----*- tablegen -*-===//

#ifndef NOVA_CONVERSION_PASSES_TD
#define NOVA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertNovaToTile : Pass<"convert-nova-to-tile", "::mlir::func::FuncOp"> {
  let summary = "Put every nova op that no kernel holds yet into a kernel of one op";
  let description = [{
    Runs after `nova-fuse`: every `nova` op of a function body that is not
    yet inside a `nova_tile.fusion` becomes a `nova_tile.fusion` of its own
    family, so the body is a list of kernels. What stays outside:
    `nova.reshape` (a free view of contiguous data), non-splat
    `nova.constant`s (data, not work) and `func.return`. Splat constants are
    cloned into the kernels that read them.

    | op | family |
    | --- | --- |
    | `matmul` | `matmul` |
    | `attention`, `attention_fwd` | `attention_forward` |
    | `attention_bwd` | `attention_backward` |
    | `reduce` over the innermost dim; `softmax`, `log_softmax`, `layer_norm`, `cross_entropy` | `row_reduction` |
    | `reduce` over every dim but the innermost | `column_reduction` |
    | `gather`, `scatter_add` (axis 0) | `gather`, `scatter_add` |
    | `adamw` | `optimizer` |
    | elementwise ops, `check_labels` (a per-element check), `iota` | `pointwise` |
    | `transpose`, `slice`, `broadcast`, `concat` | `pointwise` (a copy kernel) |

    A `reduce` over a contiguous run of trailing dims (a full reduction
    included) reads its input through a `nova.reshape` that merges them and
    becomes a row reduction; over a contiguous run of leading dims, a column
    reduction the same way; over other dims, a pointwise copy kernel first
    transposes them innermost. The result is reshaped back. Splat constants
    move into pointwise, reduction and optimizer kernels that read them;
    a matmul, attention, gather or scatter operand and a view's source stay
    inputs (a splat constant left outside is written by a kernel of its
    own). A softmax or log_softmax along another dim than the innermost
    runs between two copy kernels that swap that dim with the innermost. A
    gather or scatter along another axis than 0, an op of another
    dialect or an op with regions is a located error: the pass never leaves
    a nova op outside a kernel. Each new kernel satisfies its family's
    contract.
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect",
                           "::mlir::nova_tile::NovaTileDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "ModuleOp"> {
  let summary = "Lower each configured nova_tile.kernel to a gpu.func";
  let description = [{
    For every outlined `nova_tile.kernel` (run `nova-configure` and
    `nova-outline-kernels` first), writes a `gpu.module @<kernel>_gpu`
    holding one `gpu.func @<kernel>` whose parameters are one static memref
    per kernel input, then one per output (bare pointers once lowered with
    `use-bare-ptr-memref-call-conv`). The family's contract
    (`Contracts.h`) gives the iteration space and how each tensor is read;
    the schedule gives the block size and the work per block. The launch
    geometry is recorded on the function as `known_block_size` and
    `known_grid_size`.

    The GPU is the module's `nova.target` (`nova-configure` writes it; h200
    when there is none): persistent grids take its SMs, shared-memory
    buffers its limits, and wgmma, TMA and bulk copies are used only on
    its sm 90 (the `wgmma`, `tf32-wgmma` and `bulk-rows` options can turn
    them off, never on). A kernel needing more shared memory a block than
    the target's `shared_per_block` is an error naming it.

    Families lowered: pointwise (one element per thread and step, any
    elementwise body, broadcast / transposed / sliced / reshaped inputs by
    index arithmetic, several outputs), row_reduction (a group of threads
    per row, warp shuffles, shared memory across warps, the body's
    reductions in order; per-row and full-row outputs), column_reduction
    (32 columns per block, row groups combined in shared memory) and
    optimizer (AdamW over several tensors in one launch; step and learning
    rate read at run time). Float sums accumulate in f64, as the reference
    interpreter does. Any other family, or an op an emitter does not lower
    yet, is an error at the kernel naming the family or op.

    Row kernels that also reduce across their rows (column sums, totals)
    write per-block partials to a workspace (`nova_gpu.workspace_bytes` on the
    gpu.func, its last argument); the last block to finish sums them in
    block order. gather reads whole rows; scatter_add gives each block a
    tile of output rows and adds the matching update rows, with shared-memory
    float atomics, or in index order with `deterministic=true`.
  }];
  let options = [
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Compile without float atomics: every float sum runs in a fixed "
           "order, so results repeat bit for bit">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"true",
           "Lower GEMMs whose operands TMA can load (K-, M- or N-major), "
           "and bf16 attention forwards, to wgmma with TMA and mbarrier "
           "pipelines (sm_90a); false: mma.sync only">,
    Option<"tf32Wgmma", "tf32-wgmma", "bool", /*default=*/"true",
           "Lower TF32 products to wgmma too (the consumers round each "
           "landed stage to TF32 to nearest in shared memory, since wgmma "
           "itself drops the low mantissa bits, and transpose M/N-major "
           "operands there to the K-major layout wgmma reads 32-bit types "
           "in); false: TF32 products stay on mma.sync">,
    Option<"stageRows", "stage-rows", "bool", /*default=*/"true",
           "Row kernels that read a wide 16-byte-chunked row more than once "
           "keep the first read's copy in shared memory (up to 110 KB a "
           "block, two an SM; a single row up to 224 KB by a 512-thread "
           "block alone on its SM) and take the later passes from there, so the row leaves "
           "HBM once; rows with column sums in fixed chunks prefetch their "
           "next batch by cp.async into two such stages; false: every pass "
           "reads global memory (the L2)">,
    Option<"bulkRows", "bulk-rows", "bool", /*default=*/"true",
           "Staged rows whose every input row starts 16-byte aligned arrive "
           "by bulk copies (cp.async.bulk, issued by one thread, completing "
           "on an mbarrier): the block's whole rows in flight at once; a "
           "block of one row a batch with full-row outputs copies it in "
           "segments, each on its own mbarrier, the next row's segment "
           "copied as soon as the outputs pass has read this one's; "
           "false: each lane loads its chunks in the first pass">,
    Option<"fastF32Math", "fast-f32-math", "bool", /*default=*/"false",
           "f32 exp and division take the special-function forms that "
           "16-bit results always take: e^x as ex2.approx.ftz of x log2 e "
           "(2 ulp, plus about |x| 2^-23 relative from rounding x log2 e: 8 "
           "ulp at |x| = 10), x / y as x times rcp.approx.ftz of y (a "
           "denormal y flushes to zero, so x / y is inf and 0 / y NaN; "
           "results below 2^-126 flush to zero), and row kernels sum a 16-byte "
           "chunk's f32 terms in f32 before the f64 sum; tanh, log and erf "
           "stay accurate. nova-gpu-pipeline sets it for compute=tf32, whose "
           "f32 values come through TF32 products (2^-11)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // NOVA_CONVERSION_PASSES_TD
