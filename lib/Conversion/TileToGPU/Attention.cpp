//===- Attention.cpp - attention forward and backward families
//--------------===//
//
// Flash-style attention on mma.sync tensor cores: bf16 operands as
// m16n8k16, f32 operands as TF32 m16n8k8 (rounded to nearest, as the
// interpreter rounds a TF32 product's operands), f32 accumulation. A block
// is four warps, each owning 16 rows of the block's stationary tile; the
// tiles it streams are staged in shared memory and read as mma B operands.
//
// - Forward: 64 query rows per block. For each key tile: S = Q K^T, an
//   online softmax in the exp2 domain with the scale folded in (running max
//   and sum in f32), P kept in registers as the A operand of O += P V (see
//   fragAFromAcc). Causal blocks stop at the last key tile their rows see;
//   the mask is applied per element. The log-sum-exp is (m + log2 l) ln 2.
// - Backward: blocks of 64 keys keep K and V in registers and accumulate dK
//   and dV over query tiles (S^T = K Q^T, dP^T = V dO^T, with each query
//   tile's log-sum-exp and D = rowsum(dO * O) staged beside it), P^T and
//   dS^T staying in registers as A operands; blocks of 64 queries
//   accumulate dQ over key tiles. Every gradient element is written by
//   exactly one block: deterministic, no atomics.
//
// bf16 forwards and backwards that TMA can load go to the Hopper kernels
// instead (AttentionWgmma.cpp, AttentionBackwardWgmma.cpp: wgmma, TMA,
// warp-specialized); they reuse this file's contract reading and result
// stores.
//
// Results reach the kernel's outputs through the fused epilogue (evaluated
// at the result's index) and the strided windows the contract gives;
// constant windows of a concatenated output are filled by the same launch.
//
//===----------------------------------------------------------------------===//

#include "AttentionWgmma.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

constexpr int64_t kWarps = 4, kWarpRows = 16;
constexpr int64_t kBlockRows = kWarps * kWarpRows, kThreads = 32 * kWarps;
/// Static shared memory a block may use (the launch passes no dynamic
/// shared memory).
constexpr int64_t kSharedBytes = 48 * 1024;

/// An attention operand or result as a strided view of a flat kernel
/// buffer: element (i0, ..., in) at offset + sum(i_d * strides[d]).
struct View {
  Value buffer;
  BlockArgument input; // the kernel input (operands only)
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  /// Element conversions between the buffer and the operand (prologue
  /// casts, in order).
  SmallVector<Type> casts;
};

/// One window of an output that a result (through its epilogue) fills.
struct Write {
  unsigned result;
  Value base; // the epilogue value written, of the result's shape
  View view;
};

/// A constant part of a concatenated output.
struct Fill {
  unsigned output;
  Value constant;
  int64_t dim, start;
};

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

class AttentionEmitter {
public:
  AttentionEmitter(KernelContext &k, Operation *attn, bool backward)
      : k(k), b(k.b), body(k.body), attn(attn), backward(backward) {}

  FailureOr<Geometry> emit();

private:
  using Acc = SmallVector<Value>;
  using ElementFn = function_ref<Value(Value row, Value col)>;

  LogicalResult prepare();
  FailureOr<Geometry> forward();
  FailureOr<Geometry> backwardKernel();
  LogicalResult emitDKDV(Value block);
  LogicalResult emitDQ(Value block);
  /// What a backward block of `kBlockRows` rows along a sequence of
  /// `length` starts from: its (batch, head), first row, this warp's first
  /// row within the block and in the sequence, every operand's offset for that
  /// head, and a zero of the operand type.
  struct BackwardBlock {
    Value bh, base, warpRow, rowBase;
    Value lead[6];
    Value zero;
  };
  BackwardBlock backwardBlock(Value block, int64_t length);
  /// Fills the constant windows with `grid` blocks of `threads` threads.
  void fillConstants(int64_t grid, int64_t threads = kThreads);
  /// Operand `i` as the wgmma kernels read it.
  AttentionOperand wgmmaOperand(unsigned i) const {
    const View &v = operands[i];
    return AttentionOperand{v.input, v.offset, v.strides, !v.casts.empty()};
  }
  /// fn(what the wgmma forward and backward share: the shape, q, k, v, the
  /// result stores and the constant fill); the callbacks live for the call.
  template <typename Fn> auto withWgmmaCommon(Fn fn) {
    auto store = [&](unsigned result, Value bh, Value row, Value col, Value x,
                     Value valid) {
      return storeResult(result, bh, row, col, x, valid);
    };
    auto fill = [&](int64_t grid, int64_t threads) {
      fillConstants(grid, threads);
    };
    return fn(AttentionCommon{k, lead, tq, tk, d, dv, scale, causal, opType,
                              wgmmaOperand(0), wgmmaOperand(1),
                              wgmmaOperand(2), store, fill});
  }

