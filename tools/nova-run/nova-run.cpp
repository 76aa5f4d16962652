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

#ifdef NOVA_HAVE_REFERENCE_BACKEND
#include "RunSupport.h"
#endif

int main(int argc, char **argv) {
  nova::run::RunOptions options;
  std::string error;
  if (!nova::run::parseArgs(argc, argv, options, error)) {
    if (error.empty()) { // --help
      std::fputs(nova::run::usage(), stdout);
      return 0;
    }
    std::fprintf(stderr, "error: %s\n%s", error.c_str(), nova::run::usage());
    return 1;
  }
  if (options.backend == "cuda")
    return nova::run::runCuda(options);
  if (options.backend == "ref") {
#ifdef NOVA_HAVE_REFERENCE_BACKEND
    return mlir::nova::run::runReference(options);
#else
    std::fprintf(stderr, "error: this nova-run was built without the compiler "
                         "(NOVA_ENABLE_COMPILER=OFF) and has no reference "
                         "backend; run .nvx executables with --backend=cuda\n");
    return 1;
#endif
  }
  std::fprintf(stderr,
               "error: unknown backend '%s'; nova-run has 'ref' (the "
               "reference interpreter, .mlir) and 'cuda' (.nvx)\n",
               options.backend.c_str());
  return 1;
}
