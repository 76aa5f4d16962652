//===- Matmul.cpp - matmul family on tensor cores
//--------------------------===//
//
// Every problem of a matmul kernel (one GEMM, or a grouped GEMM's matmuls
// and column sums) in one launch: the grid is the concatenation of the
// problems' block ranges. A GEMM block computes a BM x BN tile of one batch
// matrix: each K step stages a BM x BK slice of A and a BN x BK slice of B
// in shared memory (K-major, converted and zero-filled past the edges on
// the way; 16-byte global loads along the contiguous dim where the layout
// keeps them aligned and whole), then every warp runs nvvm.mma.sync on its WM x
// WN sub-tile with f32 accumulators: m16n8k16 for bf16 operands, m16n8k8 TF32
// for f32 ones (operands rounded to TF32 to nearest even, as the reference
// interpreter models the tensor core). The epilogue evaluates each output at
// each accumulator element the thread holds, with the product's value bound to
// the accumulator. A column sum (a bias gradient) takes 32 columns per
// block and splits the rows over the block's warps, combined in shared
// memory in a fixed order: deterministic, no atomics.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

/// The block tile and how warps split it: 2 warps along M, one warp per 32
/// columns along N.
struct Tiling {
  int64_t bm, bn, bk = 32;
  int64_t warpsM = 2, warpsN;
  int64_t wm() const { return bm / warpsM; }
  int64_t wn() const { return bn / warpsN; }
  int64_t threads() const { return 32 * warpsM * warpsN; }

  /// The schedule's tile, clamped to what mma.sync with per-thread
  /// accumulators holds in registers (64 x 32 per warp at most).
  static Tiling of(ScheduleAttr schedule, ArrayRef<int64_t> largest) {
    ArrayRef<int64_t> tile = schedule.getTile();
    auto pick = [](int64_t want, int64_t extent) -> int64_t {
      return want >= 128 && extent > 64 ? 128 : 64;
    };
    Tiling t;
    t.bm = pick(tile[0], largest[0]);
    t.bn = pick(tile.size() > 1 ? tile[1] : tile[0], largest[1]);
    t.warpsN = t.bn / 32;
    return t;
  }
};

/// One operand of a problem: a strided view of a kernel input (Access's
/// offset and strides over [batch..., rows, cols]) and the element types
/// the prologue casts it through, in order.
struct Operand {
  Value flat;
  Access access;
  SmallVector<Type> casts;
  /// Rows of `rowLength` elements `pitch` apart in `flat` when the planner
  /// padded them (pitch 0: packed): the access's indices are the packed
  /// ones.
  int64_t rowLength = 0, pitch = 0;
  /// Where element `linear` of the packed input is in `flat`.
  Value at(ImplicitLocOpBuilder &b, Value linear) const {
    return pitch ? pitchedIndex(b, linear, rowLength, pitch) : linear;
  }
};

class MatmulEmitter {
public:
  explicit MatmulEmitter(KernelContext &k) : k(k), b(k.b), body(k.body) {}
  FailureOr<Geometry> emit();

private:
  /// The main ops in body order (the contract's problems' order).
  SmallVector<Operation *> mains() {
    SmallVector<Operation *> out;
    for (Operation &op : k.block().without_terminator()) {
      if (isa<nv::MatmulOp>(op)) {
        out.push_back(&op);
        continue;
      }
      auto reduce = dyn_cast<nv::ReduceOp>(op);
      int64_t rank = reduce ? shapeOf(reduce.getInput()).size() : 0;
      if (reduce && reduce.getKind() == nv::ReduceKind::sum && rank >= 2 &&
          llvm::equal(reduce.getDims(), llvm::seq<int64_t>(0, rank - 1)))
        out.push_back(&op);
    }
    return out;
  }
  /// Which main op the output value `v` is computed from (its only one, by
  /// the contract; the first when it depends on none).
  unsigned problemOfOutput(Value v, ArrayRef<Operation *> mainOps);
  Operand operand(Value mainOperand, const Access &access);
  /// The operand's `width` elements from `linear` of its input (zero where
  /// `inBounds` is false), converted as the prologue does, then rounded to
  /// TF32 when the product runs in TF32.
  Value load(const Operand &op, Value linear, Value inBounds, int64_t width);
  /// `scalar` in every element of `type` (a scalar or vector type).
  Value splat(Type type, TypedAttr scalar);
  /// Elements per global access when staging the operand: 16 bytes where
  /// the layout keeps every access aligned and whole, else 1.
  int64_t vectorWidth(const Operand &op, int64_t rows, int64_t outerExtent,
                      int64_t outerStride, int64_t kExtent, int64_t kStride,
                      bool kFastest);

