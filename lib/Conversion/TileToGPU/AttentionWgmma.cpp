//===- AttentionWgmma.cpp - attention forward on Hopper's wgmma and TMA ---===//
//
// FlashAttention-3-style forward for bf16 operands with head dim 64 or 128
// (sm_90a). A block owns 128 query rows of one (batch, head):
//
//  - warpgroup 0 is the producer: it lowers its register budget
//    (setmaxnreg) and one thread issues TMA loads (128-byte rows, 128-byte
//    swizzle, zero fill past the sequence's end) of the Q tile once and of
//    128-key K and V tiles into a ring of stages, each with its own "K
//    full" and "V full" mbarriers (so S = Q K^T starts before V lands) and
//    an "empty" one the consumers release;
//  - warpgroups 1 and 2 are consumers of 64 query rows each: S = Q K^T by
//    wgmma from shared memory (both K-major), the online softmax in
//    registers in the exp2 domain (scale folded into log2 e; masks only on
//    tiles that reach past the last key or, causal, cross the diagonal;
//    tiles above the diagonal are never loaded), P rounded to bf16 in
//    registers and O += P V by wgmma with A from registers (inline PTX: the
//    dialect has no register-A form) and V read N-major from shared memory
//    (the bf16 transpose bit). The log-sum-exp (m + log2 l) ln 2 is saved in
//    f32, as the mma.sync forward does.
//
// With many work items per SM the grid is persistent (a block per SM):
// each block walks its 128-row work items heaviest first (causal: the last
// query tiles see the most keys), the producer loading the next item's Q
// once the consumers' last S of this one is done (a "Q empty" mbarrier)
// and its K/V tiles into the same ring. Results leave through
// Attention.cpp's stores (the fused epilogue and the contract's strided
// windows).
//
//===----------------------------------------------------------------------===//

#include "AttentionWgmma.h"
#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

constexpr int64_t kConsumerRows = 64, kConsumers = 2;
constexpr int64_t kBlockRows = kConsumerRows * kConsumers;
constexpr int64_t kKeyTile = 128; // keys per stage: the S wgmma's N
constexpr int64_t kChunk = 64;    // bf16 columns in one 128-byte swizzled row
constexpr int64_t kThreads = 128 * (1 + kConsumers);

/// The dynamic shared buffer: Q (128 rows), then per stage a K and a V tile
/// (each as head-dim chunks of 64 columns, 128 bytes a row), then the
/// mbarriers: Q full, Q empty, K full[stages], V full[stages],
/// empty[stages].
struct SharedLayout {
  int64_t d = 64, stages = 2;
  int64_t qBytes() const { return kBlockRows * d * 2; }
  int64_t tileBytes() const { return kKeyTile * d * 2; }
  int64_t chunkBytes(int64_t rows) const { return rows * 128; }
  int64_t barriers() const { return qBytes() + stages * 2 * tileBytes(); }
  int64_t sharedBytes() const { return barriers() + 8 * (2 + 3 * stages); }
};

/// Why the wgmma forward does not take `fwd`, or nothing when it does.
std::optional<std::string> whyNot(const AttentionForward &fwd) {
  if (!fwd.element.isBF16())
    return std::string("operands are not bf16 (f32 and TF32 stay on "
                       "mma.sync: TF32 wgmma cannot read V N-major)");
  if (fwd.d != fwd.dv || (fwd.d != 64 && fwd.d != 128))
    return std::string("head dims other than 64 or 128");
  int64_t leadDims = llvm::count_if(fwd.lead, [](int64_t n) { return n != 1; });
  if (leadDims > 3)
    return std::string("more than 3 batch dims (TMA has 5)");
  for (const AttentionOperand *op : {&fwd.q, &fwd.key, &fwd.value})
    if (auto why = attention_wgmma::operandWhyNot(*op, fwd.lead))
      return why;
  if (fwd.tq >= (int64_t(1) << 31) || fwd.tk >= (int64_t(1) << 31))
    return std::string("sequences too long for 32-bit TMA coordinates");
  return std::nullopt;
}

