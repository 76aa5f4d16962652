//===- RunSupport.h - pieces of nova-run ------------------------*- C++ -*-===//

#ifndef NOVA_TOOLS_NOVA_RUN_RUNSUPPORT_H
#define NOVA_TOOLS_NOVA_RUN_RUNSUPPORT_H

#include "Options.h"
#include "nova/Interpreter/Interpreter.h"
#include "nova/Support/Safetensors.h"

#include <string>

namespace mlir::nova::run {

/// The names (argumentName / resultName) of every argument / result.
std::vector<std::string> argNames(func::FuncOp fn);
std::vector<std::string> resultNames(func::FuncOp fn);

/// Exclusive upper bound for random values of integer argument `i`, from how
/// it is used: gather/scatter indices are below the table's size along the
/// axis, cross-entropy labels below the class count. `fallback` otherwise.
int64_t integerBound(func::FuncOp fn, unsigned i, int64_t fallback);

/// Builds the arguments of `fn`: named tensors from `files` first, then
/// random values for the rest when `seed` is set. Errors name what is
/// missing or mismatched.
FailureOr<std::vector<::nova::HostTensor>>
buildInputs(func::FuncOp fn, ArrayRef<std::string> files,
            std::optional<uint64_t> seed, int64_t intBoundFallback);

/// `--check-gradients`: differentiates `fn` with nova-autodiff and compares
/// every parameter's gradient with central finite differences in f64.
bool checkGradients(ModuleOp module, func::FuncOp fn, uint64_t seed,
                    double rtol, double step);

/// `--train`: runs a train_step function (from nova-train-step) on batches
/// drawn from a byte-level text file.
bool train(ModuleOp module, func::FuncOp fn,
           const ::nova::run::RunOptions &options);

/// The reference backend: everything nova-run does with a .mlir file.
int runReference(const ::nova::run::RunOptions &options);

} // namespace mlir::nova::run

#endif // NOVA_TOOLS_NOVA_RUN_RUNSUPPORT_H
