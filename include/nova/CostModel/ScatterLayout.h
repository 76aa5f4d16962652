//===- ScatterLayout.h - the bucketed scatter_add's layout, shared -*- C++
//-*-===//
//
// How convert-tile-to-gpu's bucketed scatter_add (lib/Conversion/TileToGPU/
// Gather.cpp) splits its output rows into blocks and sizes their shared
// memory: the kernel and the configurator's prediction of its time read the
// same rules. Header only, no MLIR (the cost model).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_COSTMODEL_SCATTERLAYOUT_H
#define NOVA_COSTMODEL_SCATTERLAYOUT_H

#include "nova/CostModel/Configurator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace nova::scatter {

/// Warps of a block: each scans a 16th of the indices, then takes rows.
inline constexpr int64_t kWarps = 16;
/// Indices a warp reads per step of its scan (8 loads in flight a lane).
inline constexpr int64_t kIndicesPerStep = 32 * 8;
/// Dynamic shared memory per block at most: two blocks of the largest
/// layout share an SM (half its shared memory less 2 KiB for the driver's
/// reserve: 112 KiB of the H200's 228), within a block's opt-in maximum.
inline int64_t sharedLimit(const DeviceDescriptor &device) {
  return std::min<int64_t>(device.smemPerBlock,
                           int64_t(device.smemPerSM) / 2 - 2 * 1024);
}
/// Rows per block at most: the counters stay a small part of the buffer.
inline constexpr int64_t kMaxRows = 256;

/// A block per `rows` output rows; its shared memory holds a 32-bit counter
/// per (row, warp) and the positions of every index, sorted by row.
struct Buckets {
  int64_t rows, blocks;

  int64_t counters() const { return rows * kWarps; }
  int64_t sharedBytes(int64_t indices) const {
    return 4 * (counters() + indices);
  }
  /// Two blocks per SM of `device` over `tableRows` rows (fewer rows per
  /// block where the rows are many); none when the sorted positions do not
  /// fit.
  static std::optional<Buckets> of(int64_t tableRows, int64_t indices,
                                   const DeviceDescriptor &device) {
    const int64_t sms = device.sms, limit = sharedLimit(device);
    if (tableRows < 1 || indices < 1 || sms < 1)
      return std::nullopt;
    int64_t rows =
        std::clamp<int64_t>((tableRows + 2 * sms - 1) / (2 * sms), 1, kMaxRows);
    Buckets b{rows, (tableRows + rows - 1) / rows};
    if (indices > limit / 4 || b.sharedBytes(indices) > limit ||
        b.blocks > std::numeric_limits<int32_t>::max())
      return std::nullopt;
    return b;
  }
  /// Latency-bound steps of a warp's two scans over its 16th of the
  /// indices.
  static int64_t scanSteps(int64_t indices) {
    int64_t segment = (indices + kWarps - 1) / kWarps;
    return 2 * ((segment + kIndicesPerStep - 1) / kIndicesPerStep);
  }
};

} // namespace nova::scatter

#endif // NOVA_COSTMODEL_SCATTERLAYOUT_H
