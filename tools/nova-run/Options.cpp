//===- Options.cpp - nova-run's command line ------------------------------===//

#include "Options.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace nova::run {

const char *usage() {
  return R"(usage: nova-run MODEL [options]

MODEL is a .mlir file (the reference interpreter, --backend=ref) or a .nvx
executable (the CUDA runtime, --backend=cuda).

  --entry NAME              function or entry to run (default: the only one)
  --backend ref|cuda        override the backend chosen from the file name
  --inputs A,B,...          safetensors files holding inputs by name
  --random-inputs SEED      random values for inputs not given in --inputs
  --random-int-bound N      bound for random integers whose use implies none (16)
  --save-inputs FILE        write the inputs used to a safetensors file
  -o FILE                   write outputs to a safetensors file
  --print [--print-limit N] print outputs (first N elements, 64)
  --compare FILE            check outputs against FILE: |got-want| <= atol + rtol |want|
  --rtol X --atol Y         tolerances of --compare (1e-5, 1e-6)
ref backend:
  --f64                     keep every float in double
  --check-gradients         nova-autodiff against finite differences in f64
  --grad-rtol X --fd-step H bound and step of the check (1e-6, 1e-6)
training (a train_step function or entry, nova-train-step):
  --train --steps N --text FILE [--params FILE] [--save FILE] [--log-every N]
                            (--tokens FILE is the same as --text FILE: bytes are tokens)
cuda backend:
  --iterations N [--warmup N]  time N runs after N warm-up runs (median, CUDA events)
  --no-graphs               launch kernel by kernel instead of replaying a CUDA graph
  --device N                CUDA device ordinal (0)
)";
}

bool parseArgs(int argc, char **argv, RunOptions &o, std::string &error) {
  auto toInt = [](const std::string &v, auto &out) {
    char *end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end)
      return false;
    out = decltype(+out)(x);
    return true;
  };
  auto toDouble = [](const std::string &v, double &out) {
    char *end = nullptr;
    out = std::strtod(v.c_str(), &end);
    return !v.empty() && !*end;
  };
  using Setter = std::function<bool(const std::string &)>;
  uint64_t seed = 0;
  std::map<std::string, Setter> valued = {
      {"entry",
       [&](auto &v) {
         o.entry = v;
         return true;
       }},
      {"backend",
       [&](auto &v) {
         o.backend = v;
         return true;
       }},
      {"inputs",
       [&](auto &v) {
         std::stringstream in(v);
         std::string f;
         while (std::getline(in, f, ','))
           if (!f.empty())
             o.inputs.push_back(f);
         return true;
       }},
      {"random-inputs",
       [&](auto &v) { return toInt(v, seed) && (o.seed = seed, true); }},
      {"random-int-bound", [&](auto &v) { return toInt(v, o.intBound); }},
      {"save-inputs",
       [&](auto &v) {
         o.saveInputs = v;
         return true;
       }},
      {"o",
       [&](auto &v) {
         o.output = v;
         return true;
       }},
      {"print-limit", [&](auto &v) { return toInt(v, o.printLimit); }},
      {"compare",
       [&](auto &v) {
         o.compare = v;
         return true;
       }},
      {"rtol", [&](auto &v) { return toDouble(v, o.rtol); }},
      {"atol", [&](auto &v) { return toDouble(v, o.atol); }},
      {"grad-rtol", [&](auto &v) { return toDouble(v, o.gradRtol); }},
      {"fd-step", [&](auto &v) { return toDouble(v, o.fdStep); }},
      {"steps", [&](auto &v) { return toInt(v, o.steps); }},
      {"text",
       [&](auto &v) {
         o.text = v;
         return true;
       }},
      {"tokens",
       [&](auto &v) {
         o.text = v;
         return true;
       }},
      {"params",
       [&](auto &v) {
         o.params = v;
         return true;
       }},
      {"save",
       [&](auto &v) {
         o.save = v;
         return true;
       }},
      {"log-every", [&](auto &v) { return toInt(v, o.logEvery); }},
      {"iterations", [&](auto &v) { return toInt(v, o.iterations); }},
      {"warmup", [&](auto &v) { return toInt(v, o.warmup); }},
      {"device", [&](auto &v) { return toInt(v, o.device); }},
  };
  std::map<std::string, bool *> flags = {{"print", &o.print},
                                         {"f64", &o.f64},
                                         {"check-gradients", &o.checkGradients},
                                         {"train", &o.train}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      error = "";
      return false;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (!o.input.empty()) {
        error = "more than one model file: '" + o.input + "' and '" + arg + "'";
        return false;
      }
      o.input = arg;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1), value;
    bool hasValue = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    if (name == "no-graphs") {
      o.graphs = false;
      continue;
    }
    if (auto f = flags.find(name); f != flags.end()) {
      *f->second = true;
      continue;
    }
    auto v = valued.find(name);
    if (v == valued.end()) {
      error = "unknown option '" + arg + "'";
      return false;
    }
    if (!hasValue) {
      if (i + 1 >= argc) {
        error = "option '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (!v->second(value)) {
      error = "bad value '" + value + "' for option '--" + name + "'";
      return false;
    }
  }
  if (o.input.empty()) {
    error = "no model file given";
    return false;
  }
  if (o.backend.empty()) {
    size_t n = o.input.size();
    o.backend =
        n > 4 && o.input.compare(n - 4, 4, ".nvx") == 0 ? "cuda" : "ref";
  }
  return true;
}

} // namespace nova::run