class ForwardEmitter : hopper::EmitterBase {
public:
  explicit ForwardEmitter(const AttentionForward &fwd)
      : EmitterBase(fwd.k), fwd(fwd) {}
  FailureOr<Geometry> emit();

private:
  Value shared(Value byteOffset) {
    return hopper::sharedAt(b, smem, byteOffset);
  }
  /// Barrier `index` (0 Q full, 1 Q empty, then K full, V full, empty per
  /// stage).
  Value barrier(Value index) {
    return shared(
        add(i64(layout.barriers()), arith::MulIOp::create(b, index, i64(8))));
  }
  Value qFull() { return barrier(i64(0)); }
  Value qEmpty() { return barrier(i64(1)); }
  Value kFull(Value stage) { return barrier(add(stage, i64(2))); }
  Value vFull(Value stage) {
    return barrier(add(stage, i64(2 + layout.stages)));
  }
  Value empty(Value stage) {
    return barrier(add(stage, i64(2 + 2 * layout.stages)));
  }
  Value kTile(Value stage) {
    return add(i64(layout.qBytes()),
               arith::MulIOp::create(b, stage, i64(2 * layout.tileBytes())));
  }
  Value vTile(Value stage) {
    return add(kTile(stage), i64(layout.tileBytes()));
  }

  /// A TMA descriptor of `op` over `rows` rows: dims (head dim, rows, the
  /// batch dims that are not 1, innermost first), boxes of 64 x `boxRows`.
  Value descriptor(const AttentionOperand &op, int64_t rows, int64_t boxRows);
  /// The TMA coordinates (i32) of column `col`, row `row` of batch `bh`.
  SmallVector<Value> coordinates(int64_t col, Value row, Value bh);
  /// The number of key tiles the block at query row `queryBase` sees.
  Value keyTiles(Value queryBase);
  /// The block's share of the persistent grid: for each of its work items
  /// (a 128-row query tile of one batch), fn(bh, first query row, the
  /// item's first key-tile step, the item's ordinal in this block) returns
  /// the item's key tiles. Steps count key tiles across the items (the
  /// ring's stages and phases run on).
  LogicalResult
  forEachWork(function_ref<FailureOr<Value>(Value, Value, Value, Value)> fn);
  void producer();
  LogicalResult consumer(Value consumerIndex);

  const AttentionForward &fwd;
  SharedLayout layout;
  Value smem, descQ, descK, descV, tid;
  int64_t queryTiles = 0, keyTileCount = 0, batch = 0, grid = 0;
};

Value ForwardEmitter::descriptor(const AttentionOperand &op, int64_t rows,
                                 int64_t boxRows) {
  return attention_wgmma::descriptor(k, op, fwd.lead, fwd.d, rows, boxRows);
}

SmallVector<Value> ForwardEmitter::coordinates(int64_t col, Value row,
                                               Value bh) {
  return attention_wgmma::coordinates(k, fwd.lead, col, row, bh);
}

Value ForwardEmitter::keyTiles(Value queryBase) {
  Value tiles = idx(keyTileCount);
  if (fwd.causal) // keys after the block's last row are never seen
    tiles = arith::MinUIOp::create(
        b, tiles, div(add(queryBase, kBlockRows + kKeyTile - 1), kKeyTile));
  return tiles;
}

LogicalResult ForwardEmitter::forEachWork(
    function_ref<FailureOr<Value>(Value, Value, Value, Value)> fn) {
  Value block = k.blockId();
  auto loop = scf::ForOp::create(b, block, idx(batch * queryTiles), idx(grid),
                                 ValueRange{idx(0)});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body.pushScope();
  Value work = loop.getInductionVar();
  // Heaviest items first: the last query tiles (which see the most keys
  // when causal) of every batch, then the earlier ones.
  Value bh = rem(work, batch);
  Value queryBase =
      mul(arith::SubIOp::create(b, idx(queryTiles - 1), div(work, batch)),
          kBlockRows);
  Value ordinal = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, work, block), idx(grid));
  FailureOr<Value> tiles =
      fn(bh, queryBase, loop.getRegionIterArgs()[0], ordinal);
  body.popScope();
  if (failed(tiles))
    return failure();
  scf::YieldOp::create(b, add(loop.getRegionIterArgs()[0], *tiles));
  return success();
}

