//===- CollapseAttention.cpp - attention from primitives to nova.attention ===//
//
// One pattern rooted at the product `P V` whose `P` is a softmax over the
// last dimension (the composite or its decomposition) of scores built as
// `scale * q k^T`, optionally masked causally. It walks the chain from `P V`
// back to `q k^T`, and rewrites only when every link is understood, every
// score-shaped value in the chain has no user outside it (otherwise the
// T x T tensor stays anyway), and the scale is a positive scalar constant.
// Anything else is left as it is.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACOLLAPSEATTENTION
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Whether every use of `v` is by one of `users`.
bool usedOnlyBy(Value v, ArrayRef<Operation *> users) {
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    return llvm::is_contained(users, user);
  });
}

/// The value of a splat float constant that broadcasts like a scalar (every
/// dimension 1, or rank 0).
std::optional<double> scalarConstant(Value v) {
  auto op = v.getDefiningOp<ConstantOp>();
  if (!op || llvm::any_of(shapeOf(v), [](int64_t d) { return d != 1; }))
    return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// `x * c`, `c * x` or `x / c` with a scalar constant `c` and a result of
/// `x`'s type: returns `x` and the factor. Only positive finite factors
/// count: a negative one after the mask would turn -inf into +inf, and
/// attention's scale is positive.
std::optional<std::pair<Value, double>> scaledBy(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op || !isa<MulOp, DivOp>(op))
    return std::nullopt;
  for (unsigned side : {0u, 1u}) {
    if (isa<DivOp>(op) && side == 0)
      continue; // c / x is no scaling
    std::optional<double> c = scalarConstant(op->getOperand(side));
    Value x = op->getOperand(1 - side);
    if (!c || x.getType() != v.getType())
      continue;
    double factor = isa<DivOp>(op) ? 1.0 / *c : *c;
    if (factor > 0.0 && std::isfinite(factor))
      return std::make_pair(x, factor);
  }
  return std::nullopt;
}

/// Where an iota's value varies, relative to a [..., T, T] score tensor:
/// along the query (rows) or the key (columns).
enum class Axis { Query, Key };

std::optional<Axis> iotaAxis(Value v, int64_t t) {
  auto iota = v.getDefiningOp<IotaOp>();
  auto element = dyn_cast<IntegerType>(elementTypeOf(v));
  // Indices up to t - 1 must not wrap in the element type.
  if (!iota || !element ||
      (element.getWidth() < 64 && t > (int64_t(1) << (element.getWidth() - 1))))
    return std::nullopt;
  ArrayRef<int64_t> shape = shapeOf(v);
  int64_t fromEnd = int64_t(shape.size()) - int64_t(iota.getDim());
  if (shape[iota.getDim()] != t)
    return std::nullopt;
  if (fromEnd == 1)
    return Axis::Key;
  if (fromEnd == 2)
    return Axis::Query;
  return std::nullopt;
}

/// What a boolean mask over [..., T, T] scores keeps.
enum class MaskKind { Causal, AntiCausal, Other };

/// Classifies a constant by `keep(i, j)` over its last two dimensions, whose
/// leading dimensions must all be 1.
template <typename Element>
MaskKind classifyConstant(DenseElementsAttr dense, int64_t t,
                          function_ref<bool(Element)> keep) {
  ArrayRef<int64_t> shape = dense.getType().getShape();
  if (shape.size() < 2 || shape[shape.size() - 1] != t ||
      shape[shape.size() - 2] != t ||
      llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; }))
    return MaskKind::Other;
  bool causal = true, anti = true;
  auto values = dense.getValues<Element>();
  for (int64_t i = 0; i < t; ++i)
    for (int64_t j = 0; j < t; ++j) {
      bool kept = keep(values[i * t + j]);
      causal &= kept == (j <= i);
      anti &= kept == (j > i);
    }
  return causal ? MaskKind::Causal
         : anti ? MaskKind::AntiCausal
                : MaskKind::Other;
}

