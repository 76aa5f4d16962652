//===- Inputs.cpp - nova-run inputs, random values and comparison ---------===//

#include "Common.h"
#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include <map>

using namespace mlir;
using namespace mlir::nova;
using ::nova::HostTensor;

/// Follows `v` through ops that move elements without changing them and
/// returns the tightest bound an index use implies, or 0 if none does.
static int64_t boundFromUses(Value v, unsigned depth = 0) {
  if (depth > 16)
    return 0;
  int64_t best = 0;
  auto tighten = [&](int64_t b) {
    if (b > 0 && (best == 0 || b < best))
      best = b;
  };
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto g = dyn_cast<GatherOp>(user); g && use.get() == g.getIndices())
      tighten(g.getTable().getType().getShape()[g.getAxis()]);
    else if (auto s = dyn_cast<ScatterAddOp>(user);
             s && use.get() == s.getIndices())
      tighten(s.getType().getShape()[s.getAxis()]);
    else if (auto c = dyn_cast<CrossEntropyOp>(user);
             c && use.get() == c.getLabels())
      tighten(c.getLogits().getType().getShape().back());
    else if (auto c = dyn_cast<CheckLabelsOp>(user))
      tighten(c.getClasses());
    else if (isa<ReshapeOp, TransposeOp, BroadcastOp, SliceOp, ConcatOp>(user))
      tighten(boundFromUses(user->getResult(0), depth + 1));
    else if (auto call = dyn_cast<func::CallOp>(user)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && !callee.isExternal())
        tighten(boundFromUses(callee.getArgument(use.getOperandNumber()),
                              depth + 1));
    }
  }
  return best;
}

int64_t run::integerBound(func::FuncOp fn, unsigned i, int64_t fallback) {
  int64_t b = boundFromUses(fn.getArgument(i));
  return b > 0 ? b : fallback;
}

FailureOr<std::vector<HostTensor>>
run::buildInputs(func::FuncOp fn, ArrayRef<std::string> files,
                 std::optional<uint64_t> seed, int64_t intBoundFallback) {
  std::map<std::string, HostTensor> named;
  std::string error;
  if (!::nova::run::loadNamed(
          std::vector<std::string>(files.begin(), files.end()), named, error))
    return fn.emitError(error);
  std::mt19937_64 rng(seed.value_or(0));
  std::vector<HostTensor> args;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string name = argumentName(fn, i);
    std::optional<HostTensor> empty = emptyTensorOf(fn.getArgumentTypes()[i]);
    if (!empty)
      return fn.emitError("argument #")
             << i << " has type " << fn.getArgumentTypes()[i]
             << ", which the reference interpreter does not support";
    HostTensor like = std::move(*empty);
    auto it = named.find(name);
    if (it != named.end()) {
      if (it->second.shape != like.shape || it->second.dtype != like.dtype)
        return fn.emitError("input '")
               << name << "' is " << it->second.typeString() << " but @"
               << fn.getSymName() << " expects " << like.typeString();
      args.push_back(std::move(it->second));
      continue;
    }
    if (!seed)
      return fn.emitError("no input named '")
             << name << "' (argument #" << i
             << "); give it in --inputs or use --random-inputs SEED";
    args.push_back(::nova::run::randomTensor(
        like, integerBound(fn, i, intBoundFallback), rng));
  }
  return args;
}

std::vector<std::string> run::resultNames(func::FuncOp fn) {
  std::vector<std::string> names;
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    names.push_back(resultName(fn, i));
  return names;
}

std::vector<std::string> run::argNames(func::FuncOp fn) {
  std::vector<std::string> names;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    names.push_back(argumentName(fn, i));
  return names;
}
