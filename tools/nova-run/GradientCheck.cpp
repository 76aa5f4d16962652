//===- GradientCheck.cpp - nova-autodiff against finite differences -------===//
//
// Differentiates a copy of the module, evaluates the gradients in f64 on
// random inputs and compares each parameter's gradient with central
// differences (f(x + h) - f(x - h)) / 2h of the original loss, also in f64.
// The error is normwise: |analytic - numeric| / max(|analytic|, |numeric|).
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Transforms/Autodiff.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::nova;

bool run::checkGradients(ModuleOp module, func::FuncOp fn, uint64_t seed,
                         double rtol, double step) {
  OwningOpRef<ModuleOp> copy = module.clone();
  auto gradFn = copy->lookupSymbol<func::FuncOp>(fn.getSymName());
  if (failed(differentiateFunction(gradFn)))
    return false;
  auto args = buildInputs(fn, {}, seed, /*intBoundFallback=*/16, SourceNames());
  if (failed(args))
    return false;
  InterpreterOptions f64;
  f64.f64 = true;
  Interpreter original(module, f64), differentiated(*copy, f64);
  auto analytic = differentiated.run(gradFn, *args);
  if (failed(analytic))
    return false;

  auto lossAt = [&](std::vector<::nova::HostTensor> &in) -> double {
    auto r = original.run(fn, in);
    return succeeded(r) ? r->front().f[0] : NAN;
  };
  bool ok = true;
  unsigned k = 1;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    if (!isParameter(fn, i))
      continue;
    const ::nova::HostTensor &a = (*analytic)[k++];
    std::vector<double> &x = (*args)[i].f;
    double diff2 = 0, a2 = 0, n2 = 0;
    for (size_t j = 0; j < x.size(); ++j) {
      double saved = x[j];
      x[j] = saved + step;
      double up = lossAt(*args);
      x[j] = saved - step;
      double down = lossAt(*args);
      x[j] = saved;
      double numeric = (up - down) / (2 * step);
      diff2 += (a.f[j] - numeric) * (a.f[j] - numeric);
      a2 += a.f[j] * a.f[j];
      n2 += numeric * numeric;
    }
    double scale = std::sqrt(std::max(a2, n2));
    double err = scale > 0 ? std::sqrt(diff2) / scale : std::sqrt(diff2);
    bool pass = err < rtol; // NaN fails too
    ok &= pass;
    std::printf("%s @%s d/d %s (%zu elements): relative error %.2e (|grad| "
                "%.3e)\n",
                pass ? "ok  " : "FAIL", fn.getSymName().str().c_str(),
                argumentName(fn, i).c_str(), x.size(), err, std::sqrt(a2));
  }
  return ok;
}
