//===- Decompose.cpp - composites to primitives ---------------------------===//
//
// One pattern per composite, each writing the definition from the op's
// documentation with NovaBuilder. Patterns may create other composites
// (attention makes a softmax); the greedy driver decomposes those too unless
// they are kept.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Autodiff.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVADECOMPOSE
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// softmax: e = exp(x - max), e / sum(e); log_softmax: s - log(sum(exp(s)))
/// with s = x - max. Subtracting the max keeps exp from overflowing.
template <typename OpTy, bool Log>
struct DecomposeNormalize : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    int64_t dim = op.getDim();
    Value x = op.getInput();
    Value shifted = nb.sub(x, nb.reduce(ReduceKind::max, x, {dim}, true));
    Value e = nb.exp(shifted);
    Value total = nb.reduce(ReduceKind::sum, e, {dim}, true);
    rewriter.replaceOp(op,
                       Log ? nb.sub(shifted, nb.log(total)) : nb.div(e, total));
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    Value xhat =
        nb.layerNormStats(op.getInput(), op.getEpsilon().convertToDouble())
            .first;
    rewriter.replaceOp(op, nb.add(nb.mul(xhat, op.getWeight()), op.getBias()));
    return success();
  }
};

/// -sum(log_softmax(logits)[label]) / count over the counted rows, with the
/// label picked by a one-hot mask. The labels are read through a
/// nova.check_labels so the range check of the composite stays.
struct DecomposeCrossEntropy : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    Value logits = op.getLogits();
    int64_t last = int64_t(shapeOf(logits).size()) - 1;
    int64_t classes = shapeOf(logits)[last], ignore = op.getIgnoreIndex();
    Value labels = nb.checkedLabels(logits, op.getLabels(), ignore);
    Value counted = nb.countedLabels(labels, ignore);
    Value zero = nb.scalar(logits.getType(), 0.0);
    Value picked = nb.select(nb.labelMask(logits, labels),
                             nb.logSoftmax(logits, last), zero);
    // An ignore_index that is a class also matches the one-hot mask.
    if (ignore >= 0 && ignore < classes) {
      SmallVector<int64_t> column(shapeOf(labels));
      column.push_back(1);
      picked = nb.select(nb.reshape(counted, column), picked, zero);
    }
    Value count = nb.sumAll(nb.cast(counted, elementTypeOf(logits)));
    rewriter.replaceOp(op, nb.div(nb.neg(nb.sumAll(picked)), count));
    return success();
  }
};

struct DecomposeAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    Value scores =
        nb.attentionScores(op.getQuery(), op.getKey(),
                           op.getScale().convertToDouble(), op.getCausal());
    int64_t last = int64_t(shapeOf(scores).size()) - 1;
    rewriter.replaceOp(op, nb.matmul(nb.softmax(scores, last), op.getValue()));
    return success();
  }
};

/// The output as attention's decomposition computes it, with the row max m
/// and the sum l of exp(s - m) kept for lse = m + log(l) (f32).
struct DecomposeAttentionFwd : OpRewritePattern<AttentionFwdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionFwdOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    Value scores =
        nb.attentionScores(op.getQuery(), op.getKey(),
                           op.getScale().convertToDouble(), op.getCausal());
    int64_t last = int64_t(shapeOf(scores).size()) - 1;
    Value rowMax = nb.reduce(ReduceKind::max, scores, {last}, true);
    Value e = nb.exp(nb.sub(scores, rowMax));
    Value rowSum = nb.reduce(ReduceKind::sum, e, {last}, true);
    Value output = nb.matmul(nb.div(e, rowSum), op.getValue());
    Value lse =
        nb.reshape(nb.add(rowMax, nb.log(rowSum)), shapeOf(op.getLse()));
    if (elementTypeOf(lse) != elementTypeOf(op.getLse()))
      lse = nb.cast(lse, elementTypeOf(op.getLse()));
    rewriter.replaceOp(op, {output, lse});
    return success();
  }
};

