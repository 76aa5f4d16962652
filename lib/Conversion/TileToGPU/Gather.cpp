//===- Gather.cpp - the gather and scatter_add families -------------------===//
//
// gather reads whole table rows at the indices (embedding lookup), 16 bytes
// per access where the rows allow it, and runs the elementwise epilogue on
// the gathered elements. scatter_add (gather's adjoint) writes every output
// row exactly once, in one launch, with no zeroed output and no global
// atomics. Where a block's sorted positions fit in shared memory (up to
// ~28K indices), buckets: each block owns a range of output rows, sorts the
// positions whose index names one of them by row (a stable counting sort
// in shared memory), and a warp per row sums that row's update rows in
// index order (16-byte loads) and writes it: the work is the updates read
// once, the output written once, and each block reading the indices twice.
// Otherwise tiles: each block owns a tile of output rows, zeroes it in
// shared memory, scans every index for the rows it owns and adds the
// matching update rows with shared-memory float atomics or, with
// `deterministic`, in index order per element, then stores the tile.
// Sums run in index order in buckets either way; `deterministic` sums in
// f64 there too (the interpreter's accumulator and order: its result).
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
#include "Hopper.h"

#include "nova/CostModel/ScatterLayout.h"

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

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

namespace {

/// What both scatter_add strategies need: the op's shapes, the sums' type
/// and the updates' elements.
struct ScatterAdd {
  nv::ScatterAddOp op;
  BlockArgument indices;
  Value updates;
  ArrayRef<int64_t> indexShape, rowShape;
  int64_t outRows, width, count;
  Type element, accType;
  bool isFloat;