  // Index arithmetic.
  Value c(int64_t v) { return body.index(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b, x, c(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, x, c(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, x, c(y)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
  }
  Value lt(Value x, int64_t y) { return lt(x, c(y)); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32Type(), b.getF32FloatAttr(v));
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }

  /// Operand `i` at (block's batch, row, col) (col null for the
  /// log-sum-exp); rows at or past `rows` read `zero` instead.
  Value load(unsigned i, Value leadBase, Value row, Value col, int64_t rows,
             Value zero);
  /// The lead dims' part of an address for batch index `bh`.
  Value leadOffset(const View &view, Value bh);
  /// An operand value as a tile element (TF32-rounded f32 or bf16).
  Value toTile(Value x);

  Value allocShared(int64_t rows, int64_t cols, Type element);
  int64_t paddedCols(int64_t cols) { return cols + 16 / tileBytes(); }
  int64_t tileBytes() { return tf32 ? 4 : 2; }
  /// The key/query tile of {64, 32, 16} whose staging fits with the least
  /// `cost`, the largest among equals.
  FailureOr<int64_t>
  pickTile(function_ref<int64_t(int64_t)> elements,
           function_ref<int64_t(int64_t)> cost = [](int64_t) { return 0; });
  /// Every thread of the block stores elem(r, c) at smem[r][c].
  void stage(Value smem, int64_t rows, int64_t cols,
             function_ref<Value(Value, Value)> elem);

  // Fragments (lane = 4 g + t).
  SmallVector<Value> fragA(ElementFn a, Value row0, Value col0);
  /// Operand `i`'s rows from `row0` (of `rows`) as A fragments in registers,
  /// one per k-step of its `width` columns, zero past the ends.
  SmallVector<SmallVector<Value>> rowFragments(unsigned i, Value leadBase,
                                               Value row0, int64_t width,
                                               int64_t rows, Value zero);
  SmallVector<Value> fragB(ElementFn bkn, Value k0, Value n0);
  Value pack(Value lo, Value hi);
  Acc mma(ArrayRef<Value> acc, ArrayRef<Value> a, ArrayRef<Value> bFrag);
  Acc zeros(int64_t cols) { return Acc(cols / 8 * 4, f32(0.0)); }
  /// acc[nt] += sum over k-steps of A(k-step) B(k-step, nt).
  /// B is `bSmem`: B(k, n) = bSmem[n][k] when `nMajor`, else bSmem[k][n].
  /// `accA`: A comes from fragAFromAcc, whose TF32 k slots hold the columns
  /// in pairs, so B's rows are read in that order.
  void multiply(Acc &acc, int64_t kSize,
                function_ref<SmallVector<Value>(int64_t k0)> aFrag, Value bSmem,
                bool nMajor, bool accA = false);
  /// The A fragment of k-step `k0` of a product whose A is this warp's
  /// accumulator tile `acc` (its 16 rows, k along its columns), rounded to
  /// the tile type, so that a softmax's P or dS never goes through shared
  /// memory. A thread's accumulators hold columns 2t and 2t + 1 of each
  /// 8-column tile: two such tiles are a bf16 (k16) A fragment as they lie;
  /// one is a TF32 (k8) A fragment whose k slots t and t + 4 hold columns
  /// 2t and 2t + 1, the order multiply(accA) reads B's rows in.
  SmallVector<Value> fragAFromAcc(ArrayRef<Value> acc, int64_t k0);
  /// The row (0..15) and column (0..8 n-tiles) of accumulator element i.
  Value accRow(unsigned i) { return add(g, (i % 4) >= 2 ? 8 : 0); }
  Value accCol(unsigned i) { return add(add(mul(t, 2), (i / 4) * 8), i % 2); }
  Value smemLoad(Value smem, Value r, Value col) {
    return memref::LoadOp::create(b, smem, ValueRange{r, col});
  }
  /// smem[r][col] and smem[r][col + 1] (col even) as one i32, the first
  /// in the low half.
  Value sharedPair(Value smem, Value r, Value col);
  /// B fragments of B(k, n) = smem[n][k] (n-major: pairs along k are
  /// adjacent).
  SmallVector<Value> fragBSharedNMajor(Value smem, Value k0, Value n0);

  /// Stores result `result`'s element (lead..., row[, col]) = x through
  /// every write of it, when `valid`.
  LogicalResult storeResult(unsigned result, Value bh, Value row, Value col,
                            Value x, Value valid);

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
  Operation *attn;
  bool backward;

  SmallVector<int64_t> lead;
  int64_t batch = 0, tq = 0, tk = 0, d = 0, dv = 0;
  double scale = 1;
  bool causal = false, tf32 = false;
  // f32 operands without `nova.precision = "tf32"` keep f32 accuracy: the
  // tiles hold f32 values and each product runs as 3xTF32 (see mma()).
  bool splitF32 = false;
  int64_t kStep = 16;
  Type opType, tileType;
  SmallVector<View> operands;
  SmallVector<Write> writes;
  SmallVector<Fill> fills;
  // Per thread.
  Value tid, warp, g, t;
  // Backward staging, shared by the dK/dV and the dQ blocks: X holds Q (or
  // K) rows, Y dO (or V) rows, stats each staged row's log-sum-exp (log2
  // domain) and D.
  int64_t tile = 0;
  Value xSmem, ySmem, stats;
  /// Fills stats for rows rowBase.. of the block's batch.
  void stageStats(Value lseLead, Value oLead, Value doLead, Value rowBase,
                  int64_t rows);
  /// exp(scale s - lse) for one score element (lse2 in the log2 domain).
  Value probability(Value s, Value lse2) {
    return math::Exp2Op::create(b, fsub(fmul(s, f32(scale * M_LOG2E)), lse2));
  }

  /// Whether a score (query, key) is masked: a key past the end, or after
  /// the query when causal.
  Value isMasked(Value query, Value key);
  /// `values` with the elements `masked(i)` says replaced by `fill`, in a
  /// branch only tiles with `needsMask` take (uniform across the block):
  /// tiles inside the causal triangle and the ragged edge skip the compares.
  Acc maskTile(Value needsMask, const Acc &values,
               function_ref<Value(unsigned)> masked, Value fill);
};

LogicalResult AttentionEmitter::prepare() {
  ArrayRef<int64_t> q = shapeOf(attn->getOperand(0));
  ArrayRef<int64_t> kv = shapeOf(attn->getOperand(1));
  ArrayRef<int64_t> vs = shapeOf(attn->getOperand(2));
  lead.assign(q.begin(), q.end() - 2);
  batch = product(lead);
  tq = q[q.size() - 2];
  d = q.back();
  tk = kv[kv.size() - 2];
  dv = vs.back();
  scale = attn->getAttrOfType<FloatAttr>("scale").getValueAsDouble();
  causal = attn->hasAttr("causal");
  opType = elementOf(attn->getOperand(0));
  // The op verifiers give q, k, v (and the output and its gradient) one
  // element type.
  if (opType.isBF16()) {
    tf32 = false;
    kStep = 16;
    tileType = b.getBF16Type();
  } else if (opType.isF32()) {
    tf32 = true;
    auto precision = attn->getAttrOfType<StringAttr>("nova.precision");
    splitF32 = !precision || precision.getValue() != "tf32";
    kStep = 8;
    tileType = b.getF32Type();
  } else {
    return k.fail(llvm::formatv("{0} operands are not lowered (bf16, or f32 "
                                "as TF32)",
                                opType)
                      .str());
  }
  // (Rows without keys would need the zero output and -inf log-sum-exp of
  // nova.attention_fwd; no GPT shape has them.)
  if (batch == 0 || tq == 0 || tk == 0)
    return k.fail("empty attention (no batch, queries or keys) is not "
                  "lowered");
  for (auto [name, size] :
       {std::pair<StringRef, int64_t>{"query/key", d}, {"value", dv}})
    if (size % 16 != 0 || size > 128)
      return k.fail(llvm::formatv("head dim {0} of the {1} is not lowered "
                                  "(a multiple of 16, at most 128)",
                                  size, name)
                        .str());

  // Operands: strided views of the inputs, with the prologue's casts.
  const MainProblem &problem = k.contract.problems.front();
  for (auto [i, read] : llvm::enumerate(problem.operands)) {
    View view;
    view.input = k.block().getArgument(read.first);
    view.buffer = flatten(b, body.input(view.input));
    Value v = attn->getOperand(i);
    SmallVector<Type> casts;
    while (Operation *def = v.getDefiningOp()) {
      if (isa<nv::CastOp>(def))
        casts.push_back(elementOf(def->getResult(0)));
      v = def->getOperand(0);
    }
    view.casts.assign(casts.rbegin(), casts.rend());
    view.offset = read.second.offset;
    view.strides = read.second.strides.empty()
                       ? rowMajorStrides(shapeOf(attn->getOperand(i)))
                       : read.second.strides;
    operands.push_back(std::move(view));
  }

  // Outputs: the same pieces, in the same order, as the contract's writes.
  SmallVector<Value> bases;
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    SmallVector<Value> parts{v};
    auto concat = v.getDefiningOp<nv::ConcatOp>();
    bool inConcat = concat && llvm::none_of(concat->getOperands(), [](Value x) {
                      return isa<BlockArgument>(x);
                    });
    if (inConcat)
      parts.assign(concat->operand_begin(), concat->operand_end());
    int64_t start = 0;
    for (Value part : parts) {
      int64_t partStart = start;
      if (inConcat)
        start += shapeOf(part)[concat.getDim()];
      auto constant = part.getDefiningOp<nv::ConstantOp>();
      if (constant && parts.size() > 1 &&
          isa<SplatElementsAttr>(constant.getValue())) {
        fills.push_back(
            {unsigned(i), part, int64_t(concat.getDim()), partStart});
        continue;
      }
      Value base = part;
      while (Operation *def = base.getDefiningOp()) {
        if (!isa<nv::TransposeOp, nv::ReshapeOp>(def) ||
            (base != part && !base.hasOneUse()) ||
            isa<BlockArgument>(def->getOperand(0)))
          break;
        base = def->getOperand(0);
      }
      bases.push_back(base);
    }
  }
  if (bases.size() != problem.writes.size())
    return k.fail("the outputs' windows do not match the contract's");
  for (auto [base, write] : llvm::zip(bases, problem.writes)) {
    unsigned result;
    switch (write.second.kind) {
    case AccessKind::Elementwise:
    case AccessKind::Query:
      result = 0;
      break;
    case AccessKind::LogSumExp:
    case AccessKind::Key:
      result = 1;
      break;
    case AccessKind::Value:
      result = 2;
      break;
    default:
      return k.fail("an output that is no attention result");
    }
    View view;
    view.buffer = flatten(b, k.outputBuffers[write.first]);
    view.offset = write.second.offset;
    view.strides = write.second.strides.empty()
                       ? rowMajorStrides(shapeOf(attn->getResult(result)))
                       : write.second.strides;
    writes.push_back({result, base, std::move(view)});
  }

  tid = k.threadId();
  Value lane = rem(tid, 32);
  warp = div(tid, 32);
  g = div(lane, 4);
  t = rem(lane, 4);
  return success();
}

Value AttentionEmitter::leadOffset(const View &view, Value bh) {
  Value offset = c(view.offset);
  SmallVector<Value> idx = body.delinearize(bh, lead);
  for (auto [i, x] : llvm::enumerate(idx))
    if (lead[i] != 1)
      offset = add(offset, mul(x, view.strides[i]));
  return offset;
}

Value AttentionEmitter::load(unsigned i, Value leadBase, Value row, Value col,
                             int64_t rows, Value zero) {
  const View &view = operands[i];
  size_t rank = lead.size() + (col ? 2 : 1);
  Value valid = lt(row, rows);
  Value clamped = arith::MinUIOp::create(b, row, c(rows - 1));
  Value address =
      add(leadBase, mul(clamped, view.strides[rank - (col ? 2 : 1)]));
  if (col)
    address = add(address, mul(col, view.strides[rank - 1]));
  Value x = memref::LoadOp::create(b, view.buffer, ValueRange{address});
  for (Type to : view.casts)
    x = body.convert(x, to);
  return select(valid, x, zero);
}

Value AttentionEmitter::toTile(Value x) {
  if (tf32 && splitF32)
    return body.convert(x, b.getF32Type());
  if (tf32)
    return roundToTF32(b, body.convert(x, b.getF32Type()));
  return body.convert(x, tileType);
}

Value AttentionEmitter::allocShared(int64_t rows, int64_t cols, Type element) {
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value buffer = k.func.addWorkgroupAttribution(
      MemRefType::get({rows, cols}, element, AffineMap(), space), b.getLoc());
  // 16-byte aligned, so a pair of 16-bit elements loads as one word.
  k.func.setWorkgroupAttributionAttr(k.func.getNumWorkgroupAttributions() - 1,
                                     LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
  return buffer;
}

Value AttentionEmitter::sharedPair(Value smem, Value r, Value col) {
  auto pair = vector::LoadOp::create(
      b, VectorType::get({2}, tileType), smem, ValueRange{r, col},
      /*nontemporal=*/false, llvm::MaybeAlign(4));
  Value word =
      vector::BitCastOp::create(b, VectorType::get({1}, b.getI32Type()), pair);
  return vector::ExtractOp::create(b, word, ArrayRef<int64_t>{0});
}

FailureOr<int64_t>
AttentionEmitter::pickTile(function_ref<int64_t(int64_t)> elements,
                           function_ref<int64_t(int64_t)> cost) {
  std::optional<int64_t> best;
  for (int64_t tile : {64, 32, 16})
    if (tile % kStep == 0 &&
        elements(tile) * tileBytes() + 2 * kBlockRows * 4 <= kSharedBytes &&
        (!best || cost(tile) < cost(*best)))
      best = tile;
  if (!best)
    return k.fail("the attention tiles do not fit in shared memory");
  return *best;
}

void AttentionEmitter::stage(Value smem, int64_t rows, int64_t cols,
                             function_ref<Value(Value, Value)> elem) {
  auto store = [&](Value i) {
    Value r = div(i, cols), col = rem(i, cols);
    memref::StoreOp::create(b, elem(r, col), smem, ValueRange{r, col});
  };
  // A tile of a few elements a thread is unrolled, so that all its global
  // loads are issued before the first is used (a loop keeps ptxas to a few
  // at a time).
  constexpr int64_t kUnrolled = 32;
  int64_t count = rows * cols;
  if (count % kThreads == 0 && count / kThreads <= kUnrolled) {
    for (int64_t i = 0; i < count; i += kThreads)
      store(add(tid, i));
    return;
  }
  auto forOp = scf::ForOp::create(b, tid, c(count), c(kThreads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forOp.getBody()->getTerminator());
  store(forOp.getInductionVar());
}

Value AttentionEmitter::pack(Value lo, Value hi) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto word = [&](Value x) {
    return arith::ExtUIOp::create(b, i32, arith::BitcastOp::create(b, i16, x));
  };
  Value high = arith::ShLIOp::create(
      b, word(hi), arith::ConstantOp::create(b, i32, b.getI32IntegerAttr(16)));
  return arith::OrIOp::create(b, word(lo), high);
}

SmallVector<SmallVector<Value>>
AttentionEmitter::rowFragments(unsigned i, Value leadBase, Value row0,
                               int64_t width, int64_t rows, Value zero) {
  SmallVector<SmallVector<Value>> frags;
  for (int64_t k0 = 0; k0 < width; k0 += kStep)
    frags.push_back(fragA(
        [&](Value r, Value col) {
          return toTile(load(i, leadBase, r, col, rows, zero));
        },
        row0, c(k0)));
  return frags;
}

SmallVector<Value> AttentionEmitter::fragA(ElementFn a, Value row0,
                                           Value col0) {
  Value r0 = add(row0, g), r1 = add(r0, 8);
  SmallVector<Value> regs;
  if (tf32) {
    Value c0 = add(col0, t), c1 = add(c0, 4);
    for (auto [r, col] : {std::pair{r0, c0}, {r1, c0}, {r0, c1}, {r1, c1}})
      regs.push_back(arith::BitcastOp::create(b, b.getI32Type(), a(r, col)));
    return regs;
  }
  Value c0 = add(col0, mul(t, 2)), c1 = add(c0, 8);
  for (auto [r, col] : {std::pair{r0, c0}, {r1, c0}, {r0, c1}, {r1, c1}})
    regs.push_back(pack(a(r, col), a(r, add(col, 1))));
  return regs;
}

SmallVector<Value> AttentionEmitter::fragB(ElementFn bkn, Value k0, Value n0) {
  Value n = add(n0, g);
  SmallVector<Value> regs;
  if (tf32) {
    Value k1 = add(k0, t);
    for (Value kk : {k1, add(k1, 4)})
      regs.push_back(arith::BitcastOp::create(b, b.getI32Type(), bkn(kk, n)));
    return regs;
  }
  Value k1 = add(k0, mul(t, 2));
  for (Value kk : {k1, add(k1, 8)})
    regs.push_back(pack(bkn(kk, n), bkn(add(kk, 1), n)));
  return regs;
}

SmallVector<Value> AttentionEmitter::fragAFromAcc(ArrayRef<Value> acc,
                                                  int64_t k0) {
  auto tileWord = [&](Value x) {
    return arith::BitcastOp::create(b, b.getI32Type(), toTile(x)).getResult();
  };
  if (tf32) {
    ArrayRef<Value> c = acc.slice(k0 / 8 * 4, 4); // (g, 2t) (g, 2t+1) (g+8, ..)
    return {tileWord(c[0]), tileWord(c[2]), tileWord(c[1]), tileWord(c[3])};
  }
  ArrayRef<Value> c = acc.slice(k0 / 16 * 8, 8);
  SmallVector<Value> regs;
  for (unsigned i : {0, 2, 4, 6})
    regs.push_back(pack(toTile(c[i]), toTile(c[i + 1])));
  return regs;
}

SmallVector<Value> AttentionEmitter::fragBSharedNMajor(Value smem, Value k0,
                                                       Value n0) {
  if (tf32)
    return fragB([&](Value kk, Value n) { return smemLoad(smem, n, kk); }, k0,
                 n0);
  Value n = add(n0, g);
  Value k1 = add(k0, mul(t, 2));
  return {sharedPair(smem, n, k1), sharedPair(smem, n, add(k1, 8))};
}

AttentionEmitter::Acc AttentionEmitter::mma(ArrayRef<Value> acc,
                                            ArrayRef<Value> a,
                                            ArrayRef<Value> bFrag) {
  Type f32Type = b.getF32Type();
  auto result = LLVM::LLVMStructType::getLiteral(
      b.getContext(), {f32Type, f32Type, f32Type, f32Type});
  NVVM::MMATypes type = tf32 ? NVVM::MMATypes::tf32 : NVVM::MMATypes::bf16;
  auto product = [&](ArrayRef<Value> c, ArrayRef<Value> x, ArrayRef<Value> y) {
    Value d = NVVM::MmaOp::create(
        b, result, x, y, c, {16, 8, kStep}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{type, type},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Acc out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{i}));
    return out;
  };
  if (!splitF32)
    return product(acc, a, bFrag);
  // 3xTF32: each f32 register splits into its TF32-rounded high part and
  // the TF32-rounded remainder; lo*hi and hi*lo first, then hi*hi.
  auto split = [&](ArrayRef<Value> regs, SmallVector<Value> &hi,
                   SmallVector<Value> &lo) {
    for (Value r : regs) {
      auto [h, l] =
          splitTF32(b, arith::BitcastOp::create(b, b.getF32Type(), r));
      hi.push_back(h);
      lo.push_back(l);
    }
  };
  SmallVector<Value> aHi, aLo, bHi, bLo;
  split(a, aHi, aLo);
  split(bFrag, bHi, bLo);
  Acc out = product(acc, aLo, bHi);
  out = product(out, aHi, bLo);
  return product(out, aHi, bHi);
}

void AttentionEmitter::multiply(
    Acc &acc, int64_t kSize, function_ref<SmallVector<Value>(int64_t k0)> aFrag,
    Value bSmem, bool nMajor, bool accA) {
  for (int64_t k0 = 0; k0 < kSize; k0 += kStep) {
    SmallVector<Value> a = aFrag(k0);
    for (size_t nt = 0; nt < acc.size() / 4; ++nt) {
      SmallVector<Value> bFrag;
      if (nMajor) {
        bFrag = fragBSharedNMajor(bSmem, c(k0), c(nt * 8));
      } else if (tf32 && accA) {
        // k slots t and t + 4 are rows k0 + 2t and k0 + 2t + 1.
        Value kk = add(c(k0), mul(t, 2)), n = add(c(nt * 8), g);
        for (Value row : {kk, add(kk, 1)})
          bFrag.push_back(arith::BitcastOp::create(b, b.getI32Type(),
                                                   smemLoad(bSmem, row, n)));
      } else {
        bFrag =
            fragB([&](Value kk, Value n) { return smemLoad(bSmem, kk, n); },
                  c(k0), c(nt * 8));
      }
      Acc tile = mma(ArrayRef<Value>(acc).slice(nt * 4, 4), a, bFrag);
      std::copy(tile.begin(), tile.end(), acc.begin() + nt * 4);
    }
  }
}

LogicalResult AttentionEmitter::storeResult(unsigned result, Value bh,
                                            Value row, Value col, Value x,
                                            Value valid) {
  Value value = attn->getResult(result);
  Value narrowed = body.narrow(x, elementOf(value));
  for (const Write &w : writes) {
    if (w.result != result)
      continue;
    LogicalResult ok = k.ifThen(valid, [&]() -> LogicalResult {
      SmallVector<Value> idx = body.delinearize(bh, lead);
      idx.push_back(row);
      if (col)
        idx.push_back(col);
      body.bind(value, idx, narrowed);
      FailureOr<Value> y = body.eval(w.base, idx);
      if (failed(y))
        return k.unsupported();
      Value address = c(w.view.offset);
      for (auto [i, x] : llvm::enumerate(idx))
        address = add(address, mul(x, w.view.strides[i]));
      memref::StoreOp::create(b, *y, w.view.buffer, ValueRange{address});
      return success();
    });
    if (failed(ok))
      return failure();
  }
  return success();
}

void AttentionEmitter::fillConstants(int64_t grid, int64_t threads) {
  for (const Fill &fill : fills) {
    ArrayRef<int64_t> part = shapeOf(fill.constant);
    ArrayRef<int64_t> out = shapeOf(k.outputs()[fill.output]);
    Value buffer = flatten(b, k.outputBuffers[fill.output]);
    Value first = add(mul(k.blockId(), threads), tid);
    (void)k.loop(first, c(product(part)), c(grid * threads),
                 [&](Value i) -> LogicalResult {
                   SmallVector<Value> idx = body.delinearize(i, part);
                   FailureOr<Value> x = body.eval(fill.constant, idx);
                   idx[fill.dim] = add(idx[fill.dim], fill.start);
                   memref::StoreOp::create(b, *x, buffer,
                                           body.linearize(idx, out));
                   return success();
                 });
  }
}

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

FailureOr<Geometry> AttentionEmitter::forward() {
  // bf16 on Hopper: the wgmma forward (AttentionWgmma.cpp) where it applies.
  if (k.options.wgmma)
    if (auto geometry = withWgmmaCommon([&](const AttentionCommon &common) {
          return emitAttentionForwardWgmma(
              {common, attn->getNumResults() > 1});
        }))
      return *geometry;
  // Key tile staging: K and V tiles.
  FailureOr<int64_t> tileOr = pickTile(
      [&](int64_t bc) { return bc * paddedCols(d) + bc * paddedCols(dv); });
  if (failed(tileOr))
    return failure();
  int64_t bc = *tileOr;
  int64_t queryBlocks = llvm::divideCeil(tq, kBlockRows);
  int64_t keyTiles = llvm::divideCeil(tk, bc);
  int64_t grid = batch * queryBlocks;
  Value kSmem = allocShared(bc, paddedCols(d), tileType);
  Value vSmem = allocShared(bc, paddedCols(dv), tileType);
  fillConstants(grid);

  Value block = k.blockId();
  Value bh = div(block, queryBlocks);
  Value queryBase = mul(rem(block, queryBlocks), kBlockRows);
  Value warpRow = mul(warp, kWarpRows);
  Value rowBase = add(queryBase, warpRow);
  Value qLead = leadOffset(operands[0], bh),
        kLead = leadOffset(operands[1], bh),
        vLead = leadOffset(operands[2], bh);
  Value zero = arith::ConstantOp::create(b, opType, b.getZeroAttr(opType));

  // Q stays in registers: one A fragment per k-step of the head dim.
  SmallVector<SmallVector<Value>> qFrags =
      rowFragments(0, qLead, rowBase, d, tq, zero);

  // Causal rows see keys up to their own index: later tiles are skipped.
  Value tiles = c(keyTiles);
  if (causal)
    tiles = arith::MinUIOp::create(
        b, tiles, div(add(queryBase, kBlockRows + bc - 1), bc));
  Value negInf = f32(-INFINITY);
  Acc inits = zeros(dv);
  inits.append({negInf, negInf, f32(0.0), f32(0.0)}); // m0, m1, l0, l1
  auto loop = scf::ForOp::create(b, c(0), tiles, c(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value keyBase = mul(loop.getInductionVar(), bc);
    ValueRange carried = loop.getRegionIterArgs();
    Acc o(carried.begin(), carried.begin() + dv / 8 * 4);
    Value m[2] = {carried[o.size()], carried[o.size() + 1]};
    Value l[2] = {carried[o.size() + 2], carried[o.size() + 3]};

    gpu::BarrierOp::create(b); // the previous tile's readers are done
    stage(kSmem, bc, d, [&](Value r, Value col) {
      return toTile(load(1, kLead, add(keyBase, r), col, tk, zero));
    });
    stage(vSmem, bc, dv, [&](Value r, Value col) {
      return toTile(load(2, vLead, add(keyBase, r), col, tk, zero));
    });
    gpu::BarrierOp::create(b);

    // S = Q K^T: B(k = head dim, n = key) is K[key][dim].
    Acc s = zeros(bc);
    multiply(
        s, d, [&](int64_t k0) { return qFrags[k0 / kStep]; }, kSmem,
        /*nMajor=*/true);

    // Online softmax in the exp2 domain.
    Value log2Scale = f32(scale * M_LOG2E);
    Combiner maxOf{nv::ReduceKind::max, b.getF32Type()};
    for (Value &x : s)
      x = fmul(x, log2Scale);
    // Tiles reaching past the last key, or the diagonal when causal.
    Value needsMask = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                            add(keyBase, bc), c(tk));
    if (causal)
      needsMask = arith::OrIOp::create(
          b, needsMask,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                add(keyBase, bc - 1), queryBase));
    s = maskTile(
        needsMask, s,
        [&](unsigned i) {
          return isMasked(add(rowBase, accRow(i)), add(keyBase, accCol(i)));
        },
        negInf);
    SmallVector<Value> rowMax = {negInf, negInf};
    for (unsigned i = 0; i < s.size(); ++i) {
      unsigned r = (i % 4) / 2;
      rowMax[r] = arith::MaximumFOp::create(b, rowMax[r], s[i]);
    }
    Value mSafe[2], corr[2], rowSum[2] = {f32(0.0), f32(0.0)};
    for (unsigned r = 0; r < 2; ++r) {
      Value mNew = arith::MaximumFOp::create(
          b, m[r], shuffleReduce(b, maxOf, rowMax[r], 4));
      Value none =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf);
      mSafe[r] = select(none, f32(0.0), mNew);
      corr[r] = math::Exp2Op::create(b, fsub(m[r], mSafe[r]));
      m[r] = mNew;
    }
    Acc p;
    for (unsigned i = 0; i < s.size(); ++i) {
      unsigned r = (i % 4) / 2;
      p.push_back(math::Exp2Op::create(b, fsub(s[i], mSafe[r])));
      rowSum[r] = fadd(rowSum[r], p.back());
    }
    for (unsigned r = 0; r < 2; ++r)
      l[r] = fadd(fmul(l[r], corr[r]), rowSum[r]); // per-thread partial
    for (unsigned i = 0; i < o.size(); ++i)
      o[i] = fmul(o[i], corr[(i % 4) / 2]);

