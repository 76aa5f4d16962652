//===- CudaDriver.h - libcuda through dlopen --------------------*- C++ -*-===//
//
// The CUDA driver API entry points the runtime uses, resolved at run time
// from libcuda.so.1: nothing links against CUDA and no CUDA header is needed
// to build. The handful of driver types are declared here with their ABI.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_CUDADRIVER_H
#define NOVA_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace nova::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
/// CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};

constexpr CUresult CUDA_SUCCESS = 0;
// cuDeviceGetAttribute
constexpr int ATTR_MULTIPROCESSOR_COUNT = 16;
constexpr int ATTR_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int ATTR_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
// cuFuncSetAttribute
constexpr int FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
// cuModuleLoadDataEx JIT options
constexpr int JIT_INFO_LOG_BUFFER = 3;
constexpr int JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int JIT_ERROR_LOG_BUFFER = 5;
constexpr int JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
// cuEventCreate
constexpr unsigned EVENT_DISABLE_TIMING = 2;
// cuStreamBeginCapture
constexpr int STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;

/// The driver entry points; `get` loads libcuda once per process.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  /// Page-locked host memory, which the asynchronous copies need to stay
  /// asynchronous.
  CUresult (*cuMemAllocHost)(void **, size_t);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  /// Optional (CUDA 12+): absent drivers leave it null.
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);

  /// Loads libcuda.so.1 and calls cuInit; null with `error` set when there
  /// is no driver, a symbol is missing or cuInit fails.
  static const Driver *get(std::string &error);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult r) const;
};

} // namespace nova::cuda

#endif // NOVA_RUNTIME_CUDADRIVER_H
