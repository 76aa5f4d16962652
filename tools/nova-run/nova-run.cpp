//===- nova-run.cpp - run a Nova program --------------------------------===//
//
// .mlir files run on the reference interpreter (ref backend, needs the
// compiler); .nvx executables on a GPU through the runtime (cuda backend,
// MLIR-free). `nova-run --help` lists the options. Exit status: 0 on
// success, 1 on any error or mismatch.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "Options.h"

#include <cstdio>
#include <string>
#include <vector>

#ifdef NOVA_HAVE_REFERENCE_BACKEND
#include "RunSupport.h"
#endif

int main(int argc, char **argv) {
  nova::run::RunOptions options;
  std::string error;
  std::vector<std::string> warnings;
  switch (nova::run::parseArgs(argc, argv, options, error, warnings)) {
  case nova::run::ParseOutcome::Help:
    std::fputs(nova::run::usage(), stdout);
    return 0;
  case nova::run::ParseOutcome::Version:
    std::printf("%s\n", nova::run::versionLine());
    return 0;
  case nova::run::ParseOutcome::Error:
    std::fprintf(stderr, "nova-run: error: %s\n", error.c_str());
    return 1;
  case nova::run::ParseOutcome::Run:
    break;
  }
  for (const std::string &w : warnings)
    std::fprintf(stderr, "nova-run: warning: %s\n", w.c_str());
  if (options.backend == "cuda")
    return nova::run::runCuda(options);
#ifdef NOVA_HAVE_REFERENCE_BACKEND
  return mlir::nova::run::runReference(options);
#else
  std::fprintf(stderr, "error: this nova-run was built without the compiler "
                       "(NOVA_ENABLE_COMPILER=OFF) and has no reference "
                       "backend; run .nvx executables with --backend=cuda\n");
  return 1;
#endif
}
