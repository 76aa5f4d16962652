//===- KernelTable.cpp - kernels loaded once per process ------------------===//

#include "nova/Runtime/KernelTable.h"

#include <optional>

#include <cctype>

namespace nova {

namespace {
struct Arch {
  int major = 0, minor = 0;
  bool specific = false; // sm_90a: features of that architecture only
};

/// "sm_90a" -> {9, 0, true}, "sm_120" -> {12, 0, false}; nullopt otherwise.
std::optional<Arch> parseArch(const std::string &name) {
  if (name.rfind("sm_", 0) != 0)
    return std::nullopt;
  size_t end = 3;
  while (end < name.size() && std::isdigit((unsigned char)name[end]))
    ++end;
  std::string digits = name.substr(3, end - 3);
  std::string suffix = name.substr(end);
  if (digits.size() < 2 || digits.size() > 3 || (suffix != "" && suffix != "a"))
    return std::nullopt;
  Arch a;
  a.major = std::stoi(digits.substr(0, digits.size() - 1));
  a.minor = digits.back() - '0';
  a.specific = suffix == "a";
  return a;
}

/// The architecture of PTX's ".target sm_XY[a]" directive, if any.
std::string ptxTarget(const std::string &ptx) {
  size_t at = ptx.find(".target ");
  if (at == std::string::npos)
    return "";
  size_t begin = at + 8, end = begin;
  while (end < ptx.size() &&
         (std::isalnum((unsigned char)ptx[end]) || ptx[end] == '_'))
    ++end;
  return ptx.substr(begin, end - begin);
}
} // namespace

KernelCode chooseKernelCode(const KernelDesc &kernel,
                            const std::string &deviceArch) {
  KernelCode code;
  std::optional<Arch> device = parseArch(deviceArch);
  if (!device) {
    code.error = "kernel '" + kernel.name + "': unknown device architecture '" +
                 deviceArch + "'";
    return code;
  }
  // Binary code runs on its own major version only; arch-specific code on
  // its exact architecture. The closest (highest) compatible image wins.
  for (const KernelImage &img : kernel.images) {
    std::optional<Arch> a = parseArch(img.arch);
    if (!a || a->major != device->major || a->minor > device->minor ||
        (a->specific && a->minor != device->minor))
      continue;
    if (!code.image || parseArch(code.image->arch)->minor < a->minor)
      code.image = &img;
  }
  if (code.image)
    return code;
  std::string target = ptxTarget(kernel.ptx);
  if (!kernel.ptx.empty()) {
    std::optional<Arch> t = parseArch(target);
    int need = t ? t->major * 10 + t->minor : 0;
    int have = device->major * 10 + device->minor;
    // PTX without a readable target is left to the driver's JIT, which
    // reports its own error.
    if (!t || (t->specific ? need == have : need <= have)) {
      code.ptx = true;
      return code;
    }
  }
  std::string needs;
  for (const KernelImage &img : kernel.images)
    needs += (needs.empty() ? "cubin " : ", cubin ") + img.arch;
  if (!kernel.ptx.empty())
    needs += (needs.empty() ? "PTX for " : ", PTX for ") + target;
  code.error = "kernel '" + kernel.name + "' needs " +
               (needs.empty() ? std::string("code it does not have") : needs) +
               "; the device is " + deviceArch +
               ", which can run none of it (recompile for the device, e.g. "
               "--chip " +
               deviceArch + ")";
  return code;
}

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
