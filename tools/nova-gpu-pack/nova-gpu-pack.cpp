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
// be compared. Planned executables (nova_mem) are nova-translate's job;
// this is the GPU kernels' test path.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/InitAllDialects.h"
#include "nova/Runtime/Executable.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <fstream>
#include <map>

using namespace mlir;

namespace {

int fail(const llvm::Twine &msg) {
  llvm::errs() << "nova-gpu-pack: error: " << msg << "\n";
  return 1;
}

struct Options {
  std::string input, output, entry, chip = "sm_90a", ptxas, cudaPath;
  bool ptxOnly = false;
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
                        : a == "--chip"  ? o.chip
                        : a == "--ptxas" ? o.ptxas
                                         : o.cudaPath;
      if (!value(to))
        return "option '" + a + "' needs a value";
    } else if (a == "--ptx-only") {
      o.ptxOnly = true;
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
  if (o.ptxas.empty()) {
    if (auto found = llvm::sys::findProgramByName("ptxas"))
      o.ptxas = *found;
    else
      o.ptxas = "/usr/local/cuda/bin/ptxas";
  }
  // The toolkit holds libdevice, which the math functions link against:
  // --cuda-path, else CUDA_HOME, else the toolkit ptxas comes from, else
  // /usr/local/cuda.
  if (o.cudaPath.empty()) {
    if (const char *home = std::getenv("CUDA_HOME"); home && *home)
      o.cudaPath = home;
    else if (llvm::sys::fs::can_execute(o.ptxas))
      o.cudaPath =
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(o.ptxas))
              .str();
    else
      o.cudaPath = "/usr/local/cuda";
  }
  return std::nullopt;
}

::nova::DType dtypeOf(Type t) {
  if (t.isBF16())
    return ::nova::DType::BF16;
  if (t.isF16())
    return ::nova::DType::F16;
  if (t.isF64())
    return ::nova::DType::F64;
  if (t.isInteger(64))
    return ::nova::DType::I64;
  if (t.isInteger(32))
    return ::nova::DType::I32;
  if (t.isInteger(1))
    return ::nova::DType::I1;
  return ::nova::DType::F32;
}

uint64_t bytesOf(RankedTensorType t) {
  uint64_t n = uint64_t(t.getNumElements());
  unsigned bits = t.getElementTypeBitWidth();
  return n * std::max(1u, bits / 8);
}

/// Runs ptxas on `ptx`; the cubin, or an error.
std::optional<std::string> assemble(const Options &o, const std::string &ptx,
                                    std::string &cubin) {
  const std::string &ptxas = o.ptxas;
  if (!llvm::sys::fs::can_execute(ptxas))
    return "no ptxas at '" + ptxas + "' (give --ptxas PATH or --ptx-only)";
  SmallString<128> in, out;
  if (llvm::sys::fs::createTemporaryFile("nova-kernel", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("nova-kernel", "cubin", out))
    return std::string("cannot create temporary files");
  std::ofstream(in.c_str(), std::ios::binary) << ptx;
  std::string message;
  std::string arch = "-arch=" + o.chip;
  SmallVector<StringRef> args{ptxas, arch, in.str(), "-o", out.str()};
  int rc =
      llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0, &message);
  auto bytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  if (rc != 0 || !bytes)
    return "ptxas failed (exit " + std::to_string(rc) + ") " + message;
  cubin = (*bytes)->getBuffer().str();
  return std::nullopt;
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
  // Some lowering steps report an error and carry on (a missing libdevice):
  // any error fails the run.
  bool sawError = false;
  ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
    sawError |= d.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // printed by the source manager's handler
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &ctx);
  if (!module)
    return 1;

  // Launch geometry, recorded by convert-tile-to-gpu, before the
  // gpu.modules become binaries.
  struct Geometry {
    std::array<uint32_t, 3> block, grid;
    unsigned params;
  };
  std::map<std::string, Geometry> geometry; // by kernel symbol
  for (auto gm : module->getOps<gpu::GPUModuleOp>())
    for (auto fn : gm.getOps<gpu::GPUFuncOp>()) {
      auto block = fn.getKnownBlockSize(), grid = fn.getKnownGridSize();
      if (!block || !grid)
        return fail("gpu.func @" + fn.getName() +
                    " has no known_block_size / known_grid_size (not "
                    "written by convert-tile-to-gpu)");
      Geometry g;
      for (int d = 0; d < 3; ++d) {
        g.block[d] = uint32_t((*block)[d]);
        g.grid[d] = uint32_t((*grid)[d]);
      }
      g.params = fn.getNumArguments();
      geometry[fn.getName().str()] = g;
    }
  if (geometry.empty())
    return fail(o.input + " has no gpu.func; run convert-tile-to-gpu first");

  PassManager pm(&ctx);
  OpPassManager &perModule = pm.nest<gpu::GPUModuleOp>();
  // Flat views of the buffers (vector accesses) become pointer arithmetic.
  perModule.addPass(memref::createExpandStridedMetadataPass());
  perModule.addPass(createLowerAffinePass());
  perModule.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  perModule.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  perModule.addPass(createCanonicalizerPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = o.chip;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = o.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(*module)) || sawError)
    return fail("lowering the GPU kernels of " + o.input + " failed");

  ::nova::ExecutableDesc exe;
  std::map<std::string, uint32_t> kernelIndex;
  for (auto bin : module->getOps<gpu::BinaryOp>()) {
    auto object = cast<gpu::ObjectAttr>(bin.getObjects()[0]);
    std::string ptx = object.getObject().str();
    // A math function left external means libdevice was not linked: the
    // kernel could never load.
    bool unresolved = false;
    for (StringRef rest = ptx; !rest.empty() && !unresolved;) {
      auto [line, next] = rest.split('\n');
      unresolved = line.starts_with(".extern .func") && line.contains("__nv_");
      rest = next;
    }
    if (unresolved)
      return fail("kernel @" + bin.getName() +
                  " calls libdevice, which was not found under '" + o.cudaPath +
                  "/nvvm/libdevice' (give --cuda-path DIR)");
    StringRef name = bin.getName();
    name.consume_back("_gpu");
    auto g = geometry.find(name.str());
    if (g == geometry.end())
      return fail("gpu.binary @" + bin.getName() + " has no gpu.func @" + name);
    ::nova::KernelDesc k;
    k.name = name.str();
    k.hash = ::nova::hashBytes(ptx);
    k.ptx = ptx;
    if (!o.ptxOnly) {
      std::string cubin;
      if (auto err = assemble(o, ptx, cubin))
        return fail("kernel @" + name + ": " + *err);
      k.images.push_back({o.chip, cubin});
    }
    k.block = g->second.block;
    k.params.assign(g->second.params, {::nova::ParamKind::Buffer, 8});
    kernelIndex[k.name] = exe.kernels.size();
    exe.kernels.push_back(std::move(k));
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
      d.dtype = dtypeOf(t.getElementType());
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
      l.grid = geometry[launch.getKernel().str()].grid;
      auto buffer = [](uint64_t offset) {
        ::nova::ArgDesc a;
        a.kind = ::nova::ParamKind::Buffer;
        a.offset = offset;
        return a;
      };
      for (Value v : launch.getInputs())
        l.args.push_back(buffer(slot.lookup(v)));
      for (Value v : launch.getResults())
        l.args.push_back(buffer(place(v)));
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