    // O += P V: A is this warp's P, B(k = key, n = dim) is V[key][dim].
    multiply(
        o, bc, [&](int64_t k0) { return fragAFromAcc(p, k0); }, vSmem,
        /*nMajor=*/false, /*accA=*/true);
    Acc next = o;
    next.append({m[0], m[1], l[0], l[1]});
    scf::YieldOp::create(b, next);
  }

  ValueRange results = loop.getResults();
  Acc o(results.begin(), results.begin() + dv / 8 * 4);
  Value ln2 = f32(M_LN2);
  Value lse[2], inv[2];
  for (unsigned r = 0; r < 2; ++r) {
    Value m = results[o.size() + r];
    Value l = shuffleReduce(b, Combiner{nv::ReduceKind::sum, b.getF32Type()},
                            results[o.size() + 2 + r], 4);
    Value any =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, f32(0.0));
    inv[r] = select(any, arith::DivFOp::create(b, f32(1.0), l), f32(0.0));
    lse[r] = select(any, fmul(fadd(m, math::Log2Op::create(b, l)), ln2),
                    f32(-INFINITY));
  }
  for (unsigned i = 0; i < o.size(); ++i) {
    Value row = add(rowBase, accRow(i));
    if (failed(storeResult(0, bh, row, accCol(i), fmul(o[i], inv[(i % 4) / 2]),
                           lt(row, tq))))
      return failure();
  }
  if (attn->getNumResults() > 1) {
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, t, c(0));
    for (unsigned r = 0; r < 2; ++r) {
      Value row = add(rowBase, add(g, r * 8));
      if (failed(storeResult(1, bh, row, Value(), lse[r],
                             arith::AndIOp::create(b, first, lt(row, tq)))))
        return failure();
    }
  }
  return Geometry{grid, kThreads};
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

