//===- NovaCanonicalize.cpp - fold and canonicalize nova ops only ---------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVACANONICALIZE
#include "nova/Dialect/Nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {
struct NovaCanonicalizePass
    : public nova::impl::NovaCanonicalizeBase<NovaCanonicalizePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet set(ctx);
    auto *dialect = ctx->getLoadedDialect<NovaDialect>();
    if (!dialect)
      return success(); // nothing of ours can appear in the IR
    dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      if (&op.getDialect() == dialect)
        op.getCanonicalizationPatterns(set, ctx);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    Dialect *dialect = getContext().getLoadedDialect<NovaDialect>();
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
    // Only nova ops and the ops the rewrites create are visited.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
        .setMaxIterations(maxIterations)
        .enableFolding();
    if (failed(applyOpPatternsGreedily(ops, patterns, config))) {
      getOperation()->emitError("nova-canonicalize did not converge in ")
          << maxIterations << " iterations";
      return signalPassFailure();
    }
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
