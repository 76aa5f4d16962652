//===- NovaDialect.cpp - nova dialect registration ------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/DType.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::nova;

#include "nova/Dialect/Nova/IR/NovaDialect.cpp.inc"
#include "nova/Dialect/Nova/IR/NovaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nova/Dialect/Nova/IR/NovaAttrs.cpp.inc"

void NovaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nova/Dialect/Nova/IR/NovaOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nova/Dialect/Nova/IR/NovaAttrs.cpp.inc"
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
/// would read (write) one entry. An argument and a result may share a name
/// (a training step's updated parameter does).
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
  // The uniqueness check covers the whole list; it runs once, for the first
  // named entry, so verifying a function stays linear in its arguments.
  ArrayAttr dicts = isResult ? fn.getResAttrsAttr() : fn.getArgAttrsAttr();
  auto nameOf = [&](unsigned i) -> StringAttr {
    auto dict = dyn_cast_or_null<DictionaryAttr>(dicts[i]);
    return dict ? dict.getAs<StringAttr>(NovaDialect::getNameAttrName())
                : StringAttr();
  };
  for (unsigned i = 0; i < index; ++i)
    if (nameOf(i))
      return success();
  llvm::StringMap<unsigned> given;
  auto duplicate = [&](unsigned a, unsigned b, StringRef n) {
    return op->emitError() << what << "s #" << std::min(a, b) << " and #"
                           << std::max(a, b) << " are both named '" << n
                           << "' (nova.name must be unique)";
  };
  for (unsigned i = index, e = dicts.size(); i < e; ++i)
    if (StringAttr n = nameOf(i)) {
      auto [it, inserted] = given.try_emplace(n.getValue(), i);
      if (!inserted)
        return duplicate(it->second, i, n.getValue());
    }
  for (unsigned i = 0, e = dicts.size(); i < e; ++i) {
    if (nameOf(i))
      continue;
    std::string byDefault = isResult ? resultName(fn, i) : argumentName(fn, i);
    if (auto it = given.find(byDefault); it != given.end())
      return duplicate(it->second, i, byDefault);
  }
  return success();
}

/// `nova.rounded`: operand numbers, increasing, of a TF32 matmul whose
/// values are TF32 already.
static LogicalResult verifyRounded(Operation *op, Attribute value) {
  auto operands = dyn_cast<DenseI64ArrayAttr>(value);
  if (!operands)
    return op->emitError("'nova.rounded' must be an array<i64> of operand "
                         "numbers, got ")
           << value;
  auto precision = op->getAttrOfType<StringAttr>(
      NovaDialect::getPrecisionAttrName());
  if (!isa<MatmulOp>(op) || !precision || precision.getValue() != "tf32")
    return op->emitError("'nova.rounded' belongs on a matmul with "
                         "'nova.precision' = \"tf32\"");
  int64_t previous = -1;
  for (int64_t i : operands.asArrayRef()) {
    if (i <= previous || i >= int64_t(op->getNumOperands()))
      return op->emitError("'nova.rounded' lists operand numbers below ")
             << op->getNumOperands() << " in increasing order, got "
             << value;
    previous = i;
  }
  return success();
}

LogicalResult NovaDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getRoundedAttrName())
    return verifyRounded(op, attr.getValue());
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError("'nova.target' belongs on a module, not on '")
             << op->getName() << "'";
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError("'nova.target' must be a #nova.target, got ")
             << attr.getValue();
    return success();
  }
  if (attr.getName() != getPrecisionAttrName())
    return op->emitError("unknown nova attribute '")
           << attr.getName().getValue() << "'";
  // The precision of a product's multiplications; f32 operands only, since
  // bf16 and f16 products say their precision with their types.
  if (!isa<MatmulOp, AttentionOp, AttentionFwdOp, AttentionBwdOp>(op))
    return op->emitError("'nova.precision' belongs on a matmul or attention "
                         "op, not on '")
           << op->getName() << "'";
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (!value || value.getValue() != "tf32")
    return op->emitError("'nova.precision' must be \"tf32\", got ")
           << attr.getValue();
  if (!cast<ShapedType>(op->getOperand(0).getType()).getElementType().isF32())
    return op->emitError("'nova.precision' = \"tf32\" needs f32 operands");
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

std::optional<::nova::DType> mlir::nova::dtypeOf(Type t) {
  if (t.isF64())
    return ::nova::DType::F64;
  if (t.isF32())
    return ::nova::DType::F32;
  if (t.isBF16())
    return ::nova::DType::BF16;
  if (t.isF16())
    return ::nova::DType::F16;
  if (t.isInteger(64))
    return ::nova::DType::I64;
  if (t.isInteger(32))
    return ::nova::DType::I32;
  if (t.isInteger(1))
    return ::nova::DType::I1;
  return std::nullopt;
}
