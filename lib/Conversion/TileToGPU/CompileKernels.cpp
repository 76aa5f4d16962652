//===- CompileKernels.cpp - gpu.modules to .nvx kernel records ------------===//

#include "nova/Conversion/TileToGPU/CompileKernels.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <fstream>

using namespace mlir;

void mlir::nova::resolveToolchain(GPUCompileOptions &o) {
  if (o.ptxas.empty()) {
    if (auto found = llvm::sys::findProgramByName("ptxas"))
      o.ptxas = *found;
    else
      o.ptxas = "/usr/local/cuda/bin/ptxas";
  }
  if (!o.cudaPath.empty())
    return;
  // A toolkit named in the environment is taken as given (a wrong one is an
  // error later). Otherwise the root is the first candidate holding
  // nvvm/libdevice: ptxas on PATH may be a wrapper script outside the
  // toolkit (/usr/local/bin/ptxas running /usr/local/cuda-13.0/bin/ptxas).
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *home = std::getenv(var); home && *home) {
      o.cudaPath = home;
      return;
    }
  SmallVector<std::string> candidates;
  if (llvm::sys::fs::can_execute(o.ptxas)) {
    candidates.push_back(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(o.ptxas))
            .str());
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(o.ptxas, real))
      candidates.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str());
  }
  candidates.push_back("/usr/local/cuda");
  for (const std::string &root : candidates) {
    SmallString<256> libdevice(root);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (llvm::sys::fs::is_directory(libdevice)) {
      o.cudaPath = root;
      return;
    }
  }
  o.cudaPath = candidates.front();
}

/// Runs ptxas on `ptx`; the cubin, or an error.
static std::optional<std::string>
assemble(const mlir::nova::GPUCompileOptions &o, const std::string &ptx,
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

size_t mlir::nova::bufferParams(const ::nova::KernelDesc &kernel) {
  return llvm::count_if(kernel.params, [](const ::nova::ParamDesc &p) {
    return p.kind == ::nova::ParamKind::Buffer;
  });
}

void mlir::nova::appendRuntimeArgs(const ::nova::KernelDesc &kernel,
                                   ::nova::LaunchDesc &launch) {
  for (const ::nova::ParamDesc &p : kernel.params)
    if (p.kind == ::nova::ParamKind::Workspace) {
      ::nova::ArgDesc a;
      a.kind = p.kind;
      launch.args.push_back(a);
    }
}

FailureOr<std::map<std::string, mlir::nova::CompiledKernel>>
mlir::nova::compileGPUKernels(ModuleOp module,
                              const GPUCompileOptions &options) {
  GPUCompileOptions o = options;
  resolveToolchain(o);
  MLIRContext *ctx = module.getContext();

  // Launch geometry, recorded by convert-tile-to-gpu, before the gpu.modules
  // become binaries.
  std::map<std::string, CompiledKernel> kernels;
  for (auto gm : module.getOps<gpu::GPUModuleOp>())
    for (auto fn : gm.getOps<gpu::GPUFuncOp>()) {
      auto block = fn.getKnownBlockSize(), grid = fn.getKnownGridSize();
      if (!block || !grid)
        return fn.emitError("gpu.func @")
               << fn.getName()
               << " has no known_block_size / known_grid_size (not written "
                  "by convert-tile-to-gpu)";
      CompiledKernel &k = kernels[fn.getName().str()];
      k.desc.name = fn.getName().str();
      for (int d = 0; d < 3; ++d) {
        k.desc.block[d] = uint32_t((*block)[d]);
        k.grid[d] = uint32_t((*grid)[d]);
      }
      k.desc.params.assign(fn.getNumArguments(),
                           {::nova::ParamKind::Buffer, 8});
      if (auto bytes = fn->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr)) {
        if (bytes.getInt() <= 0 || fn.getNumArguments() == 0)
          return fn.emitError("gpu.func @")
                 << fn.getName() << " declares " << bytes.getInt()
                 << " bytes of workspace; a workspace is a positive size "
                    "passed as the last argument";
        k.desc.params.back().kind = ::nova::ParamKind::Workspace;
        k.desc.workspaceBytes = uint64_t(bytes.getInt());
      }
    }
  if (kernels.empty())
    return kernels;

  // Some lowering steps report an error and carry on (a missing libdevice):
  // any error fails the compile.
  bool sawError = false;
  auto handler = ctx->getDiagEngine().registerHandler([&](Diagnostic &d) {
    sawError |= d.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // the next handler prints it
  });
  PassManager pm(ctx);
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
  LogicalResult lowered = pm.run(module);
  ctx->getDiagEngine().eraseHandler(handler);
  if (failed(lowered) || sawError)
    return module.emitError("lowering the GPU kernels failed");

  for (auto bin : module.getOps<gpu::BinaryOp>()) {
    StringRef name = bin.getName();
    name.consume_back("_gpu");
    auto k = kernels.find(name.str());
    if (k == kernels.end())
      return bin.emitError("gpu.binary @")
             << bin.getName() << " has no gpu.func @" << name;
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
      return bin.emitError("kernel @")
             << name << " calls libdevice, which was not found under '"
             << o.cudaPath << "/nvvm/libdevice' (give --cuda-path DIR)";
    ::nova::KernelDesc &desc = k->second.desc;
    desc.hash = ::nova::hashBytes(ptx);
    desc.ptx = ptx;
    if (!o.ptxOnly) {
      std::string cubin;
      if (auto err = assemble(o, ptx, cubin))
        return bin.emitError("kernel @") << name << ": " << *err;
      desc.images.push_back({o.chip, cubin});
    }
  }
  for (auto &[name, k] : kernels)
    if (k.desc.ptx.empty())
      return module.emitError("kernel @") << name << " produced no binary";
  return kernels;
}
