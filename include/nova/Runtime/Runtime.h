//===- Runtime.h - run Nova executables on a CUDA device --------*- C++ -*-===//
//
//   std::string error;
//   auto device = nova::Device::open(0, error);
//   nova::ExecutableDesc exe;  nova::readExecutableFile("m.nvx", exe, error);
//   auto inst = nova::Instance::create(*device, exe, "main", {}, error);
//   inst->setInput(0, x, error);
//   inst->run(error);                 // launch list, replayed as a CUDA graph
//   inst->getOutput(0, y, error);
//
// Device memory is allocated once per instance (the arena, and the
// workspace and status record when the kernels take them); inputs and outputs
// live at their planned offsets and move between host and device only when
// asked, so parameters and optimizer state stay resident between runs and
// aliased outputs are updated in place. Every driver call is checked; errors
// name the call and the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_RUNTIME_H
#define NOVA_RUNTIME_RUNTIME_H

#include "nova/Runtime/CudaDriver.h"
#include "nova/Runtime/Executable.h"
#include "nova/Runtime/KernelTable.h"
#include "nova/Support/HostTensor.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace nova {

class Device {
public:
  static std::unique_ptr<Device> open(int ordinal, std::string &error);

  const cuda::Driver &driver() const { return *drv; }
  cuda::CUstream stream() const { return strm; }
  /// "sm_90" for compute capability 9.0.
  const std::string &arch() const { return archName; }
  const std::string &name() const { return deviceName; }
  int multiprocessors() const { return sms; }
  /// Device memory in use now, by every process (cuMemGetInfo: total -
  /// free).
  bool usedMemory(uint64_t &bytes, std::string &error) const;

  /// Checks a driver result; on failure sets `error` to "<what>: <driver
  /// message>" and returns false.
  bool check(cuda::CUresult r, const std::string &what,
             std::string &error) const;

private:
  const cuda::Driver *drv = nullptr;
  cuda::CUdevice dev = 0;
  cuda::CUcontext ctx = nullptr;
  cuda::CUstream strm = nullptr;
  std::string archName, deviceName;
  int sms = 0;
};

/// Loads kernels with the CUDA driver: the cubin built for the device's
/// architecture when the executable has one, else the PTX through the
/// driver's JIT (whose error log is reported on failure).
class CudaKernelLoader : public KernelLoader {
public:
  explicit CudaKernelLoader(const Device &device) : device(device) {}
  void *load(const KernelDesc &kernel, const std::string &arch,
             std::string &error) override;
  /// How the last kernel was loaded: "cubin sm_90a" or "ptx".
  const std::string &lastSource() const { return source; }

private:
  const Device &device;
  std::string source;
};

struct InstanceOptions {
  /// Capture the launch list once as a CUDA graph and replay it.
  bool useGraphs = true;
  /// Fill the arena with 0xFF bytes instead of zeros before the inputs are
  /// copied in (NaN floats, -1 integers), so an output element a kernel
  /// never writes cannot pass a comparison by being 0.
  bool poisonArena = false;
};

/// A CUDA graph keeps its launches (their arguments and launch records) in
/// device memory of its own once it runs. The plan budgets 4 KiB a launch
/// (CUDA's classic kernel parameter limit) in whole
/// kDeviceAllocationGranularity pages: at least one page, which covered
/// entries of 2 and of 196 launches on the H200. 0 without graphs.
uint64_t graphDeviceBytes(const EntryDesc &entry, bool useGraphs);

/// What an instance of `entry` takes by its plan: planDeviceMemory's total
/// and, with graphs, graphDeviceBytes.
uint64_t plannedInstanceBytes(const ExecutableDesc &exe, const EntryDesc &entry,
                              const InstanceOptions &options);

/// What an instance took on the device: `used` samples of the device's
/// memory in use (cuMemGetInfo) relative to the moment before its first
/// allocation (the context and the kernels' code already there), against
/// its plan (plannedInstanceBytes).
struct MemoryUse {
  uint64_t planned = 0;
  /// The highest sample: after the allocations, after each wait for a run
  /// and whenever sampleMemory() is called.
  uint64_t measured = 0;
  /// Right after the allocations, and after the first run (graph
  /// instantiation, local memory grown for the kernels' stacks).
  uint64_t afterAllocation = 0, afterFirstRun = 0;
};

/// An entry of an executable, ready to run on a device. It refers to the
/// ExecutableDesc it was created from, which must outlive it; kernels stay
/// loaded in the process-wide KernelTable after it is destroyed.
class Instance {
public:
  static std::unique_ptr<Instance>
  create(Device &device, const ExecutableDesc &exe, const std::string &entry,
         const InstanceOptions &options, std::string &error);
  ~Instance();

  const EntryDesc &entry() const { return *desc; }
  uint64_t arenaBytes() const { return desc->arenaSize; }
  /// The zeroed scratch the entry's kernels share (0: none).
  uint64_t workspaceBytes() const { return workspaceSize; }
  /// Samples the device's memory in use into memoryUse().
  bool sampleMemory(std::string &error);
  const MemoryUse &memoryUse() const { return memory; }
  /// Whether the launch list was enqueued at least once.
  bool hasRun() const { return enqueued; }

