//===- AttentionBackwardWgmma.cpp - attention backward on Hopper's wgmma --===//
//
// The attention backward for bf16 operands with head dim 64 or 128
// (sm_90a), in one launch of two kinds of blocks, each gradient element
// written by exactly one block (deterministic, no atomics, no workspace):
//
//  - K/V-stationary blocks own 128 keys of one (batch, head) and stream
//    the 64-row query tiles that see them (causal: from the diagonal on):
//    S^T = K Q^T and dP^T = V dO^T, P^T = exp2(S^T scale log2 e - LSE log2 e),
//    dS^T = P^T (dP^T - D), then dV += P^T dO and dK += dS^T Q in f32
//    registers;
//  - Q-stationary blocks own 128 queries and stream 64-key K/V tiles (causal:
//    up to the diagonal): S and dP as above, dQ += dS K.
//
// The second kind recomputes S and dP (7 GEMMs where atomics into an f32
// workspace would need 5), the price of determinism without a second
// kernel. D = rowsum(dO * O) comes from O and dO tiles in shared memory:
// the Q-stationary consumers sum their own rows, and for the streamed
// query tiles the producer warpgroup (which TMA-loads O beside Q and dO)
// writes D and the log-sum-exp into the stage before the consumers read
// them, a tile or more behind its loads.
//
// Work items (a block of either kind for one (batch, head)) come in
// classes (kind, stationary tile), ordered heaviest first by tile steps
// times wgmma products (longest processing time first). With at least 8
// items per SM the grid is persistent: 132 blocks walk rounds of 132 items,
// forward in even rounds and backward in odd ones (so each block's items
// sum to about the same weight); the ring's stages run on across items and
// the producer loads the next item's stationary tiles into the second set
// (d64; at d128 one set fits, reloaded once the consumers' last wgmma of
// the item is done, under its epilogue) and its first streamed tiles while
// the consumers finish this one. With fewer, a block per item, heaviest
// first for the hardware's block scheduler.
//
// Warpgroup 0 is the producer (setmaxnreg 40; one thread issues the TMA
// loads, 128-byte swizzle, zero fill past the sequence's end, into a ring
// of stages with "full", "stats full" and "empty" mbarriers); warpgroups
// 1 and 2 are consumers of 64 stationary rows each: S and dP by wgmma from
// shared memory (both K-major), the products with P or dS as register-A
// wgmmas reading the streamed tile N-major (the bf16 transpose bit). Masks
// only on tiles that reach past the sequence's end or cross the diagonal.
//
//===----------------------------------------------------------------------===//

#include "AttentionWgmma.h"
#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

constexpr int64_t kRows = 64;        // streamed tile rows; a consumer's rows
constexpr int64_t kStationary = 128; // stationary rows of a block
constexpr int64_t kConsumers = kStationary / kRows;
constexpr int64_t kThreads = 128 * (1 + kConsumers);

/// The dynamic shared buffer: `sets` sets of three stationary tiles of 128
/// rows (K, V; or Q, dO, O: two sets where they fit, so that the next work
/// item's load runs under this one's tiles), then per stage three streamed
/// tiles of 64 rows (Q, dO, O; or K, V) and the stats (log2-domain
/// log-sum-exp and D of 64 rows, f32), then the mbarriers: stationary full
/// and stationary empty per set, then full, stats full and empty per
/// stage. Tiles are head-dim chunks of 64 columns, 128 bytes a row.
struct BackwardLayout {
  int64_t d = 64, stages = 2, sets = 1;
  int64_t tileBytes(int64_t rows) const { return rows * d * 2; }
  static int64_t chunkBytes(int64_t rows) { return rows * 128; }
  int64_t setBytes() const { return 3 * tileBytes(kStationary); }
  int64_t stationary(int64_t slot) const {
    return slot * tileBytes(kStationary);
  }
  int64_t statsOffset() const { return 3 * tileBytes(kRows); }
  int64_t stageBytes() const {
    return llvm::alignTo(statsOffset() + 2 * kRows * 4, 1024);
  }
  int64_t stageBase() const { return sets * setBytes(); }
  int64_t barriers() const { return stageBase() + stages * stageBytes(); }
  int64_t sharedBytes() const {
    return barriers() + 8 * (2 * sets + 3 * stages);
  }
};

