//===- Passes.h - passes that produce nova_mem ------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_H
#define NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "nova/Dialect/NovaMem/IR/NovaMem.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

namespace mlir::nova_mem {
#define GEN_PASS_DECL
#include "nova/Dialect/NovaMem/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nova/Dialect/NovaMem/Transforms/Passes.h.inc"
} // namespace mlir::nova_mem

#endif // NOVA_DIALECT_NOVAMEM_TRANSFORMS_PASSES_H
