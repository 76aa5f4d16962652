//===- NovaOps.h - nova dialect operations ----------------------*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVAOPS_H
#define NOVA_DIALECT_NOVA_IR_NOVAOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaTraits.h"

#include "nova/Dialect/Nova/IR/NovaInterfaces.h.inc"

#include "nova/Dialect/Nova/IR/NovaEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nova/Dialect/Nova/IR/NovaAttrs.h.inc"

#define GET_OP_CLASSES
#include "nova/Dialect/Nova/IR/NovaOps.h.inc"

namespace mlir::nova {
/// `a <predicate> b`: one definition for the folder and the interpreter.
template <typename T> bool compareWith(CmpPredicate p, T a, T b) {
  switch (p) {
  case CmpPredicate::eq:
    return a == b;
  case CmpPredicate::ne:
    return a != b;
  case CmpPredicate::lt:
    return a < b;
  case CmpPredicate::le:
    return a <= b;
  case CmpPredicate::gt:
    return a > b;
  case CmpPredicate::ge:
    return a >= b;
  }
  return false;
}
} // namespace mlir::nova

namespace mlir::nova {
/// Largest non-splat result that the folders compute at compile time; bigger
/// constant expressions are left for the kernels.
inline constexpr int64_t kMaxFoldElements = 1024;

/// NumPy broadcast of two static shapes, or failure when some pair of sizes
/// differs and neither is 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);
} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_IR_NOVAOPS_H
