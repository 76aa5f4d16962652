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
  bool print = false;
  unsigned printLimit = 64;
  bool f64 = false;            // ref
  bool checkGradients = false; // ref
  double gradRtol = 1e-6, fdStep = 1e-6;
  bool train = false;
  int steps = 100;
  std::string text, params, save;
  int logEvery = 1;
  int iterations = 0, warmup = 3; // cuda timing
  bool graphs = true;             // cuda
  int device = 0;                 // cuda
};

/// Parses argv; false with `error` on an unknown or malformed option.
bool parseArgs(int argc, char **argv, RunOptions &options, std::string &error);
const char *usage();

} // namespace nova::run

#endif // NOVA_TOOLS_NOVA_RUN_OPTIONS_H