  /// Element (j, col) of the updates (the index tensor's dims, then a
  /// row's), converted to the sums' type.
  FailureOr<Value> update(KernelContext &k, Value j, Value col) const {
    SmallVector<Value> idx = k.body.delinearize(j, indexShape);
    llvm::append_range(idx, k.body.delinearize(col, rowShape));
    return update(k, idx);
  }
  /// The element at `idx`, an index of the updates' shape.
  FailureOr<Value> update(KernelContext &k, ValueRange idx) const {
    auto x = k.body.eval(updates, idx);
    if (failed(x))
      return failure();
    return k.body.convert(k.body.widen(*x), accType);
  }
  Value zero(ImplicitLocOpBuilder &b) const {
    return isFloat ? arith::ConstantOp::create(b, accType,
                                               b.getFloatAttr(accType, 0.0))
                         .getResult()
                   : arith::ConstantOp::create(b, accType,
                                               b.getIntegerAttr(accType, 0))
                         .getResult();
  }
  Value add(ImplicitLocOpBuilder &b, Value x, Value y) const {
    return isFloat ? arith::AddFOp::create(b, x, y).getResult()
                   : arith::AddIOp::create(b, x, y).getResult();
  }
};

FailureOr<Geometry> emitScatterTiles(KernelContext &k, const ScatterAdd &s) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  BlockArgument indices = s.indices;
  ArrayRef<int64_t> rowShape = s.rowShape;
  int64_t outRows = s.outRows, width = s.width, count = s.count;
  Type element = s.element, accType = s.accType;
  bool isFloat = s.isFloat;
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
  Value zeroAcc = s.zero(b);
  auto toI32 = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getI32Type(), x);
  };
  auto toIndex = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x);
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
          auto x = s.update(k, mj, col);
          if (failed(x))
            return failure();
          Value at = arith::AddIOp::create(
              b, arith::MulIOp::create(b, r, body.index(tileCols)), c);
          return std::make_pair(*x, at);
        };
        LogicalResult added = success();
        if (k.options.deterministic) {
          // Each thread owns columns of the tile and adds the matches in
          // index order: the same sums in the same order every run.
          added = k.loop(
              tid, body.index(tileCols), body.index(threads),
              [&](Value c) -> LogicalResult {
                Value col = arith::AddIOp::create(b, colBase, c);
                return k.ifThen(below(k, col, width), [&]() -> LogicalResult {
                  return k.loop(body.index(0), matched, body.index(1),
                                [&](Value m) -> LogicalResult {
                                  auto xAt = matchUpdate(m, c, col);
                                  if (failed(xAt))
                                    return k.unsupported();
                                  auto [x, at] = *xAt;
                                  Value old = memref::LoadOp::create(
                                      b, acc, ValueRange{at});
                                  memref::StoreOp::create(b, s.add(b, old, x),
                                                          acc, ValueRange{at});
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

/// 32-bit words of the dynamic shared buffer, by index.
struct SharedWords {
  ImplicitLocOpBuilder &b;
  Value base;

  Value at(Value i) {
    return LLVM::GEPOp::create(
        b, base.getType(), b.getI32Type(), base,
        ArrayRef<LLVM::GEPArg>{
            arith::IndexCastOp::create(b, b.getI32Type(), i).getResult()});
  }
  Value load(Value i) { return LLVM::LoadOp::create(b, b.getI32Type(), at(i)); }
  void store(Value i, Value x) { LLVM::StoreOp::create(b, x, at(i)); }
  void increment(Value i) {
    LLVM::AtomicRMWOp::create(
        b, LLVM::AtomicBinOp::add, at(i),
        arith::ConstantOp::create(b, b.getI32IntegerAttr(1)),
        LLVM::AtomicOrdering::monotonic);
  }
};

/// scatter_add by buckets: block `g` owns output rows [g R, (g + 1) R) and
/// sorts the positions j whose index names one of them by row, stably
/// (a counting sort in shared memory: warp w scans its contiguous segment
/// of the indices twice, counting per (row, w), then, after a block-wide
/// prefix sum, placing each match at its row's next slot with
/// match.any.sync ranks); then warp after warp takes a row and sums the
/// update rows of its matches in index order, each lane holding `vec`
/// adjacent columns (16-byte loads and stores) of up to 32 / vec chunks
/// in registers, and writes the row once. The update rows are read once in
/// all; each block reads the indices twice.
FailureOr<Geometry> emitScatterBuckets(KernelContext &k, const ScatterAdd &s,
                                       ::nova::scatter::Buckets layout) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  constexpr int64_t kWarps = ::nova::scatter::kWarps, kThreads = 32 * kWarps;
  constexpr int64_t kUnroll = ::nova::scatter::kIndicesPerStep / 32;
  int64_t rows = layout.rows, counters = layout.counters();
  Type i32 = b.getI32Type();
  auto i32Const = [&](int32_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(v)).getResult();
  };
  auto toI32 = [&](Value x) { return arith::IndexCastOp::create(b, i32, x); };
  auto toIndex = [&](Value x) {
    return arith::IndexCastOp::create(b, b.getIndexType(), x);
  };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, x, y); };
  auto mul = [&](Value x, int64_t c) {
    return arith::MulIOp::create(b, x, body.index(c));
  };

  // Updates' inputs read `vec` adjacent elements at a time: the kernel
  // inputs with the updates' shape (their elements are bound for the
  // updates' elementwise prologue).
  SmallVector<BlockArgument> rowInputs;
  unsigned widest = s.element.getIntOrFloatBitWidth();
  bool vectorRows = vectorizable(s.element);
  for (BlockArgument arg : k.block().getArguments()) {
    if (arg == s.indices || shapeOf(arg) != shapeOf(s.updates))
      continue;
    rowInputs.push_back(arg);
    widest = std::max(widest, elementOf(arg).getIntOrFloatBitWidth());
    vectorRows &= vectorizable(elementOf(arg));
  }
  int64_t vec = vectorRows ? int64_t(llvm::bit_floor(
                                 uint64_t(std::max<unsigned>(1, 128 / widest))))
                           : 1;
  while (vec > 1 && s.width % vec != 0)
    vec /= 2;
  int64_t chunks = s.width / vec;
  // Chunks per lane in registers: at most 32 words of sums (128 registers
  // a thread at most for 512 threads; more chunks take further passes over
  // the row's matches).
  int64_t accWords =
      std::max<int64_t>(1, s.accType.getIntOrFloatBitWidth() / 32);
  int64_t perLane = std::clamp<int64_t>(
      ceilDiv(chunks, 32), 1, std::max<int64_t>(1, 32 / (vec * accWords)));
  int64_t groups = ceilDiv(chunks, 32 * perLane);

  SharedWords words{
      b, hopper::dynamicSharedMemory(k, layout.sharedBytes(s.count))};
  Value warpTotals = k.func.addWorkgroupAttribution(
      MemRefType::get({kWarps}, i32, AffineMap(), workgroup(b)), b.getLoc());
  Value tid = k.threadId();
  Value warp = arith::DivUIOp::create(b, tid, body.index(32));
  Value lane = arith::RemUIOp::create(b, tid, body.index(32));
  Value rowBase = mul(k.blockId(), rows);
  Value flatIndices = flatten(b, body.input(s.indices));
  int64_t segment = ceilDiv(s.count, kWarps);
  Value segBegin = mul(warp, segment);
  Value segEnd = arith::MinUIOp::create(b, add(segBegin, body.index(segment)),
                                        body.index(s.count));
  // The counter (then the next free slot) of row `rel`'s matches in this
  // warp's segment.
  auto counter = [&](Value rel) { return add(mul(rel, kWarps), warp); };

  // fn(j, hit, rel) for the warp's segment in order, 32 x kUnroll
  // positions a step with their index loads first; the bounds are the
  // warp's, so every lane takes every step.
  auto scanSegment = [&](auto fn) {
    return k.loop(
        segBegin, segEnd, body.index(32 * kUnroll),
        [&](Value step) -> LogicalResult {
          SmallVector<std::array<Value, 3>> positions;
          for (int64_t u = 0; u < kUnroll; ++u) {
            Value j = add(add(step, body.index(32 * u)), lane);
            Value inSegment =
                arith::CmpIOp::create(b, arith::CmpIPredicate::ult, j, segEnd);
            Value safeJ = arith::MinUIOp::create(b, j, body.index(s.count - 1));
            Value row = rowOf(b, memref::LoadOp::create(b, flatIndices, safeJ));
            positions.push_back({j, inSegment, row});
          }
          for (auto [j, inSegment, row] : positions) {
            Value rel = arith::SubIOp::create(b, row, rowBase);
            Value hit = arith::AndIOp::create(
                b, inSegment,
                arith::AndIOp::create(b, below(k, row, s.outRows),
                                      below(k, rel, rows)));
            if (failed(fn(j, hit, rel)))
              return failure();
          }
          return success();
        });
  };

  // 1. Count the matches per (row, warp).
  (void)k.loop(tid, body.index(counters), body.index(kThreads), [&](Value e) {
    words.store(e, i32Const(0));
    return success();
  });
  gpu::BarrierOp::create(b);
  (void)scanSegment([&](Value, Value hit, Value rel) {
    return k.ifThen(hit, [&] {
      words.increment(counter(rel));
      return success();
    });
  });
  gpu::BarrierOp::create(b);

  // 2. Exclusive prefix sum of the counters in (row, warp) order: each
  // thread a run of them, a shuffle scan within the warp, the warps'
  // totals in order.
  int64_t run = ceilDiv(counters, kThreads);
  Value runBegin = mul(tid, run);
  Value runEnd = arith::MinUIOp::create(b, add(runBegin, body.index(run)),
                                        body.index(counters));
  auto overRun = [&](Value init, auto fn) {
    auto forOp = scf::ForOp::create(b, runBegin, runEnd, body.index(1),
                                    ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    scf::YieldOp::create(
        b, fn(forOp.getInductionVar(), forOp.getRegionIterArg(0)));
    return forOp.getResult(0);
  };
  Value runTotal = overRun(i32Const(0), [&](Value e, Value total) -> Value {
    return arith::AddIOp::create(b, total, words.load(e));
  });
  Value inclusive = runTotal;
  for (int32_t d = 1; d < 32; d *= 2) {
    Value below32 = gpu::ShuffleOp::create(b, inclusive, d, int32_t(32),
                                           gpu::ShuffleMode::UP)
                        .getShuffleResult();
    Value takes = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, lane,
                                        body.index(d));
    inclusive = arith::SelectOp::create(
        b, takes, arith::AddIOp::create(b, inclusive, below32), inclusive);
  }
  (void)k.ifThen(
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane, body.index(31)),
      [&] {
        memref::StoreOp::create(b, inclusive, warpTotals, ValueRange{warp});
        return success();
      });
  gpu::BarrierOp::create(b);
  Value offset = arith::SubIOp::create(b, inclusive, runTotal);
  for (int64_t w = 0; w + 1 < kWarps; ++w) {
    Value n = memref::LoadOp::create(b, warpTotals, ValueRange{body.index(w)});
    Value isEarlier = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                            body.index(w), warp);
    offset = arith::SelectOp::create(
        b, isEarlier, arith::AddIOp::create(b, offset, n), offset);
  }
  (void)overRun(offset, [&](Value e, Value next) -> Value {
    Value n = words.load(e);
    words.store(e, next);
    return arith::AddIOp::create(b, next, n);
  });
  gpu::BarrierOp::create(b);

  // 3. Place each match at its row's next slot, in index order: lanes
  // naming the same row take consecutive slots by lane, the last of them
  // advances the counter.
  Value allLanes = i32Const(-1);
  Value sortedBase = body.index(counters);
  // Most 32-position steps name none of a block's rows: the warp skips
  // them whole (a ballot; the branch is uniform, so the lanes stay
  // converged for match.any and the warp barriers).
  (void)scanSegment([&](Value j, Value hit, Value rel) -> LogicalResult {
    Value ballot = NVVM::VoteSyncOp::create(
        b, i32, allLanes, hit,
        NVVM::VoteSyncKindAttr::get(b.getContext(),
                                    NVVM::VoteSyncKind::ballot));
    Value anyHit =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, ballot, i32Const(0));
    return k.ifThen(anyHit, [&]() -> LogicalResult {
      Value key = arith::SelectOp::create(b, hit, toI32(rel), i32Const(-1));
      Value peers = NVVM::MatchSyncOp::create(b, i32, allLanes, key,
                                              NVVM::MatchSyncKind::any);
      Value lower = NVVM::LaneMaskLtOp::create(b, i32);
      Value rank =
          LLVM::CtPopOp::create(b, arith::AndIOp::create(b, peers, lower));
      Value group = LLVM::CtPopOp::create(b, peers);
      (void)k.ifThen(hit, [&] {
        Value slot = arith::AddIOp::create(b, words.load(counter(rel)), rank);
        words.store(add(sortedBase, toIndex(slot)), toI32(j));
        return success();
      });
      NVVM::SyncWarpOp::create(b, allLanes);
      Value last =
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rank,
                                arith::SubIOp::create(b, group, i32Const(1)));
      (void)k.ifThen(arith::AndIOp::create(b, hit, last), [&] {
        Value at = counter(rel);
        words.store(at, arith::AddIOp::create(b, words.load(at), group));
        return success();
      });
      NVVM::SyncWarpOp::create(b, allLanes);
      return success();
    });
  });
  gpu::BarrierOp::create(b);

  // 4. A warp per row: the sums of its matches' update rows, in index
  // order, written once (zeros for a row no index names). Row `rel`'s
  // matches end where the last warp's slot counter of it stopped.
  Value flatOutput = vec > 1 ? flatten(b, k.outputBuffers[0]) : Value();
  auto alignment = [&](Type t) {
    return llvm::MaybeAlign(vec * t.getIntOrFloatBitWidth() / 8);
  };
  auto endOf = [&](Value rel) {
    return toIndex(words.load(add(mul(rel, kWarps), body.index(kWarps - 1))));
  };
  LogicalResult ok = k.loop(
      warp, body.index(rows), body.index(kWarps),
      [&](Value rel) -> LogicalResult {
        Value row = add(rowBase, rel);
        return k.ifThen(below(k, row, s.outRows), [&]() -> LogicalResult {
          Value isFirst = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                                rel, body.index(0));
          Value previous = arith::SelectOp::create(
              b, isFirst, body.index(0),
              arith::SubIOp::create(b, rel, body.index(1)));
          Value begin = arith::SelectOp::create(b, isFirst, body.index(0),
                                                endOf(previous));
          Value end = endOf(rel);
          return k.loop(
              body.index(0), body.index(groups), body.index(1),
              [&](Value g) -> LogicalResult {
                SmallVector<Value> chunk, inRow;
                for (int64_t c = 0; c < perLane; ++c) {
                  Value x =
                      add(add(mul(g, 32 * perLane), body.index(32 * c)), lane);
                  inRow.push_back(below(k, x, chunks));
                  chunk.push_back(
                      arith::MinUIOp::create(b, x, body.index(chunks - 1)));
                }
                SmallVector<Value> zeros(perLane * vec, s.zero(b));
                auto forOp =
                    scf::ForOp::create(b, begin, end, body.index(1), zeros);
                {
                  OpBuilder::InsertionGuard guard(b);
                  b.setInsertionPointToStart(forOp.getBody());
                  body.pushScope();
                  Value j = toIndex(
                      words.load(add(sortedBase, forOp.getInductionVar())));
                  SmallVector<Value> jIdx = body.delinearize(j, s.indexShape);
                  Value rowStart = mul(j, s.width);
                  SmallVector<Value> sums;
                  for (int64_t c = 0; c < perLane; ++c) {
                    Value firstCol = mul(chunk[c], vec);
                    SmallVector<SmallVector<Value>> lanes;
                    if (vec > 1)
                      for (BlockArgument arg : rowInputs) {
                        Type e = elementOf(arg);
                        Value loaded = vector::LoadOp::create(
                            b, VectorType::get({vec}, e),
                            flatten(b, body.input(arg)),
                            ValueRange{add(rowStart, firstCol)},
                            /*nontemporal=*/false, alignment(e));
                        auto &values = lanes.emplace_back();
                        for (int64_t l = 0; l < vec; ++l)
                          values.push_back(
                              vector::ExtractOp::create(b, loaded, l));
                      }
                    for (int64_t l = 0; l < vec; ++l) {
                      SmallVector<Value> idx(jIdx);
                      llvm::append_range(
                          idx, body.delinearize(add(firstCol, body.index(l)),
                                                s.rowShape));
                      if (vec > 1)
                        for (auto [arg, values] : llvm::zip(rowInputs, lanes))
                          body.bind(arg, idx, values[l]);
                      auto x = s.update(k, idx);
                      if (failed(x))
                        return k.unsupported();
                      sums.push_back(
                          s.add(b, forOp.getRegionIterArg(c * vec + l), *x));
                    }
                  }
                  body.popScope();
                  scf::YieldOp::create(b, sums);
                }
                for (int64_t c = 0; c < perLane; ++c) {
                  (void)k.ifThen(inRow[c], [&] {
                    Value firstCol = mul(chunk[c], vec);
                    SmallVector<Value> values;
                    for (int64_t l = 0; l < vec; ++l)
                      values.push_back(body.convert(
                          forOp.getResult(c * vec + l), s.element));
                    if (vec > 1) {
                      vector::StoreOp::create(
                          b,
                          vector::FromElementsOp::create(
                              b, VectorType::get({vec}, s.element), values),
                          flatOutput,
                          ValueRange{add(mul(row, s.width), firstCol)},
                          /*nontemporal=*/false, alignment(s.element));
                    } else {
                      SmallVector<Value> idx{row};
                      llvm::append_range(
                          idx, body.delinearize(firstCol, s.rowShape));
                      memref::StoreOp::create(b, values.front(),
                                              k.outputBuffers[0], idx);
                    }
                    return success();
                  });
                }
                return success();
              });
        });
      });
  if (failed(ok))
    return failure();
  return Geometry{layout.blocks, kThreads};
}

} // namespace

