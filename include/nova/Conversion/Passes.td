//===- Passes.td - lowerings out of the nova dialects -------*- tablegen -*-===//

#ifndef NOVA_CONVERSION_PASSES_TD
#define NOVA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // NOVA_CONVERSION_PASSES_TD
