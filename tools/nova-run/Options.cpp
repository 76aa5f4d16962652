//===- Options.cpp - nova-run's command line ------------------------------===//

#include "Options.h"
#include "nova/Support/ParseNumber.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace nova::run {

const char *usage() {
  return R"(usage: nova-run MODEL [options]

Runs one function of a Nova program. MODEL is a .mlir file (the reference
interpreter, --backend=ref) or a .nvx executable (the CUDA runtime,
--backend=cuda). Exit status 0 on success, 1 on any error or mismatch.

  --entry NAME              function or entry to run (default: the only one
                            with a body; train_step with --train)
  --backend ref|cuda        backend (default: cuda for .nvx, ref otherwise)
  --inputs A,B,...          safetensors files holding inputs by name (nova.name,
                            else the SSA name or argN); may be repeated, later
                            files win (default: none)
  --random-inputs SEED      random values for inputs not in --inputs: floats
                            N(0,1), integers below the bound their use implies
                            (default: off, a missing input is an error)
  --random-int-bound N      bound for random integers whose use implies none
                            (default 16)
  --save-inputs FILE        write the inputs used to a safetensors file
                            (default: none)
  -o FILE                   write the outputs to a safetensors file
                            (default: none)
  --print                   print the outputs (default off)
  --print-limit N           elements printed per output (default 64)
  --compare FILE            check the outputs against FILE: |got-want| <= atol
                            + rtol |want|; NaN matches only NaN (default: off)
  --rtol X, --atol Y        tolerances of --compare, >= 0 (default 1e-5, 1e-6)
  --norm-rtol X             --compare float outputs norm-wise instead:
                            ||got-want|| <= X ||want|| (default: off)
  --detect-anomaly          stop with an error at the first NaN or Inf: in an
                            input (naming it and the element) or, on the ref
                            backend, at the op that first produced one
                            (default off: NaN and Inf are values)
  --version                 print nova-run's version
  -h, --help                print this help
ref backend:
  --f64                     keep every float in double (default: round each
                            op's result to its element type)
  --no-poison               nova_mem programs: leave a buffer's bytes as they
                            are when its live range ends (default: fill them
                            with NaN / all-ones, so reading freed bytes shows)
  --check-gradients         check nova-autodiff against central finite
                            differences in f64 on random inputs (default off)
  --grad-rtol X             bound on the normwise relative error (default 1e-6)
  --fd-step H               finite-difference step (default 1e-6)
training (a function made by nova-train-step):
  --train                   run training steps on a byte-level text
                            (default off)
  --text FILE               the text (--tokens FILE is the same: bytes are
                            tokens); required by --train
  --batches FILE            the batches instead of a text: a safetensors
                            file with integer 'tokens' and 'targets' of
                            shape [S x <the step's tokens shape>]; step s
                            takes batch (s - 1) mod S
  --steps N                 steps to run, >= 1 (default 100)
  --lr X                    peak learning rate, fed to the step's 'lr' input,
                            >= 0 (default 1e-3)
  --lr-schedule S           constant, or cosine: from --lr after the warm-up
                            down to 0 one step after the last (default
                            constant)
  --lr-warmup N             linear warm-up from 0 over the first N steps
                            (default 0)
  --params FILE             initial parameters by name; Adam moments start
                            at 0 (default: none)
  --save FILE               write the trained parameters here (default: none)
  --save-state FILE         write the whole state at the end: parameters and
                            Adam moments (default: none)
  --loss-log FILE           write each step's loss, one 'step loss' line
                            with 9 significant digits (default: none)
  --log-every N             print the loss every N steps, >= 1 (default 1)
cuda backend:
  --iterations N            time N runs, >= 1 (median, CUDA events; default:
                            no timing)
  --warmup N                runs before timing (default 3)
  --no-graphs               launch kernel by kernel instead of replaying a
                            CUDA graph (default: graphs)
  --device N                CUDA device ordinal (default 0)
  --profile                 after the run, time each launch (CUDA events,
                            launch by launch, median of --iterations runs,
                            default 20, instead of timing the whole entry)
                            and print each kernel's time, share of the step,
                            bytes and FLOPs against the device's ceilings
                            and the model source lines it fused, slowest
                            first (default off)
  --timing-json FILE        also write --iterations' timing (every run's
                            time, full precision) or --profile's kernels
                            to FILE as one JSON object (default: none)
  --describe                list the executable's entries (tensors, offsets,
                            arena, launches) and kernels after its checks,
                            then stop; needs no GPU (default off)
  --poison                  fill the arena with 0xFF bytes (NaN, -1) before
                            the inputs, so an output element no kernel
                            writes fails --compare (default: zeros)
  --memory-limit BYTES      refuse to run, before allocating anything, when
                            the entry's planned device memory exceeds BYTES
                            (a whole number, optionally with KiB, MiB or
                            GiB; default: no limit). After every run
                            nova-run prints 'peak device memory: measured
                            N bytes, planned M bytes'
  --list-devices            open each CUDA device and list it (name,
                            architecture, memory), then stop; needs no
                            MODEL; exit 1 when there is none (default off)
)";
}