  LogicalResult gemm(nv::MatmulOp mm, const MainProblem &p, Value local,
                     ArrayRef<unsigned> outputs);
  LogicalResult columnSum(nv::ReduceOp reduce, const MainProblem &p,
                          Value local, ArrayRef<unsigned> outputs);
  /// Stages rows [outerBase, outerBase + rows) x k [k0, k0 + BK) of an
  /// operand into `tile` (rows x BK + pad, K-major), zero past the edges.
  void stage(const Operand &op, Value tile, Value base, Value outerBase,
             int64_t rows, int64_t outerExtent, int64_t outerStride, Value k0,
             int64_t kExtent, int64_t kStride, bool kFastest);

  /// Blocks of a problem: 32 columns of a column sum, a tile of a GEMM.
  int64_t blocksOf(const MainProblem &p) const {
    if (p.columnSum)
      return llvm::divideCeil(p.space[2], 32);
    return p.space[0] * llvm::divideCeil(p.space[1], tiling.bm) *
           llvm::divideCeil(p.space[2], tiling.bn);
  }
  Value idx(int64_t v) { return body.index(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
  }

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
  Tiling tiling;
  Type element; // operands' element type in the product (bf16 or f32)
  bool tf32 = false;
  // f32 products not marked `nova.precision = "tf32"` keep f32 accuracy:
  // each operand splits into a TF32 high part and a TF32 remainder, and
  // three products (lo*hi, hi*lo, hi*hi) accumulate (3xTF32), so the
  // result matches an f32 GEMM to about 1e-6 at a third of TF32's rate.
  bool splitF32 = false;
  Value aTile, bTile, partials;
  Value tid;
};

unsigned MatmulEmitter::problemOfOutput(Value v,
                                        ArrayRef<Operation *> mainOps) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!def || !seen.insert(x).second)
      continue;
    if (auto it = llvm::find(mainOps, def); it != mainOps.end())
      return it - mainOps.begin();
    llvm::append_range(work, def->getOperands());
  }
  return 0;
}

Operand MatmulEmitter::operand(Value mainOperand, const Access &access) {
  Operand op;
  op.access = access;
  Value v = mainOperand;
  while (Operation *def = v.getDefiningOp()) {
    if (isa<nv::CastOp>(def))
      op.casts.push_back(elementOf(def->getResult(0)));
    v = def->getOperand(0);
  }
  std::reverse(op.casts.begin(), op.casts.end());
  Value input = body.input(cast<BlockArgument>(v));
  op.pitch = rowPitchOf(input);
  op.rowLength = cast<MemRefType>(input.getType()).getShape().back();
  op.flat = flattenPadded(b, input);
  return op;
}

Value MatmulEmitter::splat(Type type, TypedAttr scalar) {
  if (auto vt = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, vt, SplatElementsAttr::get(vt, scalar));
  return arith::ConstantOp::create(b, type, scalar);
}

