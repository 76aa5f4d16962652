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