void ForwardEmitter::producer() {
  Value lead = cmp(arith::CmpIPredicate::eq, rem(tid, 128), idx(0));
  (void)k.ifThen(lead, [&] {
    return forEachWork([&](Value bh, Value queryBase, Value first,
                           Value ordinal) -> FailureOr<Value> {
      // The consumers are done with the previous item's Q (a fresh barrier
      // passes the wait on parity 1).
      Value qPhase = toI32(rem(ordinal, 2));
      hopper::waitParity(b, qEmpty(), arith::XOrIOp::create(b, qPhase, i32(1)));
      NVVM::MBarrierArriveExpectTxOp::create(
          b, Type(), qFull(), i32(layout.qBytes()), NVVM::MemScopeKind::CTA,
          false, Value());
      for (int64_t c = 0; c < fwd.d / kChunk; ++c)
        hopper::tmaLoad(b, shared(i64(c * layout.chunkBytes(kBlockRows))),
                        descQ, coordinates(c * kChunk, queryBase, bh), qFull());
      Value tiles = keyTiles(queryBase);
      LogicalResult ok = k.loop(idx(0), tiles, idx(1), [&](Value kt) {
        Value j = add(first, kt);
        Value stage = toI64(rem(j, layout.stages));
        Value phase = toI32(rem(div(j, layout.stages), 2));
        // The consumers released the stage's previous round.
        hopper::waitParity(b, empty(stage),
                           arith::XOrIOp::create(b, phase, i32(1)));
        Value keyRow = mul(kt, kKeyTile);
        for (auto [full, tile, desc] :
             {std::tuple{kFull(stage), kTile(stage), descK},
              std::tuple{vFull(stage), vTile(stage), descV}}) {
          NVVM::MBarrierArriveExpectTxOp::create(
              b, Type(), full, i32(layout.tileBytes()), NVVM::MemScopeKind::CTA,
              false, Value());
          for (int64_t c = 0; c < fwd.d / kChunk; ++c)
            hopper::tmaLoad(
                b, shared(add(tile, i64(c * layout.chunkBytes(kKeyTile)))),
                desc, coordinates(c * kChunk, keyRow, bh), full);
        }
        return success();
      });
      if (failed(ok))
        return failure();
      return tiles;
    });
  });
}

