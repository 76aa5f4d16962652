//===- Passes.h - passes of the nova dialect ---------------------*- C++
//-*-===//

#ifndef NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_H
#define NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::nova {
#define GEN_PASS_DECL
#include "nova/Dialect/Nova/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nova/Dialect/Nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_H
