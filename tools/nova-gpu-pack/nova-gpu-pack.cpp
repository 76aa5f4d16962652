//===- nova-gpu-pack.cpp - GPU kernels of a launch list into a .nvx ------===//
//
//   nova-gpu-pack IN.mlir -o OUT.nvx [--entry NAME] [--chip sm_90a]
//                 [--ptxas PATH] [--cuda-path DIR] [--ptx-only]
//
// IN is a module after nova-configure, nova-outline-kernels and
// convert-tile-to-gpu. Its gpu.modules go through NVVM and LLVM to PTX
// (gpu-module-to-binary), ptxas turns each into a cubin, and every function
// whose body is nova_tile.launch ops becomes an entry: each argument and
// each launch result gets its own slot of the arena, in order, so the
// runtime can run a kernel on the interpreter's inputs and the results can
// be compared. --entry NAME packs that function alone, with only the
// kernels it launches lowered. Planned executables (nova_mem) are
// nova-translate's job; this is the GPU kernels' test path.
//
//===----------------------------------------------------------------------===//

#include "nova/Conversion/TileToGPU/CompileKernels.h"
#include "nova/Dialect/Nova/IR/DType.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/InitAllDialects.h"
#include "nova/Runtime/Executable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <map>

using namespace mlir;

namespace {

int fail(const llvm::Twine &msg) {
  llvm::errs() << "nova-gpu-pack: error: " << msg << "\n";
  return 1;
}

struct Options {
  std::string input, output, entry;
  mlir::nova::GPUCompileOptions compile;
};

std::optional<std::string> parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &to) -> bool {
      if (i + 1 >= argc)
        return false;
      to = argv[++i];
      return true;
    };
    if (a == "-o" || a == "--entry" || a == "--chip" || a == "--ptxas" ||
        a == "--cuda-path") {
      std::string &to = a == "-o"        ? o.output
                        : a == "--entry" ? o.entry
                        : a == "--chip"  ? o.compile.chip
                        : a == "--ptxas" ? o.compile.ptxas
                                         : o.compile.cudaPath;
      if (!value(to))
        return "option '" + a + "' needs a value";
    } else if (a == "--ptx-only") {
      o.compile.ptxOnly = true;
    } else if (!a.empty() && a[0] == '-') {
      return "unknown option '" + a + "'";
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      return "more than one input ('" + o.input + "', '" + a + "')";
    }
  }
  if (o.input.empty() || o.output.empty())
    return std::string("usage: nova-gpu-pack IN.mlir -o OUT.nvx [--entry "
                       "NAME] [--chip sm_90a] [--ptxas PATH] [--cuda-path "
                       "DIR] [--ptx-only]");
  return std::nullopt;
}

