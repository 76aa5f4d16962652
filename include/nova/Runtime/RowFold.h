//===- RowFold.h - how a row kernel folds its sums across blocks -*- C++ -*-===//
//
// A row kernel with sums across its rows (lib/Conversion/TileToGPU/
// Reductions.cpp) writes one partial per block and sum, then the last
// blocks to finish fold them; the configurator prices that fold by the
// same rules. Header only, no MLIR: the runtime includes it too.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_ROWFOLD_H
#define NOVA_RUNTIME_ROWFOLD_H

#include <cstdint>

namespace nova::rowfold {

/// The most blocks a row kernel with column sums runs (a bounded grid
/// looping over the rows), so at most this many partials fold per sum.
inline constexpr int64_t kMaxAcrossBlocks = 256;
/// Rows of partials a folding thread loads before combining any.
inline constexpr int64_t kFoldLoads = 16;

/// How the blocks' partials fold: `groups` groups of `size` blocks, each
/// folded by its last block to finish, then (more than one group) the
/// groups by the last of those.
struct FoldLevels {
  int64_t size, groups;
};

/// Up to kFoldLoads blocks fold in one group; more in groups of the largest
/// divisor of `grid` up to its square root (its groups then fold in a
/// second level).
inline FoldLevels foldLevels(int64_t grid) {
  if (grid <= kFoldLoads)
    return {grid, 1};
  int64_t size = 1;
  for (int64_t d = 2; d * d <= grid; ++d)
    if (grid % d == 0)
      size = d;
  return {size, grid / size};
}

/// The rounds of loads a fold of `sums` column sums of `cols` f64 columns
/// over `grid` blocks takes, level by level, on `threads` threads: a
/// thread takes 16 bytes (2 columns) of a sum a round, from up to
/// kFoldLoads rows.
inline int64_t foldRounds(int64_t grid, int64_t sums, int64_t cols,
                          int64_t threads) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  auto level = [&](int64_t rows) {
    return sums * ceilDiv(cols, 2 * threads) * ceilDiv(rows, kFoldLoads);
  };
  FoldLevels l = foldLevels(grid);
  return level(l.size) + (l.groups > 1 ? level(l.groups) : 0);
}

} // namespace nova::rowfold

#endif // NOVA_RUNTIME_ROWFOLD_H