std::optional<std::string> whyNot(const AttentionBackward &bwd) {
  if (!bwd.element.isBF16())
    return std::string("operands are not bf16");
  if (bwd.d != bwd.dv || (bwd.d != 64 && bwd.d != 128))
    return std::string("head dims other than 64 or 128");
  if (llvm::count_if(bwd.lead, [](int64_t n) { return n != 1; }) > 3)
    return std::string("more than 3 batch dims (TMA has 5)");
  for (const AttentionOperand *op :
       {&bwd.q, &bwd.key, &bwd.value, &bwd.out, &bwd.outGrad})
    if (auto why = attention_wgmma::operandWhyNot(*op, bwd.lead))
      return why;
  if (bwd.tq >= (int64_t(1) << 31) || bwd.tk >= (int64_t(1) << 31))
    return std::string("sequences too long for 32-bit TMA coordinates");
  return std::nullopt;
}

/// One kind of block: which operands are stationary and which stream.
struct Kind {
  bool keys; // K/V-stationary (dK, dV) or Q-stationary (dQ)
  SmallVector<Value> stationary, streamed; // TMA descriptors, by slot
  int64_t stationaryRows, streamedRows;    // the sequences' lengths
};

/// A class of work items: the blocks of one kind at one stationary tile
/// (the same for every (batch, head)), with the streamed tiles they see.
struct ItemClass {
  bool keys;
  int64_t tile, tiles;
  /// Tile steps in wgmma products: 4 for K/V-stationary blocks (S, dP, dV,
  /// dK), 3 for Q-stationary ones (S, dP, dQ).
  int64_t weight() const { return tiles * (keys ? 4 : 3); }
};

class BackwardEmitter : hopper::EmitterBase {
public:
  explicit BackwardEmitter(const AttentionBackward &bwd)
      : EmitterBase(bwd.k), bwd(bwd) {}
  FailureOr<Geometry> emit();

private:
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value ult(Value x, int64_t y) { return ult(x, idx(y)); }
  Value shared(Value byteOffset) {
    return hopper::sharedAt(b, smem, byteOffset);
  }
  Value shared(int64_t byteOffset) { return shared(i64(byteOffset)); }
  Value barrier(Value index) {
    return shared(
        add(i64(layout.barriers()), arith::MulIOp::create(b, index, i64(8))));
  }
  Value stationaryFull(Value set) { return barrier(set); }
  Value stationaryEmpty(Value set) {
    return barrier(add(set, i64(layout.sets)));
  }
  Value full(Value stage) { return barrier(add(stage, i64(2 * layout.sets))); }
  Value statsFull(Value stage) {
    return barrier(add(stage, i64(2 * layout.sets + layout.stages)));
  }
  Value empty(Value stage) {
    return barrier(add(stage, i64(2 * layout.sets + 2 * layout.stages)));
  }
  /// The stationary set (i64) of the block's work item `ordinal`, the
  /// byte offset of its slot `slot`, and the set's phase.
  Value setOf(Value ordinal) { return toI64(rem(ordinal, layout.sets)); }
  Value stationaryAt(Value set, int64_t slot) {
    return add(arith::MulIOp::create(b, set, i64(layout.setBytes())),
               i64(layout.stationary(slot)));
  }
  Value setPhaseOf(Value ordinal) {
    return toI32(rem(div(ordinal, layout.sets), 2));
  }
  /// Byte offset (i64) of streamed slot `slot` of `stage`, and of its stats
  /// (row `row` of `which`: 0 log-sum-exp, 1 D).
  Value streamedTile(Value stage, int64_t slot) {
    return add(i64(layout.stageBase() + slot * layout.tileBytes(kRows)),
               arith::MulIOp::create(b, stage, i64(layout.stageBytes())));
  }
  Value statsAt(Value stage, Value which, Value row) {
    Value at = add(mul(which, kRows), row);
    return add(streamedTile(stage, 0),
               add(i64(layout.statsOffset()),
                   arith::MulIOp::create(b, toI64(at), i64(4))));
  }
  Value stageOf(Value j) { return toI64(rem(j, layout.stages)); }
  Value phaseOf(Value j) { return toI32(rem(div(j, layout.stages), 2)); }

