//===- NovaDialect.cpp - nova dialect registration
//-------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

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
