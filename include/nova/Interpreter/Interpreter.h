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

#include "nova/Dialect/Nova/IR/DType.h"
#include "nova/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::nova {

struct InterpreterOptions {
  /// Keep every float in double precision instead of rounding to its type.
  bool f64 = false;
  /// Largest single value the interpreter allocates (elements are held as
  /// 8-byte doubles or integers); bigger ones are an error, not a failed
  /// allocation.
  uint64_t maxTensorBytes = uint64_t(8) << 30;
  /// nova_mem programs: fill a buffer's bytes with a poison pattern (NaN for
  /// floats, all ones for integers) when its live range ends, so a read of
  /// freed bytes changes the answer instead of passing by luck.
  bool poisonDeadBuffers = true;
};

/// The host dtype and shape a value of `type` must have; nullopt when the
/// interpreter does not support `type` or its element count overflows int64.
/// Allocates the tensor: call checkTensorSize first for types from outside.
std::optional<::nova::HostTensor> emptyTensorOf(Type type);

/// Whether the interpreter can hold a value of `type`: a statically shaped
/// tensor of a supported element type whose element count fits int64 and
/// whose host storage (8 bytes per element) is at most
/// `options.maxTensorBytes`. Returns nullopt when it can, else the reason as
/// one sentence without location or "error:" prefix, e.g. "the reference
/// interpreter would need 137438953472 bytes for 'tensor<65536x65536x4xf32>',
/// more than its limit of 8589934592" or "'tensor<4294967296x4294967296xf32>'
/// has more than 2^63 elements". Allocates nothing: call it before building
/// an argument.
std::optional<std::string>
checkTensorSize(Type type, const InterpreterOptions &options = {});

class Interpreter {
public:
  explicit Interpreter(ModuleOp module, InterpreterOptions options = {})
      : module(module), options(options) {}

  /// Runs `fn` on `args` (checked against its signature). A function whose
  /// body is a nova_mem program runs on one byte arena at the planned
  /// offsets (each buffer in its own bytes when unplanned): arguments are
  /// stored at their offsets, each launch reads its inputs from the arena,
  /// evaluates the kernel's body and stores its outputs, and results are
  /// read back from the arena. Errors are emitted
  /// as diagnostics at the offending op or the function and return failure.
  FailureOr<std::vector<::nova::HostTensor>>
  run(func::FuncOp fn, std::vector<::nova::HostTensor> args);

  /// Same, looking the function up by name in the module.
  FailureOr<std::vector<::nova::HostTensor>>
  run(StringRef name, std::vector<::nova::HostTensor> args);

private:
  FailureOr<std::vector<::nova::HostTensor>>
  runMemoryProgram(func::FuncOp fn, std::vector<::nova::HostTensor> args);

  ModuleOp module;
  InterpreterOptions options;
  unsigned depth = 0;
};

} // namespace mlir::nova

#endif // NOVA_INTERPRETER_INTERPRETER_H
