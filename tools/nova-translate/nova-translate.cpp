//===- nova-translate.cpp - planned nova_mem programs to a .nvx ----------===//
//
//   nova-translate --nova-to-executable IN.mlir -o OUT.nvx
//                  [--target h200] [--chip sm_90a] [--ptxas PATH]
//                  [--cuda-path DIR] [--ptx-only] [--nova-cache-dir DIR]
//                  [--no-nova-cache] [--nova-explain-cache]
//                  [--nova-compile-timing] [--guard-bands=N]
//
// IN holds planned nova_mem functions (nova-plan-memory) and the gpu.modules
// convert-tile-to-gpu wrote for their kernels. The kernels are compiled to
// PTX and cubins (the code nova-gpu-pack shares), and each function becomes
// one entry of the executable, as the nova_mem dialect describes: inputs
// and outputs at their planned offsets, aliases from `nova.alias`, the
// arena of the planned peak, the launches in order with one buffer argument
// per kernel input then output, at the buffers' offsets. Each launch
// carries its profile (FLOPs and bytes as the configurator counts them for
// --target, and the source lines of the ops its kernel fused).
// --guard-bands=N lays every buffer out in its own place instead, fenced by
// N or more poisoned bytes that the runtime checks after each run.
//
// Built twice: as nova-translate, and without main() (NOVA_TRANSLATE_NO_MAIN)
// as the library nova-compile calls (ToExecutable.h).
//
//===----------------------------------------------------------------------===//

#include "ToExecutable.h"

#include "nova/Conversion/TileToGPU/CompileKernels.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/Target.h"
#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/InitAllDialects.h"
#include "nova/Interpreter/Interpreter.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Runtime/Executable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"

#include <cmath>
#include <set>

using namespace mlir;

namespace {

/// The model source lines ("file:line") of the ops `kernel` fused and of
/// the launch itself, sorted.
std::vector<std::string> sourceLines(Operation *kernel, Location launch) {
  std::set<std::pair<std::string, unsigned>> lines;
  auto collect = [&](Location loc) {
    loc->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner))
        if (!file.getFilename().empty())
          lines.insert({file.getFilename().str(), file.getLine()});
      return WalkResult::advance();
    });
  };
  collect(launch);
  if (kernel)
    kernel->walk([&](Operation *op) {
      if (op != kernel)
        collect(op->getLoc());
    });
  std::vector<std::string> sorted;
  for (const auto &[file, line] : lines)
    sorted.push_back(file + ":" + std::to_string(line));
  return sorted;
}

/// A launch's FLOPs and bytes as the configurator counts them for the
/// executable's target (zero when the kernel has no contract).
::nova::LaunchProfile profileOf(mlir::nova_tile::KernelOp kernel,
                                Location launch,
                                const ::nova::Configurator &configurator) {
  ::nova::LaunchProfile p;
  p.sources = sourceLines(kernel, launch);
  if (!kernel)
    return p;
  FailureOr<mlir::nova_tile::Contract> contract =
      mlir::nova_tile::computeContract(kernel, /*emitErrors=*/false);
  if (failed(contract))
    return p;
  ::nova::Problem problem = mlir::nova_tile::toProblem(*contract);
  ::nova::Schedule s = configurator.choose(problem);
  p.dtype = problem.dtype;
  p.flops = s.flops;
  p.bytes = s.bytes > 0 ? s.bytes : double(contract->streamedBytes);
  if (std::isfinite(s.predictedSeconds) && s.predictedSeconds > 0)
    p.predictedSeconds = s.predictedSeconds;
  return p;
}