uint64_t bytesOf(RankedTensorType t) {
  uint64_t n = uint64_t(t.getNumElements());
  unsigned bits = t.getElementTypeBitWidth();
  return n * std::max(1u, bits / 8);
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (auto error = parse(argc, argv, o))
    return fail(*error);

  DialectRegistry registry;
  mlir::nova::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false); // the located message is enough

  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler handler(sources, &ctx);
  std::string error;
  auto file = openInputFile(o.input, &error);
  if (!file)
    return fail(error);
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  if (!module)
    return 1;

  // With --entry, only that entry and the kernels it launches are lowered
  // and packed: a file of many entries costs one entry's compile.
  if (!o.entry.empty()) {
    auto fn = module->lookupSymbol<func::FuncOp>(o.entry);
    if (!fn || fn.isExternal())
      return fail("no function @" + o.entry + " in " + o.input);
    llvm::StringSet<> launched;
    fn.walk([&](nova_tile::LaunchOp l) { launched.insert(l.getKernel()); });
    for (Operation &op :
         llvm::make_early_inc_range(module->getBody()->getOperations())) {
      if (auto other = dyn_cast<func::FuncOp>(op); other && other != fn)
        other.erase();
      else if (auto gm = dyn_cast<gpu::GPUModuleOp>(op);
               gm && llvm::none_of(gm.getOps<gpu::GPUFuncOp>(),
                                   [&](gpu::GPUFuncOp k) {
                                     return launched.contains(k.getName());
                                   }))
        gm.erase();
    }
  }

  auto compiled = mlir::nova::compileGPUKernels(*module, o.compile);
  if (failed(compiled))
    return 1;
  if (compiled->empty())
    return fail(o.input + " has no gpu.func; run convert-tile-to-gpu first");
  ::nova::ExecutableDesc exe;
  std::map<std::string, uint32_t> kernelIndex;
  for (auto &[name, k] : *compiled) {
    kernelIndex[name] = exe.kernels.size();
    exe.kernels.push_back(k.desc);
  }

  for (auto fn : module->getOps<func::FuncOp>()) {
    if (fn.isExternal() || (!o.entry.empty() && fn.getSymName() != o.entry))
      continue;
    ::nova::EntryDesc entry;
    entry.name = fn.getSymName().str();
    DenseMap<Value, uint64_t> slot;
    uint64_t arena = 0;
    auto place = [&](Value v) {
      slot[v] = arena;
      arena += (bytesOf(cast<RankedTensorType>(v.getType())) + 255) / 256 * 256;
      return slot[v];
    };
    auto describe = [&](Value v, std::string name) {
      auto t = cast<RankedTensorType>(v.getType());
      ::nova::TensorDesc d;
      d.name = std::move(name);
      d.dtype =
          mlir::nova::dtypeOf(t.getElementType()).value_or(::nova::DType::F32);
      d.shape.assign(t.getShape().begin(), t.getShape().end());
      d.offset = slot.lookup(v);
      return d;
    };
    for (BlockArgument arg : fn.getArguments()) {
      place(arg);
      entry.inputs.push_back(
          describe(arg, mlir::nova::argumentName(fn, arg.getArgNumber())));
    }
    for (Operation &op : fn.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
          if (isa<BlockArgument>(v))
            return fail("@" + fn.getSymName() + " returns argument #" +
                        Twine(cast<BlockArgument>(v).getArgNumber()) +
                        " unchanged; only launch results are packed");
          entry.outputs.push_back(describe(v, mlir::nova::resultName(fn, i)));
        }
        continue;
      }
      auto launch = dyn_cast<nova_tile::LaunchOp>(op);
      if (!launch) {
        op.emitError("nova-gpu-pack: only nova_tile.launch ops are packed; "
                     "a planned executable (nova_mem) handles the rest");
        return 1;
      }
      auto k = kernelIndex.find(launch.getKernel().str());
      if (k == kernelIndex.end()) {
        launch.emitError("nova-gpu-pack: kernel @")
            << launch.getKernel() << " was not lowered to the GPU";
        return 1;
      }
      ::nova::LaunchDesc l;
      l.kernel = k->second;
      l.grid = compiled->at(launch.getKernel().str()).grid;
      SmallVector<uint64_t> offsets;
      for (Value v : launch.getInputs())
        offsets.push_back(slot.lookup(v));
      for (Value v : launch.getResults())
        offsets.push_back(place(v));
      auto args = mlir::nova::bindArguments(
          compiled->at(launch.getKernel().str()), offsets);
      if (failed(args)) {
        launch.emitError("nova-gpu-pack: kernel @")
            << launch.getKernel() << " takes "
            << mlir::nova::bufferParams(exe.kernels[l.kernel])
            << " buffers, the launch passes " << offsets.size();
        return 1;
      }
      l.args = std::move(*args);
      entry.launches.push_back(std::move(l));
    }
    entry.arenaSize = arena;
    exe.entries.push_back(std::move(entry));
  }
  if (exe.entries.empty())
    return fail(o.entry.empty() ? "no function with a body in " + o.input
                                : "no function @" + o.entry + " in " + o.input);

  std::string bytes;
  if (!::nova::writeExecutable(exe, bytes, error))
    return fail(error);
  std::ofstream out(o.output, std::ios::binary);
  out << bytes;
  if (!out)
    return fail("cannot write " + o.output);
  return 0;
}
