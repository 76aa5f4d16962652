//===- Pipelines.h - Nova's registered pass pipelines -----------*- C++ -*-===//

#ifndef NOVA_TRANSFORMS_PIPELINES_H
#define NOVA_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::nova {

/// Options of --nova-train-pipeline: the target and precision, and the
/// stage options users need to reach.
struct TrainPipelineOptions : public PassPipelineOptions<TrainPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU to configure kernels for: h200, h100, a100, "
                     "rtx3060, rtx6000ada"),
      llvm::cl::init("h200")};
  Option<std::string> compute{
      *this, "compute",
      llvm::cl::desc("precision of matrix products: bf16, tf32 or f32"),
      llvm::cl::init("bf16")};
  Option<double> clipNorm{
      *this, "clip-norm",
      llvm::cl::desc("global gradient-norm clipping threshold (0: off)"),
      llvm::cl::init(0.0)};
  Option<unsigned> accumulate{
      *this, "accumulate",
      llvm::cl::desc("micro-batches per update (a leading dim on batch "
                     "inputs)"),
      llvm::cl::init(1)};
  Option<bool> workingCopies{
      *this, "working-copies",
      llvm::cl::desc("carry each parameter's bf16 copy as step state "
                     "(compute=bf16)"),
      llvm::cl::init(false)};
  Option<std::string> gemmKernels{
      *this, "gemm-kernels",
      llvm::cl::desc("matmul kernels: single (one GEMM each, operands read "
                     "without a cast: the wgmma form), grouped (casts on "
                     "load, sibling GEMMs and column sums in one kernel), "
                     "or auto: single on targets with wgmma unless "
                     "compute=f32, grouped otherwise"),
      llvm::cl::init("auto")};
  Option<bool> report{
      *this, "report",
      llvm::cl::desc("print nova-report at the end (baseline recorded "
                     "before fusion)"),
      llvm::cl::init(false)};
  Option<bool> explain{
      *this, "explain",
      llvm::cl::desc("print why each kernel gets its schedule"),
      llvm::cl::init(false)};
};

/// Options of --nova-gpu-pipeline: the train pipeline's, plus those of the
/// GPU kernels.
struct GPUPipelineOptions : public TrainPipelineOptions {
  Option<bool> deterministic{
      *this, "deterministic",
      llvm::cl::desc("GPU kernels without float atomics (convert-tile-to-gpu "
                     "deterministic=true)"),
      llvm::cl::init(false)};
  Option<std::string> f32Math{
      *this, "f32-math",
      llvm::cl::desc("f32 exp and division: accurate (libdevice, IEEE), "
                     "fast (ex2.approx and rcp.approx: a few ulp near 1, "
                     "growing with |x| for e^x, denormals flushed; "
                     "convert-tile-to-gpu fast-f32-math=true), or auto: "
                     "fast for compute=tf32, accurate otherwise"),
      llvm::cl::init("auto")};
};

/// The whole-graph training pipeline, from a loss function to configured,
/// outlined kernels. One list of stages: a new stage is one line.
void buildTrainPipeline(OpPassManager &pm, const TrainPipelineOptions &options);

/// The train pipeline, then convert-tile-to-gpu: what nova-to-executable
/// (nova-translate, nova-compile) takes. Fails, through `errorHandler`, when
/// an option cannot be applied.
LogicalResult
buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options,
                 function_ref<LogicalResult(const Twine &)> errorHandler);

/// Whether `options` make every matmul kernel a single GEMM with operands
/// read as stored (nova-fuse single-gemms).
bool singleGemmKernels(const TrainPipelineOptions &options);

/// Checks the target, precision and GEMM kernels of `options`, with the
/// valid values in the message; `pipeline` names the pipeline in it.
LogicalResult checkTrainPipelineOptions(
    const TrainPipelineOptions &options, StringRef pipeline,
    function_ref<LogicalResult(const Twine &)> errorHandler);

/// Registers --nova-train-pipeline and --nova-gpu-pipeline (nova-opt and the
/// plugin).
void registerNovaPipelines();

} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_PIPELINES_H