void AttentionEmitter::stageStats(Value lseLead, Value oLead, Value doLead,
                                  Value rowBase, int64_t rows) {
  Value f32Zero = f32(0.0);
  Value zero = arith::ConstantOp::create(b, opType, b.getZeroAttr(opType));
  (void)k.ifThen(lt(tid, rows), [&]() -> LogicalResult {
    Value lse = body.convert(
        body.widen(load(4, lseLead, add(rowBase, tid), Value(), tq, f32Zero)),
        b.getF32Type());
    memref::StoreOp::create(b, fmul(lse, f32(M_LOG2E)), stats,
                            ValueRange{c(0), tid});
    return success();
  });
  // D = rowsum(dO * O) in f32, four lanes a row: each lane sums every
  // fourth column (its loads unrolled and independent, so they are all in
  // flight at once), then the four partial sums combine by shuffles. One
  // lane a row looping over the columns kept few loads in flight and left
  // three quarters of the block idle at the barrier.
  constexpr int64_t kLanes = 4, kRowsAPass = kThreads / kLanes;
  assert(rows % (32 / kLanes) == 0 && "a warp's rows are all in or all out");
  Value local = div(tid, kLanes), part = rem(tid, kLanes);
  Combiner sumOf{nv::ReduceKind::sum, b.getF32Type()};
  for (int64_t pass = 0; pass < rows; pass += kRowsAPass) {
    Value r = add(local, pass);
    auto rowSum = [&]() -> LogicalResult {
      Value row = add(rowBase, r);
      Value sum = f32Zero;
      // prepare() takes head dims that are multiples of 16 only.
      for (int64_t e0 = 0; e0 < dv; e0 += kLanes) {
        Value e = add(part, e0);
        auto operand = [&](unsigned i, Value lead) {
          return body.convert(body.widen(load(i, lead, row, e, tq, zero)),
                              b.getF32Type());
        };
        sum = fadd(sum, fmul(operand(3, oLead), operand(5, doLead)));
      }
      sum = shuffleReduce(b, sumOf, sum, kLanes);
      return k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, part,
                                            c(0)),
                      [&]() -> LogicalResult {
                        memref::StoreOp::create(b, sum, stats,
                                                ValueRange{c(1), r});
                        return success();
                      });
    };
    if (pass + kRowsAPass <= rows)
      (void)rowSum();
    else
      (void)k.ifThen(lt(r, rows), rowSum); // uniform across each warp
  }
}

