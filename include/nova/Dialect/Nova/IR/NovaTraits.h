//===- NovaTraits.h - op traits of the nova dialect --------------*- C++
//-*-===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVATRAITS_H
#define NOVA_DIALECT_NOVA_IR_NOVATRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::nova::OpTrait {
/// An elementwise op whose tensor operands broadcast (NumPy rules) to the
/// shape of its single result. Passes that make broadcasts explicit or fuse
/// elementwise chains key on this trait instead of a list of op names.
template <typename ConcreteType>
class BroadcastingElementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, BroadcastingElementwise> {};

/// Rejects an op with an operand or result tensor whose element count does
/// not fit int64_t: MLIR's getNumElements wraps (2^32 x 2^32 counts as 0),
/// and every size computation downstream trusts a verified op.
LogicalResult verifyCountableShapes(Operation *op);

template <typename ConcreteType>
class CountableShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, CountableShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyCountableShapes(op);
  }
};

/// Checks an op's result types against its `inferReturnTypes` (from
/// InferTypeOpAdaptor) before InferTypeOpInterface's own check runs, so a
/// malformed op gets exactly one diagnostic: the rule inference found broken,
/// or a type mismatch naming both types. Listed before InferTypeOpAdaptor.
template <typename ConcreteType>
class CheckedInference
    : public mlir::OpTrait::TraitBase<ConcreteType, CheckedInference> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    SmallVector<Type> inferred;
    auto concrete = cast<ConcreteType>(op);
    if (failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(),
            typename ConcreteType::Adaptor(concrete), inferred)))
      return failure();
    if (TypeRange(inferred) != op->getResultTypes()) {
      auto diag = op->emitOpError("result type ");
      llvm::interleaveComma(op->getResultTypes(), diag);
      diag << " does not match ";
      llvm::interleaveComma(inferred, diag);
      return diag << ", the type its operands and attributes imply";
    }
    return success();
  }
};
} // namespace mlir::nova::OpTrait

#endif // NOVA_DIALECT_NOVA_IR_NOVATRAITS_H
