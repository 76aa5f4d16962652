//===- NovaMem.h - the nova_mem dialect -------------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVAMEM_IR_NOVAMEM_H
#define NOVA_DIALECT_NOVAMEM_IR_NOVAMEM_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nova/Dialect/NovaMem/IR/NovaMemDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "nova/Dialect/NovaMem/IR/NovaMemTypes.h.inc"

#define GET_OP_CLASSES
#include "nova/Dialect/NovaMem/IR/NovaMemOps.h.inc"

#endif // NOVA_DIALECT_NOVAMEM_IR_NOVAMEM_H