  /// A work item: (batch, head), first stationary row, the first streamed
  /// tile and how many it streams; `ordinal` counts the block's items and
  /// `step` the streamed tiles of its earlier ones (the ring's stages and
  /// phases run on across items).
  struct Work {
    Value bh, base, first, tiles, ordinal, step;
  };
  Work work(const Kind &kind, Value bh, Value tile);
  /// The block's share of the grid: fn(kind, work) for each of its work
  /// items in order (none may fail for one role and not the other).
  LogicalResult
  forEachItem(function_ref<LogicalResult(const Kind &, const Work &)> fn);
  /// fn(kind, work) for item `position`; returns its streamed tiles.
  FailureOr<Value>
  item(Value position, Value ordinal, Value step,
       function_ref<LogicalResult(const Kind &, const Work &)> fn);
  /// Loads `tiles` of `rows` rows from row `row` of each descriptor into
  /// consecutive slots from `offset` (i64, slot size `slotBytes`), as 64-row
  /// boxes of 64-column chunks, completing on `bar`.
  void load(ArrayRef<Value> descs, Value bh, Value row, int64_t rows,
            Value offset, int64_t slotBytes, Value bar);
  void producer(const Kind &kind, const Work &w);
  /// Once streamed tile j has landed, writes its stats (K/V-stationary
  /// items) and completes its stage's stats phase.
  void streamedStats(const Kind &kind, const Work &w, Value j);
  /// The stats of streamed (query) tile j in `stage`: the log2-domain
  /// log-sum-exp and D = rowsum(dO * O), from O and dO in the stage.
  void writeStats(const Work &w, Value j, Value stage);
  Value stageOfItem(const Work &w, Value j) { return stageOf(add(w.step, j)); }
  Value phaseOfItem(const Work &w, Value j) { return phaseOf(add(w.step, j)); }
  /// The f32 sum over `units` 16-byte units from `firstUnit` of one row of
  /// the O and dO tiles at `oTile`, `doTile` (rows `chunkRows` per chunk):
  /// the swizzle permutes units within a row alike in both tiles.
  Value rowDot(Value oTile, Value doTile, Value row, int64_t chunkRows,
               Value firstUnit, int64_t units);
  LogicalResult consumer(const Kind &kind, const Work &w, Value consumerIndex);

  const AttentionBackward &bwd;
  BackwardLayout layout;
  Value smem, tid;
  Kind keys, queries;
  /// The classes of work items, heaviest first; item p is class p / batch
  /// of (batch, head) p % batch.
  SmallVector<ItemClass> classes;
  int64_t batch = 0, items = 0, grid = 0;
  /// The producer computes a streamed tile's stats `lag` tiles after
  /// issuing its loads.
  int64_t lag = 1;
};

BackwardEmitter::Work BackwardEmitter::work(const Kind &kind, Value bh,
                                            Value tile) {
  Work w;
  w.bh = bh;
  w.base = mul(tile, kStationary);
  int64_t streamedTiles = llvm::divideCeil(kind.streamedRows, kRows);
  if (kind.keys) {
    // Causal: the query tiles from the diagonal on see the block's keys.
    w.first = bwd.causal ? div(w.base, kRows) : idx(0);
    Value any = ult(w.first, streamedTiles);
    w.tiles = select(any, arith::SubIOp::create(b, idx(streamedTiles), w.first),
                     idx(0));
  } else {
    w.first = idx(0);
    w.tiles = idx(streamedTiles);
    if (bwd.causal) // keys after the block's last query are never seen
      w.tiles = arith::MinUIOp::create(
          b, w.tiles, div(add(w.base, kStationary + kRows - 1), kRows));
  }
  return w;
}

