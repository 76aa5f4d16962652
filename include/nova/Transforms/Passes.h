//===- Passes.h - whole-graph passes -----------------------------*- C++
//-*-===//

#ifndef NOVA_TRANSFORMS_PASSES_H
#define NOVA_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"

namespace mlir::nova {
#define GEN_PASS_DECL
#include "nova/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

#endif // NOVA_TRANSFORMS_PASSES_H
