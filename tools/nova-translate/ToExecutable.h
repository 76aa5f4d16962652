//===- ToExecutable.h - planned programs to a .nvx --------------*- C++ -*-===//
//
// nova-translate --nova-to-executable as a library, for nova-compile: the
// translation, its command-line options and the dialects it needs.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_TOOLS_NOVA_TRANSLATE_TOEXECUTABLE_H
#define NOVA_TOOLS_NOVA_TRANSLATE_TOEXECUTABLE_H

#include "nova/Conversion/TileToGPU/CompileKernels.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace mlir::nova {

struct ExecutableOptions {
  /// The built-in target the kernels were configured for: the default chip,
  /// the profile's FLOPs and bytes. Empty: the module's nova.target, else
  /// h200; given, it must agree with the module's.
  std::string target;
  /// An empty chip is the target's architecture.
  GPUCompileOptions compile;
  /// Non-zero: every buffer in its own place, fenced by at least this many
  /// poisoned bytes (a multiple of 16) that the runtime checks.
  unsigned guardBands = 0;
};

/// Registers --target, --chip, --ptxas, --cuda-path, --ptx-only,
/// --nova-cache-dir, --no-nova-cache, --nova-explain-cache,
/// --nova-compile-timing, --nova-compile-threads and --guard-bands.
void registerExecutableCLOptions();
/// The options given on the command line.
ExecutableOptions executableOptionsFromCL();

/// Every dialect and interface the translation (and its kernel compile)
/// needs.
void registerExecutableDialects(DialectRegistry &registry);

/// Writes the .nvx of `module`'s planned programs and GPU kernels to `os`;
/// errors are located diagnostics.
LogicalResult translateToExecutable(ModuleOp module,
                                    const ExecutableOptions &options,
                                    raw_ostream &os);

} // namespace mlir::nova

#endif // NOVA_TOOLS_NOVA_TRANSLATE_TOEXECUTABLE_H
