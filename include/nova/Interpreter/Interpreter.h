//===- Interpreter.h - reference evaluator of the nova dialect --*- C++ -*-===//
//
// Evaluates a func.func of nova ops on host tensors: the CPU oracle every
// pass and kernel is checked against. Arithmetic runs in double; each op's
// float result is rounded to its element type (f32, bf16, f16) as a kernel
// that stores that type would, unless `f64` is set (gradient checks), which
// keeps every value in double.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_INTERPRETER_INTERPRETER_H
#define NOVA_INTERPRETER_INTERPRETER_H

#include "nova/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <vector>

namespace mlir::nova {

struct InterpreterOptions {
  /// Keep every float in double precision instead of rounding to its type.
  bool f64 = false;
  /// Largest single value the interpreter allocates (elements are held as
  /// 8-byte doubles or integers); bigger ones are an error, not a failed
  /// allocation.
  uint64_t maxTensorBytes = uint64_t(8) << 30;
};

/// The host dtype of a tensor element type, if the interpreter supports it.
std::optional<::nova::DType> dtypeOf(Type elementType);
/// The host dtype and shape a value of `type` must have.
std::optional<::nova::HostTensor> emptyTensorOf(Type type);

class Interpreter {
public:
  explicit Interpreter(ModuleOp module, InterpreterOptions options = {})
      : module(module), options(options) {}

  /// Runs `fn` on `args` (checked against its signature). Errors are emitted
  /// as diagnostics at the offending op or the function and return failure.
  FailureOr<std::vector<::nova::HostTensor>>
  run(func::FuncOp fn, std::vector<::nova::HostTensor> args);

  /// Same, looking the function up by name in the module.
  FailureOr<std::vector<::nova::HostTensor>>
  run(StringRef name, std::vector<::nova::HostTensor> args);

private:
  ModuleOp module;
  InterpreterOptions options;
  unsigned depth = 0;
};

} // namespace mlir::nova

#endif // NOVA_INTERPRETER_INTERPRETER_H
