//===- Gather.cpp - the gather and scatter_add families -------------------===//
//
// gather reads whole table rows at the indices (embedding lookup), 16 bytes
// per access where the rows allow it, and runs the elementwise epilogue on
// the gathered elements. scatter_add (gather's adjoint) writes every output
// row exactly once: each block owns a tile of output rows, zeroes it in
// shared memory, scans the indices in order for the rows it owns and adds
// the matching update rows, then stores the tile. So one launch needs no
// zeroed output and no global atomics; the adds within a tile use
// shared-memory float atomics (parallel over the matches) or, with
// `deterministic`, run in index order per element.
//
// Indices outside the table are errors for nova.gather and
// nova.scatter_add (the interpreter rejects them): the GPU never touches
// memory outside a buffer for them; gather yields zeros and reports the
// first such index in the status record (nova::IndicesOutOfRange, which
// makes the optimizer skip its update and nova-run fail), and scatter_add
// drops the update row (its indices are those a gather of the same step
// has checked).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {

namespace {

template <typename OpT> OpT findOp(KernelContext &k) {
  for (Operation &op : k.block().without_terminator())
    if (auto found = dyn_cast<OpT>(op))
      return found;
  return {};
}

/// The row an index element names, as an index (negative stays negative,
/// so one unsigned compare against the row count checks both ends).
Value rowOf(ImplicitLocOpBuilder &b, Value indexElement) {
  return arith::IndexCastOp::create(b, b.getIndexType(), indexElement);
}

Value below(KernelContext &k, Value x, int64_t bound) {
  return arith::CmpIOp::create(k.b, arith::CmpIPredicate::ult, x,
                               k.body.index(bound));
}

gpu::AddressSpaceAttr workgroup(OpBuilder &b) {
  return gpu::AddressSpaceAttr::get(b.getContext(),
                                    gpu::AddressSpace::Workgroup);
}

} // namespace