FailureOr<Value> BackwardEmitter::item(
    Value position, Value ordinal, Value step,
    function_ref<LogicalResult(const Kind &, const Work &)> fn) {
  Value bh = rem(position, batch), cls = div(position, batch);
  // The class's kind and stationary tile by a compare chain over the (few:
  // two per 128 rows of the sequence) classes.
  bool mixed = llvm::any_of(classes, [&](const ItemClass &c) {
    return c.keys != classes.front().keys;
  });
  auto flag = [&](bool x) {
    return arith::ConstantOp::create(b, b.getBoolAttr(x));
  };
  Value isKeys = mixed ? flag(classes.back().keys) : Value();
  Value tile = idx(classes.back().tile);
  for (int64_t c = int64_t(classes.size()) - 2; c >= 0; --c) {
    Value here = cmp(arith::CmpIPredicate::eq, cls, idx(c));
    tile = select(here, idx(classes[c].tile), tile);
    if (mixed)
      isKeys = select(here, flag(classes[c].keys), isKeys);
  }
  LogicalResult ok = success();
  auto run = [&](const Kind &kind) -> Value {
    body.pushScope();
    Work w = work(kind, bh, tile);
    w.ordinal = ordinal;
    w.step = step;
    if (failed(fn(kind, w)))
      ok = failure();
    body.popScope();
    return w.tiles;
  };
  if (!mixed) {
    Value tiles = run(classes.front().keys ? keys : queries);
    return failed(ok) ? FailureOr<Value>(failure()) : tiles;
  }
  auto byKind = scf::IfOp::create(b, b.getIndexType(), isKeys, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(byKind.thenBlock());
  scf::YieldOp::create(b, run(keys));
  b.setInsertionPointToStart(byKind.elseBlock());
  scf::YieldOp::create(b, run(queries));
  if (failed(ok))
    return failure();
  return byKind.getResult(0);
}

LogicalResult BackwardEmitter::forEachItem(
    function_ref<LogicalResult(const Kind &, const Work &)> fn) {
  Value block = k.blockId();
  // A block per item: item = block, heaviest first for the hardware's
  // block scheduler.
  if (grid == items)
    return item(block, idx(0), idx(0), fn);
  // Persistent: rounds of `grid` items, walked forward in even rounds and
  // backward in odd ones, so that with the classes heaviest first each
  // block's items sum to about the same weight.
  int64_t rounds = llvm::divideCeil(items, grid);
  auto loop =
      scf::ForOp::create(b, idx(0), idx(rounds), idx(1), ValueRange{idx(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body.pushScope();
  Value round = loop.getInductionVar(), step = loop.getRegionIterArgs()[0];
  Value odd = cmp(arith::CmpIPredicate::eq, rem(round, 2), idx(1));
  Value position =
      add(mul(round, grid),
          select(odd, arith::SubIOp::create(b, idx(grid - 1), block), block));
  auto inRange =
      scf::IfOp::create(b, b.getIndexType(), ult(position, items), true);
  FailureOr<Value> tiles;
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(inRange.thenBlock());
    tiles = item(position, round, step, fn);
    if (failed(tiles))
      return failure();
    scf::YieldOp::create(b, *tiles);
    b.setInsertionPointToStart(inRange.elseBlock());
    scf::YieldOp::create(b, idx(0));
  }
  body.popScope();
  scf::YieldOp::create(b, add(step, inRange.getResult(0)));
  return success();
}

void BackwardEmitter::load(ArrayRef<Value> descs, Value bh, Value row,
                           int64_t rows, Value offset, int64_t slotBytes,
                           Value bar) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, Type(), bar, i32(int64_t(descs.size()) * rows * bwd.d * 2),
      NVVM::MemScopeKind::CTA, false, Value());
  for (auto [slot, desc] : llvm::enumerate(descs))
    for (int64_t c = 0; c < bwd.d / 64; ++c)
      for (int64_t r = 0; r < rows; r += kRows)
        hopper::tmaLoad(
            b,
            shared(add(offset,
                       i64(int64_t(slot) * slotBytes +
                           c * BackwardLayout::chunkBytes(rows) + r * 128))),
            desc,
            attention_wgmma::coordinates(k, bwd.lead, c * 64, add(row, r), bh),
            bar);
}

Value BackwardEmitter::rowDot(Value oTile, Value doTile, Value row,
                              int64_t chunkRows, Value firstUnit,
                              int64_t units) {
  auto bf16x8 = VectorType::get({8}, b.getBF16Type());
  auto f32x8 = VectorType::get({8}, b.getF32Type());
  Value sum = f32(0.0);
  for (int64_t i = 0; i < units; ++i) {
    Value unit = add(firstUnit, i);
    // Unit u of a row: chunk u / 8, 16 bytes (u % 8) into its 128 bytes.
    Value at =
        toI64(add(mul(div(unit, 8), BackwardLayout::chunkBytes(chunkRows)),
                  add(mul(row, 128), mul(rem(unit, 8), 16))));
    auto loadUnit = [&](Value tile) {
      Value x = LLVM::LoadOp::create(b, bf16x8, shared(add(tile, at)), 16);
      return arith::ExtFOp::create(b, f32x8, x);
    };
    Value product = arith::MulFOp::create(b, loadUnit(oTile), loadUnit(doTile));
    sum = arith::AddFOp::create(
        b, sum,
        vector::ReductionOp::create(b, vector::CombiningKind::ADD, product));
  }
  return sum;
}

void BackwardEmitter::streamedStats(const Kind &kind, const Work &w, Value j) {
  Value stage = stageOfItem(w, j);
  hopper::waitParity(b, full(stage), phaseOfItem(w, j));
  // Every streamed tile completes one phase of its stage's stats barrier,
  // also a (stat-less) key tile of a Q-stationary item: the phases then
  // follow the ring's steps across items of both kinds.
  if (kind.keys)
    writeStats(w, j, stage);
  NVVM::MBarrierArriveOp::create(b, Type(), statsFull(stage), Value());
}

void BackwardEmitter::writeStats(const Work &w, Value j, Value stage) {
  // Two producer threads per row of the 64-row tile, half a row each; the
  // first writes the log-sum-exp, the second D.
  Value thread = rem(tid, 128);
  Value row = div(thread, 2), half = rem(thread, 2);
  int64_t units = bwd.d / 8 / 2;
  Value partial = rowDot(streamedTile(stage, 2), streamedTile(stage, 1), row,
                         kRows, mul(half, units), units);
  Value dot = shuffleReduce(b, Combiner{nv::ReduceKind::sum, b.getF32Type()},
                            partial, 2);
  Value query = add(mul(add(w.first, j), kRows), row);
  Value isLse = cmp(arith::CmpIPredicate::eq, half, idx(0));
  auto branch = scf::IfOp::create(b, b.getF32Type(), isLse, true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body.pushScope();
    Value lse = bwd.logSumExp(w.bh, query);
    body.popScope();
    scf::YieldOp::create(b, fmul(lse, f32(M_LOG2E)));
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, dot);
  }
  LLVM::StoreOp::create(b, branch.getResult(0),
                        shared(statsAt(stage, half, row)));
}

