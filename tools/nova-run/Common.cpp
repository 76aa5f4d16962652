//===- Common.cpp - nova-run helpers shared by both backends --------------===//

#include "Common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nova::run {

namespace {
/// `v` for printf: NaN without the sign bit, printed "nan" as PyTorch does.
double printable(double v) { return std::isnan(v) ? NAN : v; }
} // namespace

HostTensor randomTensor(const HostTensor &like, int64_t bound,
                        std::mt19937_64 &rng) {
  HostTensor t(like.dtype, like.shape);
  if (t.isFloat()) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (double &v : t.f)
      v = roundTo(t.dtype, normal(rng));
  } else {
    std::uniform_int_distribution<int64_t> uniform(
        0, t.dtype == DType::I1 ? 1 : std::max<int64_t>(1, bound) - 1);
    for (int64_t &v : t.i)
      v = uniform(rng);
  }
  return t;
}

bool loadNamed(const std::vector<std::string> &files,
               std::map<std::string, HostTensor> &out, std::string &error) {
  std::map<std::string, std::string> fileOf;
  for (const std::string &file : files) {
    NamedTensors tensors;
    if (!readSafetensors(file, tensors, error))
      return false;
    for (auto &[name, t] : tensors) {
      auto [it, fresh] = fileOf.emplace(name, file);
      if (!fresh) {
        std::fprintf(stderr,
                     "nova-run: warning: tensor '%s' is in both %s and %s; "
                     "using the one in %s\n",
                     name.c_str(), it->second.c_str(), file.c_str(),
                     file.c_str());
        it->second = file;
      }
      out[name] = std::move(t);
    }
  }
  return true;
}

void warnUnusedInputs(const std::map<std::string, HostTensor> &named,
                      const std::set<std::string> &used,
                      const std::string &entry) {
  for (const auto &[name, t] : named)
    if (!used.count(name))
      std::fprintf(stderr,
                   "nova-run: warning: --inputs holds '%s', which no input "
                   "of %s takes; it is ignored\n",
                   name.c_str(), entry.c_str());
}

std::optional<int64_t> firstNonFinite(const HostTensor &t) {
  if (!t.isFloat())
    return std::nullopt;
  for (size_t k = 0; k < t.f.size(); ++k)
    if (!std::isfinite(t.f[k]))
      return int64_t(k);
  return std::nullopt;
}