Value AttentionEmitter::isMasked(Value query, Value key) {
  Value masked =
      arith::CmpIOp::create(b, arith::CmpIPredicate::uge, key, c(tk));
  if (causal)
    masked = arith::OrIOp::create(
        b, masked,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, key, query));
  return masked;
}

AttentionEmitter::Acc
AttentionEmitter::maskTile(Value needsMask, const Acc &values,
                           function_ref<Value(unsigned)> masked, Value fill) {
  SmallVector<Type> types(values.size(), b.getF32Type());
  auto branch = scf::IfOp::create(b, types, needsMask, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  Acc out;
  for (unsigned i = 0; i < values.size(); ++i)
    out.push_back(select(masked(i), fill, values[i]));
  scf::YieldOp::create(b, out);
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, values);
  return Acc(branch.getResults().begin(), branch.getResults().end());
}

AttentionEmitter::BackwardBlock
AttentionEmitter::backwardBlock(Value block, int64_t length) {
  int64_t blocks = llvm::divideCeil(length, kBlockRows);
  BackwardBlock blk;
  blk.bh = div(block, blocks);
  blk.base = mul(rem(block, blocks), kBlockRows);
  blk.warpRow = mul(warp, kWarpRows);
  blk.rowBase = add(blk.base, blk.warpRow);
  for (unsigned i = 0; i < 6; ++i)
    blk.lead[i] = leadOffset(operands[i], blk.bh);
  blk.zero = arith::ConstantOp::create(b, opType, b.getZeroAttr(opType));
  return blk;
}

