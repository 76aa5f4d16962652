//===- NovaTile.h - the nova_tile dialect -----------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVATILE_IR_NOVATILE_H
#define NOVA_DIALECT_NOVATILE_IR_NOVATILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nova/Dialect/NovaTile/IR/NovaTileDialect.h.inc"

#include "nova/Dialect/NovaTile/IR/NovaTileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nova/Dialect/NovaTile/IR/NovaTileAttrs.h.inc"

#include "nova/Dialect/NovaTile/IR/NovaTileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "nova/Dialect/NovaTile/IR/NovaTileOps.h.inc"

#endif // NOVA_DIALECT_NOVATILE_IR_NOVATILE_H