/// Guard-band mode: each slot's own offset (a slot an output aliases keeps
/// its input's), the guards and the arena size.
FailureOr<::nova::GuardLayout>
guardedLayout(const mlir::nova_mem::Program &program, unsigned guardBands,
              std::vector<unsigned> &placeOf) {
  func::FuncOp fn = program.function;
  // An aliased output replaces its input in place: one place for both.
  std::vector<int> sameAs(program.slots.size(), -1);
  std::map<unsigned, std::string> resultOf;
  fn.walk([&](func::ReturnOp ret) {
    for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
      auto out = value.getDefiningOp<mlir::nova_mem::OutputOp>();
      if (!out)
        continue;
      unsigned slot = program.slotOf.lookup(out.getBuffer());
      resultOf.try_emplace(slot, mlir::nova::resultName(fn, j));
      if (auto alias = fn.getResultAttrOfType<IntegerAttr>(j, "nova.alias"))
        sameAs[slot] = int(program.inputSlot.lookup(unsigned(alias.getInt())));
    }
  });
  std::vector<std::pair<std::string, uint64_t>> buffers;
  placeOf.assign(program.slots.size(), 0);
  for (auto [i, slot] : llvm::enumerate(program.slots)) {
    if (sameAs[i] >= 0 && size_t(sameAs[i]) != i)
      continue;
    std::string name;
    if (slot.argument)
      name = mlir::nova::argumentName(fn, *slot.argument);
    else if (resultOf.count(i))
      name = resultOf[i];
    else if (slot.writer >= 0)
      name = "output of launch #" + std::to_string(slot.writer) + " (@" +
             mlir::nova_mem::LaunchOp(program.launches[slot.writer])
                 .getKernel()
                 .str() +
             ")";
    else
      name = "slot #" + std::to_string(i);
    placeOf[i] = buffers.size();
    buffers.push_back({name, uint64_t(slot.bytes)});
  }
  for (auto [i, same] : llvm::enumerate(sameAs))
    if (same >= 0 && size_t(same) != i)
      placeOf[i] = placeOf[same];
  return ::nova::layOutGuardBands(buffers, guardBands);
}

/// The entry of planned program `program`, its launches indexing `exe`'s
/// kernels (added on first use).
LogicalResult translateEntry(
    const mlir::nova_mem::Program &program,
    const std::map<std::string, mlir::nova::CompiledKernel> &compiled,
    const ::nova::Configurator &configurator, unsigned guardBands,
    ::nova::ExecutableDesc &exe, std::map<std::string, uint32_t> &kernelIndex) {
  func::FuncOp fn = program.function;
  ::nova::EntryDesc entry;
  entry.name = fn.getSymName().str();
  entry.arenaSize = uint64_t(
      fn->getAttrOfType<IntegerAttr>(mlir::nova_mem::kPeakBytesAttr).getInt());

  std::vector<unsigned> placeOf;
  std::optional<::nova::GuardLayout> guarded;
  if (guardBands) {
    auto layout = guardedLayout(program, guardBands, placeOf);
    if (failed(layout))
      return failure();
    guarded = std::move(*layout);
    entry.arenaSize = guarded->arenaSize;
    entry.guards = guarded->guards;
  }
  auto slotOffset = [&](unsigned slot) {
    return guarded ? guarded->offsets[placeOf[slot]]
                   : uint64_t(*program.slots[slot].offset);
  };
  auto offsetOf = [&](Value buffer) {
    return slotOffset(program.slotOf.lookup(buffer));
  };
  auto describe = [&](Location loc, Type type, std::string name,
                      uint64_t offset) -> FailureOr<::nova::TensorDesc> {
    auto tensor = cast<RankedTensorType>(type);
    std::optional<::nova::DType> dtype =
        mlir::nova::dtypeOf(tensor.getElementType());
    if (!dtype)
      return emitError(loc)
             << "nova-to-executable: element type " << tensor.getElementType()
             << " has no runtime dtype";
    ::nova::TensorDesc d;
    d.name = std::move(name);
    d.dtype = *dtype;
    d.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    d.offset = offset;
    return d;
  };

  for (BlockArgument arg : fn.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto d =
        describe(fn.getLoc(), arg.getType(), mlir::nova::argumentName(fn, i),
                 slotOffset(program.inputSlot.lookup(i)));
    if (failed(d))
      return failure();
    entry.inputs.push_back(*d);
  }

  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
        auto output = value.getDefiningOp<mlir::nova_mem::OutputOp>();
        if (!output)
          return ret.emitError("nova-to-executable: result #")
                 << j << " is not a nova_mem.output";
        auto buffer =
            cast<mlir::nova_mem::BufferType>(output.getBuffer().getType());
        // An entry's tensors are packed; a padded buffer would need a copy.
        if (buffer.getLd() != 0 &&
            buffer.getRowPitch() != buffer.getShape().back())
          return output.emitError("nova-to-executable: an output with padded "
                                  "rows (ld ")
                 << buffer.getLd() << ") cannot be an entry's result";
        auto d = describe(output.getLoc(), value.getType(),
                          mlir::nova::resultName(fn, j),
                          offsetOf(output.getBuffer()));
        if (failed(d))
          return failure();
        if (auto alias = fn.getResultAttrOfType<IntegerAttr>(j, "nova.alias"))
          d->alias = int32_t(alias.getInt());
        entry.outputs.push_back(*d);
      }
      continue;
    }
    auto launch = dyn_cast<mlir::nova_mem::LaunchOp>(op);
    if (!launch)
      continue; // inputs, allocs, views and outputs are offsets
    std::string name = launch.getKernel().str();
    auto found = compiled.find(name);
    if (found == compiled.end()) {
      auto kernel =
          SymbolTable::lookupNearestSymbolFrom<mlir::nova_tile::KernelOp>(
              launch, launch.getKernelAttr());
      InFlightDiagnostic d = launch.emitError("nova-to-executable: kernel @")
                             << name << " has no GPU code";
      if (kernel)
        d << " (no gpu.module for this "
          << mlir::nova_tile::stringifyFamily(kernel.getFamily())
          << " kernel; convert-tile-to-gpu lowers it when its family has a "
             "GPU emitter)";
      return d;
    }
    auto kernel =
        SymbolTable::lookupNearestSymbolFrom<mlir::nova_tile::KernelOp>(
            launch, launch.getKernelAttr());
    const mlir::nova::CompiledKernel &k = found->second;
    SmallVector<uint64_t> offsets;
    for (Value buffer :
         llvm::concat<Value>(launch.getInputs(), launch.getOutputs()))
      offsets.push_back(offsetOf(buffer));
    auto args = mlir::nova::bindArguments(k, offsets);
    if (failed(args))
      return launch.emitError("nova-to-executable: kernel @")
             << name << " takes " << mlir::nova::bufferParams(k.desc)
             << " buffers, the launch passes " << offsets.size();
    auto [index, added] = kernelIndex.try_emplace(name, exe.kernels.size());
    if (added)
      exe.kernels.push_back(k.desc);
    ::nova::LaunchDesc l;
    l.kernel = index->second;
    l.grid = k.grid;
    l.args = std::move(*args);
    l.profile = profileOf(kernel, launch.getLoc(), configurator);
    entry.launches.push_back(std::move(l));
  }
  exe.entries.push_back(std::move(entry));
  return success();
}

} // namespace

