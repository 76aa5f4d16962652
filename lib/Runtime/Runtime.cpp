//===- Runtime.cpp - run Nova executables on a CUDA device ----------------===//

#include "nova/Runtime/Runtime.h"

#include <algorithm>

#include <cstring>

namespace nova {

using namespace cuda;

static std::string mib(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%llu bytes (%.1f MiB)",
                (unsigned long long)bytes, double(bytes) / (1 << 20));
  return buf;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

bool Device::check(CUresult r, const std::string &what,
                   std::string &error) const {
  if (r == CUDA_SUCCESS)
    return true;
  error = what + ": " + drv->describe(r);
  return false;
}

std::unique_ptr<Device> Device::open(int ordinal, std::string &error) {
  const Driver *drv = Driver::get(error);
  if (!drv)
    return nullptr;
  std::unique_ptr<Device> d(new Device());
  d->drv = drv;
  int count = 0;
  if (!d->check(drv->cuDeviceGetCount(&count), "cuDeviceGetCount", error))
    return nullptr;
  if (ordinal < 0 || ordinal >= count) {
    error = "no CUDA device #" + std::to_string(ordinal) + " (found " +
            std::to_string(count) + ")";
    return nullptr;
  }
  int major = 0, minor = 0;
  char name[256] = {0};
  if (!d->check(drv->cuDeviceGet(&d->dev, ordinal), "cuDeviceGet", error) ||
      !d->check(drv->cuDeviceGetName(name, sizeof name - 1, d->dev),
                "cuDeviceGetName", error) ||
      !d->check(drv->cuDeviceGetAttribute(&major, ATTR_COMPUTE_CAPABILITY_MAJOR,
                                          d->dev),
                "cuDeviceGetAttribute(compute capability)", error) ||
      !d->check(drv->cuDeviceGetAttribute(&minor, ATTR_COMPUTE_CAPABILITY_MINOR,
                                          d->dev),
                "cuDeviceGetAttribute(compute capability)", error) ||
      !d->check(
          drv->cuDeviceGetAttribute(&d->sms, ATTR_MULTIPROCESSOR_COUNT, d->dev),
          "cuDeviceGetAttribute(multiprocessors)", error) ||
      !d->check(drv->cuDevicePrimaryCtxRetain(&d->ctx, d->dev),
                "cuDevicePrimaryCtxRetain", error) ||
      !d->check(drv->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", error) ||
      !d->check(drv->cuStreamCreate(&d->strm, /*CU_STREAM_NON_BLOCKING=*/1),
                "cuStreamCreate", error))
    return nullptr;
  d->deviceName = name;
  d->archName = "sm_" + std::to_string(major) + std::to_string(minor);
  return d;
}

//===----------------------------------------------------------------------===//
// Kernel loading
//===----------------------------------------------------------------------===//

void *CudaKernelLoader::load(const KernelDesc &kernel, const std::string &arch,
                             std::string &error) {
  const Driver &drv = device.driver();
  // Never load code the device cannot run (an sm_90a cubin elsewhere would
  // fail to load at best): a clear error naming both architectures.
  KernelCode code = chooseKernelCode(kernel, arch);
  if (!code.error.empty()) {
    error = code.error + " (device '" + device.name() + "')";
    return nullptr;
  }
  const KernelImage *image = code.image;
  CUmodule module = nullptr;
  char infoLog[8192] = {0}, errorLog[8192] = {0};
  if (image) {
    source = "cubin " + image->arch;
    if (!device.check(drv.cuModuleLoadDataEx(&module, image->cubin.data(), 0,
                                             nullptr, nullptr),
                      "cuModuleLoadDataEx(" + source + ") of kernel '" +
                          kernel.name + "'",
                      error))
      return nullptr;
  } else { // code.ptx
    source = "ptx";
    int options[] = {JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                     JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {infoLog, reinterpret_cast<void *>(sizeof infoLog - 1),
                      errorLog, reinterpret_cast<void *>(sizeof errorLog - 1)};
    CUresult r =
        drv.cuModuleLoadDataEx(&module, kernel.ptx.c_str(), 4, options, values);
    if (!device.check(r, "PTX JIT of kernel '" + kernel.name + "' for " + arch,
                      error)) {
      error += std::string("; JIT log: ") + errorLog;
      return nullptr;
    }
  }
  CUfunction function = nullptr;
  if (!device.check(
          drv.cuModuleGetFunction(&function, module, kernel.name.c_str()),
          "cuModuleGetFunction('" + kernel.name + "')", error))
    return nullptr;
  // Static and dynamic shared memory together past 48 KB need the opt-in,
  // so it is given whenever a kernel asks for dynamic bytes.
  if (kernel.sharedMemory > 0 &&
      !device.check(
          drv.cuFuncSetAttribute(function,
                                 FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 int(kernel.sharedMemory)),
          "cuFuncSetAttribute(dynamic shared memory) of '" + kernel.name + "'",
          error))
    return nullptr;
  // Blocks that wait for each other must all be resident, or the kernel
  // would hang: refuse it where the device holds fewer.
  if (kernel.coResident > 0) {
    int perSM = 0;
    uint32_t threads = kernel.block[0] * kernel.block[1] * kernel.block[2];
    if (!device.check(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                          &perSM, function, int(threads), kernel.sharedMemory),
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor('" +
                          kernel.name + "')",
                      error))
      return nullptr;
    uint64_t resident = uint64_t(perSM) * uint64_t(device.multiprocessors());
    if (resident < kernel.coResident) {
      error = "kernel '" + kernel.name + "' needs " +
              std::to_string(kernel.coResident) +
              " blocks resident at once; device '" + device.name() +
              "' holds " + std::to_string(resident);
      return nullptr;
    }
  }
  return function;
}

//===----------------------------------------------------------------------===//
// Instance
//===----------------------------------------------------------------------===//

std::unique_ptr<Instance> Instance::create(Device &device,
                                           const ExecutableDesc &exe,
                                           const std::string &entryName,
                                           const InstanceOptions &options,
                                           std::string &error) {
  const EntryDesc *entry = exe.findEntry(entryName);
  if (!entry) {
    error = "the executable has no entry '" + entryName + "'";
    return nullptr;
  }
  std::unique_ptr<Instance> inst(new Instance(device, *entry, options));
  inst->exe = &exe;
  const Driver &drv = device.driver();
  // Kernels first: their code stays loaded for the process (KernelTable),
  // so it belongs with the context, before the memory baseline.
  CudaKernelLoader loader(device);
  inst->launches.reserve(entry->launches.size());
  for (const LaunchDesc &ld : entry->launches) {
    PreparedLaunch p;
    p.kernel = &exe.kernels[ld.kernel];
    p.grid = ld.grid;
    p.function = static_cast<CUfunction>(
        KernelTable::global().get(*p.kernel, device.arch(), loader, error));
    if (!p.function)
      return nullptr;
    inst->launches.push_back(std::move(p));
  }
  if (!device.usedMemory(inst->baselineUsed, error))
    return nullptr;
  inst->memory.planned = plannedInstanceBytes(exe, *entry, options);
  // Out of memory names what was asked for and what is free.
  auto allocate = [&](CUdeviceptr &ptr, uint64_t bytes, const char *what) {
    CUresult r = drv.cuMemAlloc(&ptr, bytes);
    if (r == CUDA_SUCCESS)
      return true;
    size_t freeBytes = 0, total = 0;
    drv.cuMemGetInfo(&freeBytes, &total);
    error = std::string("out of device memory: the ") + what + " of entry '" +
            entryName + "' needs " + mib(bytes) + ", " + mib(freeBytes) +
            " of " + mib(total) + " are free (" + drv.describe(r) + ")";
    return false;
  };
  if (entry->arenaSize) {
    if (!allocate(inst->arena, entry->arenaSize, "arena"))
      return nullptr;
    if (!device.check(drv.cuMemsetD8(inst->arena, options.poisonArena ? 0xFF : 0,
                                      entry->arenaSize),
                      "cuMemsetD8(arena)", error))
      return nullptr;
    for (const GuardDesc &g : entry->guards)
      if (!device.check(
              drv.cuMemsetD8(inst->arena + g.offset, kGuardByte, g.size),
              "cuMemsetD8(guard band)", error))
        return nullptr;
  }
  if (usesStatusRecord(exe, *entry) &&
      !device.check(drv.cuMemAlloc(&inst->status, kStatusBytes),
                    "cuMemAlloc(status record)", error))
    return nullptr;
  inst->workspaceSize = nova::workspaceBytes(exe, *entry);
  if (inst->workspaceSize) {
    if (!allocate(inst->workspace, inst->workspaceSize, "workspace"))
      return nullptr;
    // Zero even when the arena is poisoned: the kernels' tickets count up
    // from 0.
    if (!device.check(drv.cuMemsetD8(inst->workspace, 0, inst->workspaceSize),
                      "cuMemsetD8(workspace)", error))
      return nullptr;
  }
  if (!inst->sampleMemory(error))
    return nullptr;
  inst->memory.afterAllocation = inst->memory.measured;
  // Arguments point into each launch's own storage, which sits at its final
  // address (the vector was reserved).
  for (size_t l = 0; l < entry->launches.size(); ++l) {
    const LaunchDesc &ld = entry->launches[l];
    const KernelDesc &kd = exe.kernels[ld.kernel];
    PreparedLaunch &p = inst->launches[l];
    for (const ArgDesc &a : ld.args) {
      std::string value;
      if (a.kind == ParamKind::Buffer) {
        CUdeviceptr ptr = inst->arena + a.offset;
        value.assign(reinterpret_cast<const char *>(&ptr), sizeof ptr);
      } else if (a.kind == ParamKind::Scalar) {
        value = a.bytes;
      } else if (a.kind == ParamKind::StatusWord) {
        value.assign(reinterpret_cast<const char *>(&inst->status),
                     sizeof inst->status);
      } else if (a.kind == ParamKind::Workspace) {
        value.assign(reinterpret_cast<const char *>(&inst->workspace),
                     sizeof inst->workspace);
      } else {
        if (!drv.cuTensorMapEncodeTiled) {
          error = "kernel '" + kd.name +
                  "' takes a TMA descriptor, which this driver cannot encode";
          return nullptr;
        }
        // CUtensorMapDataType: 0 UINT8 .. 7 FLOAT32, 8 FLOAT64, 9 BFLOAT16,
        // 6 FLOAT16, 4 INT32 (the unsigned slot), 5 INT64.
        static const int dataType[] = {/*F64*/ 8, /*F32*/ 7, /*BF16*/ 9,
                                       /*F16*/ 6, /*I64*/ 5, /*I32*/ 4,
                                       /*I1*/ 0};
        CUtensorMap map;
        const TmaDesc &t = a.tma;
        if (!device.check(
                drv.cuTensorMapEncodeTiled(
                    &map, dataType[int(t.dtype)], unsigned(t.dims.size()),
                    reinterpret_cast<void *>(inst->arena + t.offset),
                    t.dims.data(), t.strides.data(), t.box.data(),
                    t.elementStrides.data(), /*interleave=*/0, t.swizzle,
                    /*l2Promotion=*/2, /*oobFill=*/0),
                "cuTensorMapEncodeTiled for kernel '" + kd.name + "'", error))
          return nullptr;
        value.assign(reinterpret_cast<const char *>(&map), sizeof map);
      }
      p.storage.push_back(std::move(value));
    }
    for (std::string &value : p.storage)
      p.args.push_back(value.data());
  }
  return inst;
}

uint64_t graphDeviceBytes(const EntryDesc &entry, bool useGraphs) {
  if (!useGraphs || entry.launches.empty())
    return 0;
  constexpr uint64_t kPerLaunch = 4096, page = kDeviceAllocationGranularity;
  return (entry.launches.size() * kPerLaunch + page - 1) / page * page;
}

uint64_t plannedInstanceBytes(const ExecutableDesc &exe, const EntryDesc &entry,
                              const InstanceOptions &options) {
  return planDeviceMemory(exe, entry).total +
         graphDeviceBytes(entry, options.useGraphs);
}

bool Device::usedMemory(uint64_t &bytes, std::string &error) const {
  size_t freeBytes = 0, total = 0;
  if (!check(drv->cuMemGetInfo(&freeBytes, &total), "cuMemGetInfo", error))
    return false;
  bytes = total - freeBytes;
  return true;
}

bool Instance::sampleMemory(std::string &error) {
  uint64_t used = 0;
  if (!device.usedMemory(used, error))
    return false;
  // Memory other processes free meanwhile can take a sample below the
  // baseline.
  uint64_t taken = used > baselineUsed ? used - baselineUsed : 0;
  memory.measured = std::max(memory.measured, taken);
  return true;
}

Instance::~Instance() {
  const Driver &drv = device.driver();
  // Runs still in flight read the arena and write the staging.
  for (const InFlightSlot &slot : inFlight)
    if (slot.busy) {
      drv.cuStreamSynchronize(device.stream());
      break;
    }
  for (InFlightSlot &slot : inFlight) {
    if (slot.host)
      drv.cuMemFreeHost(slot.host);
    if (slot.done)
      drv.cuEventDestroy(slot.done);
  }
  if (graphExec)
    drv.cuGraphExecDestroy(graphExec);
  if (graph)
    drv.cuGraphDestroy(graph);
  if (arena)
    drv.cuMemFree(arena);
  if (status)
    drv.cuMemFree(status);
  if (workspace)
    drv.cuMemFree(workspace);
}

/// Whether `i` names one of `count` inputs or outputs; else `error` says
/// "no input #i" (`what` = "input").
static bool inRange(size_t i, size_t count, const char *what,
                    std::string &error) {
  if (i < count)
    return true;
  error = std::string("no ") + what + " #" + std::to_string(i);
  return false;
}

/// Whether `value` has the dtype and shape of `t`; else `error` says so.
static bool matches(const TensorDesc &t, const HostTensor &value,
                    std::string &error) {
  if (value.dtype == t.dtype && value.shape == t.shape)
    return true;
  error = "'" + t.name + "' is " + HostTensor(t.dtype, t.shape).typeString() +
          ", got " + value.typeString();
  return false;
}

bool Instance::copyIn(const TensorDesc &t, const HostTensor &value,
                      std::string &error) {
  if (!matches(t, value, error))
    return false;
  std::string bytes;
  encodeTensor(value, bytes);
  return bytes.empty() ||
         device.check(device.driver().cuMemcpyHtoD(arena + t.offset,
                                                   bytes.data(), bytes.size()),
                      "cuMemcpyHtoD('" + t.name + "')", error);
}

bool Instance::copyOut(const TensorDesc &t, HostTensor &value,
                       std::string &error) {
  if (!synchronize(error))
    return false;
  value = HostTensor(t.dtype, t.shape);
  std::string bytes(t.bytes(), '\0');
  if (!bytes.empty() &&
      !device.check(device.driver().cuMemcpyDtoH(bytes.data(), arena + t.offset,
                                                 bytes.size()),
                    "cuMemcpyDtoH('" + t.name + "')", error))
    return false;
  decodeTensor(reinterpret_cast<const unsigned char *>(bytes.data()), value);
  return true;
}

bool Instance::setInput(size_t i, const HostTensor &value, std::string &error) {
  if (!inRange(i, desc->inputs.size(), "input", error))
    return false;
  return copyIn(desc->inputs[i], value, error);
}

bool Instance::getInput(size_t i, HostTensor &value, std::string &error) {
  if (!inRange(i, desc->inputs.size(), "input", error))
    return false;
  return copyOut(desc->inputs[i], value, error);
}

bool Instance::getOutput(size_t i, HostTensor &value, std::string &error) {
  if (!inRange(i, desc->outputs.size(), "output", error))
    return false;
  return copyOut(desc->outputs[i], value, error);
}

bool Instance::launchAll(std::string &error,
                         const std::vector<CUevent> *events) {
  const Driver &drv = device.driver();
  enqueued = true;
  // Every run starts with a clear status record (a memset node of the
  // graph when captured).
  if (status && !device.check(drv.cuMemsetD8Async(status, 0, kStatusBytes,
                                                  device.stream()),
                              "cuMemsetD8Async(status record)", error))
    return false;
  auto record = [&](size_t i) {
    return !events ||
           device.check(drv.cuEventRecord((*events)[i], device.stream()),
                        "cuEventRecord", error);
  };
  for (size_t i = 0; i < launches.size(); ++i) {
    PreparedLaunch &p = launches[i];
    if (!record(i))
      return false;
    const auto &b = p.kernel->block;
    if (!device.check(
            drv.cuLaunchKernel(p.function, p.grid[0], p.grid[1], p.grid[2],
                               b[0], b[1], b[2], p.kernel->sharedMemory,
                               device.stream(), p.args.data(), nullptr),
            "cuLaunchKernel('" + p.kernel->name + "')", error))
      return false;
  }
  return record(launches.size());
}

bool Instance::profileLaunches(int runs, std::vector<double> &milliseconds,
                               std::string &error) {
  const Driver &drv = device.driver();
  std::vector<CUevent> events(launches.size() + 1, nullptr);
  bool ok = true;
  for (CUevent &e : events)
    ok = ok && device.check(drv.cuEventCreate(&e, 0), "cuEventCreate", error);
  std::vector<std::vector<double>> samples(launches.size());
  for (int r = 0; ok && r < runs; ++r) {
    // An untimed run first, enqueued without waiting: the timed launches
    // queue up behind it, so the GPU never waits for the host to submit
    // one (otherwise a launch's time includes the host's submission, which
    // a small kernel after an idle stream cannot hide: 25-31 us measured
    // for the 4 KB first kernel of a training step).
    ok = launchAll(error) && launchAll(error, &events) &&
         device.check(drv.cuEventSynchronize(events.back()),
                      "cuEventSynchronize", error);
    for (size_t i = 0; ok && i < launches.size(); ++i) {
      float ms = 0;
      ok = device.check(drv.cuEventElapsedTime(&ms, events[i], events[i + 1]),
                        "cuEventElapsedTime", error);
      samples[i].push_back(ms);
    }
  }
  for (CUevent e : events)
    if (e)
      drv.cuEventDestroy(e);
  if (!ok)
    return false;
  milliseconds.clear();
  for (std::vector<double> &s : samples) {
    std::sort(s.begin(), s.end());
    milliseconds.push_back(s.empty() ? 0.0 : s[s.size() / 2]);
  }
  return true;
}

bool Instance::enqueue(std::string &error) {
  const Driver &drv = device.driver();
  if (!options.useGraphs || launches.empty())
    return launchAll(error);
  if (!graphExec) {
    if (!device.check(drv.cuStreamBeginCapture(
                          device.stream(), STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "cuStreamBeginCapture", error))
      return false;
    bool launched = launchAll(error);
    CUresult r = drv.cuStreamEndCapture(device.stream(), &graph);
    if (!launched || !device.check(r, "cuStreamEndCapture", error) ||
        !device.check(drv.cuGraphInstantiateWithFlags(&graphExec, graph, 0),
                      "cuGraphInstantiateWithFlags", error))
      return false;
  }
  return device.check(drv.cuGraphLaunch(graphExec, device.stream()),
                      "cuGraphLaunch('" + desc->name + "')", error);
}

bool Instance::readStatus(StatusReport &report, std::string &error) {
  report = StatusReport();
  if (!status)
    return synchronize(error);
  uint64_t words[kStatusWords] = {};
  if (!synchronize(error) ||
      !device.check(device.driver().cuMemcpyDtoH(words, status, sizeof words),
                    "cuMemcpyDtoH(status record)", error))
    return false;
  report = StatusReport::decode(words);
  return true;
}

std::vector<std::string>
Instance::describeStatus(const StatusReport &report) const {
  return nova::describeStatus(*exe, *desc, report);
}

bool Instance::checkGuardBands(std::vector<std::string> &overwritten,
                               std::string &error) {
  overwritten.clear();
  if (desc->guards.empty())
    return true;
  std::string bytes(desc->arenaSize, '\0');
  if (!synchronize(error) ||
      !device.check(
          device.driver().cuMemcpyDtoH(bytes.data(), arena, bytes.size()),
          "cuMemcpyDtoH(arena, guard bands)", error))
    return false;
  overwritten = nova::checkGuardBands(*exe, *desc, bytes);
  return true;
}

bool Instance::enqueueRun(
    const std::vector<std::pair<size_t, const HostTensor *>> &inputs,
    const std::vector<size_t> &reads, PendingRun &run, std::string &error) {
  const Driver &drv = device.driver();
  InFlightSlot &slot = inFlight[nextSlot];
  if (slot.busy) {
    error = "entry '" + desc->name + "' has " + std::to_string(kRunsInFlight) +
            " runs in flight already: finish one first";
    return false;
  }
  // The staging holds the inputs, then the outputs read back, then the
  // status record, each 16-byte aligned.
  auto place = [](size_t &size, size_t bytes) {
    size_t at = size;
    size = (size + bytes + 15) / 16 * 16;
    return at;
  };
  size_t size = 0;
  std::vector<std::string> bytes(inputs.size());
  std::vector<size_t> inputAt;
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto [i, value] = inputs[k];
    if (!inRange(i, desc->inputs.size(), "input", error))
      return false;
    if (!matches(desc->inputs[i], *value, error))
      return false;
    encodeTensor(*value, bytes[k]);
    inputAt.push_back(place(size, bytes[k].size()));
  }
  slot.reads.clear();
  for (size_t i : reads) {
    if (!inRange(i, desc->outputs.size(), "output", error))
      return false;
    const TensorDesc &t = desc->outputs[i];
    slot.reads.push_back({&t, place(size, t.bytes())});
  }
  slot.statusAt = place(size, status ? kStatusBytes : 0);
  if (size > slot.capacity) {
    if (slot.host)
      drv.cuMemFreeHost(slot.host);
    slot.host = nullptr;
    slot.capacity = 0;
    if (!device.check(drv.cuMemAllocHost(&slot.host, size),
                      "cuMemAllocHost(" + std::to_string(size) + " bytes)",
                      error))
      return false;
    slot.capacity = size;
  }
  if (!slot.done &&
      !device.check(drv.cuEventCreate(&slot.done, cuda::EVENT_DISABLE_TIMING),
                    "cuEventCreate", error))
    return false;
  char *host = static_cast<char *>(slot.host);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorDesc &t = desc->inputs[inputs[k].first];
    if (bytes[k].empty())
      continue;
    std::memcpy(host + inputAt[k], bytes[k].data(), bytes[k].size());
    if (!device.check(drv.cuMemcpyHtoDAsync(arena + t.offset, host + inputAt[k],
                                            bytes[k].size(), device.stream()),
                      "cuMemcpyHtoDAsync('" + t.name + "')", error))
      return false;
  }
  if (!enqueue(error))
    return false;
  for (auto [t, at] : slot.reads)
    if (t->bytes() &&
        !device.check(drv.cuMemcpyDtoHAsync(host + at, arena + t->offset,
                                            t->bytes(), device.stream()),
                      "cuMemcpyDtoHAsync('" + t->name + "')", error))
      return false;
  if (status &&
      !device.check(drv.cuMemcpyDtoHAsync(host + slot.statusAt, status,
                                          kStatusBytes, device.stream()),
                    "cuMemcpyDtoHAsync(status record)", error))
    return false;
  if (!device.check(drv.cuEventRecord(slot.done, device.stream()),
                    "cuEventRecord", error))
    return false;
  slot.busy = true;
  run.slot = nextSlot;
  nextSlot = (nextSlot + 1) % kRunsInFlight;
  return true;
}

bool Instance::finishRun(const PendingRun &run,
                         std::vector<HostTensor> &outputs, StatusReport &report,
                         std::string &error) {
  if (run.slot >= kRunsInFlight || !inFlight[run.slot].busy) {
    error = "no such run of entry '" + desc->name + "' in flight";
    return false;
  }
  InFlightSlot &slot = inFlight[run.slot];
  if (!device.check(device.driver().cuEventSynchronize(slot.done),
                    "cuEventSynchronize after entry '" + desc->name + "'",
                    error))
    return false;
  slot.busy = false;
  const auto *host = static_cast<const unsigned char *>(slot.host);
  outputs.clear();
  for (auto [t, at] : slot.reads) {
    outputs.emplace_back(t->dtype, t->shape);
    decodeTensor(host + at, outputs.back());
  }
  report = StatusReport();
  if (status) {
    uint64_t words[kStatusWords];
    std::memcpy(words, host + slot.statusAt, sizeof words);
    report = StatusReport::decode(words);
  }
  return afterWait(error);
}

bool Instance::synchronize(std::string &error) {
  return device.check(device.driver().cuStreamSynchronize(device.stream()),
                      "cuStreamSynchronize after entry '" + desc->name + "'",
                      error) &&
         afterWait(error);
}

bool Instance::afterWait(std::string &error) {
  if (!sampleMemory(error))
    return false;
  if (enqueued && !ranOnce) {
    ranOnce = true;
    memory.afterFirstRun = memory.measured;
  }
  return true;
}

} // namespace nova
