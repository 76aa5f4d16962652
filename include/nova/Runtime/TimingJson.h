//===- TimingJson.h - nova-run --timing-json's records ----------*- C++ -*-===//
//
// Machine-readable timings for benchmark scripts: the printed lines round
// to microseconds, too coarse for a kernel of a few microseconds, and their
// wording may change. One JSON object per run, full precision.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_TIMINGJSON_H
#define NOVA_RUNTIME_TIMINGJSON_H

#include "nova/Runtime/Profile.h"

#include <string>
#include <vector>

namespace nova {

/// --iterations: the whole entry timed run by run.
struct EntryTiming {
  std::string entry, device;
  int warmup = 0;
  std::vector<double> deviceMilliseconds; // one per timed run (CUDA events)
  double hostEnqueueMicroseconds = 0;     // median per run
  size_t launches = 0;
  bool graphs = true;
};

/// {"kind": "timing", "entry", "device", "runs", "warmup", "median_ms",
/// "min_ms", "mean_ms", "samples_ms": [...], "host_enqueue_us",
/// "launches", "graphs"}.
std::string timingJson(const EntryTiming &timing);

/// --profile: {"kind": "profile", "entry", "device", "runs", "step_ms",
/// "kernels": [{"kernel", "launches", "ms", "bytes", "flops", "dtype",
/// "sources": [...]}, ...]} in the rows' order (slowest first).
std::string profileJson(const std::vector<KernelProfile> &rows,
                        const std::string &entry, const std::string &device,
                        int runs);

} // namespace nova

#endif // NOVA_RUNTIME_TIMINGJSON_H
