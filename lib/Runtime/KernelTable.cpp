//===- KernelTable.cpp - kernels loaded once per process ------------------===//

#include "nova/Runtime/KernelTable.h"

namespace nova {

KernelTable &KernelTable::global() {
  static KernelTable table;
  return table;
}

void *KernelTable::get(const KernelDesc &kernel, const std::string &arch,
                       KernelLoader &loader, std::string &error) {
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(kernel.hash, arch);
  auto it = slots.find(key);
  if (it != slots.end()) {
    if (it->second.name != kernel.name) {
      error = "structural hash " + kernel.hash.str() + " names both '" +
              it->second.name + "' and '" + kernel.name + "'";
      return nullptr;
    }
    ++hitCount;
    return it->second.function;
  }
  void *function = loader.load(kernel, arch, error);
  if (!function)
    return nullptr;
  ++missCount;
  slots.emplace(key, Slot{kernel.name, function});
  return function;
}

uint64_t KernelTable::hits() const {
  std::lock_guard<std::mutex> lock(mutex);
  return hitCount;
}

uint64_t KernelTable::misses() const {
  std::lock_guard<std::mutex> lock(mutex);
  return missCount;
}

size_t KernelTable::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  return slots.size();
}

void KernelTable::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  slots.clear();
  hitCount = missCount = 0;
}

} // namespace nova