LogicalResult ForwardEmitter::consumer(Value consumerIndex) {
  MLIRContext *ctx = b.getContext();
  Value thread = rem(tid, 128);
  Value warp = div(thread, 32), lane = rem(thread, 32);
  Value g = div(lane, 4), t = rem(lane, 4);
  // Accumulator i of a thread: row g (+ 8 when bit 1 of i is set) of its
  // warp's 16 (from rowBase, the item's), column 8 (i / 4) + 2 t + i % 2.
  Value firstRow, rowBase;
  auto rowOf = [&](int64_t i) { return add(add(rowBase, g), (i & 2) ? 8 : 0); };
  auto colOf = [&](int64_t i) { return add(mul(t, 2), (i / 4) * 8 + (i % 2)); };

  Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), smem);
  Value start = arith::ShRUIOp::create(b, address, i64(4));
  Value kMajor =
      arith::OrIOp::create(b, start, i64(hopper::kKMajorDescriptorBits));
  // V is N-major: the leading byte offset steps between 64-column chunks
  // (one tile of 128 keys x 128 bytes), the stride byte offset between
  // groups of 8 keys (1024 bytes); 128-byte swizzle.
  int64_t nMajorBits = (int64_t(layout.chunkBytes(kKeyTile) >> 4) << 16) |
                       (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);
  Value nMajor = arith::OrIOp::create(b, start, i64(nMajorBits));
  Value qDesc =
      add(kMajor, arith::MulIOp::create(b, toI64(consumerIndex),
                                        i64(kConsumerRows * 128 >> 4)));

  int64_t sCount = kKeyTile / 2, oCount = fwd.dv / 2;
  auto sType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(sCount, b.getF32Type()));
  Value negInf = f32(-INFINITY), zero = f32(0.0);
  auto stageOf = [&](Value j) { return toI64(rem(j, layout.stages)); };
  auto phaseOf = [&](Value j) { return toI32(rem(div(j, layout.stages), 2)); };

  // S = Q K^T of key tile j, issued as one wgmma group (16 head-dim columns,
  // 32 bytes of a 128-byte row, per wgmma) after a fence.
  auto issueS = [&](Value j) {
    hopper::waitParity(b, kFull(stageOf(j)), phaseOf(j));
    Value kDesc =
        add(kMajor, arith::ShRUIOp::create(b, kTile(stageOf(j)), i64(4)));
    NVVM::WgmmaFenceAlignedOp::create(b);
    Value s = LLVM::UndefOp::create(b, sType);
    for (int64_t step = 0; step < fwd.d / 16; ++step) {
      int64_t chunk = step / 4, along = (step % 4) * 32;
      int64_t aOffset = chunk * layout.chunkBytes(kBlockRows) + along;
      int64_t bOffset = chunk * layout.chunkBytes(kKeyTile) + along;
      s = NVVM::WgmmaMmaAsyncOp::create(
          b, sType, s, add(qDesc, i64(aOffset >> 4)),
          add(kDesc, i64(bOffset >> 4)),
          NVVM::MMAShapeAttr::get(ctx, 64, kKeyTile, 16),
          NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::f32,
          step == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, NVVM::MMALayout::col,
          NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    return s;
  };
  // O += P V of key tile j as one wgmma group after a fence: 16 keys (16
  // rows of 128 bytes) per wgmma, P from registers.
  auto issuePV = [&](SmallVector<Value> o, ArrayRef<Value> p, Value j) {
    hopper::waitParity(b, vFull(stageOf(j)), phaseOf(j));
    Value vDesc =
        add(nMajor, arith::ShRUIOp::create(b, vTile(stageOf(j)), i64(4)));
    // Its own fence: the wait above ends the S group's stage for ptxas.
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t step = 0; step < kKeyTile / 16; ++step)
      o = hopper::wgmmaRegisterA(b, o, p.slice(4 * step, 4),
                                 add(vDesc, i64(step * 16 * 128 >> 4)), i32(1),
                                 hopper::RegisterA::BF16NMajorB);
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    return o;
  };
  auto release = [&](Value j) {
    NVVM::MBarrierArriveOp::create(b, Type(), empty(stageOf(j)), Value());
  };

  // The online softmax of tile j's scores `s` in the exp2 domain, from the
  // running max m and per-thread partial sums l: the new m and l, the
  // factor O takes, and P (f32).
  struct Softmax {
    Value m[2], l[2], corr[2];
    SmallVector<Value> p;
  };
  auto softmax = [&](Value s, Value j, ArrayRef<Value> mIn,
                     ArrayRef<Value> lIn) {
    Value keyBase = mul(j, kKeyTile);
    Value log2Scale = f32(fwd.scale * M_LOG2E);
    SmallVector<Value> x;
    for (int64_t i = 0; i < sCount; ++i)
      x.push_back(fmul(LLVM::ExtractValueOp::create(b, s, ArrayRef<int64_t>{i}),
                       log2Scale));
    // Masks only where the tile reaches past the last key or (causal) a key
    // after this warpgroup's first row: uniform across the warpgroup.
    Value needsMask =
        cmp(arith::CmpIPredicate::ugt, add(keyBase, kKeyTile), idx(fwd.tk));
    if (fwd.causal)
      needsMask = arith::OrIOp::create(
          b, needsMask,
          cmp(arith::CmpIPredicate::ugt, add(keyBase, kKeyTile - 1), firstRow));
    {
      auto branch = scf::IfOp::create(
          b, SmallVector<Type>(sCount, b.getF32Type()), needsMask, true);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> masked;
      for (int64_t i = 0; i < sCount; ++i) {
        Value key = add(keyBase, colOf(i));
        Value out = cmp(arith::CmpIPredicate::uge, key, idx(fwd.tk));
        if (fwd.causal)
          out = arith::OrIOp::create(
              b, out, cmp(arith::CmpIPredicate::ugt, key, rowOf(i)));
        masked.push_back(select(out, negInf, x[i]));
      }
      scf::YieldOp::create(b, masked);
      b.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(b, x);
      x.assign(branch.getResults().begin(), branch.getResults().end());
    }
    Combiner maxOf{nv::ReduceKind::max, b.getF32Type()};
    Value rowMax[2] = {negInf, negInf};
    for (int64_t i = 0; i < sCount; ++i)
      rowMax[(i >> 1) & 1] =
          arith::MaximumFOp::create(b, rowMax[(i >> 1) & 1], x[i]);
    Softmax out;
    Value mSafe[2], rowSum[2] = {zero, zero};
    for (int r = 0; r < 2; ++r) {
      Value mNew = arith::MaximumFOp::create(
          b, mIn[r], shuffleReduce(b, maxOf, rowMax[r], 4));
      // A row with no key seen yet keeps m = -inf: subtract 0 instead.
      Value none =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf);
      mSafe[r] = select(none, zero, mNew);
      out.corr[r] = math::Exp2Op::create(b, fsub(mIn[r], mSafe[r]));
      out.m[r] = mNew;
    }
    SmallVector<Value> p;
    for (int64_t i = 0; i < sCount; ++i) {
      int r = (i >> 1) & 1;
      p.push_back(math::Exp2Op::create(b, fsub(x[i], mSafe[r])));
      rowSum[r] = fadd(rowSum[r], p.back());
    }
    for (int r = 0; r < 2; ++r)
      out.l[r] = fadd(fmul(lIn[r], out.corr[r]), rowSum[r]);
    out.p = std::move(p);
    return out;
  };

  auto pack = [&](ArrayRef<Value> p) {
    return attention_wgmma::packBF16(b, p);
  };

  return forEachWork([&](Value bh, Value queryBase, Value first,
                         Value ordinal) -> FailureOr<Value> {
    firstRow = add(queryBase, mul(consumerIndex, kConsumerRows));
    rowBase = add(firstRow, mul(warp, 16));
    hopper::waitParity(b, qFull(), toI32(rem(ordinal, 2)));
    // Key tile kt of this item is ring step first + kt.
    auto at = [&](Value kt) { return add(first, kt); };
    // Software pipeline: tile j + 1's S = Q K^T is in flight while tile j's
    // O += P V runs, and tile j + 1's softmax overlaps the latter.
    Value s0 = issueS(at(idx(0)));
    NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
    Softmax initial = softmax(s0, idx(0), {negInf, negInf}, {zero, zero});
    SmallVector<Value> inits(oCount, zero);
    inits.append({initial.m[0], initial.m[1], initial.l[0], initial.l[1]});
    inits.append(pack(initial.p));
    Value tiles = keyTiles(queryBase);
    Value last = arith::SubIOp::create(b, tiles, idx(1));
    auto loop = scf::ForOp::create(b, idx(0), last, idx(1), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      body.pushScope();
      Value j = loop.getInductionVar();
      ValueRange carried = loop.getRegionIterArgs();
      SmallVector<Value> o(carried.begin(), carried.begin() + oCount);
      ValueRange ml = carried.slice(oCount, 4);
      SmallVector<Value> p(carried.begin() + oCount + 4, carried.end());
      Value next = add(j, 1);
      Value s = issueS(at(next));
      o = issuePV(o, p, at(j));
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1); // S is done
      Softmax step = softmax(s, next, {ml[0], ml[1]}, {ml[2], ml[3]});
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0); // P V is done
      release(at(j));
      // Packed only now: the registers of tile j's P were the in-flight
      // wgmma's inputs.
      SmallVector<Value> nextP = pack(step.p);
      for (int64_t i = 0; i < oCount; ++i)
        o[i] = fmul(o[i], step.corr[(i >> 1) & 1]);
      body.popScope();
      SmallVector<Value> yielded = o;
      yielded.append({step.m[0], step.m[1], step.l[0], step.l[1]});
      yielded.append(nextP);
      scf::YieldOp::create(b, yielded);
    }
    ValueRange carried = loop.getResults();
    SmallVector<Value> o(carried.begin(), carried.begin() + oCount);
    SmallVector<Value> p(carried.begin() + oCount + 4, carried.end());
    // Every S of the item is done: the producer may load the next Q.
    NVVM::MBarrierArriveOp::create(b, Type(), qEmpty(), Value());
    o = issuePV(o, p, at(last));
    NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
    release(at(last));

    Value lse[2], inv[2];
    for (int r = 0; r < 2; ++r) {
      Value m = carried[oCount + r];
      Value l = shuffleReduce(b, Combiner{nv::ReduceKind::sum, b.getF32Type()},
                              carried[oCount + 2 + r], 4);
      Value any = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, zero);
      inv[r] = select(any, arith::DivFOp::create(b, f32(1.0), l), zero);
      lse[r] = select(
          any, fmul(fadd(m, math::Log2Op::create(b, l)), f32(M_LN2)), negInf);
    }
    for (int64_t i = 0; i < oCount; ++i) {
      Value row = rowOf(i);
      if (failed(fwd.store(0, bh, row, colOf(i), fmul(o[i], inv[(i >> 1) & 1]),
                           cmp(arith::CmpIPredicate::ult, row, idx(fwd.tq)))))
        return failure();
    }
    if (fwd.withLogSumExp) {
      Value firstLane = cmp(arith::CmpIPredicate::eq, t, idx(0));
      for (int r = 0; r < 2; ++r) {
        Value row = rowOf(2 * r);
        Value valid = arith::AndIOp::create(
            b, firstLane, cmp(arith::CmpIPredicate::ult, row, idx(fwd.tq)));
        if (failed(fwd.store(1, bh, row, Value(), lse[r], valid)))
          return failure();
      }
    }
    return tiles;
  });
}