/// K/V-stationary: 64 keys per block, dK and dV over the query tiles.
LogicalResult AttentionEmitter::emitDKDV(Value block) {
  BackwardBlock blk = backwardBlock(block, tk);
  Value bh = blk.bh, keyBase = blk.base, rowBase = blk.rowBase,
        zero = blk.zero;
  Value *lead = blk.lead;
  SmallVector<SmallVector<Value>> kFrags =
      rowFragments(1, lead[1], rowBase, d, tk, zero);
  SmallVector<SmallVector<Value>> vFrags =
      rowFragments(2, lead[2], rowBase, dv, tk, zero);

  // Causal: queries before the block's first key see none of its keys.
  Value first = causal ? div(keyBase, tile) : c(0);
  Acc inits = zeros(d);
  Acc dvInit = zeros(dv);
  inits.append(dvInit.begin(), dvInit.end());
  auto loop =
      scf::ForOp::create(b, first, c(llvm::divideCeil(tq, tile)), c(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value queryBase = mul(loop.getInductionVar(), tile);
    ValueRange carried = loop.getRegionIterArgs();
    Acc dK(carried.begin(), carried.begin() + d / 8 * 4);
    Acc dV(carried.begin() + dK.size(), carried.end());

    gpu::BarrierOp::create(b);
    stage(xSmem, tile, d, [&](Value r, Value col) {
      return toTile(load(0, lead[0], add(queryBase, r), col, tq, zero));
    });
    stage(ySmem, tile, dv, [&](Value r, Value col) {
      return toTile(load(5, lead[5], add(queryBase, r), col, tq, zero));
    });
    stageStats(lead[4], lead[3], lead[5], queryBase, tile);
    gpu::BarrierOp::create(b);

    // S^T = K Q^T and dP^T = V dO^T: B(k = dim, n = query) is X[query][dim].
    Acc sT = zeros(tile), dpT = zeros(tile);
    multiply(
        sT, d, [&](int64_t k0) { return kFrags[k0 / kStep]; }, xSmem,
        /*nMajor=*/true);
    multiply(
        dpT, dv, [&](int64_t k0) { return vFrags[k0 / kStep]; }, ySmem,
        /*nMajor=*/true);
    // P^T; keys past the end only reach their own (unwritten) rows, so
    // tiles mask the queries past the end and the causal triangle.
    Acc pT;
    for (unsigned i = 0; i < sT.size(); ++i)
      pT.push_back(probability(sT[i], smemLoad(stats, c(0), accCol(i))));
    Value needsMask = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                            add(queryBase, tile), c(tq));
    if (causal)
      needsMask = arith::OrIOp::create(
          b, needsMask,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                add(keyBase, kBlockRows - 1), queryBase));
    pT = maskTile(
        needsMask, pT,
        [&](unsigned i) -> Value {
          Value query = add(queryBase, accCol(i));
          Value beyond =
              arith::CmpIOp::create(b, arith::CmpIPredicate::uge, query, c(tq));
          if (!causal)
            return beyond;
          return arith::OrIOp::create(
              b, beyond,
              arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                    add(rowBase, accRow(i)), query));
        },
        f32(0.0));
    Acc dsT;
    for (unsigned i = 0; i < sT.size(); ++i)
      dsT.push_back(
          fmul(pT[i], fsub(dpT[i], smemLoad(stats, c(1), accCol(i)))));

    // dV += P^T dO and dK += dS^T Q: B(k = query, n = dim).
    multiply(
        dV, tile, [&](int64_t k0) { return fragAFromAcc(pT, k0); }, ySmem,
        /*nMajor=*/false, /*accA=*/true);
    multiply(
        dK, tile, [&](int64_t k0) { return fragAFromAcc(dsT, k0); }, xSmem,
        /*nMajor=*/false, /*accA=*/true);
    Acc next = dK;
    next.append(dV.begin(), dV.end());
    scf::YieldOp::create(b, next);
  }
  ValueRange results = loop.getResults();
  Value scaleF = f32(scale);
  for (unsigned i = 0; i < results.size(); ++i) {
    bool isK = i < unsigned(d / 8 * 4);
    unsigned j = isK ? i : i - d / 8 * 4;
    Value row = add(rowBase, accRow(j));
    Value x = isK ? fmul(results[i], scaleF) : results[i];
    if (failed(storeResult(isK ? 1 : 2, bh, row, accCol(j), x, lt(row, tk))))
      return failure();
  }
  return success();
}

