//===- WgmmaTiling.h - the Hopper GEMM kernel's tiling, shared -*- C++ -*-===//
//
// How the sm_90a wgmma GEMM (lib/Conversion/TileToGPU/MatmulWgmma.cpp)
// tiles a product: the kernel and the configurator's prediction of its time
// read the same rules. Header only, no MLIR: the runtime includes it too.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_WGMMATILING_H
#define NOVA_RUNTIME_WGMMATILING_H

#include <cstdint>

namespace nova::wgmma {

/// Rows of a block tile: two consumer warpgroups of 64.
inline constexpr int64_t kTileM = 128;

/// Columns of a block tile (the wgmma N): 256 unless N fits in 128.
inline int64_t tileN(int64_t n) { return n > 128 ? 256 : 128; }

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

} // namespace nova::wgmma

#endif // NOVA_RUNTIME_WGMMATILING_H
