//===- Inputs.cpp - nova-run inputs, random values and comparison ---------===//

#include "Common.h"
#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaMem/IR/NovaMem.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::nova;
using ::nova::HostTensor;

/// Calls `visit` on every use of `v`, following it into the ops that read
/// it as a block argument: fusion-group bodies, launched kernels and called
/// functions (to a bounded depth), and through the buffers of a nova_mem
/// program (an argument's buffer, its views, the kernels launched on it).
static void forEachUse(Value v, function_ref<void(OpOperand &)> visit,
                       unsigned depth = 0) {
  if (depth > 16)
    return;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    Value inner;
    if (auto group = dyn_cast<nova_tile::FusionGroupOpInterface>(user)) {
      inner = group.getBodyBlock().getArgument(use.getOperandNumber());
    } else if (auto launch = dyn_cast<nova_tile::LaunchOp>(user)) {
      if (auto kernel =
              SymbolTable::lookupNearestSymbolFrom<nova_tile::KernelOp>(
                  launch, launch.getKernelAttr()))
        inner = kernel.getBody().front().getArgument(use.getOperandNumber());
    } else if (auto input = dyn_cast<nova_mem::InputOp>(user)) {
      inner = input.getBuffer();
    } else if (auto view = dyn_cast<nova_mem::ViewOp>(user)) {
      inner = view.getResult();
    } else if (auto memLaunch = dyn_cast<nova_mem::LaunchOp>(user)) {
      unsigned index = use.getOperandNumber();
      auto kernel = SymbolTable::lookupNearestSymbolFrom<nova_tile::KernelOp>(
          memLaunch, memLaunch.getKernelAttr());
      // Kernels read their inputs; outputs are written, not read.
      if (kernel && index < memLaunch.getInputs().size() &&
          index < kernel.getBody().front().getNumArguments())
        inner = kernel.getBody().front().getArgument(index);
    } else if (auto call = dyn_cast<func::CallOp>(user)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && !callee.isExternal())
        inner = callee.getArgument(use.getOperandNumber());
    }
    if (inner)
      forEachUse(inner, visit, depth + 1);
    else
      visit(use);
  }
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
  forEachUse(v, [&](OpOperand &use) {
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
  });
  return best;
}

/// Random values that respect what an optimizer operand means: AdamW's step
/// counts from 1, its learning rate is small and not negative, and its
/// second moment is not negative, so a training step runs on
/// --random-inputs instead of failing its checks or taking sqrt of < 0.
static void fitOptimizerOperands(Value v, HostTensor &t) {
  forEachUse(v, [&](OpOperand &use) {
    auto adamw = dyn_cast<AdamWOp>(use.getOwner());
    if (!adamw)
      return;
    if (use.get() == adamw.getStep()) {
      for (int64_t &x : t.i)
        x = x < 0 ? 1 : x + 1;
      for (double &x : t.f)
        x = std::floor(std::fabs(x)) + 1;
    } else if (use.get() == adamw.getLr()) {
      for (double &x : t.f)
        x = ::nova::roundTo(t.dtype, std::fabs(x) * 1e-3);
    } else if (use.get() == adamw.getV()) {
      for (double &x : t.f)
        x = std::fabs(x);
    }
  });
}

int64_t run::integerBound(func::FuncOp fn, unsigned i, int64_t fallback) {
  int64_t b = boundFromUses(fn.getArgument(i));
  return b > 0 ? b : fallback;
}

std::vector<std::string> run::inputNames(func::FuncOp fn, unsigned i,
                                         const SourceNames &source) {
  std::string fallback = argumentName(fn, i);
  if (fn.getArgAttr(i, NovaDialect::getNameAttrName()))
    return {fallback};
  auto it = source.find(fn.getArgument(i));
  if (it == source.end() || it->second == fallback)
    return {fallback};
  return {it->second, fallback};
}

LogicalResult run::checkArgumentSizes(func::FuncOp fn) {
  for (BlockArgument arg : fn.getArguments())
    if (std::optional<std::string> unfit = checkTensorSize(arg.getType()))
      return emitError(arg.getLoc(), "argument #")
             << arg.getArgNumber() << " of @" << fn.getSymName() << ": "
             << *unfit;
  return success();
}

LogicalResult run::checkFiniteInputs(func::FuncOp fn, ArrayRef<HostTensor> args,
                                     const SourceNames &source) {
  for (auto [i, t] : llvm::enumerate(args))
    if (std::optional<int64_t> k = ::nova::run::firstNonFinite(t))
      return emitError(fn.getArgument(i).getLoc(), "input '")
             << inputNames(fn, i, source).front() << "' (argument #" << i
             << ") is not finite: " << ::nova::run::describeElement(t, *k)
             << " (--detect-anomaly)";
  return success();
}

FailureOr<std::vector<HostTensor>>
run::buildInputs(func::FuncOp fn, ArrayRef<std::string> files,
                 std::optional<uint64_t> seed, int64_t intBoundFallback,
                 const SourceNames &source) {
  if (failed(checkArgumentSizes(fn)))
    return failure();
  std::map<std::string, HostTensor> named;
  std::string error;
  if (!::nova::run::loadNamed(
          std::vector<std::string>(files.begin(), files.end()), named, error))
    return fn.emitError(error);
  std::map<std::string, unsigned> firstUser; // name -> argument that took it
  std::mt19937_64 rng(seed.value_or(0));
  std::vector<HostTensor> args;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::vector<std::string> names = inputNames(fn, i, source);
    Location argLoc = fn.getArgument(i).getLoc();
    HostTensor like = std::move(*emptyTensorOf(fn.getArgumentTypes()[i]));
    auto it = llvm::find_if(names, [&](auto &n) { return named.count(n); });
    if (it != names.end()) {
      // Two arguments may answer to one name (a nova.name and an SSA name):
      // the first takes the tensor, later ones copy it.
      auto [user, first] = firstUser.emplace(*it, i);
      HostTensor given = first ? std::move(named[*it]) : args[user->second];
      if (given.shape != like.shape || given.dtype != like.dtype)
        return emitError(argLoc, "input '")
               << *it << "' is " << given.typeString() << " but @"
               << fn.getSymName() << " expects " << like.typeString();
      args.push_back(std::move(given));
      continue;
    }
    if (!seed)
      return emitError(argLoc, "no input named '")
             << names.front() << "' (argument #" << i
             << "); give it in --inputs or use --random-inputs SEED";
    args.push_back(::nova::run::randomTensor(
        like, integerBound(fn, i, intBoundFallback), rng));
    fitOptimizerOperands(fn.getArgument(i), args.back());
  }
  std::set<std::string> used;
  for (auto &[name, user] : firstUser)
    used.insert(name);
  ::nova::run::warnUnusedInputs(named, used, "@" + fn.getSymName().str());
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
