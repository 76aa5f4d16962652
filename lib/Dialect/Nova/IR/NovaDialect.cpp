//===- NovaDialect.cpp - nova dialect registration ------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::nova;

#include "nova/Dialect/Nova/IR/NovaDialect.cpp.inc"
#include "nova/Dialect/Nova/IR/NovaInterfaces.cpp.inc"

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
  if (attr.getName() == getNameAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'nova.name' must be a string, got ")
             << attr.getValue();
    return success();
  }
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

LogicalResult NovaDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned /*regionIndex*/,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (attr.getName() == getNameAttrName()) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError("'nova.name' must be a string, got ")
             << attr.getValue();
    return success();
  }
  if (attr.getName() != getGradOfAttrName() &&
      attr.getName() != getAliasAttrName())
    return op->emitError("unknown nova result attribute '") << name << "'";
  auto index = dyn_cast<IntegerAttr>(attr.getValue());
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!index || !fn)
    return op->emitError("'")
           << name << "' is an argument index on a function result";
  ArrayRef<Type> args = fn.getArgumentTypes();
  int64_t arg = index.getInt();
  if (arg < 0 || arg >= int64_t(args.size()))
    return op->emitError("'")
           << name << "' on result #" << resultIndex << " names argument #"
           << arg << ", but the function has " << args.size() << " arguments";
  Type result = fn.getResultTypes()[resultIndex];
  if (args[arg] != result)
    return op->emitError("'")
           << name << "': result #" << resultIndex << " has type " << result
           << " but argument #" << arg << " has type " << args[arg];
  return success();
}

bool mlir::nova::isParameter(FunctionOpInterface fn, unsigned i) {
  return bool(fn.getArgAttr(i, NovaDialect::getParamAttrName()));
}

std::string mlir::nova::argumentName(FunctionOpInterface fn, unsigned i) {
  if (auto n = fn.getArgAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "arg" + std::to_string(i);
}

std::string mlir::nova::resultName(FunctionOpInterface fn, unsigned i) {
  if (auto n =
          fn.getResultAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "result" + std::to_string(i);
}
