//===- CompileKernels.h - gpu.modules to .nvx kernel records ----*- C++ -*-===//
//
// The back half of the GPU path, shared by nova-translate and nova-gpu-pack:
// the gpu.modules that convert-tile-to-gpu wrote go through NVVM and LLVM to
// PTX (gpu-module-to-binary, libdevice linked), ptxas turns each into a
// cubin, and each kernel becomes a KernelDesc with the launch geometry
// convert-tile-to-gpu recorded on its gpu.func.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H
#define NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H

#include "nova/Runtime/Executable.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <map>
#include <string>

namespace mlir::nova {

struct GPUCompileOptions {
  std::string chip = "sm_90a";
  /// Empty: found on PATH, else /usr/local/cuda/bin/ptxas.
  std::string ptxas;
  /// The toolkit holding nvvm/libdevice. Empty: CUDA_HOME, else the toolkit
  /// ptxas comes from, else /usr/local/cuda.
  std::string cudaPath;
  /// PTX only (the driver compiles it when loading); no ptxas run.
  bool ptxOnly = false;
};

/// Fills the empty toolchain paths of `options` with their defaults.
void resolveToolchain(GPUCompileOptions &options);

/// On a gpu.func: the bytes of zeroed workspace it needs, passed as its
/// last argument (an i8 memref of that size).
constexpr const char *kWorkspaceBytesAttr = "nova_gpu.workspace_bytes";

struct CompiledKernel {
  ::nova::KernelDesc desc;        // code, block, parameters
  std::array<uint32_t, 3> grid{}; // every launch of the kernel uses it
};

/// The kernel's leading buffer parameters (one per tensor a launch passes).
size_t bufferParams(const ::nova::KernelDesc &kernel);
/// Appends to `launch` (which passes the buffers) the arguments the runtime
/// supplies: the workspace.
void appendRuntimeArgs(const ::nova::KernelDesc &kernel,
                       ::nova::LaunchDesc &launch);

/// Compiles every gpu.module of `module` (replacing it by a gpu.binary) and
/// returns the kernels by kernel symbol (the gpu.func's name). Errors are
/// reported as diagnostics located at the gpu.func or gpu.module, including
/// errors the lowering passes report and carry on from.
FailureOr<std::map<std::string, CompiledKernel>>
compileGPUKernels(ModuleOp module, const GPUCompileOptions &options);

} // namespace mlir::nova

#endif // NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H
