//===- Passes.h - lowerings between the Nova dialects -----------*- C++ -*-===//

#ifndef NOVA_CONVERSION_PASSES_H
#define NOVA_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::nova {
#define GEN_PASS_DECL
#include "nova/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nova/Conversion/Passes.h.inc"
} // namespace mlir::nova

#endif // NOVA_CONVERSION_PASSES_H
