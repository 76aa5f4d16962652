//===- RowFold.h - how a row kernel folds its sums across blocks -*- C++
//-*-===//
//
// A row kernel with sums across its rows (lib/Conversion/TileToGPU/
// Reductions.cpp) writes one partial per block and sum; the last blocks to
// finish fold them, each its share of the sums' columns over every block.
// The configurator prices that fold by the same plan. Header only, no
// MLIR (the cost model).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_COSTMODEL_ROWFOLD_H
#define NOVA_COSTMODEL_ROWFOLD_H

#include <algorithm>
#include <cstdint>

namespace nova::rowfold {

/// The most blocks a row kernel with column sums runs (a bounded grid
/// looping over the rows), so at most this many partials fold per sum.
inline constexpr int64_t kMaxAcrossBlocks = 256;
/// Rows of partials a folding thread loads before combining any.
inline constexpr int64_t kFoldLoads = 16;
/// The most blocks that fold. Each waits until every block has written its
/// partials, so the device must hold that many at once (then one is always
/// left for a block still working): the kernel declares how many
/// (`co_resident` in the executable) and the runtime checks at load.
inline constexpr int64_t kMaxFolders = 128;
/// The most row slices an item's rows split into (their totals combine in
/// slice order, one after another).
inline constexpr int64_t kMaxSlices = 32;

/// How the partials fold. An item is 16 bytes of one sum's columns (one
/// word for a total). The last `folders` blocks to finish each take
/// `perFolder` consecutive items; within a folder, an item's rows split
/// into `slices` runs of `rowsPerSlice` blocks, a thread each, folded in
/// block order, then the slices in order.
struct FoldPlan {
  int64_t folders, perFolder, slices, rowsPerSlice;
};

/// Enough folders that a thread loads at most kFoldLoads rows (one round
/// of loads in flight), within kMaxFolders and the grid; a folder's items
/// split over its threads.
inline FoldPlan foldPlan(int64_t grid, int64_t items, int64_t threads) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  grid = std::max<int64_t>(1, grid);
  items = std::max<int64_t>(1, items);
  int64_t folders =
      std::clamp<int64_t>(ceilDiv(items * grid, threads * kFoldLoads), 1,
                          std::min({kMaxFolders, grid, items}));
  int64_t perFolder = ceilDiv(items, folders);
  folders = ceilDiv(items, perFolder);
  int64_t slices =
      std::clamp<int64_t>(threads / perFolder, 1, std::min(kMaxSlices, grid));
  int64_t rowsPerSlice = ceilDiv(grid, slices);
  return {folders, perFolder, ceilDiv(grid, rowsPerSlice), rowsPerSlice};
}

/// The columns of one item of a sum `width` columns wide whose partials
/// take `bytes` bytes each: as many as fill 16 bytes, halved until they
/// divide the width.
inline int64_t itemColumns(int64_t width, int64_t bytes) {
  int64_t v = std::max<int64_t>(1, 16 / std::max<int64_t>(1, bytes));
  while (v > 1 && width % v)
    v /= 2;
  return v;
}

/// The items of `sums` column sums of `cols` f64 columns.
inline int64_t columnSumItems(int64_t sums, int64_t cols) {
  return sums * (cols / itemColumns(cols, 8));
}

/// The rounds of loads a folding thread takes: its items (more than the
/// folder's threads loop) times its rows in rounds of kFoldLoads.
inline int64_t foldRounds(const FoldPlan &plan, int64_t threads) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  return ceilDiv(plan.perFolder, std::min(plan.perFolder, threads)) *
         ceilDiv(plan.rowsPerSlice, kFoldLoads);
}

} // namespace nova::rowfold

#endif // NOVA_COSTMODEL_ROWFOLD_H