/// Q-stationary: 64 queries per block, dQ over the key tiles.
LogicalResult AttentionEmitter::emitDQ(Value block) {
  BackwardBlock blk = backwardBlock(block, tq);
  Value bh = blk.bh, queryBase = blk.base, warpRow = blk.warpRow,
        rowBase = blk.rowBase, zero = blk.zero;
  Value *lead = blk.lead;
  SmallVector<SmallVector<Value>> qFrags =
      rowFragments(0, lead[0], rowBase, d, tq, zero);
  SmallVector<SmallVector<Value>> doFrags =
      rowFragments(5, lead[5], rowBase, dv, tq, zero);
  stageStats(lead[4], lead[3], lead[5], queryBase, kBlockRows);
  gpu::BarrierOp::create(b);
  Value lse2[2], delta[2];
  for (unsigned r = 0; r < 2; ++r) {
    Value local = add(warpRow, add(g, r * 8));
    lse2[r] = smemLoad(stats, c(0), local);
    delta[r] = smemLoad(stats, c(1), local);
  }

  Value tiles = c(llvm::divideCeil(tk, tile));
  if (causal)
    tiles = arith::MinUIOp::create(
        b, tiles, div(add(queryBase, kBlockRows + tile - 1), tile));
  auto loop = scf::ForOp::create(b, c(0), tiles, c(1), zeros(d));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value keyBase = mul(loop.getInductionVar(), tile);
    ValueRange carried = loop.getRegionIterArgs();
    Acc dQ(carried.begin(), carried.end());

    gpu::BarrierOp::create(b);
    stage(xSmem, tile, d, [&](Value r, Value col) {
      return toTile(load(1, lead[1], add(keyBase, r), col, tk, zero));
    });
    stage(ySmem, tile, dv, [&](Value r, Value col) {
      return toTile(load(2, lead[2], add(keyBase, r), col, tk, zero));
    });
    gpu::BarrierOp::create(b);

    // S = Q K^T and dP = dO V^T: B(k = dim, n = key) is X (Y)[key][dim].
    Acc s = zeros(tile), dp = zeros(tile);
    multiply(
        s, d, [&](int64_t k0) { return qFrags[k0 / kStep]; }, xSmem,
        /*nMajor=*/true);
    multiply(
        dp, dv, [&](int64_t k0) { return doFrags[k0 / kStep]; }, ySmem,
        /*nMajor=*/true);
    Acc p;
    for (unsigned i = 0; i < s.size(); ++i)
      p.push_back(probability(s[i], lse2[(i % 4) / 2]));
    Value needsMask = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                            add(keyBase, tile), c(tk));
    if (causal)
      needsMask = arith::OrIOp::create(
          b, needsMask,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                add(keyBase, tile - 1), queryBase));
    p = maskTile(
        needsMask, p,
        [&](unsigned i) {
          return isMasked(add(rowBase, accRow(i)), add(keyBase, accCol(i)));
        },
        f32(0.0));
    Acc ds;
    for (unsigned i = 0; i < s.size(); ++i)
      ds.push_back(fmul(p[i], fsub(dp[i], delta[(i % 4) / 2])));

    // dQ += dS K: B(k = key, n = dim) is X[key][dim].
    multiply(
        dQ, tile, [&](int64_t k0) { return fragAFromAcc(ds, k0); }, xSmem,
        /*nMajor=*/false, /*accA=*/true);
    scf::YieldOp::create(b, dQ);
  }
  Value scaleF = f32(scale);
  for (auto [i, x] : llvm::enumerate(loop.getResults())) {
    Value row = add(rowBase, accRow(i));
    if (failed(
            storeResult(0, bh, row, accCol(i), fmul(x, scaleF), lt(row, tq))))
      return failure();
  }
  return success();
}

