//===- Training.cpp - nova-run --train on a byte-level text ---------------===//
//
// Drives a function made by nova-train-step: state arguments (those a result
// aliases) stay in memory between steps and are replaced by their updated
// values; `step` counts from 1; `tokens` and `targets` are windows of the
// text, targets shifted by one byte.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
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

bool run::train(ModuleOp module, func::FuncOp fn, const TrainOptions &opts) {
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
  int stepArg = -1, tokensArg = -1, targetsArg = -1;
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string n = argName(fn, i);
    if (n == "step")
      stepArg = int(i);
    else if (n == "tokens")
      tokensArg = int(i);
    else if (n == "targets")
      targetsArg = int(i);
  }
  if (stepArg < 0 || tokensArg < 0 || targetsArg < 0)
    return fail("--train needs arguments named 'step', 'tokens' and "
                "'targets' (nova.name)");

  std::vector<HostTensor> args(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    std::optional<HostTensor> empty = emptyTensorOf(fn.getArgumentTypes()[i]);
    if (!empty)
      return fail("argument #" + Twine(i) + " of @" + fn.getSymName() +
                  " is not a tensor the reference interpreter supports");
    args[i] = std::move(*empty);
  }
  const HostTensor &tok = args[tokensArg];
  if (tok.shape.size() != 2 || tok.isFloat() ||
      args[targetsArg].shape != tok.shape)
    return fail("'tokens' and 'targets' must be integer tensors of one shape "
                "(batch x sequence)");
  int64_t batch = tok.shape[0], seq = tok.shape[1];

  // Initial state: parameters by name from --params, moments at zero.
  ::nova::NamedTensors init;
  std::string error;
  if (!opts.paramsFile.empty() &&
      !::nova::readSafetensors(opts.paramsFile, init, error))
    return fail(error);
  std::map<std::string, HostTensor *> byName;
  for (auto &[n, t] : init)
    byName[n] = &t;
  for (auto [r, i] : aliasOf) {
    std::string n = argName(fn, i);
    StringRef ref(n);
    if (ref.ends_with(".adam_m") || ref.ends_with(".adam_v"))
      continue; // zeros
    auto it = byName.find(n);
    if (it == byName.end())
      return fail("no initial value for parameter '" + n +
                  "' (give --params FILE)");
    if (it->second->shape != args[i].shape ||
        it->second->dtype != args[i].dtype)
      return fail("initial '" + n + "' is " + it->second->typeString() +
                  ", the step expects " + args[i].typeString());
    args[i] = std::move(*it->second);
  }

  auto text = llvm::MemoryBuffer::getFile(opts.textFile);
  if (!text)
    return fail("cannot read --text '" + opts.textFile + "'");
  StringRef bytes = (*text)->getBuffer();
  if (int64_t(bytes.size()) < seq + 2)
    return fail("--text has " + Twine(bytes.size()) +
                " bytes, fewer than one sequence of " + Twine(seq + 1));

  std::mt19937_64 rng(opts.seed);
  std::uniform_int_distribution<int64_t> start(0, int64_t(bytes.size()) - seq - 1);
  Interpreter interp(module);
  double firstLoss = NAN, lastLoss = NAN, totalSeconds = 0;
  std::vector<double> losses;
  for (int s = 1; s <= opts.steps; ++s) {
    HostTensor &tokens = args[tokensArg], &targets = args[targetsArg];
    for (int64_t b = 0; b < batch; ++b) {
      int64_t at = start(rng);
      for (int64_t t = 0; t < seq; ++t) {
        tokens.i[b * seq + t] = (unsigned char)bytes[at + t];
        targets.i[b * seq + t] = (unsigned char)bytes[at + t + 1];
      }
    }
    HostTensor &stepT = args[stepArg];
    if (stepT.isFloat())
      stepT.f[0] = s;
    else
      stepT.i[0] = s;

    auto begin = std::chrono::steady_clock::now();
    auto results = interp.run(fn, args);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - begin)
                         .count();
    if (failed(results))
      return false;
    totalSeconds += seconds;
    double loss = results->front().get(0);
    if (s == 1)
      firstLoss = loss;
    lastLoss = loss;
    losses.push_back(loss);
    for (auto [r, i] : aliasOf)
      args[i] = std::move((*results)[r]);
    if (s % opts.logEvery == 0 || s == 1 || s == opts.steps)
      llvm::outs() << llvm::format("step %4d/%d  loss %.4f  %8.0f tok/s\n", s,
                                   opts.steps, loss,
                                   double(batch * seq) / seconds);
    llvm::outs().flush();
    if (!std::isfinite(loss))
      return fail("loss became " + Twine(std::to_string(loss)) + " at step " + Twine(s));
  }
  // The last step's loss is one batch; the mean of the last ten is steadier.
  size_t tail = std::min<size_t>(10, losses.size());
  double tailMean = 0;
  for (size_t k = losses.size() - tail; k < losses.size(); ++k)
    tailMean += losses[k] / double(tail);
  llvm::outs() << llvm::format(
      "trained %d steps of %lld x %lld tokens: loss %.4f -> %.4f (mean of "
      "the last %zu steps %.4f), %.0f tok/s (reference interpreter, %.1f s)\n",
      opts.steps, (long long)batch, (long long)seq, firstLoss, lastLoss, tail,
      tailMean, double(batch * seq) * opts.steps / totalSeconds, totalSeconds);

  if (!opts.saveFile.empty()) {
    ::nova::NamedTensors out;
    for (unsigned i = 0; i < numArgs; ++i)
      if (fn.getArgAttr(i, NovaDialect::getParamAttrName()))
        out.push_back({argName(fn, i), args[i]});
    if (!::nova::writeSafetensors(opts.saveFile, out, error))
      return fail(error);
    llvm::outs() << "saved " << out.size() << " parameters to "
                 << opts.saveFile << "\n";
  }
  return true;
}