LogicalResult mlir::nova::translateToExecutable(
    ModuleOp module, const ExecutableOptions &options, raw_ostream &os) {
  // The module's nova.target (nova-configure) is the one its kernels were
  // configured for; --target may only name it again.
  TargetAttr target = lookupTarget(module);
  if (target && !options.target.empty() && options.target != target.getName())
    return module.emitError("nova-to-executable: --target=")
           << options.target << " disagrees with the module's nova.target ("
           << target.getName() << "), which its kernels were configured for";
  if (!target)
    target = resolveTarget(module, options.target, "nova-to-executable");
  if (!target)
    return failure();
  GPUCompileOptions compile = options.compile;
  if (compile.chip.empty())
    compile.chip = chipOf(target);
  if (std::optional<std::string> why = chipMismatch(target, compile.chip))
    return module.emitError("nova-to-executable: --chip=")
           << compile.chip << ": " << *why;
  ::nova::DeviceDescriptor device = deviceOf(target);

  if (options.guardBands % 16)
    return module.emitError("nova-to-executable: --guard-bands=")
           << options.guardBands
           << " is not a multiple of 16 (buffers stay 16-byte aligned)";
  // Every function is checked before the (slow) kernel compile.
  SmallVector<mlir::nova_mem::Program> programs;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    if (!fn->hasAttrOfType<IntegerAttr>(mlir::nova_mem::kPeakBytesAttr))
      return fn.emitError("nova-to-executable: @")
             << fn.getSymName() << " is not a planned nova_mem program (no "
             << mlir::nova_mem::kPeakBytesAttr
             << "); run nova-bufferize and nova-plan-memory first";
    if (failed(mlir::nova_mem::verifyPlan(fn)))
      return failure();
    FailureOr<mlir::nova_mem::Program> program =
        mlir::nova_mem::analyzeProgram(fn);
    if (failed(program))
      return failure();
    programs.push_back(std::move(*program));
  }
  if (programs.empty())
    return module.emitError(
        "nova-to-executable: no function with a body to translate");

  auto compiled = compileGPUKernels(module, compile);
  if (failed(compiled))
    return failure();

  ::nova::ExecutableDesc exe;
  exe.target = target.getName().str();
  ::nova::Configurator configurator(device);
  std::map<std::string, uint32_t> kernelIndex;
  for (const mlir::nova_mem::Program &program : programs)
    if (failed(
            translateEntry(program, *compiled, configurator, options.guardBands, exe,
                           kernelIndex)))
      return failure();

  std::string bytes, error;
  if (!::nova::writeExecutable(exe, bytes, error))
    return module.emitError("nova-to-executable: the executable fails its "
                            "checks: ")
           << error;
  os.write(bytes.data(), bytes.size());
  return success();
}

