//===- NovaDialect.h - the high-level nova dialect ---------------*- C++
//-*-===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVADIALECT_H
#define NOVA_DIALECT_NOVA_IR_NOVADIALECT_H

#include "mlir/IR/Dialect.h"

#include "nova/Dialect/Nova/IR/NovaDialect.h.inc"

#endif // NOVA_DIALECT_NOVA_IR_NOVADIALECT_H