FailureOr<Geometry> emitGather(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  nv::GatherOp gather = findOp<nv::GatherOp>(k);
  auto table = cast<BlockArgument>(gather.getTable());
  auto indices = cast<BlockArgument>(gather.getIndices());
  ArrayRef<int64_t> out = shapeOf(gather.getResult());
  int64_t tableRows = shapeOf(table).front();
  int64_t width = product(shapeOf(table).drop_front());
  int64_t count = product(shapeOf(indices));
  if (count == 0 || width == 0 || tableRows == 0)
    return k.fail("an empty table or index tensor is not lowered yet");

  // `vec` adjacent elements of a row per thread and step: one 16-byte (or
  // narrower) load of the table row and store of each output when rows
  // hold whole vectors (buffers are 16-byte aligned).
  unsigned widest = elementOf(table).getIntOrFloatBitWidth();
  bool vectorRows = vectorizable(elementOf(table));
  for (Value v : k.outputs()) {
    widest = std::max(widest, elementOf(v).getIntOrFloatBitWidth());
    vectorRows &= vectorizable(elementOf(v));
  }
  int64_t vec = std::min<int64_t>(std::max<int64_t>(1, k.schedule.getVector()),
                                  std::max<int64_t>(1, 128 / widest));
  vec = int64_t(llvm::bit_floor(uint64_t(vec)));
  while (vec > 1 && width % vec != 0)
    vec /= 2;
  if (!vectorRows)
    vec = 1;
  int64_t chunksPerRow = width / vec;
  int64_t chunks = count * chunksPerRow;
  int64_t threads = std::max<int64_t>(32, k.schedule.getThreads());
  int64_t grid = std::min<int64_t>((chunks + threads - 1) / threads,
                                   std::numeric_limits<int32_t>::max());

  Value flatTable = flatten(b, body.input(table));
  Value flatIndices = flatten(b, body.input(indices));
  SmallVector<Value> flatOutputs;
  for (Value buffer : k.outputBuffers)
    flatOutputs.push_back(flatten(b, buffer));
  Value first = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(threads)),
      k.threadId());
  Type element = elementOf(table);
  auto alignment = [&](Type t) {
    return llvm::MaybeAlign(
        std::max<uint64_t>(1, vec * t.getIntOrFloatBitWidth() / 8));
  };
  LogicalResult ok = k.loop(
      first, body.index(chunks), body.index(grid * threads),
      [&](Value chunk) -> LogicalResult {
        Value j = arith::DivUIOp::create(b, chunk, body.index(chunksPerRow));
        Value col = arith::MulIOp::create(
            b, arith::RemUIOp::create(b, chunk, body.index(chunksPerRow)),
            body.index(vec));
        Value indexElement = memref::LoadOp::create(b, flatIndices, j);
        Value row = rowOf(b, indexElement);
        Value inTable = below(k, row, tableRows);
        // Reported once per index, by the thread of its first chunk.
        Value firstChunk = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                                 col, body.index(0));
        Value outside = arith::XOrIOp::create(
            b, inTable,
            arith::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true)));
        (void)k.ifThen(arith::AndIOp::create(b, outside, firstChunk), [&] {
          body.raiseStatus(::nova::IndicesOutOfRange);
          body.recordFirstBad(4, j, indexElement);
          memref::StoreOp::create(
              b,
              arith::ConstantOp::create(b, b.getI64Type(),
                                        b.getI64IntegerAttr(tableRows)),
              body.status, ValueRange{body.index(5)});
          return success();
        });
        Value safeRow = arith::SelectOp::create(b, inTable, row, body.index(0));
        Value at = arith::AddIOp::create(
            b, arith::MulIOp::create(b, safeRow, body.index(width)), col);
        Value zero =
            arith::ConstantOp::create(b, element, b.getZeroAttr(element));
        SmallVector<Value> lanes;
        if (vec > 1) {
          auto type = VectorType::get({vec}, element);
          Value loaded =
              vector::LoadOp::create(b, type, flatTable, ValueRange{at},
                                     /*nontemporal=*/false, alignment(element));
          for (int64_t l = 0; l < vec; ++l)
            lanes.push_back(vector::ExtractOp::create(b, loaded, l));
        } else {
          lanes.push_back(memref::LoadOp::create(b, flatTable, at));
        }
        Value base = arith::AddIOp::create(
            b, arith::MulIOp::create(b, j, body.index(width)), col);
        SmallVector<SmallVector<Value>> values(k.outputs().size());
        for (int64_t l = 0; l < vec; ++l) {
          body.pushScope();
          Value e = arith::AddIOp::create(b, base, body.index(l));
          SmallVector<Value> idx = body.delinearize(e, out);
          body.bind(gather.getResult(), idx,
                    arith::SelectOp::create(b, inTable, lanes[l], zero));
          for (auto [i, v] : llvm::enumerate(k.outputs())) {
            auto x = body.eval(v, idx);
            if (failed(x))
              return k.unsupported();
            if (vec == 1)
              memref::StoreOp::create(b, *x, flatOutputs[i], ValueRange{e});
            values[i].push_back(*x);
          }
          body.popScope();
        }
        if (vec > 1)
          for (auto [i, v] : llvm::enumerate(k.outputs()))
            vector::StoreOp::create(
                b,
                vector::FromElementsOp::create(
                    b, VectorType::get({vec}, elementOf(v)), values[i]),
                flatOutputs[i], ValueRange{base}, /*nontemporal=*/false,
                alignment(elementOf(v)));
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{std::max<int64_t>(1, grid), threads};
}