/// `cond` true where key j <= query i (causal) or where j > i (its
/// complement): a comparison of a key iota with a query iota, or an i1
/// constant.
MaskKind classifyCondition(Value cond, int64_t t) {
  if (auto op = cond.getDefiningOp<ConstantOp>()) {
    auto dense = dyn_cast<DenseIntElementsAttr>(op.getValue());
    if (!dense)
      return MaskKind::Other;
    return classifyConstant<bool>(dense, t, [](bool b) { return b; });
  }
  auto cmp = cond.getDefiningOp<CmpOp>();
  if (!cmp)
    return MaskKind::Other;
  std::optional<Axis> lhs = iotaAxis(cmp.getLhs(), t),
                      rhs = iotaAxis(cmp.getRhs(), t);
  if (!lhs || !rhs || *lhs == *rhs)
    return MaskKind::Other;
  // Normalize to "key PRED query".
  CmpPredicate p = cmp.getPredicate();
  if (*lhs == Axis::Query) {
    switch (p) {
    case CmpPredicate::ge:
      p = CmpPredicate::le;
      break;
    case CmpPredicate::lt:
      p = CmpPredicate::gt;
      break;
    default:
      return MaskKind::Other;
    }
  }
  if (p == CmpPredicate::le)
    return MaskKind::Causal;
  if (p == CmpPredicate::gt)
    return MaskKind::AntiCausal;
  return MaskKind::Other;
}

/// If `v` masks scores `x` causally with -inf (a select, or adding a 0/-inf
/// constant), returns the op and `x`.
std::optional<std::pair<Operation *, Value>> causallyMasked(Value v,
                                                            int64_t t) {
  auto isNegInf = [](Value c) {
    std::optional<double> x = scalarConstant(c);
    return x && std::isinf(*x) && *x < 0;
  };
  if (auto select = v.getDefiningOp<SelectOp>()) {
    if (select.getOnTrue().getType() == v.getType() &&
        isNegInf(select.getOnFalse()) &&
        classifyCondition(select.getCondition(), t) == MaskKind::Causal)
      return std::make_pair(select.getOperation(), select.getOnTrue());
    if (select.getOnFalse().getType() == v.getType() &&
        isNegInf(select.getOnTrue()) &&
        classifyCondition(select.getCondition(), t) == MaskKind::AntiCausal)
      return std::make_pair(select.getOperation(), select.getOnFalse());
    return std::nullopt;
  }
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (unsigned side : {0u, 1u}) {
    auto op = add->getOperand(side).getDefiningOp<ConstantOp>();
    Value x = add->getOperand(1 - side);
    auto dense = op ? dyn_cast<DenseFPElementsAttr>(op.getValue()) : nullptr;
    if (!dense || x.getType() != v.getType())
      continue;
    // Adding 0 keeps a score, -inf removes it; anything else is no mask.
    bool onlyZeroOrNegInf =
        llvm::all_of(dense.getValues<APFloat>(), [](const APFloat &a) {
          return a.isZero() || (a.isInfinity() && a.isNegative());
        });
    if (onlyZeroOrNegInf && classifyConstant<APFloat>(dense, t, [](APFloat a) {
                              return a.isZero();
                            }) == MaskKind::Causal)
      return std::make_pair(add.getOperation(), x);
  }
  return std::nullopt;
}

/// The input of a softmax over the last dimension of `p`: `nova.softmax`,
/// or exp(s - max(s)) / sum(exp(s - max(s))) with keep_dims reductions.
/// `chain` receives its ops; every intermediate is used only inside it.
std::optional<Value> softmaxInput(Value p,
                                  SmallVectorImpl<Operation *> &chain) {
  int64_t last = int64_t(shapeOf(p).size()) - 1;
  if (auto softmax = p.getDefiningOp<SoftmaxOp>()) {
    if (int64_t(softmax.getDim()) != last)
      return std::nullopt;
    chain.push_back(softmax);
    return softmax.getInput();
  }
  auto isLastReduce = [&](ReduceOp r, ReduceKind kind) {
    return r && r.getKind() == kind && r.getKeepDims() &&
           r.getDims() == ArrayRef<int64_t>{last};
  };
  auto div = p.getDefiningOp<DivOp>();
  if (!div)
    return std::nullopt;
  Value e = div.getLhs();
  auto sum = div.getRhs().getDefiningOp<ReduceOp>();
  auto exp = e.getDefiningOp<ExpOp>();
  if (!exp || !isLastReduce(sum, ReduceKind::sum) || sum.getInput() != e)
    return std::nullopt;
  auto sub = exp.getInput().getDefiningOp<SubOp>();
  if (!sub)
    return std::nullopt;
  Value s = sub.getLhs();
  auto max = sub.getRhs().getDefiningOp<ReduceOp>();
  if (!isLastReduce(max, ReduceKind::max) || max.getInput() != s ||
      sub.getType() != s.getType())
    return std::nullopt;
  if (!usedOnlyBy(e, {sum, div}) || !usedOnlyBy(sum, {div}) ||
      !usedOnlyBy(exp.getInput(), {exp}) || !usedOnlyBy(max, {sub}) ||
      !usedOnlyBy(s, {max, sub}))
    return std::nullopt;
  chain.append({div, sum, exp, sub, max});
  return s;
}

