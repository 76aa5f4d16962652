//===- Passes.h - passes of the nova_tile dialect ---------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_H
#define NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

namespace mlir::nova_tile {
#define GEN_PASS_DECL
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"
} // namespace mlir::nova_tile

#endif // NOVA_DIALECT_NOVATILE_TRANSFORMS_PASSES_H
