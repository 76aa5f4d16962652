//===- AttentionBackwardWgmma.cpp - attention backward on Hopper's wgmma --===//
//
// The attention backward for bf16 operands with head dim 64 or 128
// (sm_90a), in one launch. With `deterministic` (and at head dim 128),
// two kinds of blocks, each gradient element written by exactly one block
// (no atomics, no workspace):
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
// kernel.
//
// Without `deterministic`, at head dim 64, every block is K/V-stationary
// (5 GEMMs): each consumer writes its dS^T tile to shared memory (the A of
// dK += dS^T Q), computes dQ_part = dS K over its 64 keys for the streamed
// query tile (A read M-major from that buffer, B the stationary K tile),
// stages it per warp in shared memory in accumulator order and adds it to
// an f32 workspace by a bulk asynchronous reduce (one
// cp.reduce.async.bulk .add.f32 of 4 KiB a warp, issued by its lane 0;
// the addition order, so the f32 sum's rounding, varies from run to run).
// Per 16 query rows a ticket counts the consumer warps that added theirs
// (each warp draws its item's tickets once, after its reduces complete);
// the warp that draws the last one stores the rows as bf16 dQ and zeroes
// them and the ticket (the workspace is left as the runtime gave it:
// zero).
//
// D = rowsum(dO * O) comes from O and dO tiles in shared memory: the
// Q-stationary consumers sum their own rows, and for the streamed query
// tiles the producer warpgroup (which TMA-loads O beside Q and dO) writes D
// and the log-sum-exp into the stage before the consumers read them, a
// tile or more behind its loads.
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
constexpr int64_t kSharedLimit = 227 * 1024;

/// The dynamic shared buffer: `sets` sets of `slots` stationary tiles of
/// 128 rows (K, V; or Q, dO, O: two sets where they fit, so that the next
/// work item's load runs under this one's tiles), then (dQ by reduces) the
/// dS^T buffers (two per consumer, 64 x 64 bf16, 128-byte swizzle) and the
/// dQ staging (4 KiB per consumer warp), then per stage three streamed
/// tiles of 64 rows (Q, dO, O; or K, V) and the stats (log2-domain
/// log-sum-exp and D of 64 rows, f32), then the mbarriers: stationary full
/// and stationary empty per set, then full, stats full and empty per
/// stage. Tiles are head-dim chunks of 64 columns, 128 bytes a row.
struct BackwardLayout {
  int64_t d = 64, stages = 2, sets = 1, slots = 3, dsBuffers = 0,
          stagingBytes = 0;
  int64_t tileBytes(int64_t rows) const { return rows * d * 2; }
  static int64_t chunkBytes(int64_t rows) { return rows * 128; }
  int64_t setBytes() const { return slots * tileBytes(kStationary); }
  int64_t dsBuffer(int64_t index) const {
    return sets * setBytes() + index * chunkBytes(kRows);
  }
  int64_t staging() const { return dsBuffer(dsBuffers); }
  int64_t stationary(int64_t slot) const {
    return slot * tileBytes(kStationary);
  }
  int64_t statsOffset() const { return 3 * tileBytes(kRows); }
  int64_t stageBytes() const {
    return llvm::alignTo(statsOffset() + 2 * kRows * 4, 1024);
  }
  int64_t stageBase() const { return staging() + stagingBytes; }
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

/// dQ by bulk reduces into an f32 workspace (every block K/V-stationary):
/// not `deterministic`, both gradients wanted, head dim 64 (at 128, dK, dV
/// and dQ's accumulators leave ptxas too few registers).
bool reducesQ(const AttentionBackward &bwd) {
  return !bwd.k.deterministic && bwd.wantQ && bwd.wantKV && bwd.d == 64;
}

/// Bytes of f32 dQ a consumer warp adds at once: its 16 query rows of a
/// streamed tile, 64 head-dim columns, in accumulator order.
constexpr int64_t kWarpRowsBytes = 16 * 64 * 4;

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