void BackwardEmitter::producer(const Kind &kind, const Work &w) {
  Value lead = cmp(arith::CmpIPredicate::eq, rem(tid, 128), idx(0));
  (void)k.ifThen(lead, [&] {
    // The consumers released the set's previous item (a fresh barrier
    // passes the wait on parity 1).
    Value set = setOf(w.ordinal);
    hopper::waitParity(b, stationaryEmpty(set),
                       arith::XOrIOp::create(b, setPhaseOf(w.ordinal), i32(1)));
    load(kind.stationary, w.bh, w.base, kStationary, stationaryAt(set, 0),
         layout.tileBytes(kStationary), stationaryFull(set));
    return success();
  });
  // One thread loads tile j while the warpgroup writes the stats of tile
  // j - lag (K/V-stationary items; for the others it only passes the
  // stats phase on).
  int64_t behind = lag;
  (void)k.loop(idx(0), add(w.tiles, behind), idx(1), [&](Value j) {
    (void)k.ifThen(arith::AndIOp::create(b, lead, ult(j, w.tiles)), [&] {
      Value stage = stageOfItem(w, j);
      // The consumers released the stage's previous round.
      hopper::waitParity(b, empty(stage),
                         arith::XOrIOp::create(b, phaseOfItem(w, j), i32(1)));
      load(kind.streamed, w.bh, mul(add(w.first, j), kRows), kRows,
           streamedTile(stage, 0), layout.tileBytes(kRows), full(stage));
      return success();
    });
    (void)k.ifThen(cmp(arith::CmpIPredicate::uge, j, idx(behind)), [&] {
      streamedStats(kind, w, arith::SubIOp::create(b, j, idx(behind)));
      return success();
    });
    return success();
  });
}