Value MatmulEmitter::load(const Operand &op, Value linear, Value inBounds,
                          int64_t width) {
  // Out-of-bounds lanes read element 0 (always there) and keep zero.
  Value safe = arith::SelectOp::create(b, inBounds, op.at(b, linear), idx(0));
  Type input = elementOf(op.flat);
  Value x;
  if (width == 1) {
    x = memref::LoadOp::create(b, op.flat, ValueRange{safe});
    for (Type t : op.casts)
      x = body.convert(x, t);
  } else {
    x = vector::LoadOp::create(
        b, VectorType::get({width}, input), op.flat, ValueRange{safe},
        /*nontemporal=*/false,
        llvm::MaybeAlign(width * input.getIntOrFloatBitWidth() / 8));
    // Float casts only (vectorWidth() requires it).
    for (Type t : op.casts) {
      auto to = VectorType::get({width}, t);
      x = getElementTypeOrSelf(x).getIntOrFloatBitWidth() <
                  t.getIntOrFloatBitWidth()
              ? arith::ExtFOp::create(b, to, x).getResult()
              : arith::TruncFOp::create(b, to, x).getResult();
    }
  }
  x = arith::SelectOp::create(b, inBounds, x,
                              splat(x.getType(), b.getZeroAttr(element)));
  return tf32 && !splitF32 ? roundToTF32(b, x) : x;
}

int64_t MatmulEmitter::vectorWidth(const Operand &op, int64_t rows,
                                   int64_t outerExtent, int64_t outerStride,
                                   int64_t kExtent, int64_t kStride,
                                   bool kFastest) {
  Type input = elementOf(op.flat);
  // Padded rows: a 16-byte access of the packed index space may span two.
  if (op.pitch || !isa<FloatType>(input) ||
      !llvm::all_of(op.casts, [](Type t) { return isa<FloatType>(t); }))
    return 1;
  // 16 bytes per access: the contiguous dim, the tile's extent along it and
  // every other stride and the offset in whole vectors, so each vector is
  // aligned (buffers are 16-byte aligned) and wholly inside or outside.
  int64_t width = 128 / input.getIntOrFloatBitWidth();
  int64_t contiguousStride = kFastest ? kStride : outerStride;
  int64_t otherStride = kFastest ? outerStride : kStride;
  int64_t contiguousExtent = kFastest ? kExtent : outerExtent;
  int64_t tileExtent = kFastest ? tiling.bk : rows;
  bool aligned = contiguousStride == 1 && contiguousExtent % width == 0 &&
                 tileExtent % width == 0 && otherStride % width == 0 &&
                 op.access.offset % width == 0 &&
                 llvm::all_of(ArrayRef(op.access.strides).drop_back(2),
                              [&](int64_t s) { return s % width == 0; });
  return aligned ? width : 1;
}

void MatmulEmitter::stage(const Operand &op, Value tile, Value base,
                          Value outerBase, int64_t rows, int64_t outerExtent,
                          int64_t outerStride, Value k0, int64_t kExtent,
                          int64_t kStride, bool kFastest) {
  int64_t bk = tiling.bk, threads = tiling.threads();
  int64_t width = vectorWidth(op, rows, outerExtent, outerStride, kExtent,
                              kStride, kFastest);
  // Consecutive threads take consecutive vectors (or elements) along the
  // operand's contiguous dim: coalesced.
  int64_t perLine = (kFastest ? bk : rows) / width;
  (void)k.loop(tid, idx(rows * bk / width), idx(threads), [&](Value e) {
    Value along = mul(arith::RemUIOp::create(b, e, idx(perLine)), idx(width));
    Value across = arith::DivUIOp::create(b, e, idx(perLine));
    Value row = kFastest ? across : along, kk = kFastest ? along : across;
    Value outer = add(outerBase, row), kg = add(k0, kk);
    Value inBounds = arith::AndIOp::create(b, lt(outer, idx(outerExtent)),
                                           lt(kg, idx(kExtent)));
    Value linear =
        add(base, add(mul(outer, idx(outerStride)), mul(kg, idx(kStride))));
    Value x = load(op, linear, inBounds, width);
    if (width == 1) {
      memref::StoreOp::create(b, x, tile, ValueRange{row, kk});
    } else if (kFastest) {
      // Tile rows are 16-byte multiples (80 or 144 bytes).
      vector::StoreOp::create(
          b, x, tile, ValueRange{row, kk}, /*nontemporal=*/false,
          llvm::MaybeAlign(std::min<int64_t>(
              16, width * element.getIntOrFloatBitWidth() / 8)));
    } else {
      // Along M or N: one K column of the K-major tile, element by element.
      for (int64_t i = 0; i < width; ++i)
        memref::StoreOp::create(
            b, vector::ExtractOp::create(b, x, ArrayRef<int64_t>{i}), tile,
            ValueRange{add(row, idx(i)), kk});
    }
    return success();
  });
}

