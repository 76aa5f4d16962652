//===- WgmmaTiling.h - the Hopper GEMM kernel's tiling, shared -*- C++ -*-===//
//
// How the sm_90a wgmma GEMM (lib/Conversion/TileToGPU/MatmulWgmma.cpp)
// tiles a product: the kernel and the configurator's prediction of its time
// read the same rules. Header only, no MLIR (the cost model).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_COSTMODEL_WGMMATILING_H
#define NOVA_COSTMODEL_WGMMATILING_H

#include <cstdint>

namespace nova::wgmma {

/// Rows of a block tile: two consumer warpgroups of 64.
inline constexpr int64_t kTileM = 128;

/// Split K over blocks when the tiles alone leave SMs idle (few output
/// tiles, long K: the weight gradients): the number of splits (a divisor
/// of the K tiles, each split at least 8 of them, at most 8 splits, all
/// units in one wave of `sms` blocks) that minimises the K tiles per split
/// plus the partial sums' traffic (a 128 x 256 f32 tile written, then read
/// back by the last split: about 2.5 K tiles' time per split), when that
/// saves more than 10 %. Splits over several waves measured far slower
/// (768 x 16384 x 3072 in 8 splits, 5 waves: 0.57 ms against 0.16 whole).
/// A unit's time in K tiles: its share of the K tiles, plus the fold of
/// the partials when K is split.
inline double unitKTiles(int64_t kTiles, int64_t s) {
  return double(kTiles / s) + (s > 1 ? 2.5 * double(s) : 0.0);
}

inline int64_t splits(int64_t tiles, int64_t kTiles, int64_t sms) {
  auto cost = [&](int64_t s) { return unitKTiles(kTiles, s); };
  int64_t best = 1;
  for (int64_t s = 2; s <= 8 && tiles * s <= sms; ++s)
    if (kTiles % s == 0 && kTiles / s >= 8 && cost(s) < cost(best) &&
        cost(s) < 0.9 * cost(1))
      best = s;
  return best;
}

/// Whether a GEMM's fused epilogue with `transcendentals` ops (GELU, tanh,
/// exp, erf, sigmoid: nova_tile's Contract::transcendentals) is heavy: two
/// or more, as GELU and its derivative. At 128 x 256 such an epilogue's code,
/// unrolled for each of a thread's 128 accumulators, waited on instruction
/// fetch a third of its cycles (Nsight Compute).
inline bool heavyEpilogue(int64_t transcendentals) {
  return transcendentals >= 2;
}

/// A product's block tile columns (the wgmma N) and K splits.
struct Tiling {
  int64_t tileN = 256;
  int64_t splits = 1;
};

/// The tiling of a product of `rowTiles` tile rows, N columns and `kTiles`
/// K tiles on `sms` SMs: 128 columns when N fits, else 256, or narrower
/// tiles (in steps of a 128-byte row of `elementBytes` elements, the TMA
/// box and swizzle unit: 192 in bf16; 224, 192 and 160 in TF32) where they
/// fill the SMs that the wide ones leave idle (the weight gradients: 72
/// tiles of 128 x 256 on 132 SMs; 96 of 128 x 192 with three quarters of
/// the work each, or in TF32 120 of 128 x 160 with five eighths), by waves
/// x K tiles per unit x columns (a block's time is proportional to its
/// tile's columns), when that saves more than 10 %, K is long (64 K tiles
/// or more: the main loop, not the block's fixed costs, sets its time) and
/// the narrow tiles need no split (measured on the H200: 768 x 16384 x 3072
/// 0.160 -> 0.120 ms at 192 in bf16). With `heavyEpilogue` (several
/// transcendentals a result element, such as GELU and its derivative: code
/// unrolled for each of a thread's tileN / 2 accumulators, which at 256
/// columns outgrows the instruction cache), 128 where 256 would have needed
/// no split.
inline Tiling tiling(int64_t rowTiles, int64_t n, int64_t kTiles, int64_t sms,
                     bool heavyEpilogue = false, int64_t elementBytes = 2) {
  auto tilesOf = [&](int64_t tileN) {
    return rowTiles * ((n + tileN - 1) / tileN);
  };
  auto at = [&](int64_t tileN) {
    return Tiling{tileN, splits(tilesOf(tileN), kTiles, sms)};
  };
  auto cost = [&](Tiling t) {
    int64_t waves = (tilesOf(t.tileN) * t.splits + sms - 1) / sms;
    return double(waves) * unitKTiles(kTiles, t.splits) * double(t.tileN);
  };
  if (n <= 128)
    return at(128);
  Tiling wide = at(256), chosen = wide;
  // Narrow tiles only where they need no split: with split K their gain
  // is unmeasured (the partial sums' fold costs more than modelled).
  if (kTiles >= 64) {
    int64_t step = 128 / elementBytes;
    for (int64_t tileN = 256 - step; tileN > 128; tileN -= step) {
      Tiling narrow = at(tileN);
      if (narrow.splits == 1 && cost(narrow) < 0.9 * cost(wide) &&
          cost(narrow) < cost(chosen))
        chosen = narrow;
    }
  }
  // 128 columns have no more tiles to split than 256: splits stay 1.
  if (heavyEpilogue && chosen.tileN == 256 && chosen.splits == 1)
    return at(128);
  return chosen;
}

/// TF32 (A from registers): the m64 row groups of each consumer warpgroup
/// for a product of `rows` x `n` tiled as `t` on `sms` SMs. Where the
/// kernel rounds B in shared memory, a 128 x 256 tile runs as 256 x 128,
/// two groups a consumer, so that B's tile is half as large. A B rounded
/// ahead (`bRoundedAhead`: K-major, nova.rounded) takes no pass, and 128 x
/// 256 keeps one group: half the A loads a stage (on the H200: 4096^3 0.39
/// ms against 0.41 with two groups, 8192^3 2.95 against 3.1, 16384 x 3072 x
/// 768 0.207 against 0.224), unless 256 x 128 tiles fill the
/// persistent grid in 10 % fewer waves (ragged shapes: 4095 x 4097 is 544
/// tiles of 128 x 256, five waves on 132 SMs, or 528 of 256 x 128, four).
/// Narrower tiles keep one group, and so does a B rounded ahead with split
/// K. The block tile is kTileM * groups by tileN / groups.
inline int64_t registerAGroups(int64_t rows, int64_t n, Tiling t,
                               bool bRoundedAhead, int64_t sms) {
  if (t.tileN != 256)
    return 1;
  if (!bRoundedAhead)
    return 2;
  if (t.splits != 1)
    return 1;
  auto waves = [&](int64_t bm, int64_t bn) {
    int64_t tiles = ((rows + bm - 1) / bm) * ((n + bn - 1) / bn);
    return (tiles + sms - 1) / sms;
  };
  return double(waves(2 * kTileM, 128)) < 0.9 * double(waves(kTileM, 256)) ? 2
                                                                           : 1;
}

/// TF32: whether a K-major B of a `rows` x `n` x `kExtent` product is
/// better rounded once, by a copy kernel that reads and writes it at
/// `copyBytesPerSecond` after a launch of `launchSeconds`, than by the GEMM
/// kernel, which rounds each B tile in shared memory for every row tile (a
/// read and a write at 128 bytes a clock an SM, on `sms` SMs). B's bytes
/// cancel but for the launch: the row tiles must outnumber the SMs'
/// shared-memory rate over the copy's (132 x 128 B x 1.98 GHz / 4.1 TB/s:
/// 8.2 on the H200), by more for small weights. GPT-2's weights at 16384
/// rows qualify, 4096^3 too; a weight gradient's 768 rows do not.
inline bool roundedCopyPays(int64_t rows, int64_t n, int64_t kExtent,
                            int64_t sms, double clockHz,
                            double copyBytesPerSecond, double launchSeconds) {
  constexpr int64_t kTf32TileK = 32; // one 128-byte row of f32
  Tiling t = tiling((rows + kTileM - 1) / kTileM, n,
                    (kExtent + kTf32TileK - 1) / kTf32TileK, sms,
                    /*heavyEpilogue=*/false, /*elementBytes=*/4);
  int64_t rowsPerTile = kTileM * registerAGroups(rows, n, t, false, sms);
  double rowTiles = double((rows + rowsPerTile - 1) / rowsPerTile);
  double bytes = 2.0 * 4.0 * double(n) * double(kExtent);
  double pass = rowTiles * bytes / (double(sms) * 128.0 * clockHz);
  double copy = bytes / copyBytesPerSecond + launchSeconds;
  return pass > copy;
}

} // namespace nova::wgmma

#endif // NOVA_COSTMODEL_WGMMATILING_H