  /// Host -> device copy of input `i` (dtype and shape must match).
  bool setInput(size_t i, const HostTensor &value, std::string &error);
  /// Device -> host copy of output `i`.
  bool getOutput(size_t i, HostTensor &value, std::string &error);
  /// Device -> host copy of input `i` (e.g. trained parameters).
  bool getInput(size_t i, HostTensor &value, std::string &error);

  /// Enqueues the launch list on the device's stream (as a graph replay when
  /// graphs are on); returns without waiting.
  bool enqueue(std::string &error);
  bool synchronize(std::string &error);
  bool run(std::string &error) { return enqueue(error) && synchronize(error); }

  /// Runs in flight: enqueueRun copies `inputs` in (from page-locked
  /// staging), enqueues the launch list and the copies back of the outputs
  /// `reads` and of the status record, and returns without waiting, so the
  /// host prepares the next run while the device works on this one and the
  /// device goes from run to run without waiting for the host (a training
  /// loop). At most kRunsInFlight runs are pending; each waits for the
  /// earlier ones on the stream, and finishRun gives its outputs (in the
  /// order of `reads`) and status record. The arena's inputs and outputs
  /// are shared: a run's reads see its own results only because the next
  /// run starts after them on the stream.
  static constexpr unsigned kRunsInFlight = 2;
  struct PendingRun {
    unsigned slot = ~0u;
  };
  bool
  enqueueRun(const std::vector<std::pair<size_t, const HostTensor *>> &inputs,
             const std::vector<size_t> &reads, PendingRun &run,
             std::string &error);
  bool finishRun(const PendingRun &run, std::vector<HostTensor> &outputs,
                 StatusReport &report, std::string &error);

  /// Runs the launch list `runs` times launch by launch (no graph), a CUDA
  /// event before each launch and after the last, and gives each launch's
  /// median time in milliseconds (in launch order). Each timed run is
  /// queued behind an untimed one, so no launch waits for its submission.
  bool profileLaunches(int runs, std::vector<double> &milliseconds,
                       std::string &error);
  /// The status record of the last run (zeroed before each run, inside the
  /// graph too); waits for the run. All clear when no kernel checks data.
  bool readStatus(StatusReport &report, std::string &error);
  /// One line per failed check of `report`: what failed, in which kernels
  /// (those that may raise it), and whether an optimizer launched after
  /// them skipped its update.
  std::vector<std::string> describeStatus(const StatusReport &report) const;
  /// Guard-band mode: one line per guard the last run overwrote; waits for
  /// the run. Without guards: none, at once.
  bool checkGuardBands(std::vector<std::string> &overwritten,
                       std::string &error);

private:
  Instance(Device &device, const EntryDesc &desc, InstanceOptions options)
      : device(device), desc(&desc), options(options) {}
  bool copyIn(const TensorDesc &t, const HostTensor &value, std::string &error);
  bool copyOut(const TensorDesc &t, HostTensor &value, std::string &error);
  /// With `events` (one per launch plus one), each is recorded before its
  /// launch, the last after them all.
  bool launchAll(std::string &error,
                 const std::vector<cuda::CUevent> *events = nullptr);

  struct PreparedLaunch {
    cuda::CUfunction function;
    const KernelDesc *kernel;
    std::array<uint32_t, 3> grid;
    std::vector<std::string> storage; // one by-value buffer per argument
    std::vector<void *> args;
  };

  /// Page-locked staging and a completion event for one run in flight.
  struct InFlightSlot {
    void *host = nullptr;
    size_t capacity = 0;
    cuda::CUevent done = nullptr;
    bool busy = false;
    /// Where each read output and the status record land in `host`.
    std::vector<std::pair<const TensorDesc *, size_t>> reads;
    size_t statusAt = 0;
  };
  /// After waiting for the device: memory sampled, the first run noted.
  bool afterWait(std::string &error);

  Device &device;
  const EntryDesc *desc;
  const ExecutableDesc *exe = nullptr;
  InstanceOptions options;
  cuda::CUdeviceptr arena = 0;
  cuda::CUdeviceptr status = 0; // kStatusBytes, when a kernel takes it
  /// Kernels that combine partial results across blocks leave it zeroed,
  /// so one allocation serves every launch and graph replay.
  cuda::CUdeviceptr workspace = 0;
  uint64_t workspaceSize = 0;
  std::vector<PreparedLaunch> launches;
  cuda::CUgraph graph = nullptr;
  cuda::CUgraphExec graphExec = nullptr;
  /// Device memory in use before the first allocation.
  uint64_t baselineUsed = 0;
  bool ranOnce = false, enqueued = false;
  std::array<InFlightSlot, kRunsInFlight> inFlight;
  unsigned nextSlot = 0;
  MemoryUse memory;
};

} // namespace nova

#endif // NOVA_RUNTIME_RUNTIME_H
