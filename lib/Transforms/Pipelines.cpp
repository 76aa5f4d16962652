//===- Pipelines.cpp - --nova-train-pipeline, --nova-gpu-pipeline ---------===//

#include "nova/Transforms/Pipelines.h"

#include "nova/Conversion/Passes.h"
#include "nova/Dialect/NovaMem/Transforms/Passes.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::nova;

void mlir::nova::buildTrainPipeline(OpPassManager &pm,
                                    const TrainPipelineOptions &options) {
  NovaTrainStepOptions trainStep;
  trainStep.clipNorm = options.clipNorm;
  trainStep.accumulate = options.accumulate;
  NovaAutocastOptions autocast;
  autocast.compute = options.compute;
  autocast.workingCopies = options.workingCopies;
  nova_tile::NovaConfigureOptions configure;
  configure.target = options.target;
  configure.explain = options.explain;
  NovaFuseOptions fuse;
  fuse.singleGemms = singleGemmKernels(options);
  nova_tile::NovaReportOptions record;
  record.record = true;

  pm.addPass(createNovaCollapseAttention());
  // The normalizations and the loss stay composite through autodiff: their
  // own gradient rules skip the max shift, whose gradient is exactly zero but
  // would cost an equality count and a row sum if differentiated. The second
  // decompose then expands forward and gradient alike, so CSE shares the
  // forward's row max and sum of exponentials with the gradient's softmax.
  pm.addPass(createNovaDecompose(NovaDecomposeOptions{
      {"attention", "softmax", "log_softmax", "cross_entropy"}}));
  pm.addPass(createNovaAutodiff());
  pm.addPass(createNovaDecompose(
      NovaDecomposeOptions{{"attention", "attention_fwd", "attention_bwd"}}));
  pm.addPass(createNovaTrainStep(trainStep));
  pm.addPass(createNovaAutocast(autocast));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.report)
    pm.addPass(nova_tile::createNovaReport(record));
  pm.addNestedPass<func::FuncOp>(createNovaFuse(fuse));
  pm.addNestedPass<func::FuncOp>(createConvertNovaToTile());
  pm.addPass(nova_tile::createNovaConfigure(configure));
  pm.addPass(nova_tile::createNovaOutlineKernels());
  pm.addPass(nova_mem::createNovaBufferize());
  pm.addPass(nova_mem::createNovaPlanMemory());
  if (options.report)
    pm.addPass(nova_tile::createNovaReport());
}

LogicalResult mlir::nova::buildGPUPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  buildTrainPipeline(pm, options);
  // Through the registry, so the pass's own option parser names a value it
  // rejects.
  const PassInfo *toGPU = PassInfo::lookup("convert-tile-to-gpu");
  if (!toGPU)
    return errorHandler("nova-gpu-pipeline: convert-tile-to-gpu is not "
                        "registered");
  // The instructions follow the module's nova.target (nova-configure).
  std::string toGPUOptions;
  if (options.deterministic)
    toGPUOptions += " deterministic=true";
  // TF32 products round to 2^-11: a few f32 ulp in exp and division are
  // far below that (the classifier's f32 rows were bound by libdevice's
  // exp, IEEE division and f64 conversions).
  StringRef f32Math = options.f32Math;
  if (f32Math != "auto" && f32Math != "accurate" && f32Math != "fast")
    return errorHandler("nova-gpu-pipeline: f32-math must be auto, accurate "
                        "or fast, got '" +
                        f32Math + "'");
  if (f32Math == "fast" || (f32Math == "auto" && options.compute == "tf32"))
    toGPUOptions += " fast-f32-math=true";
  return toGPU->addToPipeline(pm, toGPUOptions, errorHandler);
}

bool mlir::nova::singleGemmKernels(const TrainPipelineOptions &options) {
  if (options.gemmKernels != "auto")
    return options.gemmKernels == "single";
  // f32 products keep f32 accuracy on mma.sync (3xTF32), never on wgmma.
  auto device = ::nova::DeviceDescriptor::lookup(options.target);
  return device && device->hasWgmma() && options.compute != "f32";
}

/// Target and precision are checked when the pipeline is parsed, before any
/// work, with the valid values in the message.
LogicalResult mlir::nova::checkTrainPipelineOptions(
    const TrainPipelineOptions &options, StringRef pipeline,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::vector<std::string> targets = ::nova::DeviceDescriptor::known();
  if (!llvm::is_contained(targets, options.target.getValue()))
    return errorHandler(pipeline + ": unknown target '" + options.target +
                        "'; expected one of " + llvm::join(targets, ", "));
  StringRef compute = options.compute;
  if (compute != "bf16" && compute != "tf32" && compute != "f32")
    return errorHandler(pipeline +
                        ": compute must be bf16, tf32 or f32, got '" + compute +
                        "'");
  StringRef gemms = options.gemmKernels;
  if (gemms != "auto" && gemms != "single" && gemms != "grouped")
    return errorHandler(pipeline +
                        ": gemm-kernels must be auto, single or grouped, "
                        "got '" +
                        gemms + "'");
  return success();
}

void mlir::nova::registerNovaPipelines() {
  registerPassPipeline(
      "nova-train-pipeline",
      "From a loss function to the planned nova_mem program of a training "
      "step: collapse-attention, "
      "decompose{keep=attention,softmax,log_softmax,cross_entropy}, autodiff, "
      "decompose{keep=attention,attention_fwd,attention_bwd}, train-step, autocast, canonicalize, cse, fuse, convert-nova-to-tile, "
      "configure, outline-kernels, bufferize, plan-memory",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainPipelineOptions options;
        if (failed(options.parseFromString(text)) ||
            failed(checkTrainPipelineOptions(options, "nova-train-pipeline",
                                             errorHandler)))
          return failure();
        buildTrainPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(TrainPipelineOptions());
      });
  registerPassPipeline(
      "nova-gpu-pipeline",
      "From a loss function to GPU kernels: nova-train-pipeline, then "
      "convert-tile-to-gpu (nova-translate --nova-to-executable takes the "
      "result)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GPUPipelineOptions options;
        if (failed(options.parseFromString(text)) ||
            failed(checkTrainPipelineOptions(options, "nova-gpu-pipeline",
                                             errorHandler)))
          return failure();
        return buildGPUPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(GPUPipelineOptions());
      });
}
