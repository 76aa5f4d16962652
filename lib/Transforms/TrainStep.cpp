//===- TrainStep.cpp - AdamW training step around a differentiated loss ---===//

#include "ModuleLocation.h"
#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Autodiff.h"
#include "nova/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVATRAINSTEP
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

FailureOr<func::FuncOp> mlir::nova::buildTrainStep(func::FuncOp grad,
                                                   StringRef name,
                                                   const AdamWOptions &opts) {
  if (name.empty())
    return grad.emitError("nova-train-step: the training step needs a name");
  if (name != grad.getSymName() &&
      SymbolTable::lookupNearestSymbolFrom(
          grad, StringAttr::get(grad.getContext(), name)))
    return grad.emitError("nova-train-step: @") << name << " already exists";
  // Which argument each gradient result belongs to.
  SmallVector<unsigned> params;
  for (unsigned r = 1, e = grad.getNumResults(); r < e; ++r) {
    auto of = grad.getResultAttrOfType<IntegerAttr>(
        r, NovaDialect::getGradOfAttrName());
    if (!of)
      return grad.emitError("nova-train-step: result #")
             << r << " of @" << grad.getSymName()
             << " is not a gradient (no nova.grad_of); run nova-autodiff first";
    params.push_back(unsigned(of.getInt()));
  }
  if (params.empty() || !grad.getBody().hasOneBlock())
    return grad.emitError("nova-train-step: @")
           << grad.getSymName()
           << " must return a loss and parameter gradients (nova-autodiff)";
  SmallVector<unsigned> batch;
  for (unsigned i = 0, e = grad.getNumArguments(); i < e; ++i)
    if (!llvm::is_contained(params, i))
      batch.push_back(i);

  MLIRContext *ctx = grad.getContext();
  OpBuilder b(ctx);
  ArrayRef<Type> argTypes = grad.getArgumentTypes();
  Type stepType = RankedTensorType::get({}, b.getI64Type());
  SmallVector<Type> inputs, results{grad.getResultTypes()[0]};
  SmallVector<Attribute> inAttrs, outAttrs;
  auto named = [&](StringRef n, ArrayRef<NamedAttribute> extra = {}) {
    NamedAttrList list(extra);
    list.append(NovaDialect::getNameAttrName(), b.getStringAttr(n));
    return list.getDictionary(ctx);
  };
  outAttrs.push_back(named("loss"));
  // params, then m, then v: each state argument k is aliased by result k+1.
  const char *suffix[] = {"", ".adam_m", ".adam_v"};
  for (int group = 0; group < 3; ++group)
    for (unsigned p : params) {
      unsigned argIndex = inputs.size();
      inputs.push_back(argTypes[p]);
      std::string n = argumentName(grad, p) + suffix[group];
      SmallVector<NamedAttribute> extra;
      if (group == 0)
        extra.push_back(
            b.getNamedAttr(NovaDialect::getParamAttrName(), b.getUnitAttr()));
      inAttrs.push_back(named(n, extra));
      results.push_back(argTypes[p]);
      outAttrs.push_back(
          named(n, {b.getNamedAttr(NovaDialect::getAliasAttrName(),
                                   b.getI64IntegerAttr(argIndex))}));
    }
  unsigned stepIndex = inputs.size();
  inputs.push_back(stepType);
  inAttrs.push_back(named("step"));
  for (unsigned i : batch) {
    inputs.push_back(argTypes[i]);
    inAttrs.push_back(named(argumentName(grad, i)));
  }

  b.setInsertionPointAfter(grad);
  auto step = func::FuncOp::create(b, grad.getLoc(), name,
                                   b.getFunctionType(inputs, results));
  step.setAllArgAttrs(inAttrs);
  step.setAllResultAttrs(outAttrs);
  Block *entry = step.addEntryBlock();
  b.setInsertionPointToStart(entry);

  // Inline the differentiated body.
  IRMapping map;
  unsigned n = params.size();
  for (auto [k, p] : llvm::enumerate(params))
    map.map(grad.getArgument(p), entry->getArgument(k));
  for (auto [k, i] : llvm::enumerate(batch))
    map.map(grad.getArgument(i), entry->getArgument(stepIndex + 1 + k));
  Block &body = grad.getBody().front();
  for (Operation &op : body.without_terminator())
    b.clone(op, map);
  auto ret = cast<func::ReturnOp>(body.getTerminator());

  SmallVector<Value> newP, newM, newV;
  Value t = entry->getArgument(stepIndex);
  for (unsigned k = 0; k < n; ++k) {
    auto update = AdamWOp::create(
        b, grad.getLoc(), entry->getArgument(k),
        map.lookup(ret.getOperand(k + 1)), entry->getArgument(n + k),
        entry->getArgument(2 * n + k), t, b.getF64FloatAttr(opts.lr),
        b.getF64FloatAttr(opts.beta1), b.getF64FloatAttr(opts.beta2),
        b.getF64FloatAttr(opts.epsilon), b.getF64FloatAttr(opts.weightDecay));
    newP.push_back(update.getNewParam());
    newM.push_back(update.getNewM());
    newV.push_back(update.getNewV());
  }
  SmallVector<Value> outs{map.lookup(ret.getOperand(0))};
  llvm::append_range(outs, newP);
  llvm::append_range(outs, newM);
  llvm::append_range(outs, newV);
  func::ReturnOp::create(b, ret.getLoc(), outs);
  // Out-of-range hyper-parameters are reported by nova.adamw's verifier.
  if (failed(verify(step))) {
    step.erase();
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
    AdamWOptions opts{lr, beta1, beta2, epsilon, weightDecay};
    if (failed(buildTrainStep(grad, stepName, opts)))
      signalPassFailure();
  }
};
} // namespace