LogicalResult BackwardEmitter::consumer(const Kind &kind, const Work &w,
                                        Value consumerIndex) {
  MLIRContext *ctx = b.getContext();
  Value thread = rem(tid, 128);
  Value warp = div(thread, 32), lane = rem(thread, 32);
  Value g = div(lane, 4), t = rem(lane, 4);
  // Accumulator i of a thread: row g (+ 8 when bit 1 of i is set) of its
  // warp's 16 stationary rows, column 8 (i / 4) + 2 t + i % 2.
  Value localBase = mul(consumerIndex, kRows);
  Value firstRow = add(w.base, localBase);
  Value rowBase = add(firstRow, mul(warp, 16));
  auto rowOf = [&](int64_t i) { return add(add(rowBase, g), (i & 2) ? 8 : 0); };
  auto colOf = [&](int64_t i) { return add(mul(t, 2), (i / 4) * 8 + (i % 2)); };

  Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), smem);
  Value start = arith::ShRUIOp::create(b, address, i64(4));
  Value kMajor =
      arith::OrIOp::create(b, start, i64(hopper::kKMajorDescriptorBits));
  // A streamed tile as the N-major B of a register-A wgmma: the leading
  // byte offset steps between 64-column chunks, the stride byte offset
  // between groups of 8 rows (1024 bytes); 128-byte swizzle.
  int64_t nMajorBits = (int64_t(BackwardLayout::chunkBytes(kRows) >> 4) << 16) |
                       (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);
  Value nMajor = arith::OrIOp::create(b, start, i64(nMajorBits));
  Value consumerRows =
      arith::MulIOp::create(b, toI64(consumerIndex), i64(kRows * 128 >> 4));
  Value set = setOf(w.ordinal);
  auto stationaryDesc = [&](int64_t slot) {
    return add(
        add(kMajor, arith::ShRUIOp::create(b, stationaryAt(set, slot), i64(4))),
        consumerRows);
  };
  auto shifted = [&](Value base, Value offset) {
    return add(base, arith::ShRUIOp::create(b, offset, i64(4)));
  };

  int64_t sCount = kRows / 2, accCount = bwd.d / 2;
  auto sType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(sCount, b.getF32Type()));
  // A B^T for 64 stationary rows (A) and 64 streamed rows (B) over the head
  // dim, both K-major: 16 columns (32 bytes of a 128-byte row) a wgmma.
  auto scores = [&](Value aDesc, Value bDesc) {
    Value s = LLVM::UndefOp::create(b, sType);
    for (int64_t step = 0; step < bwd.d / 16; ++step) {
      int64_t chunk = step / 4, along = (step % 4) * 32;
      int64_t aOffset = chunk * BackwardLayout::chunkBytes(kStationary) + along;
      int64_t bOffset = chunk * BackwardLayout::chunkBytes(kRows) + along;
      s = NVVM::WgmmaMmaAsyncOp::create(
          b, sType, s, add(aDesc, i64(aOffset >> 4)),
          add(bDesc, i64(bOffset >> 4)),
          NVVM::MMAShapeAttr::get(ctx, 64, kRows, 16), NVVM::WGMMATypes::bf16,
          NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::f32,
          step == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, NVVM::MMALayout::col,
          NVVM::MMAIntOverflowAttr());
    }
    return s;
  };
  // acc += A B with A (64 x 64 streamed rows) packed in registers and B
  // the streamed tile read N-major: 16 rows a wgmma.
  auto accumulate = [&](SmallVector<Value> acc, ArrayRef<Value> a,
                        Value bDesc) {
    for (int64_t step = 0; step < kRows / 16; ++step)
      acc = hopper::wgmmaRegisterA(b, acc, a.slice(4 * step, 4),
                                   add(bDesc, i64(step * 16 * 128 >> 4)),
                                   i32(1), hopper::RegisterA::BF16NMajorB);
    return acc;
  };

  hopper::waitParity(b, stationaryFull(set), setPhaseOf(w.ordinal));
  // Q-stationary: each thread's two rows' log-sum-exp and D, the latter
  // summed by the four threads of a row from O and dO in shared memory.
  Value rowLse[2], rowDelta[2];
  if (!kind.keys) {
    int64_t units = bwd.d / 8 / 4;
    for (int r = 0; r < 2; ++r) {
      Value local = add(add(localBase, mul(warp, 16)), add(g, 8 * r));
      Value partial = rowDot(stationaryAt(set, 2), stationaryAt(set, 1), local,
                             kStationary, mul(t, units), units);
      rowDelta[r] = shuffleReduce(
          b, Combiner{nv::ReduceKind::sum, b.getF32Type()}, partial, 4);
      rowLse[r] = fmul(bwd.logSumExp(w.bh, rowOf(2 * r)), f32(M_LOG2E));
    }
  }

  Value zero = f32(0.0);
  SmallVector<Value> inits(kind.keys ? 2 * accCount : accCount, zero);
  auto loop = scf::ForOp::create(b, idx(0), w.tiles, idx(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body.pushScope();
    Value j = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    Value stage = stageOfItem(w, j), phase = phaseOfItem(w, j);
    Value streamedBase = mul(add(w.first, j), kRows);
    hopper::waitParity(b, full(stage), phase);
    Value xTile = streamedTile(stage, 0), yTile = streamedTile(stage, 1);
    // S and dP as two groups: P's exponentials overlap dP's wgmmas, and
    // (K/V-stationary) dS overlaps dV += P^T dO.
    NVVM::WgmmaFenceAlignedOp::create(b);
    Value s = scores(stationaryDesc(0), shifted(kMajor, xTile));
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    Value dp = scores(stationaryDesc(1), shifted(kMajor, yTile));
    NVVM::WgmmaGroupSyncAlignedOp::create(b);

    // Stat `which` (0 the log2-domain log-sum-exp, 1 D) of accumulator i's
    // query, each loaded next to its use (fewer live registers).
    auto stats = [&](int64_t which) {
      SmallVector<Value> out(sCount);
      if (!kind.keys) {
        for (int64_t i = 0; i < sCount; ++i)
          out[i] = (which ? rowDelta : rowLse)[(i >> 1) & 1];
        return out;
      }
      auto pair = VectorType::get({2}, b.getF32Type());
      for (int64_t i = 0; i < sCount; i += 2) {
        Value x = LLVM::LoadOp::create(
            b, pair, shared(statsAt(stage, idx(which), colOf(i))), 8);
        for (int64_t e = 0; e < 2; ++e)
          out[i + e] = vector::ExtractOp::create(b, x, ArrayRef<int64_t>{e});
      }
      return out;
    };
    hopper::waitParity(b, statsFull(stage), phase);
    NVVM::WgmmaWaitGroupSyncOp::create(b, 1); // S is done

    Value log2Scale = f32(bwd.scale * M_LOG2E);
    SmallVector<Value> lse = stats(0), p;
    for (int64_t i = 0; i < sCount; ++i) {
      Value x = LLVM::ExtractValueOp::create(b, s, ArrayRef<int64_t>{i});
      p.push_back(math::Exp2Op::create(b, fsub(fmul(x, log2Scale), lse[i])));
    }
    // Masks only where the streamed tile reaches past its sequence's end or
    // (causal) crosses the diagonal of this warpgroup's rows: uniform
    // across the warpgroup.
    int64_t streamedLength = kind.keys ? bwd.tq : bwd.tk;
    Value needsMask = cmp(arith::CmpIPredicate::ugt, add(streamedBase, kRows),
                          idx(streamedLength));
    if (bwd.causal) {
      Value crosses = kind.keys ? cmp(arith::CmpIPredicate::ugt,
                                      add(firstRow, kRows - 1), streamedBase)
                                : cmp(arith::CmpIPredicate::ugt,
                                      add(streamedBase, kRows - 1), firstRow);
      needsMask = arith::OrIOp::create(b, needsMask, crosses);
    }
    {
      auto branch = scf::IfOp::create(
          b, SmallVector<Type>(sCount, b.getF32Type()), needsMask, true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> masked;
      for (int64_t i = 0; i < sCount; ++i) {
        Value other = add(streamedBase, colOf(i));
        Value query = kind.keys ? other : rowOf(i);
        Value key = kind.keys ? rowOf(i) : other;
        Value out = cmp(arith::CmpIPredicate::uge, other, idx(streamedLength));
        if (bwd.causal)
          out = arith::OrIOp::create(
              b, out, cmp(arith::CmpIPredicate::ugt, key, query));
        masked.push_back(select(out, zero, p[i]));
      }
      scf::YieldOp::create(b, masked);
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, p);
      p.assign(branch.getResults().begin(), branch.getResults().end());
    }

    SmallVector<Value> dV;
    if (kind.keys) {
      // dV += P^T dO while dS is computed.
      SmallVector<Value> pPacked = attention_wgmma::packBF16(b, p);
      NVVM::WgmmaFenceAlignedOp::create(b);
      dV = accumulate(
          SmallVector<Value>(carried.begin() + accCount, carried.end()),
          pPacked, shifted(nMajor, yTile));
      NVVM::WgmmaGroupSyncAlignedOp::create(b);
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1); // dP is done
    } else {
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0); // dP is done
    }
    SmallVector<Value> delta = stats(1), ds;
    for (int64_t i = 0; i < sCount; ++i) {
      Value x = LLVM::ExtractValueOp::create(b, dp, ArrayRef<int64_t>{i});
      ds.push_back(fmul(p[i], fsub(x, delta[i])));
    }
    SmallVector<Value> dsPacked = attention_wgmma::packBF16(b, ds);
    NVVM::WgmmaFenceAlignedOp::create(b);
    // dK += dS^T Q, or dQ += dS K.
    SmallVector<Value> yielded = accumulate(
        SmallVector<Value>(carried.begin(), carried.begin() + accCount),
        dsPacked, shifted(nMajor, xTile));
    yielded.append(dV.begin(), dV.end());
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
    NVVM::MBarrierArriveOp::create(b, Type(), empty(stage), Value());
    body.popScope();
    scf::YieldOp::create(b, yielded);
  }

  // The stationary set is free for the item after next (its last wgmma
  // has completed), while this one's results are stored.
  NVVM::MBarrierArriveOp::create(b, Type(), stationaryEmpty(set), Value());
  ValueRange results = loop.getResults();
  Value scale = f32(bwd.scale);
  int64_t length = kind.keys ? bwd.tk : bwd.tq;
  for (int64_t i = 0; i < int64_t(results.size()); ++i) {
    // dK and dQ carry the softmax scale; dV does not.
    bool isValue = kind.keys && i >= accCount;
    unsigned result = !kind.keys ? 0 : isValue ? 2 : 1;
    int64_t e = i % accCount;
    Value x = isValue ? results[i] : fmul(results[i], scale);
    Value row = rowOf(e);
    if (failed(bwd.store(result, w.bh, row, colOf(e), x, ult(row, length))))
      return failure();
  }
  return success();
}