LogicalResult MatmulEmitter::gemm(nv::MatmulOp mm, const MainProblem &p,
                                  Value local, ArrayRef<unsigned> outputs) {
  int64_t m = p.space[1], n = p.space[2], kExtent = p.space[3];
  int64_t tilesM = llvm::divideCeil(m, tiling.bm),
          tilesN = llvm::divideCeil(n, tiling.bn);
  // Block -> (batch, tile row, tile column), columns fastest.
  Value tn = arith::RemUIOp::create(b, local, idx(tilesN));
  Value rest = arith::DivUIOp::create(b, local, idx(tilesN));
  Value tm = arith::RemUIOp::create(b, rest, idx(tilesM));
  Value bt = arith::DivUIOp::create(b, rest, idx(tilesM));
  Value m0 = mul(tm, idx(tiling.bm)), n0 = mul(tn, idx(tiling.bn));
  ArrayRef<int64_t> out = shapeOf(mm.getResult());
  ArrayRef<int64_t> batchShape = out.drop_back(2);
  SmallVector<Value> batchIdx = body.delinearize(bt, batchShape);

  Operand a = operand(mm.getLhs(), p.operands[0].second);
  Operand bo = operand(mm.getRhs(), p.operands[1].second);
  auto baseOf = [&](const Operand &o) {
    Value base = idx(o.access.offset);
    for (auto [i, s] : llvm::enumerate(
             ArrayRef(o.access.strides).take_front(batchShape.size())))
      if (s != 0)
        base = add(base, mul(batchIdx[i], idx(s)));
    return base;
  };
  Value aBase = baseOf(a), bBase = baseOf(bo);
  size_t r = a.access.strides.size();
  int64_t aRowStride = a.access.strides[r - 2],
          aKStride = a.access.strides[r - 1];
  int64_t bKStride = bo.access.strides[r - 2],
          bColStride = bo.access.strides[r - 1];

  Value lane = arith::RemUIOp::create(b, tid, idx(32));
  Value warp = arith::DivUIOp::create(b, tid, idx(32));
  Value warpRow = mul(arith::RemUIOp::create(b, warp, idx(tiling.warpsM)),
                      idx(tiling.wm()));
  Value warpCol = mul(arith::DivUIOp::create(b, warp, idx(tiling.warpsM)),
                      idx(tiling.wn()));
  Value group = arith::DivUIOp::create(b, lane, idx(4));
  Value inGroup = arith::RemUIOp::create(b, lane, idx(4));

  int64_t tilesWM = tiling.wm() / 16, tilesWN = tiling.wn() / 8;
  int64_t kStep = tf32 ? 8 : 16, perReg = tf32 ? 1 : 2;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value zero = arith::ConstantOp::create(b, f32, b.getF32FloatAttr(0));
  SmallVector<Value> init(tilesWM * tilesWN * 4, zero);

  auto forOp = scf::ForOp::create(b, idx(0), idx(kExtent), idx(tiling.bk),
                                  ValueRange(init));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body.pushScope();
    Value k0 = forOp.getInductionVar();
    stage(a, aTile, aBase, m0, tiling.bm, m, aRowStride, k0, kExtent, aKStride,
          !p.operands[0].second.transposed);
    stage(bo, bTile, bBase, n0, tiling.bn, n, bColStride, k0, kExtent, bKStride,
          p.operands[1].second.transposed);
    gpu::BarrierOp::create(b);
    SmallVector<Value> acc(forOp.getRegionIterArgs());
    // One 32-bit register: `perReg` consecutive K elements of a tile row;
    // with splitF32 also a second one, the f32 value's TF32 remainder (the
    // first is then its TF32-rounded high part).
    auto reg = [&](Value tile, Value row, Value col) -> std::array<Value, 2> {
      if (splitF32) {
        auto [hi, lo] = splitTF32(
            b, memref::LoadOp::create(b, tile, ValueRange{row, col}));
        return {hi, lo};
      }
      auto vt = VectorType::get({perReg}, element);
      Value v = vector::LoadOp::create(b, vt, tile, ValueRange{row, col});
      Value asInt = vector::BitCastOp::create(b, VectorType::get({1}, i32), v);
      return {vector::ExtractOp::create(b, asInt, ArrayRef<int64_t>{0}),
              Value()};
    };
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptx = tf32 ? NVVM::MMATypes::tf32 : NVVM::MMATypes::bf16;
    for (int64_t kk = 0; kk < tiling.bk; kk += kStep) {
      // Fragment layouts of PTX's mma.m16n8k{16,8}: thread (group g, t)
      // holds A rows g and g+8 at K columns t*perReg (+ kStep/2), B column
      // g at the same K rows.
      Value col = add(idx(kk), mul(inGroup, idx(perReg)));
      Value col2 = add(col, idx(kStep / 2));
      // A's fragments (high parts) and, with splitF32, their remainders.
      SmallVector<std::array<Value, 4>> aFrag, aLow;
      for (int64_t mi = 0; mi < tilesWM; ++mi) {
        Value row = add(warpRow, add(idx(mi * 16), group));
        Value row8 = add(row, idx(8));
        std::array<std::array<Value, 2>, 4> r{
            reg(aTile, row, col), reg(aTile, row8, col), reg(aTile, row, col2),
            reg(aTile, row8, col2)};
        aFrag.push_back({r[0][0], r[1][0], r[2][0], r[3][0]});
        aLow.push_back({r[0][1], r[1][1], r[2][1], r[3][1]});
      }
      for (int64_t ni = 0; ni < tilesWN; ++ni) {
        Value nrow = add(warpCol, add(idx(ni * 8), group));
        std::array<Value, 2> b0 = reg(bTile, nrow, col),
                             b1 = reg(bTile, nrow, col2);
        std::array<Value, 2> bHi{b0[0], b1[0]}, bLo{b0[1], b1[1]};
        for (int64_t mi = 0; mi < tilesWM; ++mi) {
          int64_t at = (mi * tilesWN + ni) * 4;
          auto product = [&](ArrayRef<Value> aRegs, ArrayRef<Value> bRegs) {
            auto mma = NVVM::MmaOp::create(
                b, resultType, ValueRange(aRegs), ValueRange(bRegs),
                ArrayRef(acc).slice(at, 4), ArrayRef<int64_t>{16, 8, kStep},
                std::nullopt, std::nullopt, std::array{ptx, ptx},
                std::array{NVVM::MMALayout::row, NVVM::MMALayout::col});
            for (int64_t j = 0; j < 4; ++j)
              acc[at + j] = LLVM::ExtractValueOp::create(b, mma.getRes(),
                                                         ArrayRef<int64_t>{j});
          };
          // The small terms first, so they are not lost to the large one.
          if (splitF32) {
            product(aLow[mi], bHi);
            product(aFrag[mi], bLo);
          }
          product(aFrag[mi], bHi);
        }
      }
    }
    // The tiles are free for the next step once every warp has read them.
    gpu::BarrierOp::create(b);
    body.popScope();
    scf::YieldOp::create(b, acc);
  }

  // Epilogue: accumulator j of tile (mi, ni) is row g (+8 for j >= 2),
  // column 2t (+1 for odd j) of that tile.
  Type resultElement = elementOf(mm.getResult());
  for (int64_t mi = 0; mi < tilesWM; ++mi)
    for (int64_t ni = 0; ni < tilesWN; ++ni)
      for (int64_t j = 0; j < 4; ++j) {
        Value row =
            add(m0, add(warpRow, add(idx(mi * 16 + (j >= 2 ? 8 : 0)), group)));
        Value col = add(
            n0, add(warpCol, add(idx(ni * 8 + (j & 1)), mul(inGroup, idx(2)))));
        Value inside =
            arith::AndIOp::create(b, lt(row, idx(m)), lt(col, idx(n)));
        Value accValue = forOp.getResult((mi * tilesWN + ni) * 4 + j);
        LogicalResult ok = k.ifThen(inside, [&] {
          // Dims of size 1 are indexed by the shared zero (as project()
          // does) so the epilogue finds the bound value.
          SmallVector<Value> at(batchIdx);
          at.push_back(m == 1 ? idx(0) : row);
          at.push_back(n == 1 ? idx(0) : col);
          body.bind(mm.getResult(), at, body.convert(accValue, resultElement));
          for (unsigned o : outputs)
            if (failed(k.store(o, at)))
              return failure();
          return success();
        });
        if (failed(ok))
          return failure();
      }
  return success();
}

