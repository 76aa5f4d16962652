//===- Profile.cpp - nova-run --profile's report --------------------------===//

#include "nova/Runtime/Profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace nova {

namespace {
/// "file:line" in file order, then by line number ("m.py:9" before
/// "m.py:10").
struct SourceOrder {
  static std::pair<std::string, long> split(const std::string &s) {
    size_t colon = s.rfind(':');
    if (colon == std::string::npos)
      return {s, -1};
    return {s.substr(0, colon),
            std::strtol(s.c_str() + colon + 1, nullptr, 10)};
  }
  bool operator()(const std::string &a, const std::string &b) const {
    auto x = split(a), y = split(b);
    return x != y ? x < y : a < b;
  }
};
} // namespace

std::vector<KernelProfile>
profileKernels(const ExecutableDesc &exe, const EntryDesc &entry,
               const std::vector<double> &milliseconds) {
  std::map<uint32_t, KernelProfile> byKernel;
  std::map<uint32_t, std::set<std::string, SourceOrder>> sources;
  for (size_t i = 0; i < entry.launches.size() && i < milliseconds.size();
       ++i) {
    const LaunchDesc &l = entry.launches[i];
    KernelProfile &row = byKernel[l.kernel];
    row.kernel = exe.kernels[l.kernel].name;
    row.launches += 1;
    row.milliseconds += milliseconds[i];
    row.flops += l.profile.flops;
    row.bytes += l.profile.bytes;
    row.predictedMilliseconds += l.profile.predictedSeconds * 1e3;
    row.dtype = l.profile.dtype;
    sources[l.kernel].insert(l.profile.sources.begin(),
                             l.profile.sources.end());
  }
  std::vector<KernelProfile> rows;
  for (auto &[index, row] : byKernel) {
    row.sources.assign(sources[index].begin(), sources[index].end());
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const KernelProfile &a, const KernelProfile &b) {
                     if (a.milliseconds != b.milliseconds)
                       return a.milliseconds > b.milliseconds;
                     return a.kernel < b.kernel;
                   });
  return rows;
}

bool mispredicted(const KernelProfile &row) {
  if (row.predictedMilliseconds <= 0 || row.milliseconds <= 0)
    return false;
  double ratio = row.milliseconds / row.predictedMilliseconds;
  return ratio > 1 + kPredictionTolerance || ratio < 1 - kPredictionTolerance;
}

namespace {
std::string format(const char *pattern, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, a);
  return buf;
}

/// "1234 (56%)": a rate and its share of the ceiling, or "-" with no work.
std::string rate(double perSecond, double unit, double ceiling) {
  if (perSecond <= 0)
    return "-";
  std::string text = format("%.1f", perSecond / unit);
  if (ceiling > 0)
    text += format(" (%.0f%%)", 100.0 * perSecond / ceiling);
  return text;
}
} // namespace

std::string formatProfile(const std::vector<KernelProfile> &rows,
                          const std::string &entry,
                          const std::string &deviceName,
                          const DeviceDescriptor *ceilings, int runs) {
  double total = 0, predicted = 0;
  int launches = 0, flagged = 0, withPrediction = 0;
  for (const KernelProfile &r : rows) {
    total += r.milliseconds;
    launches += r.launches;
    predicted += r.predictedMilliseconds;
    withPrediction += r.predictedMilliseconds > 0;
    flagged += mispredicted(r);
  }
  std::string out = "profile of entry '" + entry + "' on " + deviceName + ": " +
                    std::to_string(launches) + " launches of " +
                    std::to_string(rows.size()) + " kernels, " +
                    format("%.3f", total) +
                    " ms per step (launch by launch, CUDA events, median of " +
                    std::to_string(runs) + " runs)\n";
  if (ceilings)
    out += "ceilings (" + ceilings->name +
           "): " + format("%.0f", ceilings->bandwidth / 1e9) + " GB/s DRAM, " +
           format("%.0f", ceilings->peakBF16 / 1e12) + " TFLOP/s bf16, " +
           format("%.0f", ceilings->peakTF32 / 1e12) + " TFLOP/s tf32, " +
           format("%.0f", ceilings->peakF32 / 1e12) + " TFLOP/s f32\n";
  else
    out += "ceilings: unknown (the executable names no known target)\n";
  char line[512];
  std::snprintf(line, sizeof line,
                "%10s %10s %7s %7s %8s  %-13s %-13s %-7s  %s\n", "time (us)",
                "pred (us)", "meas/pr", "share", "launches", "GB/s (peak)",
                "TFLOP/s (pk)", "bound", "kernel: source lines");
  out += line;
  for (const KernelProfile &r : rows) {
    double seconds = r.milliseconds / 1e3;
    double bytesPerSecond = seconds > 0 ? r.bytes / seconds : 0;
    double flopsPerSecond = seconds > 0 ? r.flops / seconds : 0;
    double bandwidth = ceilings ? ceilings->bandwidth : 0;
    double peak = ceilings ? ceilings->peak(r.dtype) : 0;
    // The resource the kernel uses the larger share of.
    std::string bound = "-";
    if (bandwidth > 0 && peak > 0 && (bytesPerSecond > 0 || flopsPerSecond > 0))
      bound = flopsPerSecond / peak > bytesPerSecond / bandwidth ? "compute"
                                                                 : "memory";
    std::string sources;
    for (size_t i = 0; i < r.sources.size(); ++i)
      sources += (i ? ", " : "") + r.sources[i];
    std::string predictedText = "-", ratio = "-";
    if (r.predictedMilliseconds > 0) {
      predictedText = format("%.1f", r.predictedMilliseconds * 1e3);
      ratio = format("%.2f", r.milliseconds / r.predictedMilliseconds) +
              (mispredicted(r) ? "!" : " ");
    }
    std::snprintf(line, sizeof line,
                  "%10.1f %10s %7s %6.1f%% %8d  %-13s %-13s %-7s  ",
                  r.milliseconds * 1e3, predictedText.c_str(), ratio.c_str(),
                  total > 0 ? 100.0 * r.milliseconds / total : 0.0, r.launches,
                  rate(bytesPerSecond, 1e9, bandwidth).c_str(),
                  rate(flopsPerSecond, 1e12, peak).c_str(), bound.c_str());
    out += line + r.kernel + (sources.empty() ? "" : ": " + sources) + "\n";
  }
  if (withPrediction)
    out += "predicted " + format("%.3f", predicted) + " ms for the " +
           std::to_string(withPrediction) + " kernels with a prediction; " +
           std::to_string(flagged) +
           " differ from their measured time by more than " +
           format("%.0f", kPredictionTolerance * 100) + " % (marked !)\n";
  else
    out += "no predicted times (the executable carries none)\n";
  return out;
}

} // namespace nova
