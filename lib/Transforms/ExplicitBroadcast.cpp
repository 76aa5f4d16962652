//===- ExplicitBroadcast.cpp - materialize implicit broadcasts ------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAEXPLICITBROADCAST
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {
/// Feeds each operand whose shape differs from the result's through a
/// nova.broadcast to the result's shape (keeping the operand's element type).
struct MaterializeBroadcast : RewritePattern {
  explicit MaterializeBroadcast(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<nova::OpTrait::BroadcastingElementwise>())
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    bool changed = false;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = cast<RankedTensorType>(operand.get().getType());
      if (type.getShape() == resultType.getShape())
        continue;
      auto wide =
          RankedTensorType::get(resultType.getShape(), type.getElementType());
      Value b =
          BroadcastOp::create(rewriter, op->getLoc(), wide, operand.get());
      rewriter.modifyOpInPlace(op, [&] { operand.set(b); });
      changed = true;
    }
    return success(changed);
  }
};

struct NovaExplicitBroadcastPass
    : public nova::impl::NovaExplicitBroadcastBase<NovaExplicitBroadcastPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MaterializeBroadcast>(&getContext());
    // No folding: the pass only adds broadcasts, it does not simplify.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