const char *versionLine() { return "nova-run (Nova) " NOVA_VERSION; }

namespace {

/// Sets an option from its text; returns what was expected on a bad value.
using Setter = std::function<std::optional<std::string>(const std::string &)>;

template <typename T> Setter integer(T &target, int64_t min, int64_t max) {
  return
      [&target, min, max](const std::string &v) -> std::optional<std::string> {
        int64_t x = 0;
        if (!parseWhole(v, x) || x < min || x > max)
          return "an integer from " + std::to_string(min) + " to " +
                 std::to_string(max);
        target = T(x);
        return std::nullopt;
      };
}

Setter seedSetter(std::optional<uint64_t> &target) {
  return [&target](const std::string &v) -> std::optional<std::string> {
    uint64_t x = 0;
    if (!parseWhole(v, x))
      return std::string("an integer from 0 to 18446744073709551615");
    target = x;
    return std::nullopt;
  };
}

/// A finite number, >= 0 or (positive) > 0.
Setter real(double &target, bool positive) {
  return
      [&target, positive](const std::string &v) -> std::optional<std::string> {
        char *end = nullptr;
        double x = std::strtod(v.c_str(), &end);
        if (v.empty() || std::isspace((unsigned char)v[0]) || *end ||
            !std::isfinite(x) || x < 0 || (positive && x == 0))
          return std::string(positive ? "a finite number greater than 0"
                                      : "a finite number, 0 or more");
        target = x;
        return std::nullopt;
      };
}

Setter text(std::string &target) {
  return [&target](const std::string &v) -> std::optional<std::string> {
    if (v.empty())
      return std::string("a non-empty value");
    target = v;
    return std::nullopt;
  };
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

ParseOutcome parseArgs(int argc, char **argv, RunOptions &o, std::string &error,
                       std::vector<std::string> &warnings) {
  std::map<std::string, Setter> valued = {
      {"entry", text(o.entry)},
      {"backend", text(o.backend)},
      {"inputs",
       [&](const std::string &v) -> std::optional<std::string> {
         std::stringstream in(v);
         std::string file;
         bool any = false;
         while (std::getline(in, file, ','))
           if (!file.empty()) {
             o.inputs.push_back(file);
             any = true;
           }
         if (!any)
           return std::string("a comma-separated list of files");
         return std::nullopt;
       }},
      {"random-inputs", seedSetter(o.seed)},
      {"random-int-bound", integer(o.intBound, 1, INT64_MAX)},
      {"save-inputs", text(o.saveInputs)},
      {"o", text(o.output)},
      {"print-limit", integer(o.printLimit, 0, UINT32_MAX)},
      {"compare", text(o.compare)},
      {"rtol", real(o.rtol, false)},
      {"atol", real(o.atol, false)},
      {"norm-rtol", real(o.normRtol, false)},
      {"grad-rtol", real(o.gradRtol, true)},
      {"fd-step", real(o.fdStep, true)},
      {"steps", integer(o.steps, 1, INT_MAX)},
      {"lr", real(o.lr, false)},
      {"lr-schedule",
       [&](const std::string &v) -> std::optional<std::string> {
         if (v != "constant" && v != "cosine")
           return std::string("constant or cosine");
         o.lrSchedule = v;
         return std::nullopt;
       }},
      {"lr-warmup", integer(o.lrWarmup, 0, INT_MAX)},
      {"text", text(o.text)},
      {"params", text(o.params)},
      {"save", text(o.save)},
      {"batches", text(o.batches)},
      {"loss-log", text(o.lossLog)},
      {"save-state", text(o.saveState)},
      {"log-every", integer(o.logEvery, 1, INT_MAX)},
      {"iterations", integer(o.iterations, 1, INT_MAX)},
      {"warmup", integer(o.warmup, 0, INT_MAX)},
      {"device", integer(o.device, 0, INT_MAX)},
      {"timing-json", text(o.timingJson)},
      {"memory-limit",
       [&](const std::string &v) -> std::optional<std::string> {
         uint64_t bytes = 0;
         if (!parseByteSize(v, bytes))
           return std::string("a byte count: a whole number, optionally "
                              "followed by KiB, MiB or GiB (e.g. 12GiB)");
         o.memoryLimit = bytes;
         return std::nullopt;
       }},
  };
  bool noGraphs = false;
  std::map<std::string, bool *> flags = {{"print", &o.print},
                                         {"f64", &o.f64},
                                         {"no-poison", &o.noPoison},
                                         {"check-gradients", &o.checkGradients},
                                         {"train", &o.train},
                                         {"no-graphs", &noGraphs},
                                         {"poison", &o.poison},
                                         {"describe", &o.describe},
                                         {"profile", &o.profile},
                                         {"list-devices", &o.listDevices},
                                         {"detect-anomaly", &o.detectAnomaly}};
  auto fail = [&](std::string message) {
    error = std::move(message);
    return ParseOutcome::Error;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (!o.input.empty())
        return fail("more than one model file: '" + o.input + "' and '" + arg +
                    "'");
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
    if (name == "h" || name == "help")
      return ParseOutcome::Help;
    if (name == "version")
      return ParseOutcome::Version;
    if (name == "tokens")
      name = "text";
    if (auto f = flags.find(name); f != flags.end()) {
      if (hasValue)
        return fail("option '--" + name + "' takes no value");
      *f->second = true;
      o.given.insert(name);
      continue;
    }
    auto v = valued.find(name);
    if (v == valued.end())
      return fail("unknown option '" + arg + "' (see --help)");
    if (!hasValue) {
      if (i + 1 >= argc)
        return fail("option '" + arg + "' needs a value");
      value = argv[++i];
    }
    // --inputs accumulates; any other value given twice is a mistake.
    if (name != "inputs" && !o.given.insert(name).second)
      return fail("option '--" + name + "' is given more than once");
    o.given.insert(name);
    if (std::optional<std::string> expected = v->second(value))
      return fail("bad value '" + value + "' for option '--" + name +
                  "': expected " + *expected);
  }
  o.graphs = !noGraphs;
  if (o.listDevices) {
    if (!o.input.empty() || o.given.size() > 1)
      return fail("--list-devices takes no model and no other option");
    o.backend = "cuda";
    return ParseOutcome::Run;
  }
  if (o.input.empty())
    return fail("no model file given (see --help)");
  if (o.backend.empty())
    o.backend = endsWith(o.input, ".nvx") ? "cuda" : "ref";
  if (o.backend != "ref" && o.backend != "cuda")
    return fail("unknown backend '" + o.backend +
                "'; nova-run has 'ref' (the reference interpreter, .mlir) "
                "and 'cuda' (.nvx)");
  if (o.train && o.checkGradients)
    return fail("--train and --check-gradients are two different runs; "
                "choose one");
  if (o.train && o.text.empty() && o.batches.empty())
    return fail("--train needs --text FILE (the training text) or --batches "
                "FILE");
  if (!o.text.empty() && !o.batches.empty())
    return fail("--text and --batches are two sources of batches; choose one");
  // nova-train-step's module also holds @eval; --train means the step.
  if (o.train && o.entry.empty())
    o.entry = "train_step";

  // Options that are valid but do nothing here.
  auto given = [&](const char *n) { return o.given.count(n) != 0; };
  auto ignoredWithout = [&](std::initializer_list<const char *> names,
                            bool active, const char *what) {
    if (active)
      return;
    for (const char *n : names)
      if (given(n))
        warnings.push_back("--" + std::string(n) + " has no effect without " +
                           what);
  };
  ignoredWithout({"steps", "text", "params", "save", "log-every", "lr",
                  "lr-schedule", "lr-warmup", "batches", "loss-log",
                  "save-state"},
                 o.train, "--train");
  ignoredWithout({"grad-rtol", "fd-step"}, o.checkGradients,
                 "--check-gradients");
  ignoredWithout({"rtol", "atol", "norm-rtol"}, !o.compare.empty(),
                 "--compare");
  ignoredWithout({"print-limit"}, o.print, "--print");
  ignoredWithout({"random-int-bound"}, o.seed.has_value(), "--random-inputs");
  ignoredWithout({"warmup", "timing-json"}, o.iterations > 0 || o.profile,
                 "--iterations or --profile");
  if (o.backend == "ref")
    for (const char *n : {"iterations", "warmup", "no-graphs", "device",
                          "poison", "describe", "profile", "timing-json",
                          "memory-limit"})
      if (given(n))
        warnings.push_back("--" + std::string(n) +
                           " applies to the cuda backend; the ref backend "
                           "ignores it");
  if (o.train || o.checkGradients)
    for (const char *n :
         {"inputs", "save-inputs", "o", "print", "compare", "profile"})
      if (given(n))
        warnings.push_back("--" + std::string(n) + " has no effect with " +
                           (o.train ? "--train" : "--check-gradients"));
  return ParseOutcome::Run;
}

} // namespace nova::run