struct CollapseAttention : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    if (pv.getTransposeLhs() || pv.getTransposeRhs())
      return rewriter.notifyMatchFailure(pv, "P V with a transposed operand");
    Value p = pv.getLhs();
    ArrayRef<int64_t> scoreShape = shapeOf(p);
    int64_t rank = scoreShape.size();
    int64_t t = scoreShape[rank - 1];
    SmallVector<Operation *> chain;
    std::optional<Value> s = softmaxInput(p, chain);
    if (!s || !usedOnlyBy(p, {pv}))
      return rewriter.notifyMatchFailure(pv, "not a softmax over the keys");

    // Peel the mask and the scale, in either order, down to q k^T. Each
    // value on the way feeds only the chain.
    Value scores = *s;
    double scale = 1.0;
    bool causal = false, scaled = false;
    while (true) {
      if (!usedOnlyBy(scores, chain))
        return rewriter.notifyMatchFailure(pv, "scores have another user");
      if (!causal && scoreShape[rank - 2] == t) {
        if (auto masked = causallyMasked(scores, t)) {
          causal = true;
          chain.push_back(masked->first);
          scores = masked->second;
          continue;
        }
      }
      if (!scaled) {
        if (auto factor = scaledBy(scores)) {
          scaled = true;
          scale = factor->second;
          chain.push_back(scores.getDefiningOp());
          scores = factor->first;
          continue;
        }
      }
      break;
    }
    auto qk = scores.getDefiningOp<MatmulOp>();
    if (!qk)
      return rewriter.notifyMatchFailure(pv, "scores are not q k^T");

    // Scales of q or k before the product fold into the attention's scale.
    auto unscaled = [&](Value x) {
      if (auto factor = scaledBy(x)) {
        scale *= factor->second;
        return factor->first;
      }
      return x;
    };
    Value qBase = unscaled(qk.getLhs()), kBase = unscaled(qk.getRhs());
    if (!(scale > 0.0) || !std::isfinite(scale))
      return rewriter.notifyMatchFailure(pv, "scale is not positive, finite");

    Location loc = pv.getLoc();
    NovaBuilder nb(rewriter, loc);
    Value q = qk.getTransposeLhs() ? nb.transposeLast2(qBase) : qBase;
    Value k;
    if (qk.getTransposeRhs())
      k = kBase;
    else if (auto tr = kBase.getDefiningOp<TransposeOp>();
             tr && isLastTwoSwap(tr.getPermutation()))
      k = tr.getInput();
    else
      k = nb.transposeLast2(kBase);

    // Heads grouped by broadcasting: give q, k and v the product's batch
    // dimensions (nova.attention takes equal ones).
    ArrayRef<int64_t> outShape = shapeOf(pv.getResult());
    SmallVector<int64_t> batch(outShape.drop_back(2));
    auto withBatch = [&](Value x) {
      ArrayRef<int64_t> shape = shapeOf(x);
      SmallVector<int64_t> want(batch);
      want.append(shape.end() - 2, shape.end());
      return ArrayRef<int64_t>(want) == shape ? x : nb.broadcastTo(x, want);
    };
    Value attention = AttentionOp::create(
        rewriter, loc, withBatch(q), withBatch(k), withBatch(pv.getRhs()),
        rewriter.getF64FloatAttr(scale),
        causal ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.replaceOp(pv, attention);
    return success();
  }

  static bool isLastTwoSwap(ArrayRef<int64_t> perm) {
    int64_t r = perm.size();
    for (int64_t i = 0; i < r; ++i) {
      int64_t want = i < r - 2 ? i : (i == r - 2 ? r - 1 : r - 2);
      if (perm[i] != want)
        return false;
    }
    return r >= 2;
  }
};

struct NovaCollapseAttentionPass
    : mlir::nova::impl::NovaCollapseAttentionBase<NovaCollapseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CollapseAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
