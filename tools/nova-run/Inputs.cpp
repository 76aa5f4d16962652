//===- Inputs.cpp - nova-run inputs, random values and comparison ---------===//

#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::nova;
using ::nova::HostTensor;

std::string run::argName(func::FuncOp fn, unsigned i) {
  if (auto n = fn.getArgAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "arg" + std::to_string(i);
}

std::string run::resultName(func::FuncOp fn, unsigned i) {
  if (auto n =
          fn.getResultAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "result" + std::to_string(i);
}

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

HostTensor run::randomTensor(const HostTensor &like, int64_t bound,
                             std::mt19937_64 &rng) {
  HostTensor t(like.dtype, like.shape);
  if (t.isFloat()) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (double &v : t.f)
      v = ::nova::roundTo(t.dtype, normal(rng));
  } else {
    std::uniform_int_distribution<int64_t> uniform(
        0, t.dtype == ::nova::DType::I1 ? 1 : bound - 1);
    for (int64_t &v : t.i)
      v = uniform(rng);
  }
  return t;
}

FailureOr<std::vector<HostTensor>>
run::buildInputs(func::FuncOp fn, ArrayRef<std::string> files,
                 std::optional<uint64_t> seed, int64_t intBoundFallback) {
  std::map<std::string, HostTensor> named;
  for (const std::string &file : files) {
    ::nova::NamedTensors tensors;
    std::string error;
    if (!::nova::readSafetensors(file, tensors, error))
      return fn.emitError(error);
    for (auto &[name, t] : tensors)
      named[name] = std::move(t);
  }
  std::mt19937_64 rng(seed.value_or(0));
  std::vector<HostTensor> args;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string name = argName(fn, i);
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
    args.push_back(
        randomTensor(like, integerBound(fn, i, intBoundFallback), rng));
  }
  return args;
}

bool run::compareOutputs(func::FuncOp fn, ArrayRef<HostTensor> results,
                         const std::string &file, double rtol, double atol) {
  ::nova::NamedTensors expected;
  std::string error;
  if (!::nova::readSafetensors(file, expected, error)) {
    llvm::errs() << "error: " << error << "\n";
    return false;
  }
  bool ok = true;
  for (auto [i, got] : llvm::enumerate(results)) {
    std::string name = resultName(fn, i);
    auto it = llvm::find_if(expected, [&](auto &p) { return p.first == name; });
    if (it == expected.end()) {
      llvm::errs() << "error: " << file << " has no tensor '" << name << "'\n";
      ok = false;
      continue;
    }
    const HostTensor &want = it->second;
    if (want.shape != got.shape) {
      llvm::errs() << "error: '" << name << "' is " << got.typeString()
                   << ", expected " << want.typeString() << "\n";
      ok = false;
      continue;
    }
    double maxAbs = 0, maxRel = 0;
    int64_t bad = 0, firstBad = -1;
    for (int64_t k = 0, n = got.numElements(); k < n; ++k) {
      double a = got.get(k), w = want.get(k), d = std::fabs(a - w);
      bool close = d <= atol + rtol * std::fabs(w) ||
                   (std::isnan(a) && std::isnan(w)) || a == w;
      if (!close && firstBad < 0)
        firstBad = k;
      bad += !close;
      if (!std::isnan(d)) {
        maxAbs = std::max(maxAbs, d);
        if (w != 0)
          maxRel = std::max(maxRel, d / std::fabs(w));
      }
    }
    llvm::outs() << (bad ? "MISMATCH " : "match    ") << name << ": max abs err "
                 << llvm::format("%.3e", maxAbs) << ", max rel err "
                 << llvm::format("%.3e", maxRel);
    if (bad)
      llvm::outs() << ", " << bad << " of " << got.numElements()
                   << " elements outside rtol " << rtol << " atol " << atol
                   << " (first at " << firstBad << ": got "
                   << got.get(firstBad) << ", expected " << want.get(firstBad)
                   << ")";
    llvm::outs() << "\n";
    ok &= bad == 0;
  }
  return ok;
}
