//===- nova-configure-explain.cpp - why the configurator chose a schedule -===//
//
//   nova-configure-explain [--device h200] [--override key=v,...] [--dtype
//   bf16]
//       matmul BATCH M N K [rounded-b|n-major-b] |
//       attention-forward|attention-backward BH T D [causal] | pointwise N |
//       row-reduction ROWS COLS [SUMS] | column-reduction ROWS COLS |
//       gather|scatter-add ROWS WIDTH TABLE_ROWS
//   nova-configure-explain [--device ...] --gpt2 [--summary] [LAYERS EMBD HEADS
//   VOCAB SEQ BATCH]
//   nova-configure-explain --list-devices
//
// MLIR-free, like the configurator it explains.
//
//===----------------------------------------------------------------------===//

#include "GPT2Workload.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Support/HostTensor.h"
#include "nova/Support/ParseNumber.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace nova;

static const char *helpText =
    R"(usage: nova-configure-explain [options] FAMILY SIZES...
       nova-configure-explain [options] --gpt2 [--summary] [L C H V T B]
       nova-configure-explain --list-devices

Shows the schedule Nova's configurator chooses for one kernel, or for every
kernel of a GPT-2 training step, and why (MLIR-free, like the configurator).

FAMILY SIZES (positive integers up to 2147483647):
  matmul BATCH M N K [rounded-b | n-major-b]
                                   (tf32: B K-major and rounded ahead, or
                                   B stored K x N, transposed by the kernel)
  attention-forward BH T D [causal], attention-backward BH T D [causal]
  pointwise N
  row-reduction ROWS COLS [SUMS]   (SUMS: column sums across the rows)
  column-reduction ROWS COLS
  gather ROWS WIDTH TABLE_ROWS, scatter-add ROWS WIDTH TABLE_ROWS

options:
  --device NAME        device descriptor (default h200; see --list-devices)
  --override K=V,...   replace descriptor values, e.g. bandwidth_gbs=4190
                       (default: none)
  --dtype T            f32, bf16 or f16 (default bf16)
  --gpt2               every kernel of a GPT-2 training step: layers, width,
                       heads, vocabulary, sequence, batch (default 12 768 12
                       50304 1024 16; at most 10000 layers)
  --summary            with --gpt2, only the total (default off)
  --list-devices       list the known devices
  --version            print the version
  -h, --help           print this help
)";

static int fail(const std::string &why) {
  std::fprintf(stderr, "nova-configure-explain: error: %s (see --help)\n",
               why.c_str());
  return 1;
}

static int listDevices() {
  for (const std::string &n : DeviceDescriptor::known()) {
    DeviceDescriptor d = *DeviceDescriptor::lookup(n);
    std::printf("%-11s %s, %s, %d SMs, %.0f GB/s, bf16 %.0f TFLOP/s, "
                "tf32 %.0f TFLOP/s, L2 %llu MiB, %u KiB shared per block\n",
                n.c_str(), d.name.c_str(), d.arch().c_str(), d.sms,
                d.bandwidth / 1e9, d.peakBF16 / 1e12, d.peakTF32 / 1e12,
                (unsigned long long)(d.l2Bytes >> 20), d.smemPerBlock / 1024);
  }
  return 0;
}

/// A size: the whole text a positive integer the kernels can index.
static std::optional<int64_t> parseSize(const std::string &text) {
  int64_t v = 0;
  if (!parseWhole(text, v) || v < 1 || v > INT32_MAX)
    return std::nullopt;
  return v;
}

