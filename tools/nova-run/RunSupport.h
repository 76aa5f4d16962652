//===- RunSupport.h - pieces of nova-run ------------------------*- C++ -*-===//

#ifndef NOVA_TOOLS_NOVA_RUN_RUNSUPPORT_H
#define NOVA_TOOLS_NOVA_RUN_RUNSUPPORT_H

#include "Options.h"
#include "nova/Interpreter/Interpreter.h"
#include "nova/Support/Safetensors.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::nova::run {

/// The names (argumentName / resultName) of every argument / result: what
/// --save-inputs and -o write, stable through nova-opt's passes.
std::vector<std::string> argNames(func::FuncOp fn);
std::vector<std::string> resultNames(func::FuncOp fn);

/// The SSA names that function arguments had in the source file (%x -> "x"),
/// which MLIR does not keep in the IR.
using SourceNames = llvm::DenseMap<Value, std::string>;

/// The names under which --inputs may give argument `i`: its nova.name if it
/// has one, else its source SSA name and then argN. The first is the one
/// messages use.
std::vector<std::string> inputNames(func::FuncOp fn, unsigned i,
                                    const SourceNames &source);

/// Rejects, with an error at the argument, an argument whose type the
/// interpreter cannot hold (unsupported, or over its size limit), before
/// anything allocates it.
LogicalResult checkArgumentSizes(func::FuncOp fn);

/// --detect-anomaly on the ref backend. An error at the argument for a NaN
/// or Inf in a floating-point argument.
LogicalResult checkFiniteInputs(func::FuncOp fn,
                                ArrayRef<::nova::HostTensor> args,
                                const SourceNames &source);
/// When some of `results` holds a NaN or Inf: re-runs `fn` on `args`
/// keeping every value its ops compute and reports, at the op, the first
/// one (in program order) that produced a NaN or Inf. Success when all
/// results are finite.
LogicalResult locateNonFinite(ModuleOp module, func::FuncOp fn,
                              const std::vector<::nova::HostTensor> &args,
                              ArrayRef<::nova::HostTensor> results,
                              const InterpreterOptions &options);

/// Exclusive upper bound for random values of integer argument `i`, from how
/// it is used: gather/scatter indices are below the table's size along the
/// axis, cross-entropy labels below the class count. `fallback` otherwise.
int64_t integerBound(func::FuncOp fn, unsigned i, int64_t fallback);

/// Builds the arguments of `fn`: named tensors from `files` first, then
/// random values for the rest when `seed` is set. Errors name what is
/// missing or mismatched.
FailureOr<std::vector<::nova::HostTensor>>
buildInputs(func::FuncOp fn, ArrayRef<std::string> files,
            std::optional<uint64_t> seed, int64_t intBoundFallback,
            const SourceNames &source);

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