namespace {
struct ExecutableCLOptions {
  llvm::cl::OptionCategory category{"nova-to-executable options"};
  llvm::cl::opt<std::string> target{
      "target",
      llvm::cl::desc("GPU the kernels were configured for (h200, h100, a100, "
                     "rtx3060, rtx6000ada; default: the module's nova.target, "
                     "else h200); its architecture is the default --chip, "
                     "its ceilings nova-run --profile's"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> chip{
      "chip",
      llvm::cl::desc("GPU architecture to compile for (default: --target's)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> ptxas{
      "ptxas", llvm::cl::desc("ptxas to assemble the kernels with"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cudaPath{
      "cuda-path", llvm::cl::desc("CUDA toolkit holding nvvm/libdevice"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> ptxOnly{
      "ptx-only",
      llvm::cl::desc("PTX only; the driver compiles it when loading"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cacheDir{
      "nova-cache-dir",
      llvm::cl::desc("kernel cache directory (default: $NOVA_CACHE_DIR, "
                     "else $XDG_CACHE_HOME/nova, else ~/.cache/nova)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> noCache{"no-nova-cache",
                              llvm::cl::desc("compile every kernel afresh "
                                             "and cache nothing"),
                              llvm::cl::cat(category)};
  llvm::cl::opt<bool> explainCache{
      "nova-explain-cache",
      llvm::cl::desc("say for each kernel whether the cache had it and, if "
                     "not, why (no entry, toolchain or target changed, "
                     "corrupt entry)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> timing{
      "nova-compile-timing",
      llvm::cl::desc("report each kernel's compile time (NVVM lowering, "
                     "ptxas)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<unsigned> guardBands{
      "guard-bands",
      llvm::cl::desc("every buffer in its own place, fenced by at least N "
                     "poisoned bytes that nova-run checks after each run (a "
                     "multiple of 16; for compute-sanitizer runs)"),
      llvm::cl::init(0)};
  llvm::cl::opt<unsigned> threads{
      "nova-compile-threads",
      llvm::cl::desc("kernels compiled at once (default: one per hardware "
                     "thread)"),
      llvm::cl::init(0), llvm::cl::cat(category)};
};
llvm::ManagedStatic<ExecutableCLOptions> clOptions;
} // namespace

void mlir::nova::registerExecutableCLOptions() { *clOptions; }

mlir::nova::ExecutableOptions mlir::nova::executableOptionsFromCL() {
  ExecutableOptions o;
  o.target = clOptions->target;
  o.compile.chip = clOptions->chip;
  o.compile.ptxas = clOptions->ptxas;
  o.compile.cudaPath = clOptions->cudaPath;
  o.compile.ptxOnly = clOptions->ptxOnly;
  if (!clOptions->noCache)
    o.compile.cacheDir = clOptions->cacheDir.empty()
                             ? defaultKernelCacheDir()
                             : clOptions->cacheDir.getValue();
  o.compile.explainCache = clOptions->explainCache;
  o.compile.timing = clOptions->timing;
  o.compile.threads = clOptions->threads;
  o.guardBands = clOptions->guardBands;
  return o;
}

#ifndef NOVA_TRANSLATE_NO_MAIN

int main(int argc, char **argv) {
  mlir::nova::registerExecutableCLOptions();
  TranslateFromMLIRRegistration registration(
      "nova-to-executable",
      "planned nova_mem programs and their GPU kernels to a .nvx",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        op->getContext()->printOpOnDiagnostic(false); // the location is enough
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("nova-to-executable: expected a builtin.module");
        return mlir::nova::translateToExecutable(
            module, mlir::nova::executableOptionsFromCL(), os);
      },
      mlir::nova::registerExecutableDialects);
  return failed(mlirTranslateMain(argc, argv, "Nova translation tool"));
}
#endif // NOVA_TRANSLATE_NO_MAIN

void mlir::nova::registerExecutableDialects(DialectRegistry &registry) {
  mlir::nova::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}
