//===- NovaTraits.h - op traits of the nova dialect --------------*- C++ -*-===//

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
} // namespace mlir::nova::OpTrait

#endif // NOVA_DIALECT_NOVA_IR_NOVATRAITS_H
