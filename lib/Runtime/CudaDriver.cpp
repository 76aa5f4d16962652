//===- CudaDriver.cpp - libcuda through dlopen ----------------------------===//

#include "nova/Runtime/CudaDriver.h"

#include <dlfcn.h>

#include <mutex>

namespace nova::cuda {

namespace {
/// Resolves `name` (the versioned symbol the driver exports for the current
/// ABI, e.g. cuMemAlloc_v2) into `slot`.
template <typename F>
bool resolve(void *lib, const char *name, F &slot, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  if (!slot && missing.empty())
    missing = name;
  return slot != nullptr;
}

Driver loaded;
std::string loadError;

void load() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    loadError = std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                (why ? why : "unknown reason") + ")";
    return;
  }
  std::string missing;
  Driver &d = loaded;
  resolve(lib, "cuInit", d.cuInit, missing);
  resolve(lib, "cuGetErrorString", d.cuGetErrorString, missing);
  resolve(lib, "cuGetErrorName", d.cuGetErrorName, missing);
  resolve(lib, "cuDriverGetVersion", d.cuDriverGetVersion, missing);
  resolve(lib, "cuDeviceGetCount", d.cuDeviceGetCount, missing);
  resolve(lib, "cuDeviceGet", d.cuDeviceGet, missing);
  resolve(lib, "cuDeviceGetName", d.cuDeviceGetName, missing);
  resolve(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, missing);
  resolve(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, missing);
  resolve(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent, missing);
  resolve(lib, "cuCtxSynchronize", d.cuCtxSynchronize, missing);
  resolve(lib, "cuMemGetInfo_v2", d.cuMemGetInfo, missing);
  resolve(lib, "cuMemAlloc_v2", d.cuMemAlloc, missing);
  resolve(lib, "cuMemFree_v2", d.cuMemFree, missing);
  resolve(lib, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
  resolve(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, missing);
  resolve(lib, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync, missing);
  resolve(lib, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync, missing);
  resolve(lib, "cuMemAllocHost_v2", d.cuMemAllocHost, missing);
  resolve(lib, "cuMemFreeHost", d.cuMemFreeHost, missing);
  resolve(lib, "cuMemsetD8_v2", d.cuMemsetD8, missing);
  resolve(lib, "cuMemsetD8Async", d.cuMemsetD8Async, missing);
  resolve(lib, "cuModuleLoadDataEx", d.cuModuleLoadDataEx, missing);
  resolve(lib, "cuModuleGetFunction", d.cuModuleGetFunction, missing);
  resolve(lib, "cuFuncSetAttribute", d.cuFuncSetAttribute, missing);
  resolve(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
          d.cuOccupancyMaxActiveBlocksPerMultiprocessor, missing);
  resolve(lib, "cuLaunchKernel", d.cuLaunchKernel, missing);
  resolve(lib, "cuStreamCreate", d.cuStreamCreate, missing);
  resolve(lib, "cuStreamSynchronize", d.cuStreamSynchronize, missing);
  resolve(lib, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture, missing);
  resolve(lib, "cuStreamEndCapture", d.cuStreamEndCapture, missing);
  resolve(lib, "cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags,
          missing);
  resolve(lib, "cuGraphLaunch", d.cuGraphLaunch, missing);
  resolve(lib, "cuGraphExecDestroy", d.cuGraphExecDestroy, missing);
  resolve(lib, "cuGraphDestroy", d.cuGraphDestroy, missing);
  resolve(lib, "cuEventCreate", d.cuEventCreate, missing);
  resolve(lib, "cuEventRecord", d.cuEventRecord, missing);
  resolve(lib, "cuEventSynchronize", d.cuEventSynchronize, missing);
  resolve(lib, "cuEventElapsedTime_v2", d.cuEventElapsedTime, missing);
  if (!d.cuEventElapsedTime && missing == "cuEventElapsedTime_v2") {
    missing.clear(); // older drivers export only the unversioned name
    resolve(lib, "cuEventElapsedTime", d.cuEventElapsedTime, missing);
  }
  resolve(lib, "cuEventDestroy_v2", d.cuEventDestroy, missing);
  if (!missing.empty()) {
    loadError = "the CUDA driver lacks " + missing + " (driver too old?)";
    return;
  }
  std::string optional;
  resolve(lib, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled, optional);
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    loadError = "cuInit failed: " + d.describe(r);
    return;
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    loadError = "no CUDA device: cuDeviceGetCount " +
                (r != CUDA_SUCCESS ? d.describe(r) : std::string("found 0"));
    return;
  }
}
} // namespace

const Driver *Driver::get(std::string &error) {
  static std::once_flag once;
  std::call_once(once, load);
  if (!loadError.empty()) {
    error = loadError;
    return nullptr;
  }
  return &loaded;
}

std::string Driver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(r, &name);
  if (cuGetErrorString)
    cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(r)) + " (" +
         (text ? text : "no description") + ")";
}

} // namespace nova::cuda