  /// Writes this consumer's dS^T (packed bf16 pairs of accumulators, 64
  /// keys x 64 queries) to the shared buffer at `buffer` (i64 bytes), rows
  /// of 128 bytes, 128-byte swizzle: the K-major A of dS^T Q and the
  /// M-major A of dS K.
  void writeTransposed(Value buffer, ArrayRef<Value> packed);
  /// Adds this warp's 16 rows `dq` (32 accumulators) of streamed query
  /// tile `tile` to the workspace: staged in shared memory in accumulator
  /// order, then one bulk reduce by lane 0.
  void reduceRows(const Work &w, Value consumerIndex, Value tile, Value dq);
  /// After an item's reduces: the warp's tickets for its 16 query rows of
  /// each streamed tile, a lane a tile; for each tile where it draws the
  /// last, the warp stores the rows as dQ and zeroes them and the ticket.
  LogicalResult drawQueryTickets(const Work &w);
  /// The workspace slot (index) of warp `warp`'s rows of query tile `tile`.
  Value slotOf(Value bh, Value tile) {
    return add(mul(add(mul(bh, queryTiles), tile), 4), warp);
  }
  /// Accumulator i of a thread: row g (+ 8 when bit 1 of i is set) of its
  /// warp's 16 rows, column 8 (i / 4) + 2 t + i % 2.
  Value warpRowOf(int64_t i) {
    return add(add(mul(warp, 16), g), (i & 2) ? 8 : 0);
  }
  Value colOf(int64_t i) { return add(mul(t, 2), (i / 4) * 8 + (i % 2)); }