FailureOr<Geometry> ForwardEmitter::emit() {
  layout.d = fwd.d;
  layout.stages = 1;
  for (int64_t stages = 4; stages > 1; --stages) {
    layout.stages = stages;
    if (layout.sharedBytes() <= int64_t(k.target.smemPerBlock))
      break;
  }
  batch = product(fwd.lead);
  queryTiles = llvm::divideCeil(fwd.tq, kBlockRows);
  keyTileCount = llvm::divideCeil(fwd.tk, kKeyTile);
  // A persistent grid (a block per SM, each walking its work items while
  // the producer runs ahead into the next item's Q and K/V tiles) where
  // there are many items per SM: the static round-robin then balances the
  // causal items' unequal lengths. With few (long causal sequences over
  // few heads), a block per item and the hardware's dynamic block
  // scheduling balance them better (measured: B2 H3 T4096 D128 causal,
  // 0.062 ms one block per item against 0.087 persistent; B16 H12 T1024
  // D64, 0.121 persistent against 0.144).
  int64_t items = batch * queryTiles;
  grid = items >= attention_wgmma::kPersistentItemsPerSM * k.target.sms
             ? k.target.sms
             : items;

  smem = hopper::dynamicSharedMemory(k, layout.sharedBytes());
  descQ = descriptor(fwd.q, fwd.tq, kBlockRows);
  descK = descriptor(fwd.key, fwd.tk, kKeyTile);
  descV = descriptor(fwd.value, fwd.tk, kKeyTile);
  tid = k.threadId();
  fwd.fillConstants(grid, kThreads);

  (void)k.ifThen(cmp(arith::CmpIPredicate::eq, tid, idx(0)), [&] {
    NVVM::MBarrierInitOp::create(b, qFull(), i32(1), Value());
    NVVM::MBarrierInitOp::create(b, qEmpty(), i32(128 * kConsumers), Value());
    for (int64_t s = 0; s < layout.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, kFull(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, vFull(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, empty(i64(s)), i32(128 * kConsumers),
                                   Value());
    }
    NVVM::FenceMbarrierInitOp::create(b);
    return success();
  });
  gpu::BarrierOp::create(b);

  if (failed(specialize(
          tid, [&] { producer(); },
          [&](Value consumerIndex) { return consumer(consumerIndex); })))
    return failure();
  return Geometry{grid, kThreads};
}

} // namespace