FailureOr<Geometry> emitScatterAdd(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  nv::ScatterAddOp scatter = findOp<nv::ScatterAddOp>(k);
  auto indices = cast<BlockArgument>(scatter.getIndices());
  Value updates = scatter.getUpdates();
  ArrayRef<int64_t> out = shapeOf(scatter.getResult());
  ArrayRef<int64_t> indexShape = shapeOf(indices);
  ArrayRef<int64_t> rowShape = out.drop_front();
  int64_t outRows = out.front(), width = product(rowShape);
  int64_t count = product(indexShape);
  if (outRows == 0 || width == 0)
    return k.fail("an empty output is not lowered yet");
  if (count > std::numeric_limits<int32_t>::max())
    return k.fail("more than 2^31 - 1 indices are not lowered yet");

  Type element = elementOf(scatter.getResult());
  bool isFloat = isa<FloatType>(element);
  // Sums in f32 (bf16 and f16 outputs too), in f64 when deterministic (the
  // interpreter's accumulator: the same order gives its result exactly).
  Type accType = !isFloat          ? element
                 : k.deterministic ? Type(b.getF64Type())
                                   : Type(b.getF32Type());
  int64_t accBytes = accType.getIntOrFloatBitWidth() / 8;
  int64_t threads =
      std::max<int64_t>(32, (k.schedule.getThreads() + 31) / 32 * 32);
  threads = std::min<int64_t>(threads, 1024);
  // A tile of tileRows x tileCols output elements per block, its sums in
  // shared memory.
  constexpr int64_t kTileBytes = 32 * 1024;
  int64_t tileCols = std::min<int64_t>(width, kTileBytes / accBytes);
  int64_t tileRows = std::clamp<int64_t>(kTileBytes / (tileCols * accBytes), 1,
                                         std::min<int64_t>(outRows, 64));
  int64_t colTiles = (width + tileCols - 1) / tileCols;
  int64_t rowTiles = (outRows + tileRows - 1) / tileRows;
  if (rowTiles * colTiles > std::numeric_limits<int32_t>::max())
    return k.fail("needs more than 2^31 - 1 tiles");
  int64_t tileSize = tileRows * tileCols;

  auto shared = [&](int64_t n, Type t) {
    return k.func.addWorkgroupAttribution(
        MemRefType::get({n}, t, AffineMap(), workgroup(b)), b.getLoc());
  };
  Value acc = shared(tileSize, accType);
  Value matches = shared(threads, b.getI32Type());  // update row j
  Value matchRow = shared(threads, b.getI32Type()); // its row in the tile
  Value warpCounts = shared(threads / 32, b.getI32Type());

  Value tid = k.threadId();
  Value block = k.blockId();
  Value rowBase = arith::MulIOp::create(
      b, arith::DivUIOp::create(b, block, body.index(colTiles)),
      body.index(tileRows));
  Value colBase = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, block, body.index(colTiles)),
      body.index(tileCols));
  Value zeroAcc =
      isFloat
          ? arith::ConstantOp::create(b, accType, b.getFloatAttr(accType, 0.0))
                .getResult()
          : arith::ConstantOp::create(b, accType, b.getIntegerAttr(accType, 0))
                .getResult();
  auto toI32 = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getI32Type(), x);
  };
  auto toIndex = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x);
  };
  // Element (j, col) of the updates: the index tensor's dims, then a row's.
  auto update = [&](Value j, Value col) -> FailureOr<Value> {
    SmallVector<Value> idx = body.delinearize(j, indexShape);
    llvm::append_range(idx, body.delinearize(col, rowShape));
    auto x = body.eval(updates, idx);
    if (failed(x))
      return failure();
    return body.convert(body.widen(*x), accType);
  };

  (void)k.loop(tid, body.index(tileSize), body.index(threads), [&](Value e) {
    memref::StoreOp::create(b, zeroAcc, acc, ValueRange{e});
    return success();
  });
  gpu::BarrierOp::create(b);

  Value warp = arith::DivUIOp::create(b, tid, body.index(32));
  Value lane = arith::RemUIOp::create(b, tid, body.index(32));
  Value flatIndices = flatten(b, body.input(indices));
  LogicalResult ok = k.loop(
      body.index(0), body.index(count), body.index(threads),
      [&](Value chunk) -> LogicalResult {
        // This chunk's indices that name a row of the tile, compacted in
        // index order: a ballot per warp, the warps' counts in order.
        Value j = arith::AddIOp::create(b, chunk, tid);
        Value inCount = below(k, j, count);
        Value safeJ = arith::MinUIOp::create(b, j, body.index(count - 1));
        Value row = rowOf(b, memref::LoadOp::create(b, flatIndices, safeJ));
        Value rel = arith::SubIOp::create(b, row, rowBase);
        Value hit = arith::AndIOp::create(
            b, inCount,
            arith::AndIOp::create(b, below(k, row, outRows),
                                  below(k, rel, tileRows)));
        Value all = arith::ConstantOp::create(b, b.getI32IntegerAttr(-1));
        Value ballot = NVVM::VoteSyncOp::create(
            b, b.getI32Type(), all, hit,
            NVVM::VoteSyncKindAttr::get(b.getContext(),
                                        NVVM::VoteSyncKind::ballot));
        Value lower = NVVM::LaneMaskLtOp::create(b, b.getI32Type());
        Value before =
            LLVM::CtPopOp::create(b, arith::AndIOp::create(b, ballot, lower));
        (void)k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                             body.index(0)),
                       [&] {
                         memref::StoreOp::create(
                             b, LLVM::CtPopOp::create(b, ballot), warpCounts,
                             ValueRange{warp});
                         return success();
                       });
        gpu::BarrierOp::create(b);
        Value offset = arith::ConstantOp::create(b, b.getI32IntegerAttr(0));
        Value total = offset;
        for (int64_t w = 0; w < threads / 32; ++w) {
          Value n =
              memref::LoadOp::create(b, warpCounts, ValueRange{body.index(w)});
          Value isEarlier = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                                  body.index(w), warp);
          offset = arith::SelectOp::create(
              b, isEarlier, arith::AddIOp::create(b, offset, n), offset);
          total = arith::AddIOp::create(b, total, n);
        }
        (void)k.ifThen(hit, [&] {
          Value pos = toIndex(arith::AddIOp::create(b, offset, before));
          memref::StoreOp::create(b, toI32(j), matches, ValueRange{pos});
          memref::StoreOp::create(b, toI32(rel), matchRow, ValueRange{pos});
          return success();
        });
        gpu::BarrierOp::create(b);

        Value matched = toIndex(total);
        // Match `m`'s update at tile column `c` (global column `col`) and
        // its slot in the tile's sums.
        auto matchUpdate =
            [&](Value m, Value c,
                Value col) -> FailureOr<std::pair<Value, Value>> {
          Value mj = toIndex(memref::LoadOp::create(b, matches, ValueRange{m}));
          Value r = toIndex(memref::LoadOp::create(b, matchRow, ValueRange{m}));
          auto x = update(mj, col);
          if (failed(x))
            return failure();
          Value at = arith::AddIOp::create(
              b, arith::MulIOp::create(b, r, body.index(tileCols)), c);
          return std::make_pair(*x, at);
        };
        LogicalResult added = success();
        if (k.deterministic) {
          // Each thread owns columns of the tile and adds the matches in
          // index order: the same sums in the same order every run.
          added = k.loop(
              tid, body.index(tileCols), body.index(threads),
              [&](Value c) -> LogicalResult {
                Value col = arith::AddIOp::create(b, colBase, c);
                return k.ifThen(below(k, col, width), [&]() -> LogicalResult {
                  return k.loop(
                      body.index(0), matched, body.index(1),
                      [&](Value m) -> LogicalResult {
                        auto xAt = matchUpdate(m, c, col);
                        if (failed(xAt))
                          return k.unsupported();
                        auto [x, at] = *xAt;
                        Value old =
                            memref::LoadOp::create(b, acc, ValueRange{at});
                        Value sum =
                            isFloat
                                ? arith::AddFOp::create(b, old, x).getResult()
                                : arith::AddIOp::create(b, old, x).getResult();
                        memref::StoreOp::create(b, sum, acc, ValueRange{at});
                        return success();
                      });
                });
              });
        } else {
          // (match, column) pairs over all threads; a row that many
          // indices name gets its adds in parallel.
          Value pairs = arith::MulIOp::create(b, matched, body.index(tileCols));
          added = k.loop(
              tid, pairs, body.index(threads), [&](Value p) -> LogicalResult {
                Value m = arith::DivUIOp::create(b, p, body.index(tileCols));
                Value c = arith::RemUIOp::create(b, p, body.index(tileCols));
                Value col = arith::AddIOp::create(b, colBase, c);
                return k.ifThen(below(k, col, width), [&]() -> LogicalResult {
                  auto xAt = matchUpdate(m, c, col);
                  if (failed(xAt))
                    return k.unsupported();
                  auto [x, at] = *xAt;
                  memref::AtomicRMWOp::create(b,
                                              isFloat
                                                  ? arith::AtomicRMWKind::addf
                                                  : arith::AtomicRMWKind::addi,
                                              x, acc, ValueRange{at});
                  return success();
                });
              });
        }
        // The lists are rewritten by the next chunk.
        gpu::BarrierOp::create(b);
        return added;
      });
  if (failed(ok))
    return failure();

  ok = k.loop(tid, body.index(tileSize), body.index(threads),
              [&](Value e) -> LogicalResult {
                Value r = arith::DivUIOp::create(b, e, body.index(tileCols));
                Value c = arith::RemUIOp::create(b, e, body.index(tileCols));
                Value row = arith::AddIOp::create(b, rowBase, r);
                Value col = arith::AddIOp::create(b, colBase, c);
                Value inside = arith::AndIOp::create(b, below(k, row, outRows),
                                                     below(k, col, width));
                return k.ifThen(inside, [&] {
                  Value sum = memref::LoadOp::create(b, acc, ValueRange{e});
                  SmallVector<Value> idx{row};
                  llvm::append_range(idx, body.delinearize(col, rowShape));
                  memref::StoreOp::create(b, body.convert(sum, element),
                                          k.outputBuffers[0], idx);
                  return success();
                });
              });
  if (failed(ok))
    return failure();
  return Geometry{rowTiles * colTiles, threads};
}

} // namespace mlir::nova::tile_to_gpu