  const AttentionBackward &bwd;
  BackwardLayout layout;
  Value smem, tid;
  Value warp, lane, g, t; // of a consumer thread
  /// dQ by bulk reduces into `workspace` (not `deterministic`): 4 KiB rows
  /// slots per (batch, head, query tile, warp), then a ticket per slot.
  bool reduceQ = false;
  Value workspace;
  int64_t queryTiles = 0;
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
  warp = div(thread, 32);
  lane = rem(thread, 32);
  g = div(lane, 4);
  t = rem(lane, 4);
  Value localBase = mul(consumerIndex, kRows);
  Value firstRow = add(w.base, localBase);
  auto rowOf = [&](int64_t i) { return add(firstRow, warpRowOf(i)); };

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
  // acc (m64 x 64) = (fresh ? 0 : acc) + A B over 64 rows of B, N-major
  // (16 rows a wgmma), A in shared memory by `aDesc`, advanced `aStep`
  // bytes a wgmma, K-major (row) or M-major (col).
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(accCount, b.getF32Type()));
  auto sharedProduct = [&](Value acc, bool fresh, Value aDesc, int64_t aStep,
                           NVVM::MMALayout aLayout, Value bDesc) {
    for (int64_t step = 0; step < kRows / 16; ++step)
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, acc.getType(), acc, add(aDesc, i64(step * aStep >> 4)),
          add(bDesc, i64(step * 16 * 128 >> 4)),
          NVVM::MMAShapeAttr::get(ctx, 64, bwd.d, 16), NVVM::WGMMATypes::bf16,
          NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::f32,
          fresh && step == 0 ? NVVM::WGMMAScaleOut::zero
                             : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, aLayout,
          NVVM::MMALayout::row, NVVM::MMAIntOverflowAttr());
    return acc;
  };
  // acc += A B with A (64 x 64 streamed rows) packed in registers and B
  // the streamed tile read N-major: 16 rows a wgmma.
  auto accumulate = [&](SmallVector<Value> acc, ArrayRef<Value> a,
                        Value bDesc) {
    for (int64_t step = 0; step < kRows / 16; ++step)
      acc = attention_wgmma::multiplyRegisterA(
          b, acc, a.slice(4 * step, 4), add(bDesc, i64(step * 16 * 128 >> 4)));
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
    SmallVector<Value> yielded(carried.begin(), carried.begin() + accCount);
    if (!reduceQ) {
      // dK += dS^T Q, or dQ += dS K, with dS from registers.
      NVVM::WgmmaFenceAlignedOp::create(b);
      yielded = accumulate(yielded, dsPacked, shifted(nMajor, xTile));
      NVVM::WgmmaGroupSyncAlignedOp::create(b);
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
      NVVM::MBarrierArriveOp::create(b, Type(), empty(stage), Value());
    } else {
      // dS^T to this consumer's buffer of the ring step's parity: the
      // other buffer's readers (the step before) finished before this
      // warpgroup's barrier of that step, which every warp passed after its
      // wait.
      Value buffer =
          add(i64(layout.dsBuffer(0)),
              arith::MulIOp::create(
                  b, toI64(add(mul(consumerIndex, 2), rem(add(w.step, j), 2))),
                  i64(BackwardLayout::chunkBytes(kRows))));
      writeTransposed(buffer, dsPacked);
      // The generic proxy's stores before wgmma's reads, then every warp's
      // (inline PTX: nvvm.barrier with a thread count does not survive a
      // print and re-parse with locations in MLIR 22).
      NVVM::FenceProxyOp::create(
          b, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      LLVM::InlineAsmOp::create(
          b, TypeRange{}, ValueRange{toI32(add(consumerIndex, 1))},
          "bar.sync $0, 128;", "r", /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr());
      // dK += dS^T Q with dS^T from its buffer (K-major A: 16 queries, 32
      // bytes of a row, a step): dS's registers are free for dQ's.
      NVVM::WgmmaFenceAlignedOp::create(b);
      Value acc = LLVM::UndefOp::create(b, accType);
      for (auto [i, x] : llvm::enumerate(yielded))
        acc = LLVM::InsertValueOp::create(b, acc, x, int64_t(i));
      acc = sharedProduct(acc, /*fresh=*/false, shifted(kMajor, buffer), 32,
                          NVVM::MMALayout::row, shifted(nMajor, xTile));
      NVVM::WgmmaGroupSyncAlignedOp::create(b);
      // The streamed tile's dQ rows over this consumer's 64 keys, dS K: A
      // is dS^T read M-major (16 keys, 2048 bytes, a step), B the
      // stationary K tile read N-major.
      Value keyRows = add(shifted(nMajor, stationaryAt(set, 0)), consumerRows);
      Value dq = sharedProduct(LLVM::UndefOp::create(b, accType),
                               /*fresh=*/true, shifted(nMajor, buffer),
                               16 * 128, NVVM::MMALayout::col, keyRows);
      NVVM::WgmmaGroupSyncAlignedOp::create(b);
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
      NVVM::MBarrierArriveOp::create(b, Type(), empty(stage), Value());
      for (int64_t i = 0; i < accCount; ++i)
        yielded[i] = LLVM::ExtractValueOp::create(b, acc, ArrayRef<int64_t>{i});
      reduceRows(w, consumerIndex, add(w.first, j), dq);
    }
    yielded.append(dV.begin(), dV.end());
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
  if (reduceQ)
    return drawQueryTickets(w);
  return success();
}

void BackwardEmitter::writeTransposed(Value buffer, ArrayRef<Value> packed) {
  // Word r holds accumulators 2 r and 2 r + 1: key row warpRowOf(2 r),
  // queries colOf(2 r) and the next, 4 bytes in 16-byte unit (2 r) / 4 of
  // the row, the unit's index XOR the row's index mod 8 (= g).
  for (auto [r, word] : llvm::enumerate(packed)) {
    int64_t i = 2 * int64_t(r);
    Value row = warpRowOf(i);
    Value unit = arith::XOrIOp::create(b, g, idx(i / 4));
    Value at = add(mul(row, 128), add(mul(unit, 16), mul(t, 4)));
    LLVM::StoreOp::create(b, word, shared(add(buffer, toI64(at))), 4);
  }
}

void BackwardEmitter::reduceRows(const Work &w, Value consumerIndex, Value tile,
                                 Value dq) {
  // Staged [pair of accumulators][lane] (8 bytes a lane: no bank
  // conflicts); the workspace slot has the same order, which the
  // conversion reads back.
  auto asm_ = [&](ValueRange operands, StringRef text, StringRef constraints) {
    LLVM::InlineAsmOp::create(b, TypeRange{}, operands, text, constraints,
                              /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
  };
  Value lead = cmp(arith::CmpIPredicate::eq, lane, idx(0));
  Value staging =
      add(i64(layout.staging()),
          arith::MulIOp::create(b, toI64(add(mul(consumerIndex, 4), warp)),
                                i64(kWarpRowsBytes)));
  // The previous tile's reduce has read the staging.
  (void)k.ifThen(lead, [&] {
    asm_({}, "cp.async.bulk.wait_group.read 0;", "");
    return success();
  });
  NVVM::SyncWarpOp::create(b, i32(-1));
  auto pair = VectorType::get({2}, b.getF32Type());
  for (int64_t i = 0; i < 32; i += 2) {
    Value x = LLVM::UndefOp::create(b, pair);
    for (int64_t e = 0; e < 2; ++e)
      x = LLVM::InsertElementOp::create(
          b, x, LLVM::ExtractValueOp::create(b, dq, ArrayRef<int64_t>{i + e}),
          i32(e));
    Value at =
        add(i64(i / 2 * 256), arith::MulIOp::create(b, toI64(lane), i64(8)));
    LLVM::StoreOp::create(b, x, shared(add(staging, at)), 8);
  }
  NVVM::FenceProxyOp::create(
      b,
      NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  NVVM::SyncWarpOp::create(b, i32(-1));
  (void)k.ifThen(lead, [&] {
    Value base = arith::IndexCastOp::create(
        b, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, workspace));
    Value to = add(base, arith::MulIOp::create(b, toI64(slotOf(w.bh, tile)),
                                               i64(kWarpRowsBytes)));
    Value from = LLVM::PtrToIntOp::create(b, b.getI32Type(), shared(staging));
    asm_({to, from},
         "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], "
         "[$1], " +
             std::to_string(kWarpRowsBytes) +
             ";\n\tcp.async.bulk.commit_group;",
         "l,r");
    return success();
  });
}

LogicalResult BackwardEmitter::drawQueryTickets(const Work &w) {
  int64_t keyBlocks = llvm::divideCeil(bwd.tk, kStationary);
  int64_t slots = product(bwd.lead) * queryTiles * 4;
  Value rows = k.workspaceView(workspace, 0, {slots, kWarpRowsBytes / 4},
                               b.getF32Type());
  Value tickets = k.workspaceView(workspace, slots * kWarpRowsBytes, {slots},
                                  b.getI32Type());
  // The warp's reduces complete and are visible to the generic proxy at
  // the device before any of its tickets: one wait a warp and item.
  (void)k.ifThen(cmp(arith::CmpIPredicate::eq, lane, idx(0)), [&] {
    LLVM::InlineAsmOp::create(
        b, TypeRange{}, ValueRange{},
        "cp.async.bulk.wait_group 0;\n\tfence.proxy.async.global;", "",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    return success();
  });
  NVVM::SyncWarpOp::create(b, i32(-1));
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  return k.loop(idx(0), w.tiles, idx(32), [&](Value from) -> LogicalResult {
    Value j = add(from, lane);
    Value tile = add(w.first, j);
    // Both consumers of each K/V block that streams the tile add to it: with
    // causal masks the blocks up to the tile's (key blocks start streaming
    // at their diagonal tile, two per block), else all.
    Value contributors = idx(keyBlocks);
    if (bwd.causal)
      contributors = arith::MinUIOp::create(
          b, add(div(tile, kStationary / kRows), 1), idx(keyBlocks));
    auto draw = scf::IfOp::create(b, TypeRange{b.getI1Type()}, ult(j, w.tiles),
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(draw.thenBlock());
      Value ticket =
          memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(1),
                                      tickets, ValueRange{slotOf(w.bh, tile)});
      scf::YieldOp::create(
          b, ValueRange{
                 cmp(arith::CmpIPredicate::eq,
                     arith::IndexCastOp::create(b, b.getIndexType(), ticket),
                     arith::SubIOp::create(b, mul(contributors, kConsumers),
                                           idx(1)))});
      b.setInsertionPointToStart(draw.elseBlock());
      scf::YieldOp::create(
          b, ValueRange{arith::ConstantOp::create(b, b.getBoolAttr(false))});
    }
    Value lastWord =
        arith::ExtUIOp::create(b, b.getI32Type(), draw.getResult(0));
    Value count = arith::MinUIOp::create(
        b, idx(32), arith::SubIOp::create(b, w.tiles, from));
    // The warp converts, one after another, the tiles whose last ticket one
    // of its lanes drew.
    return k.loop(idx(0), count, idx(1), [&](Value l) -> LogicalResult {
      Value flag = gpu::ShuffleOp::create(b, lastWord, toI32(l), i32(32),
                                          gpu::ShuffleMode::IDX)
                       .getShuffleResult();
      return k.ifThen(
          cmp(arith::CmpIPredicate::ne,
              arith::IndexCastOp::create(b, b.getIndexType(), flag), idx(0)),
          [&]() -> LogicalResult {
            NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
            Value done = add(w.first, add(from, l));
            Value slot = slotOf(w.bh, done);
            Value first = mul(done, kRows);
            Value zero = f32(0.0), scale = f32(bwd.scale);
            for (int64_t i = 0; i < 32; ++i) {
              ValueRange at{slot, add(mul(lane, 2), i / 2 * 64 + i % 2)};
              Value x = memref::LoadOp::create(b, rows, at);
              memref::StoreOp::create(b, zero, rows, at);
              Value query = add(first, warpRowOf(i));
              if (failed(bwd.store(0, w.bh, query, colOf(i), fmul(x, scale),
                                   ult(query, bwd.tq))))
                return failure();
            }
            return k.ifThen(cmp(arith::CmpIPredicate::eq, lane, idx(0)), [&] {
              memref::StoreOp::create(b, i32(0), tickets, ValueRange{slot});
              return success();
            });
          });
    });
  });
}

FailureOr<Geometry> BackwardEmitter::emit() {
  // Two stationary sets where they fit beside at least 3 stages (d 64),
  // else one; then as many stages as fit, up to 4.
  layout.d = bwd.d;
  reduceQ = reducesQ(bwd);
  if (reduceQ) {
    layout.slots = 2;
    layout.dsBuffers = 2 * kConsumers;
    layout.stagingBytes = kConsumers * 4 * kWarpRowsBytes;
  }
  for (int64_t sets : {2, 1}) {
    layout.sets = sets;
    for (int64_t stages = 4; stages >= 2; --stages) {
      layout.stages = stages;
      if (layout.sharedBytes() <= kSharedLimit)
        break;
    }
    if (layout.sharedBytes() <= kSharedLimit && layout.stages >= 3)
      break;
  }
  lag = layout.stages - 1;
  batch = product(bwd.lead);

  smem = hopper::dynamicSharedMemory(k, layout.sharedBytes());
  // One block per SM: with .minnctapersm beside .maxntid ptxas knows the
  // register count at entry and honours setmaxnreg (else C7508: ignored,
  // and the consumers spill at 168 registers).
  k.func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(1));
  auto descriptor = [&](const AttentionOperand &op, int64_t rows) {
    return attention_wgmma::descriptor(k, op, bwd.lead, bwd.d, rows, kRows);
  };
  Value q = descriptor(bwd.q, bwd.tq), key = descriptor(bwd.key, bwd.tk),
        value = descriptor(bwd.value, bwd.tk),
        out = descriptor(bwd.out, bwd.tq),
        outGrad = descriptor(bwd.outGrad, bwd.tq);
  keys = Kind{true, {key, value}, {q, outGrad, out}, bwd.tk, bwd.tq};
  queries = Kind{false, {q, outGrad, out}, {key, value}, bwd.tq, bwd.tk};

  if (reduceQ) {
    // The f32 dQ slots, then their tickets; the workspace is the function's
    // last argument, after the descriptors.
    int64_t slots = batch * llvm::divideCeil(bwd.tq, kRows) * 4;
    workspace = k.addWorkspace(slots * (kWarpRowsBytes + 4));
  }

  // The work items' classes.
  queryTiles = llvm::divideCeil(bwd.tq, kRows);
  int64_t keyBlocks = llvm::divideCeil(bwd.tk, kStationary),
          queryBlocks = llvm::divideCeil(bwd.tq, kStationary);
  if (bwd.wantKV)
    for (int64_t t = 0; t < keyBlocks; ++t) {
      int64_t first = bwd.causal ? t * kStationary / kRows : 0;
      classes.push_back({true, t, std::max<int64_t>(queryTiles - first, 0)});
    }
  if (bwd.wantQ && !reduceQ)
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
  grid = items >= attention_wgmma::kPersistentItemsPerSM * hopper::kSMs
             ? hopper::kSMs
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
                     reducesQ(bwd)
                         ? "wgmma attention backward (K/V-stationary blocks, "
                           "dQ by bulk f32 reduces)"
                         : "wgmma attention backward (deterministic: K/V- and "
                           "Q-stationary blocks)");
  if (why)
    return std::nullopt;
  return BackwardEmitter(bwd).emit();
}

} // namespace mlir::nova::tile_to_gpu
