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

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <link.h>

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

/// The GNU build ID of this program, the linker's hash of its code (Nova's
/// libraries are linked in statically): any change to the compiler changes
/// it. Empty when the linker wrote none.
std::string programBuildId() {
  std::string id;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        // The first object reported is the program itself.
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &segment = info->dlpi_phdr[i];
          if (segment.p_type != PT_NOTE)
            continue;
          const char *p = reinterpret_cast<const char *>(info->dlpi_addr +
                                                         segment.p_vaddr);
          const char *end = p + segment.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(ElfW(Nhdr));
            const char *desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              *static_cast<std::string *>(data) =
                  llvm::toHex(StringRef(desc, note->n_descsz), true);
              return 1;
            }
            p = desc + ((note->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &id);
  return id;
}

/// Whether `arg` (and, for `takesValue` flags, the argument after it) only
/// reports or places things and leaves the executable as it is.
bool leavesOutputAlone(StringRef arg, bool &takesValue) {
  takesValue = false;
  if (!arg.starts_with("-"))
    return false; // the input
  StringRef name = arg.ltrim('-');
  if (name == "o" || name == "nova-cache-dir" || name == "nova-compile-threads")
    return takesValue = true;
  for (StringRef flag : {"o", "nova-cache-dir", "nova-compile-threads"})
    if (name.starts_with((flag + "=").str()))
      return true;
  return name == "nova-compile-timing" || name == "nova-explain-cache";
}

/// The key of a whole compile: this compiler's build, the kernel
/// toolchain, the input's name and bytes, and every argument that can
/// change the executable.
std::string executableKey(int argc, char **argv, StringRef inputBytes,
                          const mlir::nova::Toolchain &toolchain,
                          StringRef buildId) {
  std::string key = "build-id: " + buildId.str() + "\nnova: " +
                    toolchain.nova + "\nllvm: " + toolchain.llvm +
                    "\nptxas: " + toolchain.ptxas +
                    "\nlowering: " + toolchain.lowering +
                    "\ninput-bytes: " +
                    ::nova::hashBytes(inputBytes.str()).str() + "\nargs:";
  for (int i = 1; i < argc; ++i) {
    bool takesValue = false;
    if (leavesOutputAlone(argv[i], takesValue)) {
      i += takesValue;
      continue;
    }
    key += " ";
    key += argv[i];
  }
  return key + "\n";
}

/// Writes the executable `bytes` to -o; the exit status.
int writeOutput(StringRef bytes) {
  std::string error;
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

/// Whether an MLIR option that prints or changes the pass manager's work
/// (IR printing, timing, crash reproducers, ...) is on: those compiles are
/// never served from the executable cache.
bool mlirDebugOptionGiven() {
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-") && option->getNumOccurrences() > 0)
      return true;
  return false;
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
  pipeline.target = exeOptions.target.empty()
                        ? mlir::nova::kDefaultTarget.str()
                        : exeOptions.target;
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

  // An unchanged compile is a lookup of the whole executable.
  mlir::nova::ExecutableCache executables;
  std::string key;
  if (!exeOptions.compile.cacheDir.empty() && !report && !explain &&
      !mlirDebugOptionGiven()) {
    TimingScope lookupTiming = root.nest("executable cache lookup");
    mlir::nova::GPUCompileOptions resolved = exeOptions.compile;
    mlir::nova::resolveToolchain(resolved);
    std::string buildId = programBuildId();
    if (!buildId.empty()) {
      executables.dir = exeOptions.compile.cacheDir;
      key = executableKey(
          argc, argv,
          sources.getMemoryBuffer(sources.getMainFileID())->getBuffer(),
          mlir::nova::currentToolchain(resolved), buildId);
      std::string why;
      if (std::optional<std::string> cached = executables.lookup(key, why)) {
        if (exeOptions.compile.explainCache)
          llvm::errs() << "nova: executable cache hit: " << input << "\n";
        return writeOutput(*cached);
      }
      if (exeOptions.compile.explainCache)
        llvm::errs() << "nova: executable cache miss: " << input << ": " << why
                     << "\n";
    } else if (exeOptions.compile.explainCache) {
      llvm::errs() << "nova: executable cache off: this program has no build "
                      "ID to key it with\n";
    }
  }

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
  if (!executables.dir.empty())
    if (std::optional<std::string> err = executables.store(key, bytes))
      llvm::errs() << "nova: warning: cannot cache the executable: " << *err
                   << "\n";
  return 0;
}
