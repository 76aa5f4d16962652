//===- Autodiff.h - whole-graph transforms callable from C++ ----*- C++ -*-===//
//
// The work of nova-autodiff, nova-decompose and nova-train-step as
// functions, for tools and libraries that build pipelines themselves (the
// capture API, nova-run's gradient check).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TRANSFORMS_AUTODIFF_H
#define NOVA_TRANSFORMS_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::nova {

/// Makes `fn` (arguments marked nova.param, one scalar float result) return
/// the loss followed by each parameter's gradient. Emits a diagnostic and
/// fails on functions it cannot differentiate.
LogicalResult differentiateFunction(func::FuncOp fn);

/// Patterns rewriting composites into primitives, except the op names in
/// `keep` (e.g. "attention").
void populateDecompositionPatterns(RewritePatternSet &patterns,
                                   ArrayRef<std::string> keep = {});

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, weightDecay = 0.01;
};

struct TrainStepOptions {
  AdamWOptions adamw;
  /// Global-norm gradient clipping threshold; 0 turns clipping off.
  double clipNorm = 0.0;
  /// Micro-batches per optimizer update (>= 1).
  unsigned accumulate = 1;
  /// Name of the loss-only entry to add beside the step; empty for none.
  std::string evalName = "eval";
};

/// Builds `name(params, m, v, step, lr, batch...) -> (loss, params', m', v'
/// [, grad_norm])` from a differentiated function (see nova-train-step),
/// inserts it (and the eval entry) after `grad` and erases `grad`.
FailureOr<func::FuncOp> buildTrainStep(func::FuncOp grad, StringRef name,
                                       const TrainStepOptions &options);

} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_AUTODIFF_H
