//===- Anomaly.cpp - nova-run --detect-anomaly on the ref backend ---------===//
//
// The interpreter frees values after their last use, so the op that made a
// NaN is found by running a copy of the function that returns every value
// its ops compute, then taking the first non-finite one in program order:
// its operands were finite (or are arguments, checked before the run).
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "RunSupport.h"

using namespace mlir;
using namespace mlir::nova;
using ::nova::HostTensor;

LogicalResult run::locateNonFinite(ModuleOp module, func::FuncOp fn,
                                   const std::vector<HostTensor> &args,
                                   ArrayRef<HostTensor> results,
                                   const InterpreterOptions &options) {
  auto bad = llvm::find_if(results, [](const HostTensor &t) {
    return ::nova::run::firstNonFinite(t).has_value();
  });
  if (bad == results.end())
    return success();
  OwningOpRef<ModuleOp> copy = module.clone();
  auto probe = copy->lookupSymbol<func::FuncOp>(fn.getSymName());
  Block &body = probe.getBody().front();
  SmallVector<Value> values;
  for (Operation &op : body.without_terminator())
    for (Value v : op.getResults())
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && isa<FloatType>(t.getElementType()))
        values.push_back(v);
  Operation *ret = body.getTerminator();
  ret->setOperands(values);
  probe.setFunctionType(FunctionType::get(probe.getContext(),
                                          probe.getArgumentTypes(),
                                          ValueRange(values).getTypes()));
  // One (empty) attribute dictionary per new result: the names of the
  // original results do not apply to the probe's.
  probe.setAllResultAttrs(SmallVector<DictionaryAttr>(
      values.size(), DictionaryAttr::get(probe.getContext())));
  Interpreter interp(*copy, options);
  auto all = interp.run(probe, args);
  if (failed(all))
    return failure();
  for (auto [v, t] : llvm::zip(values, *all))
    if (std::optional<int64_t> k = ::nova::run::firstNonFinite(t)) {
      Operation *op = v.getDefiningOp();
      return op->emitError("'")
             << op->getName() << "' made the first non-finite value: result #"
             << cast<OpResult>(v).getResultNumber() << " "
             << ::nova::run::describeElement(t, *k) << " (--detect-anomaly)";
    }
  // Non-finite only inside a region or callee that returns it directly.
  return fn.emitError("result #")
         << (bad - results.begin()) << " of @" << fn.getSymName()
         << " is not finite: "
         << ::nova::run::describeElement(*bad,
                                         *::nova::run::firstNonFinite(*bad))
         << " (--detect-anomaly)";
}
