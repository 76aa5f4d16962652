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

/// nova.name values are the keys of safetensors files: two arguments (or two
/// results) of one function with one name, given or default (argN / resultN),
/// would read (write) one entry. Reported once, at the later of two given
/// names. An argument and a result may share a name (a training step's
/// updated parameter does).
static LogicalResult verifyTensorName(Operation *op, NamedAttribute attr,
                                      unsigned index, bool isResult) {
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name)
    return op->emitError("'nova.name' must be a string, got ")
           << attr.getValue();
  const char *what = isResult ? "result" : "argument";
  if (name.getValue().empty())
    return op->emitError("'nova.name' of ")
           << what << " #" << index << " must not be empty";
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return success();
  unsigned count = isResult ? fn.getNumResults() : fn.getNumArguments();
  for (unsigned other = 0; other < count; ++other) {
    if (other == index)
      continue;
    bool otherNamed =
        isResult ? bool(fn.getResultAttr(other, NovaDialect::getNameAttrName()))
                 : bool(fn.getArgAttr(other, NovaDialect::getNameAttrName()));
    if (otherNamed && other > index)
      continue;
    std::string otherName =
        isResult ? resultName(fn, other) : argumentName(fn, other);
    if (otherName == name.getValue())
      return op->emitError()
             << what << "s #" << std::min(index, other) << " and #"
             << std::max(index, other) << " are both named '" << otherName
             << "' (nova.name must be unique)";
  }
  return success();
}

LogicalResult NovaDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned /*regionIndex*/,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == getNameAttrName())
    return verifyTensorName(op, attr, argIndex, /*isResult=*/false);
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
  if (attr.getName() == getNameAttrName())
    return verifyTensorName(op, attr, resultIndex, /*isResult=*/true);
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
  if (auto n =
          fn.getArgAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "arg" + std::to_string(i);
}

std::string mlir::nova::resultName(FunctionOpInterface fn, unsigned i) {
  if (auto n =
          fn.getResultAttrOfType<StringAttr>(i, NovaDialect::getNameAttrName()))
    return n.str();
  return "result" + std::to_string(i);
}
