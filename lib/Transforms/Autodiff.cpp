//===- Autodiff.cpp - reverse-mode differentiation of whole functions -----===//
//
// Activity analysis first (values that depend on a parameter and that the
// loss depends on), then one backward sweep over the body asking each
// active op's DifferentiableOpInterface for its operands' gradients, summing
// contributions of values used more than once.
//
//===----------------------------------------------------------------------===//

#include "nova/Transforms/Autodiff.h"
#include "ModuleLocation.h"
#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Passes.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAAUTODIFF
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

static bool isFloatTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && isa<FloatType>(t.getElementType());
}

/// Integers (indices, labels, masks, counters) carry no gradient.
static bool isIntegral(Type type) {
  return getElementTypeOrSelf(type).isIntOrIndex();
}

static SmallVector<unsigned> paramIndices(func::FuncOp fn) {
  SmallVector<unsigned> params;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (isParameter(fn, i))
      params.push_back(i);
  return params;
}

LogicalResult mlir::nova::differentiateFunction(func::FuncOp fn) {
  SmallVector<unsigned> params = paramIndices(fn);
  if (params.empty())
    return fn.emitError("@")
           << fn.getSymName() << " has no argument marked {nova.param}";
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("nova-autodiff differentiates single-block functions");
  Block &body = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() != 1 || !isFloatTensor(ret.getOperand(0)) ||
      cast<RankedTensorType>(ret.getOperand(0).getType()).getRank() != 0)
    return fn.emitError("nova-autodiff needs a function returning one "
                        "floating-point scalar (the loss), @")
           << fn.getSymName() << " returns " << fn.getResultTypes();
  Value loss = ret.getOperand(0);

  // Activity: varied (depends on a parameter) and useful (the loss depends
  // on it). An op depends on the values it reads through its regions too
  // (scf.if, tensor.generate), not only on its operands. Integers carry no
  // gradient, so they end a path; any other value on one needs a rule,
  // though only float tensors get gradients.
  DenseSet<Value> varied, useful;
  auto readValues = [](Operation &op) {
    SetVector<Value> read(llvm::from_range, op.getOperands());
    getUsedValuesDefinedAbove(op.getRegions(), read);
    return read;
  };
  for (unsigned i : params)
    varied.insert(body.getArgument(i));
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(readValues(op), [&](Value v) { return varied.count(v); }))
      for (Value r : op.getResults())
        if (!isIntegral(r.getType()))
          varied.insert(r);
  useful.insert(loss);
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (llvm::any_of(op.getResults(), [&](Value v) { return useful.count(v); }))
      for (Value v : readValues(op))
        useful.insert(v);
  auto active = [&](Value v) {
    return varied.count(v) && useful.count(v) && isFloatTensor(v);
  };
  // Reported at the first such op from the parameters, where the gradient
  // would stop, before any gradient IR is built.
  for (Operation &op : body.without_terminator()) {
    bool onPath = llvm::any_of(op.getResults(), [&](Value r) {
      return varied.count(r) && useful.count(r);
    });
    if (onPath && !isa<DifferentiableOpInterface>(op))
      return op.emitOpError("has no differentiation rule, but the gradient "
                            "of a parameter flows through it");
  }

  OpBuilder b(ret);
  DenseMap<Value, Value> grads;
  grads[loss] = NovaBuilder(b, loss.getLoc()).scalar(loss.getType(), 1.0);
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      resultGrads.push_back(active(r) ? grads.lookup(r) : Value());
      any |= bool(resultGrads.back());
    }
    if (!any)
      continue;
    auto rule = cast<DifferentiableOpInterface>(op);
    SmallVector<Value> operandGrads(op->getNumOperands());
    if (failed(rule.buildGradients(b, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads)) {
      if (!g || !active(operand))
        continue;
      if (g.getType() != operand.getType())
        return op->emitOpError("differentiation rule produced a gradient of "
                               "type ")
               << g.getType() << " for an operand of type "
               << operand.getType();
      Value &slot = grads[operand];
      slot = slot ? NovaBuilder(b, op->getLoc()).add(slot, g) : g;
    }
  }

  // New results: the loss, then one gradient per parameter.
  SmallVector<Value> results{loss};
  SmallVector<Type> types{loss.getType()};
  for (unsigned i : params) {
    Value arg = body.getArgument(i);
    Value g = grads.lookup(arg);
    if (!g)
      g = NovaBuilder(b, fn.getLoc())
              .splat(cast<RankedTensorType>(arg.getType()), 0.0);
    results.push_back(g);
    types.push_back(arg.getType());
  }
  SmallVector<DictionaryAttr> oldResultAttrs;
  fn.getAllResultAttrs(oldResultAttrs);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  fn.setFunctionType(
      FunctionType::get(fn.getContext(), fn.getArgumentTypes(), types));
  MLIRContext *ctx = fn.getContext();
  SmallVector<Attribute> resultAttrs;
  resultAttrs.push_back(oldResultAttrs.empty() ? DictionaryAttr::get(ctx)
                                               : oldResultAttrs.front());
  for (unsigned i : params) {
    NamedAttrList attrs;
    attrs.append(NovaDialect::getGradOfAttrName(),
                 b.getI64IntegerAttr(int64_t(i)));
    if (auto name =
            fn.getArgAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
      attrs.append(NovaDialect::getNameAttrName(),
                   b.getStringAttr(name.getValue() + ".grad"));
    resultAttrs.push_back(attrs.getDictionary(ctx));
  }
  fn.setAllResultAttrs(resultAttrs);

  // Erase what nothing uses any more (forward values only the loss needed
  // are still used; unused gradient pieces and dead forward ops go).
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  return success();
}

namespace {
struct NovaAutodiffPass : mlir::nova::impl::NovaAutodiffBase<NovaAutodiffPass> {
  using NovaAutodiffBase::NovaAutodiffBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> targets;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!functionName.empty() ? fn.getSymName() == functionName
                                : !paramIndices(fn).empty())
        targets.push_back(fn);
    }
    if (!functionName.empty() && targets.empty()) {
      emitError(moduleLocation(getOperation()), "nova-autodiff: no function @")
          << functionName;
      return signalPassFailure();
    }
    // Running the pass on a module with nothing to differentiate is a
    // mistake (unmarked parameters), not a no-op: nova-train-step would fail
    // later with less to go on.
    if (targets.empty()) {
      emitError(moduleLocation(getOperation()),
                "nova-autodiff: no function has an argument marked "
                "{nova.param}; mark the trainable parameters, or name the "
                "function to differentiate with function=");
      return signalPassFailure();
    }
    for (func::FuncOp fn : targets)
      if (failed(differentiateFunction(fn)))
        return signalPassFailure();
  }
};
} // namespace
