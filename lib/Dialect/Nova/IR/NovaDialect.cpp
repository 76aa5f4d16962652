//===- NovaDialect.cpp - nova dialect registration ------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::nova;

#include "nova/Dialect/Nova/IR/NovaDialect.cpp.inc"

void NovaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nova/Dialect/Nova/IR/NovaOps.cpp.inc"
      >();
}

Operation *NovaDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

LogicalResult NovaDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned /*regionIndex*/,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != getParamAttrName())
    return op->emitError("unknown nova argument attribute '")
           << attr.getName().getValue() << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError("'nova.param' is a unit attribute, got ")
           << attr.getValue();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitError("'nova.param' belongs on a function argument");
  auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[argIndex]);
  if (!type || !isa<FloatType>(type.getElementType()))
    return op->emitError("'nova.param' marks a trainable parameter: argument #")
           << argIndex << " must be a floating-point tensor, got "
           << fn.getArgumentTypes()[argIndex];
  return success();
}