FailureOr<Geometry> BackwardEmitter::emit() {
  // Two stationary sets where they fit beside at least 3 stages (d 64),
  // else one; then as many stages as fit, up to 4.
  layout.d = bwd.d;
  for (int64_t sets : {2, 1}) {
    layout.sets = sets;
    for (int64_t stages = 4; stages >= 2; --stages) {
      layout.stages = stages;
      if (layout.sharedBytes() <= int64_t(k.target.smemPerBlock))
        break;
    }
    if (layout.sharedBytes() <= int64_t(k.target.smemPerBlock) && layout.stages >= 3)
      break;
  }
  lag = layout.stages - 1;
  batch = product(bwd.lead);

  smem = hopper::dynamicSharedMemory(k, layout.sharedBytes());
  // One block per SM: without it the consumers spilled at 168 registers.
  hopper::declareOneBlockPerSM(k);
  auto descriptor = [&](const AttentionOperand &op, int64_t rows) {
    return attention_wgmma::descriptor(k, op, bwd.lead, bwd.d, rows, kRows);
  };
  Value q = descriptor(bwd.q, bwd.tq), key = descriptor(bwd.key, bwd.tk),
        value = descriptor(bwd.value, bwd.tk),
        out = descriptor(bwd.out, bwd.tq),
        outGrad = descriptor(bwd.outGrad, bwd.tq);
  keys = Kind{true, {key, value}, {q, outGrad, out}, bwd.tk, bwd.tq};
  queries = Kind{false, {q, outGrad, out}, {key, value}, bwd.tq, bwd.tk};

  // The work items' classes.
  int64_t queryTiles = llvm::divideCeil(bwd.tq, kRows);
  int64_t keyBlocks = llvm::divideCeil(bwd.tk, kStationary),
          queryBlocks = llvm::divideCeil(bwd.tq, kStationary);
  if (bwd.wantKV)
    for (int64_t t = 0; t < keyBlocks; ++t) {
      int64_t first = bwd.causal ? t * kStationary / kRows : 0;
      classes.push_back({true, t, std::max<int64_t>(queryTiles - first, 0)});
    }
  if (bwd.wantQ)
    for (int64_t t = 0; t < queryBlocks; ++t) {
      int64_t tiles = llvm::divideCeil(bwd.tk, kRows);
      if (bwd.causal)
        tiles = std::min(tiles,
                         (t * kStationary + kStationary + kRows - 1) / kRows);
      classes.push_back({false, t, tiles});
    }
  items = int64_t(classes.size()) * batch;
  // A persistent grid (a block per SM walking its items, the producer
  // loading the next item's stationary tiles and first streamed tiles
  // while the consumers finish this one) where there are many items per
  // SM; with few, a block per item and the hardware's dynamic block
  // scheduling balance the causal items' unequal lengths better.
  grid = items >= attention_wgmma::kPersistentItemsPerSM * k.target.sms
             ? k.target.sms
             : items;
  // Persistent: the classes heaviest first across both kinds (longest
  // processing time first; ties: K/V-stationary first, then the earlier
  // tile), for the static rounds to balance. A block per item: by kind,
  // each kind's heaviest first, the order measured before the persistent
  // grid (B2 H3 T4096 D128 causal: 0.226 ms against 0.240 across kinds,
  // the same call, with the register spill also differing).
  llvm::stable_sort(classes, [&](const ItemClass &x, const ItemClass &y) {
    if (grid == items && x.keys != y.keys)
      return x.keys;
    return x.weight() > y.weight();
  });

  tid = k.threadId();
  bwd.fillConstants(grid, kThreads);

  (void)k.ifThen(cmp(arith::CmpIPredicate::eq, tid, idx(0)), [&] {
    for (int64_t s = 0; s < layout.sets; ++s) {
      NVVM::MBarrierInitOp::create(b, stationaryFull(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, stationaryEmpty(i64(s)),
                                   i32(128 * kConsumers), Value());
    }
    for (int64_t s = 0; s < layout.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, full(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, statsFull(i64(s)), i32(128), Value());
      NVVM::MBarrierInitOp::create(b, empty(i64(s)), i32(128 * kConsumers),
                                   Value());
    }
    NVVM::FenceMbarrierInitOp::create(b);
    return success();
  });
  gpu::BarrierOp::create(b);

  if (failed(specialize(
          tid,
          [&] {
            (void)forEachItem([&](const Kind &kind, const Work &w) {
              producer(kind, w);
              return success();
            });
          },
          [&](Value consumerIndex) {
            return forEachItem([&](const Kind &kind, const Work &w) {
              return consumer(kind, w, consumerIndex);
            });
          })))
    return failure();
  return Geometry{grid, kThreads};
}

} // namespace

std::optional<FailureOr<Geometry>>
emitAttentionBackwardWgmma(const AttentionBackward &bwd) {
  auto why = whyNot(bwd);
  hopper::remarkPath(bwd.k, why,
                     "wgmma attention backward (deterministic: K/V- and "
                     "Q-stationary blocks)");
  if (why)
    return std::nullopt;
  return BackwardEmitter(bwd).emit();
}

} // namespace mlir::nova::tile_to_gpu