int main(int argc, char **argv) {
  std::string deviceName = "h200", overrides, dtypeName = "bf16";
  bool gpt2 = false, summary = false, list = false;
  std::set<std::string> given;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() < 2 || a[0] != '-') {
      rest.push_back(a);
      continue;
    }
    std::string name = a.substr(a[1] == '-' ? 2 : 1), value;
    bool hasValue = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    if (name == "h" || name == "help") {
      std::fputs(helpText, stdout);
      return 0;
    }
    if (name == "version") {
      std::printf("nova-configure-explain (Nova) %s\n", NOVA_VERSION);
      return 0;
    }
    bool *flag = name == "gpt2"           ? &gpt2
                 : name == "summary"      ? &summary
                 : name == "list-devices" ? &list
                                          : nullptr;
    if (flag) {
      if (hasValue)
        return fail("option '--" + name + "' takes no value");
      *flag = true;
      continue;
    }
    std::string *target = name == "device"     ? &deviceName
                          : name == "override" ? &overrides
                          : name == "dtype"    ? &dtypeName
                                               : nullptr;
    if (!target)
      return fail("unknown option '" + a + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return fail("option '--" + name + "' needs a value");
      value = argv[++i];
    }
    if (!given.insert(name).second)
      return fail("option '--" + name + "' is given more than once");
    if (value.empty())
      return fail("option '--" + name + "' needs a non-empty value");
    *target = value;
  }
  if (list)
    return listDevices();
  if (dtypeName != "f32" && dtypeName != "f16" && dtypeName != "bf16")
    return fail("--dtype is f32, bf16 or f16, got '" + dtypeName + "'");
  DType dtype = dtypeName == "f32"   ? DType::F32
                : dtypeName == "f16" ? DType::F16
                                     : DType::BF16;
  if (summary && !gpt2)
    std::fprintf(stderr, "nova-configure-explain: warning: --summary has no "
                         "effect without --gpt2\n");
  // Timed without explanations, as the compiler calls it.
  std::optional<DeviceDescriptor> device = DeviceDescriptor::lookup(deviceName);
  if (!device)
    return fail("unknown device '" + deviceName + "' (see --list-devices)");
  std::string error;
  if (!overrides.empty() && !device->override(overrides, error))
    return fail(error);
  Configurator conf(*device);
  // Sizes follow the family's name; attention may end in "causal", a TF32
  // matmul in "rounded-b" (B K-major and rounded ahead, as nova-fuse
  // copies weights) or "n-major-b" (B stored K x N, which the kernel
  // transposes in shared memory).
  bool causal = !rest.empty() && rest.back() == "causal";
  bool roundedB = !rest.empty() && rest.back() == "rounded-b";
  bool nMajorB = !rest.empty() && rest.back() == "n-major-b";
  std::vector<int64_t> n;
  for (size_t k = gpt2 ? 0 : 1;
       k < rest.size() - (causal || roundedB || nMajorB ? 1 : 0); ++k) {
    std::optional<int64_t> v = parseSize(rest[k]);
    if (!v)
      return fail("bad size '" + rest[k] +
                  "': expected a positive integer up to 2147483647");
    n.push_back(*v);
  }

  if (gpt2) {
    if (causal || roundedB || nMajorB || (!n.empty() && n.size() != 6))
      return fail("--gpt2 takes LAYERS EMBD HEADS VOCAB SEQ BATCH or nothing");
    if (n.empty())
      n = {12, 768, 12, 50304, 1024, 16};
    if (n[0] > 10000)
      return fail("--gpt2: " + std::to_string(n[0]) +
                  " layers is over the limit of 10000");
    if (n[1] % n[2] != 0)
      return fail("--gpt2: the width (" + std::to_string(n[1]) +
                  ") must be a multiple of the heads (" + std::to_string(n[2]) +
                  ")");
    // The largest tensors (logits, attention scores, MLP activations) must
    // have countable sizes, or the model's arithmetic would wrap.
    const int64_t C = n[1], H = n[2], V = n[3], T = n[4], B = n[5];
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{
             {B, T, V}, {B, H, T, T}, {B, T, 4, C}, {4, C, C}, {V, C}})
      if (!checkedNumElements(shape))
        return fail("--gpt2: a tensor of this model would have more than "
                    "2^63 elements");
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
    return fail("name a kernel family");
  Problem p;
  p.dtype = dtype;
  const std::string &f = rest[0];
  auto need = [&](size_t k) { return n.size() == k; };
  if (f == "matmul" && need(4)) {
    p.family = KernelFamily::Matmul;
    p.batch = n[0], p.m = n[1], p.n = n[2], p.k = n[3];
    p.roundedKMajorB = roundedB;
    p.nMajorB = nMajorB;
  } else if ((f == "attention-forward" || f == "attention-backward") &&
             need(3)) {
    p.family = f == "attention-forward" ? KernelFamily::AttentionForward
                                        : KernelFamily::AttentionBackward;
    p.batch = n[0], p.m = p.n = n[1], p.k = n[2];
    p.causal = causal;
  } else if (f == "pointwise" && need(1)) {
    p.family = KernelFamily::Pointwise;
    p.m = n[0];
  } else if ((f == "row-reduction" && (need(2) || need(3))) ||
             (f == "column-reduction" && need(2))) {
    p.family = f == "row-reduction" ? KernelFamily::RowReduction
                                    : KernelFamily::ColumnReduction;
    p.m = n[0], p.n = n[1];
    p.columnSums = need(3) ? n[2] : 0;
  } else if ((f == "gather" || f == "scatter-add") && need(3)) {
    p.family = f == "gather" ? KernelFamily::Gather : KernelFamily::ScatterAdd;
    p.m = n[0], p.n = n[1], p.k = n[2];
  } else {
    return fail("bad family or sizes: " + f);
  }
  if (!checkedNumElements(n))
    return fail("the sizes' product is over 2^63; the schedule's arithmetic "
                "would wrap");
  if (causal && p.family != KernelFamily::AttentionForward &&
      p.family != KernelFamily::AttentionBackward)
    return fail("'causal' applies to attention only");
  if ((roundedB || nMajorB) &&
      (p.family != KernelFamily::Matmul || dtype != DType::F32))
    return fail(std::string(roundedB ? "'rounded-b'" : "'n-major-b'") +
                " applies to an f32 (TF32) matmul only");
  // Sizes whose product fits can still make the model's own arithmetic
  // (attention's T x T x D) overflow: no candidate then has a finite time,
  // and what would be printed is a default schedule, not a choice.
  Schedule s = conf.choose(p, true);
  if (!std::isfinite(s.predictedSeconds) || s.predictedSeconds <= 0)
    return fail("the configurator cannot model a problem this large (its "
                "predicted time is not finite)");
  std::printf("%s (%s)\n", device->name.c_str(), device->arch().c_str());
  std::fputs(Configurator::explain(p, s).c_str(), stdout);
  return 0;
}
