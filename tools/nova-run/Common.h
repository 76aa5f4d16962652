//===- Common.h - nova-run helpers shared by both backends ------*- C++ -*-===//
//
// MLIR-free: the cuda backend builds without the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TOOLS_NOVA_RUN_COMMON_H
#define NOVA_TOOLS_NOVA_RUN_COMMON_H

#include "nova/Support/Safetensors.h"

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace nova::run {

/// Fresh random values: floats N(0, 1) rounded to the dtype, integers
/// uniform in [0, bound), booleans 0 or 1.
HostTensor randomTensor(const HostTensor &like, int64_t bound,
                        std::mt19937_64 &rng);

/// All tensors of the given safetensors files by name. A name in several
/// files (or a file given twice) is a warning; the later file wins.
bool loadNamed(const std::vector<std::string> &files,
               std::map<std::string, HostTensor> &out, std::string &error);

/// Warns about tensors of --inputs that no input of `entry` takes (a
/// misspelled name would otherwise silently get a random value).
void warnUnusedInputs(const std::map<std::string, HostTensor> &named,
                      const std::set<std::string> &used,
                      const std::string &entry);

/// The position of the first NaN or infinity in `t`, if any.
std::optional<int64_t> firstNonFinite(const HostTensor &t);
/// "element 5 (index [1, 2]) is nan" for --detect-anomaly messages.
std::string describeElement(const HostTensor &t, int64_t k);

bool writeNamed(const std::string &path, const std::vector<std::string> &names,
                const std::vector<HostTensor> &tensors, std::string &error);

/// One line per result against the same names in `file`; true when every
/// element satisfies |got - want| <= atol + rtol |want|. A NaN matches only
/// a NaN at the same position (counted and reported); a NaN on one side is
/// a mismatch and makes the reported max abs error NaN. With `normRtol` >= 0
/// a float result matches when ||got - want||_2 <= normRtol ||want||_2.
bool compareNamed(const std::vector<std::string> &names,
                  const std::vector<HostTensor> &results,
                  const std::string &file, double rtol, double atol,
                  double normRtol = -1);

void printTensor(const std::string &name, const HostTensor &t, unsigned limit);

/// Where a training step (nova-train-step's naming) takes its per-step
/// inputs: the positions of `step`, `lr`, `tokens` and `targets` among
/// `names`, -1 where absent.
struct TrainingInputs {
  int step = -1, lr = -1, tokens = -1, targets = -1;
  bool complete() const {
    return step >= 0 && lr >= 0 && tokens >= 0 && targets >= 0;
  }
};
TrainingInputs findTrainingInputs(const std::vector<std::string> &names);
/// --train writes `step` and `lr` and reads `loss` as single numbers: the
/// reason `t` (named `name`) cannot be one, or "" when it can.
std::string notAScalar(const std::string &name, DType dtype,
                       const std::vector<int64_t> &shape);

/// The learning rate of step `step` (from 1) of `steps`: a linear warm-up
/// from 0 over `warmup` steps, then `peak` ("constant") or a cosine from
/// `peak` to 0 one step after the last ("cosine").
double scheduledLearningRate(double peak, const std::string &schedule,
                             int warmup, int steps, int step);

/// Writes `value` into the scalar `t` of whatever element type it has.
void setScalar(HostTensor &t, double value);

/// Whether state named `name` is an Adam moment (`<param>.adam_m` or
/// `.adam_v`), which starts at zero instead of coming from --params.
bool isOptimizerMoment(const std::string &name);

/// Where --train's batches come from: random windows of a byte-level text
/// (tokens and the targets one byte later), or the batches of a
/// safetensors file (--batches) in order, so another framework can train
/// on exactly the same data.
class TrainingBatches {
public:
  /// `text` or `batchFile` (one is empty); `shape` is the step's tokens
  /// shape ([micro-batches x] batch x sequence).
  bool open(const std::string &text, const std::string &batchFile,
            const std::vector<int64_t> &shape, std::string &error);
  /// Fills `tokens` and `targets` (integer tensors of that shape).
  void next(std::mt19937_64 &rng, HostTensor &tokens, HostTensor &targets);

private:
  std::string bytes;
  HostTensor fileTokens, fileTargets;
  int64_t batchCount = 0, taken = 0;
};

/// Training progress and summary lines, identical for both backends.
class TrainingLog {
public:
  TrainingLog(int steps, int64_t tokensPerStep, int every, std::string backend)
      : steps(steps), tokensPerStep(tokensPerStep), every(every),
        backend(std::move(backend)) {}
  /// Records a step run with learning rate `lr`; false (with a message)
  /// when the loss is not finite.
  bool step(int s, double loss, double lr, double seconds);
  void summary() const;
  /// Also writes every step's loss to `path` (--loss-log).
  bool logLossesTo(const std::string &path, std::string &error);

private:
  int steps;
  int64_t tokensPerStep;
  int every;
  std::string backend;
  std::vector<double> losses;
  double seconds = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> lossFile{nullptr,
                                                            std::fclose};
};

} // namespace nova::run

#endif // NOVA_TOOLS_NOVA_RUN_COMMON_H
