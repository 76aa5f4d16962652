//===- TrainStep.cpp - AdamW training step around a differentiated loss ---===//

#include "ModuleLocation.h"
#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Autodiff.h"
#include "nova/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

namespace mlir::nova {
#define GEN_PASS_DEF_NOVATRAINSTEP
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {
/// The differentiated function's arguments: parameters in the order of their
/// gradient results, then the other (batch) inputs.
struct GradSignature {
  SmallVector<unsigned> params, batch;
};
} // namespace

static FailureOr<GradSignature> readGradSignature(func::FuncOp grad) {
  GradSignature sig;
  for (unsigned r = 1, e = grad.getNumResults(); r < e; ++r) {
    auto of = grad.getResultAttrOfType<IntegerAttr>(
        r, NovaDialect::getGradOfAttrName());
    if (!of)
      return grad.emitError("nova-train-step: result #")
             << r << " of @" << grad.getSymName()
             << " is not a gradient (no nova.grad_of); run nova-autodiff first";
    unsigned param = unsigned(of.getInt());
    // One update per parameter: a second gradient of it has no meaning here.
    if (const unsigned *first = llvm::find(sig.params, param);
        first != sig.params.end())
      return grad.emitError("nova-train-step: results #")
             << (first - sig.params.begin()) + 1 << " and #" << r << " of @"
             << grad.getSymName() << " are both the gradient of argument #"
             << param;
    sig.params.push_back(param);
  }
  if (sig.params.empty() || !grad.getBody().hasOneBlock())
    return grad.emitError("nova-train-step: @")
           << grad.getSymName()
           << " must return a loss and parameter gradients (nova-autodiff)";
  for (unsigned i = 0, e = grad.getNumArguments(); i < e; ++i)
    if (!llvm::is_contained(sig.params, i))
      sig.batch.push_back(i);
  return sig;
}

static DictionaryAttr namedAttrs(MLIRContext *ctx, StringRef name,
                                 ArrayRef<NamedAttribute> extra = {}) {
  NamedAttrList list(extra);
  list.append(NovaDialect::getNameAttrName(), StringAttr::get(ctx, name));
  return list.getDictionary(ctx);
}

static NamedAttribute paramMarker(MLIRContext *ctx) {
  return NamedAttribute(StringAttr::get(ctx, NovaDialect::getParamAttrName()),
                        UnitAttr::get(ctx));
}

/// Clones `grad`'s body at `b` (its arguments mapped in `map`) and returns
/// what it returns: the loss, then the gradients.
static SmallVector<Value> inlineBody(OpBuilder &b, func::FuncOp grad,
                                     IRMapping &map) {
  Block &body = grad.getBody().front();
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  return llvm::map_to_vector(body.getTerminator()->getOperands(),
                             [&](Value v) { return map.lookupOrDefault(v); });
}

/// `evalName(params..., batch...) -> loss`: the forward of `grad` with the
/// same argument names, so one safetensors file feeds both entries.
static FailureOr<func::FuncOp> buildEval(func::FuncOp grad,
                                         const GradSignature &sig,
                                         StringRef evalName, Operation *after) {
  MLIRContext *ctx = grad.getContext();
  OpBuilder b(ctx);
  SmallVector<Type> inputs;
  SmallVector<Attribute> inAttrs;
  for (unsigned p : sig.params) {
    inputs.push_back(grad.getArgumentTypes()[p]);
    inAttrs.push_back(
        namedAttrs(ctx, argumentName(grad, p), {paramMarker(ctx)}));
  }
  for (unsigned i : sig.batch) {
    inputs.push_back(grad.getArgumentTypes()[i]);
    inAttrs.push_back(namedAttrs(ctx, argumentName(grad, i)));
  }
  b.setInsertionPointAfter(after);
  auto eval = func::FuncOp::create(
      b, grad.getLoc(), evalName,
      b.getFunctionType(inputs, grad.getResultTypes().take_front()));
  eval.setAllArgAttrs(inAttrs);
  eval.setAllResultAttrs(ArrayRef<DictionaryAttr>{namedAttrs(ctx, "loss")});
  Block *entry = eval.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping map;
  for (auto [k, a] :
       llvm::enumerate(llvm::concat<const unsigned>(sig.params, sig.batch)))
    map.map(grad.getArgument(a), entry->getArgument(k));
  Value loss = inlineBody(b, grad, map).front();
  func::ReturnOp::create(b, grad.getLoc(), loss);
  // The gradient computation is now unused.
  for (Operation *op = entry->getTerminator()->getPrevNode(); op;) {
    Operation *previous = op->getPrevNode();
    if (isOpTriviallyDead(op))
      op->erase();
    op = previous;
  }
  return eval;
}

/// Scales `grads` in place by min(1, maxNorm / (norm + 1e-6)) where norm is
/// their global L2 norm (as torch.nn.utils.clip_grad_norm_); returns the norm
/// before clipping, as an f32 scalar.
static Value clipByGlobalNorm(NovaBuilder &nb, MutableArrayRef<Value> grads,
                              double maxNorm) {
  Type f32 = Float32Type::get(grads.front().getContext());
  Value sumOfSquares;
  for (Value g : grads) {
    Value wide = nb.cast(g, f32);
    Value s = nb.sumAll(nb.mul(wide, wide));
    sumOfSquares = sumOfSquares ? nb.add(sumOfSquares, s) : s;
  }
  Value norm = nb.sqrt(sumOfSquares);
  Type scalar = norm.getType();
  Value coef =
      nb.div(nb.scalar(scalar, maxNorm), nb.add(norm, nb.scalar(scalar, 1e-6)));
  coef =
      MinOp::create(nb.builder(), nb.location(), coef, nb.scalar(scalar, 1.0));
  for (Value &g : grads)
    g = nb.mul(g, nb.cast(coef, elementTypeOf(g)));
  return norm;
}

FailureOr<func::FuncOp>
mlir::nova::buildTrainStep(func::FuncOp grad, StringRef name,
                           const TrainStepOptions &opts) {
  if (name.empty())
    return grad.emitError("nova-train-step: the training step needs a name");
  auto taken = [&](StringRef symbol) {
    return symbol != grad.getSymName() &&
           SymbolTable::lookupNearestSymbolFrom(
               grad, StringAttr::get(grad.getContext(), symbol));
  };
  if (taken(name))
    return grad.emitError("nova-train-step: @") << name << " already exists";
  if (opts.evalName == name)
    return grad.emitError("nova-train-step: the step and the eval entry would "
                          "both be @")
           << name << "; choose another name= or eval=false";
  if (!opts.evalName.empty() && taken(opts.evalName))
    return grad.emitError("nova-train-step: @")
           << opts.evalName << " (the eval entry) already exists";
  // The step holds one copy of the differentiated body per micro-batch.
  constexpr unsigned maxAccumulate = 256;
  if (opts.accumulate < 1 || opts.accumulate > maxAccumulate)
    return grad.emitError("nova-train-step: accumulate must be from 1 to ")
           << maxAccumulate << ", got " << opts.accumulate;
  if (!std::isfinite(opts.clipNorm) || opts.clipNorm < 0.0)
    return grad.emitError("nova-train-step: clip-norm must be a finite "
                          "number >= 0 (0: off), got ")
           << opts.clipNorm;
  FailureOr<GradSignature> sig = readGradSignature(grad);
  if (failed(sig))
    return failure();
  const SmallVector<unsigned> &params = sig->params, &batch = sig->batch;

  MLIRContext *ctx = grad.getContext();
  OpBuilder b(ctx);
  ArrayRef<Type> argTypes = grad.getArgumentTypes();
  Type stepType = RankedTensorType::get({}, b.getI64Type());
  Type lrType = RankedTensorType::get({}, b.getF32Type());
  SmallVector<Type> inputs, results{grad.getResultTypes()[0]};
  SmallVector<Attribute> inAttrs, outAttrs;
  outAttrs.push_back(namedAttrs(ctx, "loss"));
  // params, then m, then v: each state argument k is aliased by result k+1.
  const char *suffix[] = {"", ".adam_m", ".adam_v"};
  for (int group = 0; group < 3; ++group)
    for (unsigned p : params) {
      unsigned argIndex = inputs.size();
      inputs.push_back(argTypes[p]);
      std::string n = argumentName(grad, p) + suffix[group];
      SmallVector<NamedAttribute> extra;
      if (group == 0)
        extra.push_back(paramMarker(ctx));
      inAttrs.push_back(namedAttrs(ctx, n, extra));
      results.push_back(argTypes[p]);
      outAttrs.push_back(
          namedAttrs(ctx, n,
                     {b.getNamedAttr(NovaDialect::getAliasAttrName(),
                                     b.getI64IntegerAttr(argIndex))}));
    }
  unsigned stepIndex = inputs.size(), lrIndex = stepIndex + 1;
  inputs.push_back(stepType);
  inAttrs.push_back(namedAttrs(ctx, "step"));
  inputs.push_back(lrType);
  inAttrs.push_back(namedAttrs(ctx, "lr"));
  // With accumulation each batch input gains a leading micro-batch dim.
  for (unsigned i : batch) {
    auto type = cast<RankedTensorType>(argTypes[i]);
    if (opts.accumulate > 1) {
      SmallVector<int64_t> shape{int64_t(opts.accumulate)};
      llvm::append_range(shape, type.getShape());
      type = type.clone(shape);
    }
    inputs.push_back(type);
    inAttrs.push_back(namedAttrs(ctx, argumentName(grad, i)));
  }
  if (opts.clipNorm > 0) {
    results.push_back(lrType);
    outAttrs.push_back(namedAttrs(ctx, "grad_norm"));
  }

  b.setInsertionPointAfter(grad);
  auto step = func::FuncOp::create(b, grad.getLoc(), name,
                                   b.getFunctionType(inputs, results));
  step.setAllArgAttrs(inAttrs);
  step.setAllResultAttrs(outAttrs);
  Block *entry = step.addEntryBlock();
  b.setInsertionPointToStart(entry);
  NovaBuilder nb(b, grad.getLoc());

  // Loss and gradients, summed over the micro-batches, then averaged.
  unsigned n = params.size();
  SmallVector<Value> lossAndGrads;
  for (unsigned micro = 0; micro < opts.accumulate; ++micro) {
    IRMapping map;
    for (auto [k, p] : llvm::enumerate(params))
      map.map(grad.getArgument(p), entry->getArgument(k));
    for (auto [k, i] : llvm::enumerate(batch)) {
      Value in = entry->getArgument(lrIndex + 1 + k);
      if (opts.accumulate > 1)
        in = nb.reshape(nb.sliceDim(in, 0, micro, micro + 1),
                        cast<RankedTensorType>(argTypes[i]).getShape());
      map.map(grad.getArgument(i), in);
    }
    SmallVector<Value> returned = inlineBody(b, grad, map);
    if (lossAndGrads.empty())
      lossAndGrads = std::move(returned);
    else
      for (auto [sum, v] : llvm::zip(lossAndGrads, returned))
        sum = nb.add(sum, v);
  }
  if (opts.accumulate > 1)
    for (Value &v : lossAndGrads)
      v = nb.mul(v, 1.0 / opts.accumulate);
  MutableArrayRef<Value> grads = MutableArrayRef(lossAndGrads).drop_front();
  Value gradNorm;
  if (opts.clipNorm > 0)
    gradNorm = clipByGlobalNorm(nb, grads, opts.clipNorm);

  SmallVector<Value> newP, newM, newV;
  Value t = entry->getArgument(stepIndex), lr = entry->getArgument(lrIndex);
  const AdamWOptions &adam = opts.adamw;
  for (unsigned k = 0; k < n; ++k) {
    auto update = AdamWOp::create(
        b, grad.getLoc(), entry->getArgument(k), grads[k],
        entry->getArgument(n + k), entry->getArgument(2 * n + k), t, lr,
        b.getF64FloatAttr(adam.beta1), b.getF64FloatAttr(adam.beta2),
        b.getF64FloatAttr(adam.epsilon), b.getF64FloatAttr(adam.weightDecay));
    newP.push_back(update.getNewParam());
    newM.push_back(update.getNewM());
    newV.push_back(update.getNewV());
  }
  SmallVector<Value> outs{lossAndGrads.front()};
  llvm::append_range(outs, newP);
  llvm::append_range(outs, newM);
  llvm::append_range(outs, newV);
  if (gradNorm)
    outs.push_back(gradNorm);
  func::ReturnOp::create(b, grad.getLoc(), outs);

  func::FuncOp eval;
  if (!opts.evalName.empty()) {
    FailureOr<func::FuncOp> built = buildEval(grad, *sig, opts.evalName, step);
    if (failed(built)) {
      step.erase();
      return failure();
    }
    eval = *built;
  }
  // Out-of-range hyper-parameters are reported by nova.adamw's verifier.
  if (failed(verify(step)) || (eval && failed(verify(eval)))) {
    step.erase();
    if (eval)
      eval.erase();
    return failure();
  }
  grad.erase();
  return step;
}

namespace {
struct NovaTrainStepPass
    : mlir::nova::impl::NovaTrainStepBase<NovaTrainStepPass> {
  using NovaTrainStepBase::NovaTrainStepBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp grad;
    if (!functionName.empty()) {
      grad = module.lookupSymbol<func::FuncOp>(functionName);
      if (!grad) {
        emitError(moduleLocation(module), "nova-train-step: no function @")
            << functionName;
        return signalPassFailure();
      }
    } else {
      SmallVector<func::FuncOp> candidates;
      for (auto fn : module.getOps<func::FuncOp>())
        if (fn.getNumResults() > 1 &&
            fn.getResultAttr(1, NovaDialect::getGradOfAttrName()))
          candidates.push_back(fn);
      if (candidates.empty()) {
        emitError(moduleLocation(module),
                  "nova-train-step: no function returns parameter gradients "
                  "(nova.grad_of results); run nova-autodiff first, on a loss "
                  "whose trainable arguments are marked {nova.param}");
        return signalPassFailure();
      }
      if (candidates.size() > 1) {
        InFlightDiagnostic diag =
            emitError(moduleLocation(module), "nova-train-step: ")
            << candidates.size()
            << " functions return parameter gradients; name one with "
               "function=";
        for (func::FuncOp fn : candidates)
          diag.attachNote(fn.getLoc()) << "@" << fn.getSymName();
        return signalPassFailure();
      }
      grad = candidates.front();
    }
    TrainStepOptions opts;
    opts.adamw = {beta1, beta2, epsilon, weightDecay};
    opts.clipNorm = clipNorm;
    opts.accumulate = accumulate;
    opts.evalName = withEval ? "eval" : "";
    if (failed(buildTrainStep(grad, stepName, opts)))
      signalPassFailure();
  }
};
} // namespace