LogicalResult MatmulEmitter::columnSum(nv::ReduceOp reduce,
                                       const MainProblem &p, Value local,
                                       ArrayRef<unsigned> outputs) {
  int64_t n = p.space[2], rows = p.space[3];
  int64_t threads = tiling.threads(), groups = threads / 32;
  Operand x = operand(reduce.getInput(), p.operands[0].second);
  int64_t rowStride = x.access.strides[0], colStride = x.access.strides[1];
  Value colInBlock = arith::RemUIOp::create(b, tid, idx(32));
  Value rowGroup = arith::DivUIOp::create(b, tid, idx(32));
  Value col = add(mul(local, idx(32)), colInBlock);
  Value valid = lt(col, idx(n));
  Combiner comb = Combiner::of(reduce);
  auto forOp = scf::ForOp::create(b, rowGroup, idx(rows), idx(groups),
                                  ValueRange{comb.identity(b, b.getLoc())});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value linear = add(idx(x.access.offset),
                       add(mul(forOp.getInductionVar(), idx(rowStride)),
                           mul(col, idx(colStride))));
    Value safe = arith::SelectOp::create(b, valid, x.at(b, linear), idx(0));
    Value v = memref::LoadOp::create(b, x.flat, ValueRange{safe});
    for (Type t : x.casts)
      v = body.convert(v, t);
    Value wide = body.convert(body.widen(v), comb.accType);
    Value sum = comb.combine(b, b.getLoc(), forOp.getRegionIterArg(0), wide);
    scf::YieldOp::create(b, ValueRange{arith::SelectOp::create(
                                b, valid, sum, forOp.getRegionIterArg(0))});
  }
  memref::StoreOp::create(b, forOp.getResult(0), partials, ValueRange{tid});
  gpu::BarrierOp::create(b);
  Value first = arith::AndIOp::create(
      b, valid,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rowGroup, idx(0)));
  return k.ifThen(first, [&] {
    // Row groups in order: the same sum on every run.
    Value acc = comb.identity(b, b.getLoc());
    for (int64_t g = 0; g < groups; ++g)
      acc = comb.combine(
          b, b.getLoc(), acc,
          memref::LoadOp::create(b, partials,
                                 ValueRange{add(colInBlock, idx(g * 32))}));
    body.setUniform(reduce.getResult(),
                    body.convert(acc, elementOf(reduce.getResult())));
    for (unsigned o : outputs) {
      ArrayRef<int64_t> shape = shapeOf(k.outputs()[o]);
      SmallVector<Value> at;
      at.append(shape.size() - 1, idx(0));
      at.push_back(shape.back() == 1 ? idx(0) : col);
      if (failed(k.store(o, at)))
        return failure();
    }
    return success();
  });
}

