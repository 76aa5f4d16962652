//===- CudaBackend.h - nova-run on .nvx executables -------------*- C++ -*-===//

#ifndef NOVA_TOOLS_NOVA_RUN_CUDABACKEND_H
#define NOVA_TOOLS_NOVA_RUN_CUDABACKEND_H

#include "Options.h"

namespace nova::run {
/// Loads the executable, runs (or times, or trains) one entry on a GPU.
int runCuda(const RunOptions &options);
} // namespace nova::run

#endif // NOVA_TOOLS_NOVA_RUN_CUDABACKEND_H
