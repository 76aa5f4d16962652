//===- Training.cpp - nova-run --train on a byte-level text ---------------===//
//
// Drives a function made by nova-train-step: state arguments (those a result
// aliases) stay in memory between steps and are replaced by their updated
// values; `step` counts from 1; `lr` follows --lr / --lr-schedule; `tokens`
// and `targets` are windows of the text, targets shifted by one byte.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::nova;
using ::nova::HostTensor;

static bool fail(const Twine &message) {
  llvm::errs() << "error: " << message << "\n";
  return false;
}

bool run::train(ModuleOp module, func::FuncOp fn,
                const ::nova::run::RunOptions &opts) {
  unsigned numArgs = fn.getNumArguments();
  // result index -> argument it replaces
  std::map<unsigned, unsigned> aliasOf;
  for (unsigned r = 0, e = fn.getNumResults(); r < e; ++r)
    if (auto a = fn.getResultAttrOfType<IntegerAttr>(
            r, NovaDialect::getAliasAttrName()))
      aliasOf[r] = unsigned(a.getInt());
  if (aliasOf.empty())
    return fail("@" + fn.getSymName() +
                " has no nova.alias results; --train runs functions made by "
                "nova-train-step");
  ::nova::run::TrainingInputs inputs =
      ::nova::run::findTrainingInputs(argNames(fn));
  const int stepArg = inputs.step, lrArg = inputs.lr, tokensArg = inputs.tokens,
            targetsArg = inputs.targets;
  if (!inputs.complete())
    return fail("--train needs arguments named 'step', 'lr', 'tokens' and "
                "'targets' (nova.name)");

  if (failed(checkArgumentSizes(fn)))
    return false;
  std::vector<HostTensor> args(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    std::optional<HostTensor> empty = emptyTensorOf(fn.getArgumentTypes()[i]);
    if (!empty)
      return fail("argument #" + Twine(i) + " of @" + fn.getSymName() +
                  " is not a tensor the reference interpreter supports");
    args[i] = std::move(*empty);
  }
  for (auto [name, arg] : {std::pair<const char *, int>{"step", stepArg},
                           {"lr", lrArg}})
    if (std::string why = ::nova::run::notAScalar(name, args[arg].dtype,
                                                  args[arg].shape);
        !why.empty())
      return fail(why);
  // The loss is the first result; checked on its type, so that a huge one
  // is not allocated just to be refused.
  auto lossType = fn.getNumResults()
                      ? dyn_cast<RankedTensorType>(fn.getResultTypes()[0])
                      : RankedTensorType();
  if (!lossType || !lossType.hasStaticShape() ||
      ::nova::checkedNumElements(lossType.getShape().data(),
                                 lossType.getRank()) != 1) {
    std::string type;
    llvm::raw_string_ostream os(type);
    if (fn.getNumResults())
      os << fn.getResultTypes()[0];
    return fail("'loss' (the first result of @" + fn.getSymName() +
                ") must hold one number" + (type.empty() ? "" : ", got ") +
                type);
  }
  const HostTensor &tok = args[tokensArg];
  if (tok.shape.size() < 2 || tok.isFloat() ||
      args[targetsArg].shape != tok.shape)
    return fail("'tokens' and 'targets' must be integer tensors of one shape "
                "([micro-batches x] batch x sequence)");

  // Initial state: parameters by name from --params, moments at zero.
  std::map<std::string, HostTensor> init;
  std::string error;
  if (!opts.params.empty() &&
      !::nova::run::loadNamed({opts.params}, init, error))
    return fail(error);
  for (auto [r, i] : aliasOf) {
    std::string n = argumentName(fn, i);
    if (::nova::run::isOptimizerMoment(n))
      continue; // zeros
    auto it = init.find(n);
    if (it == init.end())
      return fail("no initial value for parameter '" + n +
                  "' (give --params FILE)");
    if (it->second.shape != args[i].shape || it->second.dtype != args[i].dtype)
      return fail("initial '" + n + "' is " + it->second.typeString() +
                  ", the step expects " + args[i].typeString());
    args[i] = std::move(it->second);
  }

  if (opts.detectAnomaly && failed(checkFiniteInputs(fn, args, SourceNames())))
    return false;

  ::nova::run::TrainingBatches batches;
  if (!batches.open(opts.text, opts.batches, tok.shape, error))
    return fail(error);
  std::mt19937_64 rng(opts.seed.value_or(0));
  InterpreterOptions interpOpts;
  interpOpts.f64 = opts.f64;
  Interpreter interp(module, interpOpts);
  ::nova::run::TrainingLog log(opts.steps, tok.numElements(), opts.logEvery,
                               "reference interpreter");
  if (!opts.lossLog.empty() && !log.logLossesTo(opts.lossLog, error))
    return fail(error);
  for (int s = 1; s <= opts.steps; ++s) {
    batches.next(rng, args[tokensArg], args[targetsArg]);
    double lr = ::nova::run::scheduledLearningRate(
        opts.lr, opts.lrSchedule, opts.lrWarmup, opts.steps, s);
    ::nova::run::setScalar(args[stepArg], s);
    ::nova::run::setScalar(args[lrArg], lr);
    auto begin = std::chrono::steady_clock::now();
    auto results = interp.run(fn, args);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count();
    if (failed(results))
      return false;
    if (opts.detectAnomaly &&
        failed(locateNonFinite(module, fn, args, *results, interpOpts)))
      return fail("at step " + Twine(s) + " (--detect-anomaly)");
    for (auto [r, i] : aliasOf)
      args[i] = std::move((*results)[r]);
    if (!log.step(s, results->front().get(0), lr, seconds))
      return false;
  }
  log.summary();

  // --save: the parameters; --save-state: every input a result aliases
  // (parameters and Adam moments).
  auto save = [&](const std::string &path, bool all) {
    std::vector<std::string> names;
    std::vector<HostTensor> values;
    for (auto [r, i] : aliasOf)
      if (all || isParameter(fn, i)) {
        names.push_back(argumentName(fn, i));
        values.push_back(args[i]);
      }
    if (!::nova::run::writeNamed(path, names, values, error))
      return false;
    std::printf("saved %zu %s to %s\n", values.size(),
                all ? "state tensors" : "parameters", path.c_str());
    return true;
  };
  if ((!opts.save.empty() && !save(opts.save, false)) ||
      (!opts.saveState.empty() && !save(opts.saveState, true)))
    return fail(error);
  return true;
}
