//===- NovaCanonicalize.cpp - fold and canonicalize nova ops only ---------===//
//
// The greedy driver runs its worklist to a fixed point and does not count
// folds against any limit: a fold that kept reporting a change would never
// stop. Here folding is a pattern like the others, so every fold counts
// against the driver's rewrite budget, which `max-iterations` sets.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACANONICALIZE
#include "nova/Dialect/Nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {
/// Folds one op of `dialect`, with constants uniqued and hoisted by `folder`
/// as the driver's own folding does.
struct FoldPattern : public RewritePattern {
  FoldPattern(MLIRContext *ctx, Dialect *dialect, OperationFolder &folder)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        dialect(dialect), folder(folder) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (op->getDialect() != dialect || op->hasTrait<OpTrait::ConstantLike>())
      return failure();
    SmallVector<OpFoldResult> folded;
    rewriter.startOpModification(op);
    if (failed(op->fold(folded))) {
      rewriter.cancelOpModification(op);
      return failure();
    }
    if (folded.empty()) { // updated in place
      rewriter.finalizeOpModification(op);
      return success();
    }
    rewriter.cancelOpModification(op);
    SmallVector<Value> replacements;
    for (auto [result, value] : llvm::zip(op->getResults(), folded)) {
      if (auto v = dyn_cast<Value>(value)) {
        replacements.push_back(v);
        continue;
      }
      Value constant = folder.getOrCreateConstant(
          op->getBlock(), dialect, cast<Attribute>(value), result.getType());
      if (!constant)
        return failure();
      replacements.push_back(constant);
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }

  Dialect *dialect;
  OperationFolder &folder;
};

/// Keeps `folder` from handing out constants the driver has erased.
struct ForgetErasedConstants : public RewriterBase::Listener {
  explicit ForgetErasedConstants(OperationFolder &folder) : folder(folder) {}
  void notifyOperationErased(Operation *op) override {
    if (op->hasTrait<OpTrait::ConstantLike>())
      folder.notifyRemoval(op);
  }
  OperationFolder &folder;
};

struct NovaCanonicalizePass
    : public nova::impl::NovaCanonicalizeBase<NovaCanonicalizePass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    if (maxIterations < 1)
      return errorHandler("nova-canonicalize: max-iterations must be at "
                          "least 1, got " +
                          Twine(int64_t(maxIterations)));
    return success();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Dialect *dialect = ctx->getLoadedDialect<NovaDialect>();
    if (!dialect)
      return; // no nova op can be in the IR (and a null dialect would match
              // unregistered ops below)
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (op->getDialect() == dialect)
        ops.push_back(op);
    });
    if (ops.empty())
      return;

    OperationFolder folder(ctx);
    RewritePatternSet set(ctx);
    set.add<FoldPattern>(ctx, dialect, folder);
    dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      if (&op.getDialect() == dialect)
        op.getCanonicalizationPatterns(set, ctx);
    FrozenRewritePatternSet patterns(std::move(set));

    // Only nova ops and the ops the rewrites create are visited; each may be
    // folded or rewritten `maxIterations` times on average.
    ForgetErasedConstants listener(folder);
    int64_t budget;
    if (__builtin_mul_overflow(int64_t(maxIterations), int64_t(ops.size()),
                               &budget))
      budget = std::numeric_limits<int64_t>::max();
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
        .setMaxNumRewrites(budget)
        .setListener(&listener)
        .enableFolding(false);
    Location first = ops.front()->getLoc(); // the ops may be gone after
    if (failed(applyOpPatternsGreedily(ops, patterns, config))) {
      emitError(first, "nova-canonicalize did not converge within ")
          << int64_t(maxIterations)
          << " folds and rewrites per nova op (max-iterations)";
      return signalPassFailure();
    }
  }
};
} // namespace
