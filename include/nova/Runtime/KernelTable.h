//===- KernelTable.h - kernels loaded once per process ----------*- C++ -*-===//
//
// A process-wide table from (structural hash, device architecture) to a
// loaded kernel: however many executables or launch sites use a kernel, it
// is loaded once. Loading itself is delegated to a KernelLoader (the CUDA
// one below, or a fake in CPU tests).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_KERNELTABLE_H
#define NOVA_RUNTIME_KERNELTABLE_H

#include "nova/Runtime/Executable.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace nova {

/// The code of a kernel a device can run: a cubin built for a compatible
/// architecture (an arch-specific one such as sm_90a only on that exact
/// architecture, a plain sm_XY on the same major version with a minor
/// version up to the device's), else PTX whose .target the driver can JIT
/// for the device (sm_XYa PTX only for that architecture, plain PTX for
/// the same or a newer one). `error` names the kernel, the architectures
/// its code needs and the device's when neither fits.
struct KernelCode {
  const KernelImage *image = nullptr; // the cubin to load, if any
  bool ptx = false;                   // else JIT the PTX
  std::string error;                  // neither fits the device
};
KernelCode chooseKernelCode(const KernelDesc &kernel,
                            const std::string &deviceArch);

class KernelLoader {
public:
  virtual ~KernelLoader() = default;
  /// Loads `kernel` for `arch`; returns an opaque function handle, or null
  /// with `error` set.
  virtual void *load(const KernelDesc &kernel, const std::string &arch,
                     std::string &error) = 0;
};

class KernelTable {
public:
  static KernelTable &global();

  /// The handle of `kernel` on `arch`, loading it on first use. A second
  /// kernel with the same hash but another name is reported as a collision.
  void *get(const KernelDesc &kernel, const std::string &arch,
            KernelLoader &loader, std::string &error);

  uint64_t hits() const;
  uint64_t misses() const;
  size_t size() const;
  /// Forgets every entry and zeroes the counters (tests).
  void clear();

private:
  struct Slot {
    std::string name;
    void *function;
  };
  mutable std::mutex mutex;
  std::map<std::pair<Hash128, std::string>, Slot> slots;
  uint64_t hitCount = 0, missCount = 0;
};

} // namespace nova

#endif // NOVA_RUNTIME_KERNELTABLE_H
