//===- CompileKernels.h - gpu.modules to .nvx kernel records ----*- C++ -*-===//
//
// The back half of the GPU path, shared by nova-translate and nova-gpu-pack:
// the gpu.modules that convert-tile-to-gpu wrote go through NVVM and LLVM to
// PTX (gpu-module-to-binary, libdevice linked), ptxas turns each into a
// cubin, and each kernel becomes a KernelDesc with the launch geometry
// convert-tile-to-gpu recorded on its gpu.func.
//
// Each gpu.module compiles on its own thread, in its own MLIRContext (a
// printed copy of the module is parsed there), so the lowering passes and
// the LLVM back end never share state. Compiled kernels are kept in an
// on-disk cache keyed by the gpu.module's text, the toolchain (Nova, LLVM,
// the lowering pipeline, ptxas) and the chip; entries are written
// atomically (temporary file, then rename) and a corrupt one is rebuilt.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H
#define NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H

#include "nova/Runtime/Executable.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <array>
#include <map>
#include <string>

namespace mlir::nova {

/// The gpu.func argument attribute (an i32) that marks the kernel's status
/// record parameter, a memref<4xi64>; its value is the nova::StatusBit set
/// the kernel may raise (0: it only reads the record). It becomes a
/// StatusWord parameter of the kernel.
inline constexpr llvm::StringLiteral kStatusBitsAttr = "nova_gpu.status_bits";

struct CompiledKernel;
/// The launch arguments of `kernel` given the arena offsets of its buffers
/// (inputs then outputs): the status word and the workspace go where their
/// parameters are, TMA descriptors map their buffers.
/// Fails when the counts differ.
FailureOr<std::vector<::nova::ArgDesc>>
bindArguments(const CompiledKernel &kernel, ArrayRef<uint64_t> bufferOffsets);
/// The number of buffer parameters of `kernel`.
size_t bufferParams(const ::nova::KernelDesc &kernel);

struct GPUCompileOptions {
  std::string chip = "sm_90a";
  /// Empty: found on PATH, else /usr/local/cuda/bin/ptxas.
  std::string ptxas;
  /// The toolkit holding nvvm/libdevice. Empty: CUDA_HOME, else the toolkit
  /// ptxas comes from, else /usr/local/cuda.
  std::string cudaPath;
  /// PTX only (the driver compiles it when loading); no ptxas run.
  bool ptxOnly = false;
  /// The kernel cache's directory; empty: no cache.
  std::string cacheDir;
  /// Print, for every cache miss, why it missed (to stderr).
  bool explainCache = false;
  /// Print each kernel's compile time (NVVM lowering, ptxas) (to stderr).
  bool timing = false;
  /// Kernels compiled at once; 0: one per hardware thread.
  unsigned threads = 0;
};

/// Fills the empty toolchain paths of `options` with their defaults.
void resolveToolchain(GPUCompileOptions &options);

/// The default kernel cache: $NOVA_CACHE_DIR, else $XDG_CACHE_HOME/nova, else
/// $HOME/.cache/nova; empty when none of them is set.
std::string defaultKernelCacheDir();

/// What a cached kernel was built with; any difference is a miss.
struct Toolchain {
  std::string nova, llvm, lowering, ptxas;
};
/// The toolchain `options` (resolved) compile with; runs `ptxas --version`
/// unless PTX only.
Toolchain currentToolchain(const GPUCompileOptions &options);

/// Whole executables in the cache directory, keyed by the text `key` (the
/// compiler's build, its toolchain, the input and every option): a compile
/// of an unchanged input is a lookup. An entry holds its key, so a hash
/// collision is a miss; a corrupt entry is a miss with a reason.
struct ExecutableCache {
  std::string dir; // empty: no cache
  /// The cached executable, or the reason there is none in `why`.
  std::optional<std::string> lookup(StringRef key, std::string &why) const;
  /// Stores `executable` under `key`; a failure is a warning's text.
  std::optional<std::string> store(StringRef key, StringRef executable) const;
};

/// On a gpu.func: the bytes of zeroed workspace it needs, passed as its
/// last argument (an i8 memref of that size).
inline constexpr llvm::StringLiteral kWorkspaceBytesAttr =
    "nova_gpu.workspace_bytes";

/// On a gpu.func: blocks of it that must be resident on the device at once
/// (some wait for the others' partials); the runtime refuses to load it
/// where the device cannot hold them.
inline constexpr llvm::StringLiteral kCoResidentBlocksAttr =
    "nova_gpu.co_resident_blocks";

/// On a gpu.func argument (an !llvm.ptr): the argument is a TMA descriptor
/// (a 128-byte CUtensorMap passed by value) of buffer argument `buffer`
/// (i32), from byte `offset` (i64) of it, with `dims`, `box` (innermost
/// first) and byte `strides` (of the outer dims) as dense i64 arrays and
/// `swizzle` (i32: 0, 32, 64 or 128 bytes).
inline constexpr llvm::StringLiteral kTmaAttr = "nova_gpu.tma";
/// On a gpu.func (a dense i32 array): the indices of its kTmaAttr
/// arguments (convert-gpu-to-nvvm keeps function attributes, not argument
/// ones).
inline constexpr llvm::StringLiteral kTmaParamsAttr = "nova_gpu.tma_params";
/// On a gpu.func: the bytes of dynamic shared memory its launch needs.
inline constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
    "nova_gpu.dynamic_shared_bytes";

/// On a matmul family's gpu.func: the path its GEMMs take, "wgmma", or
/// "mma.sync: " and why the wgmma path does not take it.
inline constexpr llvm::StringLiteral kMatmulPathAttr = "nova_gpu.matmul_path";

/// After convert-gpu-to-nvvm: the kTmaParamsAttr arguments of every llvm.func
/// become by-value, 64-byte aligned grid constants of 128 bytes.
std::unique_ptr<Pass> createMarkKernelParamsPass();

/// A TMA descriptor parameter: the map of buffer parameter `buffer` (its
/// index among the buffer parameters), `tma.offset` bytes into it.
struct TmaParam {
  unsigned param = 0, buffer = 0;
  ::nova::TmaDesc tma;
};

struct CompiledKernel {
  ::nova::KernelDesc desc;        // code, block, parameters
  std::array<uint32_t, 3> grid{}; // every launch of the kernel uses it
  std::vector<TmaParam> tma;      // its TMA descriptor parameters
};

/// Compiles every gpu.module of `module` (each holds one gpu.func; `module`
/// is left as it is) and returns the kernels by kernel symbol (the
/// gpu.func's name). Errors are reported as diagnostics located at the
/// gpu.func or gpu.module, including errors the lowering passes report and
/// carry on from, with the lowering's own located messages in them.
FailureOr<std::map<std::string, CompiledKernel>>
compileGPUKernels(ModuleOp module, const GPUCompileOptions &options);

} // namespace mlir::nova

#endif // NOVA_CONVERSION_TILETOGPU_COMPILEKERNELS_H
