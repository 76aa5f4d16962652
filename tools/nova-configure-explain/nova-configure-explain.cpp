//===- nova-configure-explain.cpp - why the configurator chose a schedule -===//
//
//   nova-configure-explain [--device h200] [--override key=v,...] [--dtype
//   bf16]
//       matmul BATCH M N K | attention-forward|attention-backward BH T D
//       [causal] | pointwise N | row-reduction|column-reduction ROWS COLS |
//       gather|scatter-add ROWS WIDTH TABLE_ROWS
//   nova-configure-explain [--device ...] --gpt2 [--summary] [LAYERS EMBD HEADS
//   VOCAB SEQ BATCH] nova-configure-explain --list-devices
//
// MLIR-free, like the configurator it explains.
//
//===----------------------------------------------------------------------===//

#include "nova/Runtime/Configurator.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace nova;

static int usage(const char *why) {
  std::fprintf(stderr,
               "error: %s\nusage: nova-configure-explain [--device NAME] "
               "[--override k=v,...] [--dtype f32|bf16|f16] FAMILY SIZES... | "
               "--gpt2 [L C H V T B] | --list-devices\n",
               why);
  return 1;
}

int main(int argc, char **argv) {
  std::string deviceName = "h200", overrides;
  DType dtype = DType::BF16;
  bool gpt2 = false, summary = false;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--list-devices") {
      for (const std::string &n : DeviceDescriptor::known()) {
        DeviceDescriptor d = *DeviceDescriptor::lookup(n);
        std::printf("%-11s %s, %s, %d SMs, %.0f GB/s, bf16 %.0f TFLOP/s, "
                    "tf32 %.0f TFLOP/s, L2 %llu MiB, %u KiB shared per block\n",
                    n.c_str(), d.name.c_str(), d.arch().c_str(), d.sms,
                    d.bandwidth / 1e9, d.peakBF16 / 1e12, d.peakTF32 / 1e12,
                    (unsigned long long)(d.l2Bytes >> 20),
                    d.smemPerBlock / 1024);
      }
      return 0;
    } else if (a == "--device") {
      const char *v = value();
      if (!v)
        return usage("--device needs a name");
      deviceName = v;
    } else if (a == "--override") {
      const char *v = value();
      if (!v)
        return usage("--override needs key=value,...");
      overrides = v;
    } else if (a == "--dtype") {
      const char *v = value();
      std::string t = v ? v : "";
      dtype = t == "f32" ? DType::F32 : t == "f16" ? DType::F16 : DType::BF16;
      if (t != "f32" && t != "f16" && t != "bf16")
        return usage("--dtype is f32, bf16 or f16");
    } else if (a == "--gpt2") {
      gpt2 = true;
    } else if (a == "--summary") {
      summary = true;
    } else {
      rest.push_back(a);
    }
  }
  // Timed without explanations, as the compiler calls it.
  std::optional<DeviceDescriptor> device = DeviceDescriptor::lookup(deviceName);
  if (!device)
    return usage(
        ("unknown device '" + deviceName + "' (see --list-devices)").c_str());
  std::string error;
  if (!overrides.empty() && !device->override(overrides, error))
    return usage(error.c_str());
  Configurator conf(*device);
  std::vector<int64_t> n;
  for (const std::string &r : rest) {
    char *end = nullptr;
    long long v = std::strtoll(r.c_str(), &end, 10);
    if (!*end && v > 0)
      n.push_back(v);
  }

  if (gpt2) {
    if (!n.empty() && n.size() != 6)
      return usage("--gpt2 takes LAYERS EMBD HEADS VOCAB SEQ BATCH or nothing");
    if (n.empty())
      n = {12, 768, 12, 50304, 1024, 16};
    std::vector<Problem> problems =
        gpt2TrainingProblems(n[0], n[1], n[2], n[3], n[4], n[5], dtype);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Schedule> schedules;
    for (const Problem &p : problems)
      schedules.push_back(conf.choose(p));
    double us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
    double total = 0;
    for (size_t i = 0; i < problems.size(); ++i) {
      total += schedules[i].predictedSeconds;
      if (!summary)
        std::fputs(
            Configurator::explain(problems[i], conf.choose(problems[i], true))
                .c_str(),
            stdout);
    }
    std::printf("GPT-2 (L%lld C%lld H%lld V%lld T%lld B%lld) on %s: %zu "
                "kernels configured in %.1f us; predicted step %.2f ms\n",
                (long long)n[0], (long long)n[1], (long long)n[2],
                (long long)n[3], (long long)n[4], (long long)n[5],
                device->name.c_str(), problems.size(), us, total * 1e3);
    return 0;
  }

  if (rest.empty())
    return usage("name a kernel family");
  Problem p;
  p.dtype = dtype;
  const std::string &f = rest[0];
  auto need = [&](size_t k) { return n.size() == k; };
  if (f == "matmul" && need(4)) {
    p.family = KernelFamily::Matmul;
    p.batch = n[0], p.m = n[1], p.n = n[2], p.k = n[3];
  } else if ((f == "attention-forward" || f == "attention-backward") &&
             need(3)) {
    p.family = f == "attention-forward" ? KernelFamily::AttentionForward
                                        : KernelFamily::AttentionBackward;
    p.batch = n[0], p.m = p.n = n[1], p.k = n[2];
    p.causal = rest.back() == "causal";
  } else if (f == "pointwise" && need(1)) {
    p.family = KernelFamily::Pointwise;
    p.m = n[0];
  } else if ((f == "row-reduction" || f == "column-reduction") && need(2)) {
    p.family = f == "row-reduction" ? KernelFamily::RowReduction
                                    : KernelFamily::ColumnReduction;
    p.m = n[0], p.n = n[1];
  } else if ((f == "gather" || f == "scatter-add") && need(3)) {
    p.family = f == "gather" ? KernelFamily::Gather : KernelFamily::ScatterAdd;
    p.m = n[0], p.n = n[1], p.k = n[2];
  } else {
    return usage(("bad family or sizes: " + f).c_str());
  }
  std::printf("%s (%s)\n", device->name.c_str(), device->arch().c_str());
  std::fputs(Configurator::explain(p, conf.choose(p, true)).c_str(), stdout);
  return 0;
}
