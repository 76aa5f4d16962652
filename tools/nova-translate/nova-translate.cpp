//===- nova-translate.cpp - planned nova_mem programs to a .nvx ----------===//
//
//   nova-translate --nova-to-executable IN.mlir -o OUT.nvx
//                  [--chip sm_90a] [--ptxas PATH] [--cuda-path DIR]
//                  [--ptx-only]
//
// IN holds planned nova_mem functions (nova-plan-memory) and the gpu.modules
// convert-tile-to-gpu wrote for their kernels. The kernels are compiled to
// PTX and cubins (the code nova-gpu-pack shares), and each function becomes
// one entry of the executable, as the nova_mem dialect describes: inputs
// and outputs at their planned offsets, aliases from `nova.alias`, the
// arena of the planned peak, the launches in order with one buffer argument
// per kernel input then output, at the buffers' offsets.
//
//===----------------------------------------------------------------------===//

#include "nova/Conversion/TileToGPU/CompileKernels.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/InitAllDialects.h"
#include "nova/Interpreter/Interpreter.h"
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

using namespace mlir;

namespace {

llvm::cl::OptionCategory category("nova-to-executable options");
llvm::cl::opt<std::string> chip("chip", llvm::cl::desc("GPU architecture"),
                                llvm::cl::init("sm_90a"),
                                llvm::cl::cat(category));
llvm::cl::opt<std::string>
    ptxas("ptxas", llvm::cl::desc("ptxas to assemble the kernels with"),
          llvm::cl::cat(category));
llvm::cl::opt<std::string>
    cudaPath("cuda-path", llvm::cl::desc("CUDA toolkit holding nvvm/libdevice"),
             llvm::cl::cat(category));
llvm::cl::opt<bool>
    ptxOnly("ptx-only",
            llvm::cl::desc("PTX only; the driver compiles it when loading"),
            llvm::cl::cat(category));

/// The entry of planned program `program`, its launches indexing `exe`'s
/// kernels (added on first use).
LogicalResult translateEntry(
    const mlir::nova_mem::Program &program,
    const std::map<std::string, mlir::nova::CompiledKernel> &compiled,
    ::nova::ExecutableDesc &exe, std::map<std::string, uint32_t> &kernelIndex) {
  func::FuncOp fn = program.function;
  ::nova::EntryDesc entry;
  entry.name = fn.getSymName().str();
  entry.arenaSize = uint64_t(
      fn->getAttrOfType<IntegerAttr>(mlir::nova_mem::kPeakBytesAttr).getInt());

  auto offsetOf = [&](Value buffer) {
    return uint64_t(*program.slot(buffer).offset);
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
    const mlir::nova_mem::Slot &slot =
        program.slots[program.inputSlot.lookup(i)];
    auto d = describe(fn.getLoc(), arg.getType(),
                      mlir::nova::argumentName(fn, i), uint64_t(*slot.offset));
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
    const mlir::nova::CompiledKernel &k = found->second;
    size_t args = launch.getInputs().size() + launch.getOutputs().size();
    if (args != mlir::nova::bufferParams(k.desc))
      return launch.emitError("nova-to-executable: kernel @")
             << name << " takes " << mlir::nova::bufferParams(k.desc)
             << " buffers, the launch passes " << args;
    auto [index, added] = kernelIndex.try_emplace(name, exe.kernels.size());
    if (added)
      exe.kernels.push_back(k.desc);
    ::nova::LaunchDesc l;
    l.kernel = index->second;
    l.grid = k.grid;
    for (Value buffer :
         llvm::concat<Value>(launch.getInputs(), launch.getOutputs())) {
      ::nova::ArgDesc a;
      a.kind = ::nova::ParamKind::Buffer;
      a.offset = offsetOf(buffer);
      l.args.push_back(a);
    }
    mlir::nova::appendRuntimeArgs(k.desc, l);
    entry.launches.push_back(std::move(l));
  }
  exe.entries.push_back(std::move(entry));
  return success();
}

LogicalResult toExecutable(Operation *op, raw_ostream &os) {
  op->getContext()->printOpOnDiagnostic(false); // the location is enough
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("nova-to-executable: expected a builtin.module");

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

  mlir::nova::GPUCompileOptions options;
  options.chip = chip;
  options.ptxas = ptxas;
  options.cudaPath = cudaPath;
  options.ptxOnly = ptxOnly;
  auto compiled = mlir::nova::compileGPUKernels(module, options);
  if (failed(compiled))
    return failure();

  ::nova::ExecutableDesc exe;
  std::map<std::string, uint32_t> kernelIndex;
  for (const mlir::nova_mem::Program &program : programs)
    if (failed(translateEntry(program, *compiled, exe, kernelIndex)))
      return failure();

  std::string bytes, error;
  if (!::nova::writeExecutable(exe, bytes, error))
    return module.emitError("nova-to-executable: the executable fails its "
                            "checks: ")
           << error;
  os.write(bytes.data(), bytes.size());
  return success();
}

} // namespace

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration registration(
      "nova-to-executable",
      "planned nova_mem programs and their GPU kernels to a .nvx", toExecutable,
      [](DialectRegistry &registry) {
        mlir::nova::registerAllDialects(registry);
        registerAllDialects(registry);
        registerAllExtensions(registry);
        registerAllToLLVMIRTranslations(registry);
        NVVM::registerNVVMTargetInterfaceExternalModels(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "Nova translation tool"));
}