namespace attention_wgmma {

std::optional<std::string> operandWhyNot(const AttentionOperand &op,
                                         ArrayRef<int64_t> lead) {
  if (op.converted || !op.input || !elementOf(op.input).isBF16())
    return std::string("a prologue on an operand");
  ArrayRef<int64_t> strides = op.strides;
  size_t rank = strides.size();
  if (rank != lead.size() + 2 || strides[rank - 1] != 1)
    return std::string("an operand whose head dim is not contiguous");
  if ((op.offset * 2) % 16 != 0)
    return std::string("an operand that does not start 16-byte aligned");
  for (size_t i = 0; i + 1 < rank; ++i)
    if ((i == rank - 2 || lead[i] != 1) &&
        ((strides[i] * 2) % 16 != 0 || strides[i] <= 0))
      return std::string("a stride that is not a multiple of 16 bytes");
  return std::nullopt;
}

Value descriptor(KernelContext &k, const AttentionOperand &op,
                 ArrayRef<int64_t> lead, int64_t cols, int64_t rows,
                 int64_t boxRows) {
  size_t rank = op.strides.size();
  SmallVector<int64_t> dims{cols, rows}, strides{op.strides[rank - 2] * 2},
      box{kChunk, boxRows};
  for (int64_t i = int64_t(lead.size()) - 1; i >= 0; --i) {
    if (lead[i] == 1)
      continue;
    dims.push_back(lead[i]);
    strides.push_back(op.strides[i] * 2);
    box.push_back(1);
  }
  return hopper::addTmaDescriptor(k, op.input, op.offset * 2, dims, strides,
                                  box, 128);
}

SmallVector<Value> coordinates(KernelContext &k, ArrayRef<int64_t> lead,
                               int64_t col, Value row, Value bh) {
  ImplicitLocOpBuilder &b = k.b;
  auto i32 = [&](Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  };
  SmallVector<Value> at{
      arith::ConstantOp::create(b, b.getI32IntegerAttr(int32_t(col))),
      i32(row)};
  SmallVector<Value> leadIdx = k.body.delinearize(bh, lead);
  for (int64_t i = int64_t(lead.size()) - 1; i >= 0; --i)
    if (lead[i] != 1)
      at.push_back(i32(leadIdx[i]));
  return at;
}

SmallVector<Value> packBF16(ImplicitLocOpBuilder &b, ArrayRef<Value> values) {
  // For k-step s, register r holds accumulators 8 s + 2 r and 8 s + 2 r + 1
  // (the m64k16 A fragment layout matches the accumulators').
  auto pair = VectorType::get({2}, b.getF32Type());
  auto pairBF16 = VectorType::get({2}, b.getBF16Type());
  auto word = VectorType::get({1}, b.getI32Type());
  SmallVector<Value> regs;
  for (size_t i = 0; i < values.size(); i += 2) {
    Value v = vector::FromElementsOp::create(
        b, pair, ValueRange{values[i], values[i + 1]});
    Value h = arith::TruncFOp::create(b, pairBF16, v);
    regs.push_back(vector::ExtractOp::create(
        b, vector::BitCastOp::create(b, word, h), ArrayRef<int64_t>{0}));
  }
  return regs;
}

} // namespace attention_wgmma

std::optional<FailureOr<Geometry>>
emitAttentionForwardWgmma(const AttentionForward &fwd) {
  auto why = whyNot(fwd);
  hopper::remarkPath(fwd.k, why, "wgmma attention forward");
  if (why)
    return std::nullopt;
  return ForwardEmitter(fwd).emit();
}

} // namespace mlir::nova::tile_to_gpu