FailureOr<Geometry> MatmulEmitter::emit() {
  SmallVector<Operation *> mainOps = mains();
  const auto &problems = k.contract.problems;
  if (mainOps.size() != problems.size())
    return k.fail("the body's matmuls and column sums do not match its "
                  "contract's problems");
  element = k.contract.computeType;
  if (!element.isBF16() && !element.isF32()) {
    std::string name;
    llvm::raw_string_ostream(name) << element;
    return k.fail("matmuls of " + name +
                  " operands are not lowered (tensor cores take bf16, or f32 "
                  "as TF32)");
  }
  tf32 = element.isF32();
  splitF32 = tf32 && llvm::any_of(mainOps, [](Operation *op) {
               auto p = op->getAttrOfType<StringAttr>("nova.precision");
               return isa<nv::MatmulOp>(op) && (!p || p.getValue() != "tf32");
             });
  for (Operation *op : mainOps)
    if (auto mm = dyn_cast<nv::MatmulOp>(op))
      if (elementOf(mm.getLhs()) != element)
        return k.fail("a grouped GEMM whose matmuls take different operand "
                      "types is not lowered");

  // One tiling for the launch, sized by the largest GEMM.
  int64_t largestM = 1, largestN = 1;
  for (const MainProblem &p : problems)
    if (!p.columnSum) {
      largestM = std::max(largestM, p.space[1]);
      largestN = std::max(largestN, p.space[2]);
    }
  tiling = Tiling::of(k.schedule, {largestM, largestN});
  // Zero-sized buffers do not lower to NVVM, and a launch needs a block.
  for (const MainProblem &p : problems)
    if (llvm::is_contained(p.space, 0))
      return k.fail("an empty product or column sum (a dim of size 0) is not "
                    "lowered");

  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // Padded rows: the fragment loads of a warp hit distinct banks.
  int64_t pad = tf32 ? 4 : 8;
  aTile = k.func.addWorkgroupAttribution(
      MemRefType::get({tiling.bm, tiling.bk + pad}, element, AffineMap(),
                      space),
      b.getLoc());
  bTile = k.func.addWorkgroupAttribution(
      MemRefType::get({tiling.bn, tiling.bk + pad}, element, AffineMap(),
                      space),
      b.getLoc());
  if (llvm::any_of(problems, [](const MainProblem &p) { return p.columnSum; }))
    partials = k.func.addWorkgroupAttribution(
        MemRefType::get({tiling.threads()}, b.getF64Type(), AffineMap(), space),
        b.getLoc());

  SmallVector<SmallVector<unsigned>> outputsOf(problems.size());
  for (auto [i, v] : llvm::enumerate(k.outputs()))
    outputsOf[problemOfOutput(v, mainOps)].push_back(i);

  tid = k.threadId();
  Value block = k.blockId();
  int64_t start = 0;
  for (auto [p, op] : llvm::zip(problems, mainOps)) {
    int64_t blocks = blocksOf(p);
    Value mine = arith::AndIOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, block, idx(start)),
        lt(block, idx(start + blocks)));
    unsigned which = &p - problems.begin();
    LogicalResult ok = k.ifThen(mine, [&] {
      Value local = arith::SubIOp::create(b, block, idx(start));
      if (auto mm = dyn_cast<nv::MatmulOp>(op))
        return gemm(mm, p, local, outputsOf[which]);
      return columnSum(cast<nv::ReduceOp>(op), p, local, outputsOf[which]);
    });
    if (failed(ok))
      return failure();
    start += blocks;
  }
  return Geometry{start, tiling.threads()};
}

} // namespace

FailureOr<Geometry> emitMatmul(KernelContext &k) {
  // Worded without the option name, so a test of the off switch can
  // forbid "wgmma" anywhere in its output.
  std::string whyNot = "the Hopper GEMM is turned off";
  if (k.options.wgmma)
    if (auto geometry = emitMatmulWgmma(k, whyNot)) {
      k.func->setAttr(kMatmulPathAttr, k.b.getStringAttr("wgmma"));
      return *geometry;
    }
  k.func->setAttr(kMatmulPathAttr, k.b.getStringAttr("mma.sync: " + whyNot));
  return MatmulEmitter(k).emit();
}

} // namespace mlir::nova::tile_to_gpu