struct DecomposeAttentionBwd : OpRewritePattern<AttentionBwdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionBwdOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    rewriter.replaceOp(
        op,
        nb.attentionGradients(op.getQuery(), op.getKey(), op.getValue(),
                              op.getOutput(), op.getLse(), op.getGradOutput(),
                              /*dlse=*/Value(), op.getScale().convertToDouble(),
                              op.getCausal()));
    return success();
  }
};

struct DecomposeAdamW : OpRewritePattern<AdamWOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdamWOp op,
                                PatternRewriter &rewriter) const override {
    NovaBuilder nb(rewriter, op.getLoc());
    double b1 = op.getBeta1().convertToDouble(),
           b2 = op.getBeta2().convertToDouble();
    Value p = op.getParam(), g = op.getGrad();
    Type like = p.getType();
    Value one = nb.scalar(like, 1.0);
    Value m = nb.add(nb.mul(op.getM(), b1), nb.mul(g, 1 - b1));
    Value v = nb.add(nb.mul(op.getV(), b2), nb.mul(nb.mul(g, g), 1 - b2));
    // Bias corrections 1 - beta^t with t the step as a float scalar.
    Value t = nb.cast(op.getStep(), elementTypeOf(p));
    auto correction = [&](double beta) {
      return nb.sub(
          one, PowOp::create(rewriter, op.getLoc(), nb.scalar(like, beta), t));
    };
    Value mhat = nb.div(m, correction(b1));
    Value vhat = nb.div(v, correction(b2));
    Value update = nb.add(
        nb.div(mhat,
               nb.add(nb.sqrt(vhat),
                      nb.scalar(like, op.getEpsilon().convertToDouble()))),
        nb.mul(p, op.getWeightDecay().convertToDouble()));
    Value lr = nb.cast(op.getLr(), elementTypeOf(p));
    Value newP = nb.sub(p, nb.mul(update, lr));
    rewriter.replaceOp(op, {newP, m, v});
    return success();
  }
};

struct NovaDecomposePass
    : mlir::nova::impl::NovaDecomposeBase<NovaDecomposePass> {
  using NovaDecomposeBase::NovaDecomposeBase;

  void runOnOperation() override {
    static constexpr StringRef known[] = {
        "softmax",   "log_softmax",   "layer_norm",    "cross_entropy",
        "attention", "attention_fwd", "attention_bwd", "adamw"};
    for (const std::string &name : keep)
      if (!llvm::is_contained(known, name)) {
        getOperation()->emitError("nova-decompose: 'keep' names '")
            << name << "', which is not a composite (softmax, log_softmax, "
            << "layer_norm, cross_entropy, attention, attention_fwd, "
            << "attention_bwd, adamw)";
        return signalPassFailure();
      }
    RewritePatternSet patterns(&getContext());
    populateDecompositionPatterns(patterns, keep);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::nova::populateDecompositionPatterns(RewritePatternSet &patterns,
                                               ArrayRef<std::string> keep) {
  MLIRContext *ctx = patterns.getContext();
  auto wanted = [&](StringRef name) { return !llvm::is_contained(keep, name); };
  if (wanted("softmax"))
    patterns.add<DecomposeNormalize<SoftmaxOp, false>>(ctx);
  if (wanted("log_softmax"))
    patterns.add<DecomposeNormalize<LogSoftmaxOp, true>>(ctx);
  if (wanted("layer_norm"))
    patterns.add<DecomposeLayerNorm>(ctx);
  if (wanted("cross_entropy"))
    patterns.add<DecomposeCrossEntropy>(ctx);
  if (wanted("attention"))
    patterns.add<DecomposeAttention>(ctx);
  if (wanted("attention_fwd"))
    patterns.add<DecomposeAttentionFwd>(ctx);
  if (wanted("attention_bwd"))
    patterns.add<DecomposeAttentionBwd>(ctx);
  if (wanted("adamw"))
    patterns.add<DecomposeAdamW>(ctx);
}