FailureOr<Geometry> AttentionEmitter::backwardKernel() {
  bool wantQ = false, wantKV = false;
  for (const Write &w : writes)
    (w.result == 0 ? wantQ : wantKV) = true;
  // bf16 on Hopper: the wgmma backward (AttentionBackwardWgmma.cpp) where
  // it applies. It writes each gradient element from one block, so it
  // also meets `deterministic`.
  if (k.options.wgmma && (wantQ || wantKV)) {
    auto logSumExp = [&](Value bh, Value row) {
      Value lse =
          load(4, leadOffset(operands[4], bh), row, Value(), tq, f32(0.0));
      return body.convert(body.widen(lse), b.getF32Type());
    };
    if (auto geometry = withWgmmaCommon([&](const AttentionCommon &common) {
          return emitAttentionBackwardWgmma(
              {common, wgmmaOperand(3), wgmmaOperand(5), wantQ, wantKV,
               logSumExp});
        }))
      return *geometry;
  }
  // A dK/dV thread holds K's and V's A fragments and the dK and dV
  // accumulators across the loop and a query tile's S^T and dP^T (then P^T
  // and dS^T) within it; past about 160 of them ptxas runs out of the 255
  // registers a thread may have (TF32 D64 with 64-query tiles), so the
  // largest tile under 160 is taken, else the largest under 224 (bf16
  // D128: 32), else the one holding the fewest (TF32 D128: 16). dQ blocks
  // hold less, but share the launch's tile.
  int64_t held = (d + dv) / kStep * 4 + (d + dv) / 8 * 4;
  FailureOr<int64_t> tileOr = pickTile(
      [&](int64_t bt) { return bt * paddedCols(d) + bt * paddedCols(dv); },
      [&](int64_t bt) -> int64_t {
        int64_t registers = held + 2 * bt / 8 * 4;
        return registers <= 160 ? 0 : registers <= 224 ? 1 : registers;
      });
  if (failed(tileOr))
    return failure();
  tile = *tileOr;
  xSmem = allocShared(tile, paddedCols(d), tileType);
  ySmem = allocShared(tile, paddedCols(dv), tileType);
  stats = allocShared(2, kBlockRows, b.getF32Type());
  int64_t kvBlocks = wantKV ? batch * llvm::divideCeil(tk, kBlockRows) : 0;
  int64_t qBlocks = wantQ ? batch * llvm::divideCeil(tq, kBlockRows) : 0;
  int64_t grid = std::max<int64_t>(1, kvBlocks + qBlocks);
  fillConstants(grid);
  Value block = k.blockId();
  if (!wantQ || !wantKV) {
    if (wantKV && failed(emitDKDV(block)))
      return failure();
    if (wantQ && failed(emitDQ(block)))
      return failure();
    return Geometry{grid, kThreads};
  }
  // The first blocks own keys, the rest queries (a uniform branch per
  // block, so both sides may synchronize).
  auto branch = scf::IfOp::create(b, lt(block, kvBlocks),
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    body.pushScope();
    LogicalResult ok = emitDKDV(block);
    body.popScope();
    if (failed(ok))
      return failure();
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    body.pushScope();
    ok = emitDQ(arith::SubIOp::create(b, block, c(kvBlocks)));
    body.popScope();
    if (failed(ok))
      return failure();
  }
  return Geometry{grid, kThreads};
}

FailureOr<Geometry> AttentionEmitter::emit() {
  if (failed(prepare()))
    return failure();
  return backward ? backwardKernel() : forward();
}

} // namespace

FailureOr<Geometry> emitAttentionForward(KernelContext &k) {
  for (Operation &op : k.block().without_terminator())
    if (isa<nv::AttentionOp, nv::AttentionFwdOp>(op))
      return AttentionEmitter(k, &op, /*backward=*/false).emit();
  return k.fail("no attention op");
}

FailureOr<Geometry> emitAttentionBackward(KernelContext &k) {
  for (Operation &op : k.block().without_terminator())
    if (isa<nv::AttentionBwdOp>(op))
      return AttentionEmitter(k, &op, /*backward=*/true).emit();
  return k.fail("no attention_bwd op");
}

} // namespace mlir::nova::tile_to_gpu
