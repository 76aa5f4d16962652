//===- nova-compile.cpp - a loss function to a GPU executable ------------===//
//
//   nova-compile model.mlir -o model.nvx --target=h200 --compute=bf16
//
// One command for the two halves of the GPU path: nova-opt
// --nova-gpu-pipeline (the training pipeline, then convert-tile-to-gpu) and
// nova-translate --nova-to-executable (the kernels compiled in parallel
// through the on-disk cache, the .nvx written). The train pipeline's
// options pass through; --nova-compile-timing reports each stage (MLIR's
// pass timing) and each kernel's compile.
//
//===----------------------------------------------------------------------===//

#include "ToExecutable.h"

#include "nova/Dialect/Nova/IR/Target.h"
#include "nova/InitAllPasses.h"
#include "nova/Transforms/Pipelines.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("nova-compile options");
cl::opt<std::string> input(cl::Positional, cl::desc("<model.mlir>"),
                           cl::cat(category));
cl::opt<std::string> output("o", cl::desc("the .nvx to write"),
                            cl::value_desc("file"), cl::cat(category));
cl::opt<std::string>
    compute("compute",
            cl::desc("precision of matrix products: bf16, tf32 or f32"),
            cl::init("bf16"), cl::cat(category));
cl::opt<double>
    clipNorm("clip-norm",
             cl::desc("global gradient-norm clipping threshold (0: off)"),
             cl::init(0.0), cl::cat(category));
cl::opt<unsigned> accumulate(
    "accumulate",
    cl::desc("micro-batches per update (a leading dim on batch inputs)"),
    cl::init(1), cl::cat(category));
cl::opt<bool> workingCopies(
    "working-copies",
    cl::desc("carry each parameter's bf16 copy as step state (compute=bf16)"),
    cl::cat(category));
cl::opt<std::string> gemmKernels(
    "gemm-kernels",
    cl::desc("matmul kernels: single (one GEMM each, operands read without "
             "a cast: the wgmma form), grouped, or auto (single on targets "
             "with wgmma unless compute=f32)"),
    cl::init("auto"), cl::cat(category));
cl::opt<bool> deterministic("deterministic",
                            cl::desc("GPU kernels without float atomics"),
                            cl::cat(category));
cl::opt<std::string>
    f32Math("f32-math",
            cl::desc("f32 exp and division: accurate, fast (ex2.approx, "
                     "rcp.approx: a few ulp near 1, denormals flushed), or "
                     "auto (fast for compute=tf32)"),
            cl::init("auto"), cl::cat(category));
cl::opt<bool> report("report",
                     cl::desc("print nova-report (fusion, kernels, memory)"),
                     cl::cat(category));
cl::opt<bool> explain("explain",
                      cl::desc("print why each kernel gets its schedule"),
                      cl::cat(category));

int fail(const Twine &message) {
  llvm::errs() << "nova-compile: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::nova::registerAllPasses();
  mlir::nova::registerExecutableCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Nova version " << NOVA_VERSION << "\n";
  });
  // A failing pass prints its located message, not the whole module after.
  if (auto *printOp = static_cast<cl::opt<bool> *>(
          cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic")))
    printOp->setInitialValue(false);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Nova compiler: a training loss (.mlir of nova ops) to a GPU "
      "executable (.nvx)\n\n"
      "  nova-compile model.mlir -o model.nvx --target=h200 --compute=bf16\n\n"
      "is nova-opt --nova-gpu-pipeline=\"target=h200 compute=bf16\" followed "
      "by\nnova-translate --nova-to-executable. Kernels compile in parallel "
      "and are\ncached on disk (--nova-cache-dir).\n");
  if (input.empty())
    return fail("no input file; usage: nova-compile model.mlir -o model.nvx "
                "(see --help)");
  if (output.empty())
    return fail("no output file; give -o FILE.nvx");
  mlir::nova::ExecutableOptions exeOptions =
      mlir::nova::executableOptionsFromCL();

  mlir::nova::GPUPipelineOptions pipeline;
  pipeline.target = exeOptions.target.empty() ? "h200" : exeOptions.target;
  pipeline.compute = compute.getValue();
  pipeline.clipNorm = clipNorm.getValue();
  pipeline.accumulate = accumulate.getValue();
  pipeline.workingCopies = workingCopies.getValue();
  pipeline.gemmKernels = gemmKernels.getValue();
  pipeline.report = report.getValue();
  pipeline.explain = explain.getValue();
  pipeline.deterministic = deterministic.getValue();
  pipeline.f32Math = f32Math.getValue();
  auto optionError = [](const Twine &message) {
    fail(message);
    return failure();
  };
  if (failed(mlir::nova::checkTrainPipelineOptions(
          pipeline, "nova-gpu-pipeline", optionError)))
    return 1;

  DialectRegistry registry;
  mlir::nova::registerExecutableDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadDialect<mlir::nova::NovaDialect>();
  // A chip that cannot run the target's kernels is refused before any work.
  if (!exeOptions.compile.chip.empty()) {
    mlir::nova::TargetAttr target = mlir::nova::builtinTarget(
        UnknownLoc::get(&ctx), pipeline.target, "nova-compile");
    if (!target)
      return 1;
    if (std::optional<std::string> why =
            mlir::nova::chipMismatch(target, exeOptions.compile.chip))
      return fail("--chip=" + exeOptions.compile.chip + ": " + *why);
  }
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler handler(sources, &ctx);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(input, &error);
  if (!file)
    return fail(error);
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());

  // Stage timing (--nova-compile-timing or MLIR's --mlir-timing): parse,
  // the pipeline's passes, the translation with its kernel compile.
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  if (exeOptions.compile.timing)
    timing.setEnabled(true);
  TimingScope root = timing.getRootScope();

  TimingScope parseTiming = root.nest("parse " + input);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  parseTiming.stop();
  if (!module)
    return 1;

  PassManager pm(&ctx);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  if (failed(mlir::nova::buildGPUPipeline(pm, pipeline, optionError)))
    return 1;
  TimingScope pipelineTiming = root.nest("nova-gpu-pipeline");
  pm.enableTiming(pipelineTiming);
  if (failed(pm.run(*module)))
    return 1;
  pipelineTiming.stop();

  TimingScope translateTiming =
      root.nest("nova-to-executable (kernel compile, .nvx)");
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (failed(mlir::nova::translateToExecutable(*module, exeOptions, os)))
    return 1;
  translateTiming.stop();

  auto out = openOutputFile(output, &error);
  if (!out)
    return fail(error);
  out->os() << bytes;
  out->os().flush();
  if (out->os().has_error())
    return fail("cannot write '" + output + "'");
  out->keep();
  return 0;
}
