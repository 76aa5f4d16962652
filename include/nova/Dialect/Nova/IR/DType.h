//===- DType.h - the host dtype of a tensor element type --------*- C++ -*-===//
//
// One mapping from MLIR element types to the MLIR-free DType that host
// tensors, safetensors files, the configurator and the .nvx format use.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVA_IR_DTYPE_H
#define NOVA_DIALECT_NOVA_IR_DTYPE_H

#include "nova/Support/HostTensor.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::nova {

/// The host dtype of a tensor element type (f64, f32, bf16, f16, i64, i32,
/// i1), or nullopt for any other type.
std::optional<::nova::DType> dtypeOf(Type elementType);

} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_IR_DTYPE_H
