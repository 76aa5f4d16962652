//===- Options.h - nova-run's command line ----------------------*- C++ -*-===//
//
// Parsed without LLVM so the runtime-only build (NOVA_ENABLE_COMPILER=OFF)
// has the same nova-run interface as the full one.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TOOLS_NOVA_RUN_OPTIONS_H
#define NOVA_TOOLS_NOVA_RUN_OPTIONS_H

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nova::run {

struct RunOptions {
  std::string input;               // model.mlir or model.nvx
  std::string entry;               // function / entry to run
  std::string backend;             // "ref", "cuda"; default from the file
  std::vector<std::string> inputs; // safetensors files, by name
  std::optional<uint64_t> seed;    // --random-inputs
  int64_t intBound = 16;           // --random-int-bound
  std::string saveInputs, output, compare;
  double rtol = 1e-5, atol = 1e-6;
  double normRtol = -1; // --norm-rtol; < 0: element-wise
  bool print = false;
  unsigned printLimit = 64;
  bool f64 = false;            // ref
  bool noPoison = false;       // ref, nova_mem programs
  bool checkGradients = false; // ref
  double gradRtol = 1e-6, fdStep = 1e-6;
  bool train = false;
  int steps = 100;
  double lr = 1e-3;                    // peak learning rate
  std::string lrSchedule = "constant"; // or "cosine"
  int lrWarmup = 0;                    // linear warm-up steps
  std::string text, params, save;
  std::string batches;   // safetensors: tokens/targets [S x batch shape]
  std::string lossLog;   // one "step loss" line per step, full precision
  std::string saveState; // every aliased state tensor (moments too)
  int logEvery = 1;
  int iterations = 0, warmup = 3; // cuda timing
  bool graphs = true;             // cuda
  bool poison = false;            // cuda: arena filled with 0xFF bytes
  bool profile = false;           // cuda: per-kernel time table
  bool describe = false;          // cuda: list the executable, run nothing
  std::string timingJson;         // cuda: --iterations / --profile as JSON
  int device = 0;                 // cuda
  bool detectAnomaly = false;     // stop at the first NaN / Inf
  std::optional<uint64_t> memoryLimit; // cuda: refuse a larger plan
  bool listDevices = false;            // cuda: open each device, list it
  /// Every option given on the command line, by its long name ("steps").
  std::set<std::string> given;
};

enum class ParseOutcome { Run, Help, Version, Error };

/// Parses argv. `Error` with `error` set on an unknown option, a malformed,
/// out-of-range or repeated value, or a contradictory combination; options
/// that are valid but have no effect in the chosen mode add a sentence to
/// `warnings`.
ParseOutcome parseArgs(int argc, char **argv, RunOptions &options,
                       std::string &error, std::vector<std::string> &warnings);
const char *usage();
/// "nova-run (Nova) 0.1.0".
const char *versionLine();

} // namespace nova::run

#endif // NOVA_TOOLS_NOVA_RUN_OPTIONS_H