FailureOr<Geometry> emitScatterAdd(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  ScatterAdd s;
  s.op = findOp<nv::ScatterAddOp>(k);
  s.indices = cast<BlockArgument>(s.op.getIndices());
  s.updates = s.op.getUpdates();
  ArrayRef<int64_t> out = shapeOf(s.op.getResult());
  s.indexShape = shapeOf(s.indices);
  s.rowShape = out.drop_front();
  s.outRows = out.front();
  s.width = product(s.rowShape);
  s.count = product(s.indexShape);
  if (s.outRows == 0 || s.width == 0)
    return k.fail("an empty output is not lowered yet");
  if (s.count > std::numeric_limits<int32_t>::max())
    return k.fail("more than 2^31 - 1 indices are not lowered yet");
  s.element = elementOf(s.op.getResult());
  s.isFloat = isa<FloatType>(s.element);
  // Sums in f32 (bf16 and f16 outputs too), in f64 when deterministic (the
  // interpreter's accumulator: the same order gives its result exactly).
  s.accType = !s.isFloat                ? s.element
              : k.options.deterministic ? Type(b.getF64Type())
                                        : Type(b.getF32Type());
  // Buckets when a block's sorted positions fit in shared memory (every
  // index could name its rows); else tiles, each scanning every index.
  if (s.count > 0)
    if (auto layout =
            ::nova::scatter::Buckets::of(s.outRows, s.count, k.target))
      return emitScatterBuckets(k, s, *layout);
  return emitScatterTiles(k, s);
}

} // namespace mlir::nova::tile_to_gpu