std::string describeElement(const HostTensor &t, int64_t k) {
  std::string s = "element " + std::to_string(k) + " (index [";
  std::vector<int64_t> strides = stridesOf(t.shape);
  for (size_t d = 0; d < t.shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(k / strides[d] % t.shape[d]);
  char value[32];
  std::snprintf(value, sizeof value, "%g", printable(t.get(k)));
  return s + "]) is " + value;
}

bool writeNamed(const std::string &path, const std::vector<std::string> &names,
                const std::vector<HostTensor> &tensors, std::string &error) {
  NamedTensors named;
  for (size_t i = 0; i < tensors.size(); ++i)
    named.push_back({names[i], tensors[i]});
  return writeSafetensors(path, named, error);
}

namespace {
/// max(m, x) where a NaN, once seen, stays: the error is then unknown.
void raiseMax(double &m, double x) {
  if (std::isnan(x) || std::isnan(m))
    m = NAN;
  else
    m = std::max(m, x);
}
} // namespace

bool compareNamed(const std::vector<std::string> &names,
                  const std::vector<HostTensor> &results,
                  const std::string &file, double rtol, double atol,
                  double normRtol) {
  NamedTensors expected;
  std::string error;
  if (!readSafetensors(file, expected, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return false;
  }
  bool ok = true;
  for (size_t r = 0; r < results.size(); ++r) {
    const std::string &name = names[r];
    const HostTensor &got = results[r];
    auto it = std::find_if(expected.begin(), expected.end(),
                           [&](auto &p) { return p.first == name; });
    if (it == expected.end()) {
      std::fprintf(stderr, "error: %s has no tensor '%s'\n", file.c_str(),
                   name.c_str());
      ok = false;
      continue;
    }
    const HostTensor &want = it->second;
    if (want.shape != got.shape) {
      std::fprintf(stderr, "error: '%s' is %s, expected %s\n", name.c_str(),
                   got.typeString().c_str(), want.typeString().c_str());
      ok = false;
      continue;
    }
    double maxAbs = 0, maxRel = 0, diff2 = 0, want2 = 0;
    int64_t bad = 0, firstBad = -1, bothNaN = 0;
    // Integers are compared exactly as integers: through double, values
    // near 2^63 that differ would compare equal.
    bool integers = !got.isFloat() && !want.isFloat();
    for (int64_t k = 0, n = got.numElements(); k < n; ++k) {
      double a = got.get(k), w = want.get(k), d;
      bool close;
      if (integers) {
        uint64_t gi = uint64_t(got.i[k]), wi = uint64_t(want.i[k]);
        d = got.i[k] >= want.i[k] ? double(gi - wi) : double(wi - gi);
        close = gi == wi || d <= atol + rtol * std::fabs(w);
      } else if (std::isnan(a) && std::isnan(w)) {
        ++bothNaN;
        continue;
      } else if (std::isinf(a) || std::isinf(w)) {
        // Only the same infinity matches: no tolerance reaches infinity,
        // and rtol * inf must not let a finite value match one.
        d = a == w ? 0.0 : INFINITY;
        close = a == w;
      } else {
        // A NaN on one side makes d NaN: a mismatch.
        d = std::fabs(a - w);
        close = d <= atol + rtol * std::fabs(w);
      }
      diff2 += d * d;
      want2 += w * w;
      if (!close && firstBad < 0)
        firstBad = k;
      bad += !close;
      raiseMax(maxAbs, d);
      if (w != 0)
        raiseMax(maxRel, d / std::fabs(w));
    }
    // Norm-wise: ||got - want|| / ||want|| bounds the whole tensor (a
    // product's rounding errors), instead of every element.
    double normErr = want2 > 0 ? std::sqrt(diff2 / want2)
                               : (diff2 > 0 ? INFINITY : 0.0);
    if (normRtol >= 0 && !integers)
      bad = normErr <= normRtol ? 0 : std::max<int64_t>(bad, 1);
    std::printf("%s %s: max abs err %.3e, max rel err %.3e",
                bad ? "MISMATCH" : "match   ", name.c_str(), maxAbs, maxRel);
    if (normRtol >= 0 && !integers)
      std::printf(", norm-wise rel err %.3e (bound %g)", normErr, normRtol);
    if (bothNaN)
      std::printf(", %lld elements NaN in both (equal)", (long long)bothNaN);
    if (bad && integers)
      std::printf(", %lld of %lld elements outside rtol %g atol %g (first at "
                  "%lld: got %lld, expected %lld)",
                  (long long)bad, (long long)got.numElements(), rtol, atol,
                  (long long)firstBad, (long long)got.i[firstBad],
                  (long long)want.i[firstBad]);
    else if (bad && normRtol < 0)
      std::printf(", %lld of %lld elements outside rtol %g atol %g (first at "
                  "%lld: got %g, expected %g)",
                  (long long)bad, (long long)got.numElements(), rtol, atol,
                  (long long)firstBad, printable(got.get(firstBad)),
                  printable(want.get(firstBad)));
    std::printf("\n");
    ok &= bad == 0;
  }
  std::fflush(stdout);
  return ok;
}

void printTensor(const std::string &name, const HostTensor &t, unsigned limit) {
  std::printf("%s = tensor<%s> [", name.c_str(), t.typeString().c_str());
  int64_t n = t.numElements();
  for (int64_t k = 0; k < n && k < int64_t(limit); ++k) {
    if (k)
      std::printf(", ");
    if (t.isFloat())
      std::printf("%g", printable(t.f[k]));
    else
      std::printf("%lld", (long long)t.i[k]);
  }
  if (n > int64_t(limit))
    std::printf(", ... (%lld elements)", (long long)n);
  std::printf("]\n");
}

TrainingInputs findTrainingInputs(const std::vector<std::string> &names) {
  TrainingInputs in;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "step")
      in.step = int(i);
    else if (names[i] == "lr")
      in.lr = int(i);
    else if (names[i] == "tokens")
      in.tokens = int(i);
    else if (names[i] == "targets")
      in.targets = int(i);
  }
  return in;
}

double scheduledLearningRate(double peak, const std::string &schedule,
                             int warmup, int steps, int step) {
  if (step <= warmup)
    return peak * step / warmup;
  if (schedule != "cosine")
    return peak;
  double progress = double(step - warmup - 1) / double(steps - warmup);
  return peak * 0.5 * (1.0 + std::cos(M_PI * progress));
}

std::string notAScalar(const std::string &name, DType dtype,
                       const std::vector<int64_t> &shape) {
  if (checkedNumElements(shape) == 1)
    return "";
  return "'" + name + "' must hold one number, got tensor<" +
         typeString(dtype, shape) + ">";
}

void setScalar(HostTensor &t, double value) {
  if (t.isFloat())
    t.f[0] = value;
  else
    t.i[0] = int64_t(value);
}

