//===- TimingJson.cpp - nova-run --timing-json's records ------------------===//

#include "nova/Runtime/TimingJson.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace nova {

namespace {
/// A JSON string literal.
std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      if ((unsigned char)c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

/// The shortest of 15 to 17 significant digits that reads back as `x`
/// (JSON has no NaN or Inf; times and counts here are finite).
std::string number(double x) {
  char buf[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  return buf;
}

std::string numbers(const std::vector<double> &xs) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", " : "") + number(xs[i]);
  return out + "]";
}
} // namespace

std::string timingJson(const EntryTiming &t) {
  std::vector<double> sorted = t.deviceMilliseconds;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  double min = sorted.empty() ? 0 : sorted.front();
  double mean =
      sorted.empty()
          ? 0
          : std::accumulate(sorted.begin(), sorted.end(), 0.0) / sorted.size();
  return "{\"kind\": \"timing\", \"entry\": " + quoted(t.entry) +
         ", \"device\": " + quoted(t.device) +
         ", \"runs\": " + std::to_string(sorted.size()) +
         ", \"warmup\": " + std::to_string(t.warmup) +
         ", \"median_ms\": " + number(median) + ", \"min_ms\": " + number(min) +
         ", \"mean_ms\": " + number(mean) +
         ", \"samples_ms\": " + numbers(t.deviceMilliseconds) +
         ", \"host_enqueue_us\": " + number(t.hostEnqueueMicroseconds) +
         ", \"launches\": " + std::to_string(t.launches) +
         ", \"graphs\": " + (t.graphs ? "true" : "false") + "}\n";
}

std::string profileJson(const std::vector<KernelProfile> &rows,
                        const std::string &entry, const std::string &device,
                        int runs) {
  double step = 0;
  std::string kernels;
  for (const KernelProfile &r : rows) {
    step += r.milliseconds;
    std::string sources;
    for (size_t i = 0; i < r.sources.size(); ++i)
      sources += (i ? ", " : "") + quoted(r.sources[i]);
    kernels += std::string(kernels.empty() ? "" : ", ") +
               "{\"kernel\": " + quoted(r.kernel) +
               ", \"launches\": " + std::to_string(r.launches) +
               ", \"ms\": " + number(r.milliseconds) + ", \"predicted_ms\": " +
               (r.predictedMilliseconds > 0 ? number(r.predictedMilliseconds)
                                            : std::string("null")) +
               ", \"bytes\": " + number(r.bytes) +
               ", \"flops\": " + number(r.flops) +
               ", \"dtype\": " + quoted(dtypeName(r.dtype)) +
               ", \"sources\": [" + sources + "]}";
  }
  return "{\"kind\": \"profile\", \"entry\": " + quoted(entry) +
         ", \"device\": " + quoted(device) +
         ", \"runs\": " + std::to_string(runs) +
         ", \"step_ms\": " + number(step) + ", \"kernels\": [" + kernels +
         "]}\n";
}

} // namespace nova
