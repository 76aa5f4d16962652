//===- NovaDialect.h - the high-level nova dialect ---------------*- C++
//-*-===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVADIALECT_H
#define NOVA_DIALECT_NOVA_IR_NOVADIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>

#include "nova/Dialect/Nova/IR/NovaDialect.h.inc"

namespace mlir::nova {
/// Whether argument `i` of `fn` is a trainable parameter (`nova.param`).
bool isParameter(FunctionOpInterface fn, unsigned i);
/// The tensor name of argument / result `i` (safetensors keys, train-step
/// state names): its `nova.name`, else `argN` / `resultN`.
std::string argumentName(FunctionOpInterface fn, unsigned i);
std::string resultName(FunctionOpInterface fn, unsigned i);
} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_IR_NOVADIALECT_H