bool isOptimizerMoment(const std::string &name) {
  auto endsWith = [&](const std::string &suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  return endsWith(".adam_m") || endsWith(".adam_v");
}

bool TrainingBatches::open(const std::string &path,
                           const std::string &batchFile,
                           const std::vector<int64_t> &shape,
                           std::string &error) {
  if (!batchFile.empty()) {
    std::map<std::string, HostTensor> named;
    if (!loadNamed({batchFile}, named, error)) {
      error = "--batches: " + error;
      return false;
    }
    for (auto [name, into] :
         {std::pair<const char *, HostTensor *>{"tokens", &fileTokens},
          {"targets", &fileTargets}}) {
      auto it = named.find(name);
      if (it == named.end()) {
        error = "--batches: " + batchFile + " has no tensor '" + name + "'";
        return false;
      }
      const HostTensor &t = it->second;
      bool fits = !t.isFloat() && t.shape.size() == shape.size() + 1 &&
                  std::equal(shape.begin(), shape.end(), t.shape.begin() + 1) &&
                  t.shape.front() > 0;
      if (!fits) {
        std::string want = "S";
        for (int64_t d : shape)
          want += "x" + std::to_string(d);
        error = "--batches: '" + std::string(name) + "' is " + t.typeString() +
                ", the step needs integers of shape " + want;
        return false;
      }
      *into = t;
    }
    batchCount = fileTokens.shape.front();
    return true;
  }
  int64_t seq = shape.back();
  if (!readFileBytes(path, bytes, error)) {
    error = "--text: " + error;
    return false;
  }
  if (int64_t(bytes.size()) < seq + 2) {
    error = "--text has " + std::to_string(bytes.size()) +
            " bytes, fewer than one sequence of " + std::to_string(seq + 1);
    return false;
  }
  return true;
}

void TrainingBatches::next(std::mt19937_64 &rng, HostTensor &tokens,
                           HostTensor &targets) {
  if (batchCount > 0) {
    int64_t n = tokens.numElements(), at = (taken++ % batchCount) * n;
    std::copy_n(fileTokens.i.begin() + at, n, tokens.i.begin());
    std::copy_n(fileTargets.i.begin() + at, n, targets.i.begin());
    return;
  }
  // Every leading dim (micro-batches, batch) holds independent windows.
  int64_t seq = tokens.shape.back(),
          batch = seq ? tokens.numElements() / seq : 0;
  std::uniform_int_distribution<int64_t> start(0,
                                               int64_t(bytes.size()) - seq - 1);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t at = start(rng);
    for (int64_t t = 0; t < seq; ++t) {
      tokens.i[b * seq + t] = (unsigned char)bytes[at + t];
      targets.i[b * seq + t] = (unsigned char)bytes[at + t + 1];
    }
  }
}

bool TrainingLog::logLossesTo(const std::string &path, std::string &error) {
  lossFile.reset(std::fopen(path.c_str(), "w"));
  if (!lossFile)
    error = "--loss-log: cannot write '" + path + "'";
  return bool(lossFile);
}

bool TrainingLog::step(int s, double loss, double lr, double stepSeconds) {
  losses.push_back(loss);
  if (lossFile) {
    std::fprintf(lossFile.get(), "%d %.9g\n", s, loss);
    std::fflush(lossFile.get());
  }
  seconds += stepSeconds;
  if (s % every == 0 || s == 1 || s == steps)
    std::printf("step %4d/%d  loss %.4f  lr %.3g  %8.0f tok/s\n", s, steps,
                loss, lr, double(tokensPerStep) / stepSeconds);
  std::fflush(stdout);
  if (!std::isfinite(loss)) {
    std::fprintf(stderr, "error: loss became %g at step %d\n", loss, s);
    return false;
  }
  return true;
}

void TrainingLog::summary() const {
  if (losses.empty())
    return;
  // The last step's loss is one batch; the mean of the last ten is steadier.
  size_t tail = std::min<size_t>(10, losses.size());
  double tailMean = 0;
  for (size_t k = losses.size() - tail; k < losses.size(); ++k)
    tailMean += losses[k] / double(tail);
  std::printf("trained %zu steps of %lld tokens: loss %.4f -> %.4f (mean of "
              "the last %zu steps %.4f), %.0f tok/s (%s, %.1f s)\n",
              losses.size(), (long long)tokensPerStep, losses.front(),
              losses.back(), tail, tailMean,
              double(tokensPerStep) * double(losses.size()) / seconds,
              backend.c_str(), seconds);
  std::fflush(stdout);
}

} // namespace nova::run
