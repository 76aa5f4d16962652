//===- NovaMemDialect.cpp - the nova_mem dialect --------------------------===//

#include "nova/Dialect/NovaMem/IR/NovaMem.h"
#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::nova_mem;

#include "nova/Dialect/NovaMem/IR/NovaMemDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "nova/Dialect/NovaMem/IR/NovaMemTypes.cpp.inc"

#define GET_OP_CLASSES
#include "nova/Dialect/NovaMem/IR/NovaMemOps.cpp.inc"

void NovaMemDialect::initialize() {
  // Launches name nova_tile kernels.
  getContext()->getOrLoadDialect<nova_tile::NovaTileDialect>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "nova/Dialect/NovaMem/IR/NovaMemTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nova/Dialect/NovaMem/IR/NovaMemOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  int64_t ld = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(element))
    return {};
  if (succeeded(parser.parseOptionalComma()))
    if (parser.parseKeyword("ld") || parser.parseInteger(ld))
      return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, element, ld);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getLd())
    printer << ", ld " << getLd();
  printer << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 int64_t ld) {
  if (!elementType.isIntOrFloat())
    return emitError() << "a buffer holds integers or floats, not "
                       << elementType;
  for (int64_t d : shape)
    if (d < 0)
      return emitError() << "buffer dimensions are static and non-negative";
  // The size in bytes, padding included, must fit int64.
  int64_t elementBytes =
      std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
  int64_t pitch = ld ? ld : (shape.empty() ? 1 : shape.back());
  int64_t bytes = elementBytes;
  bool overflow = llvm::MulOverflow(bytes, pitch, bytes);
  for (int64_t d : shape.drop_back(shape.empty() ? 0 : 1))
    overflow |= llvm::MulOverflow(bytes, d, bytes);
  if (overflow)
    return emitError() << "buffer of more than 2^63 bytes";
  if (ld != 0 && (shape.empty() || ld < shape.back()))
    return emitError() << "leading dimension " << ld
                       << " is smaller than the innermost size or the buffer "
                          "is a scalar";
  return success();
}

int64_t BufferType::getElementBytes() const {
  return std::max<int64_t>(1, getElementType().getIntOrFloatBitWidth() / 8);
}

int64_t BufferType::getRowPitch() const {
  if (getLd())
    return getLd();
  return getShape().empty() ? 1 : getShape().back();
}

int64_t BufferType::getSizeInBytes() const {
  ArrayRef<int64_t> shape = getShape();
  if (shape.empty())
    return getElementBytes();
  if (shape.back() == 0)
    return 0;
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  return rows * getRowPitch() * getElementBytes();
}

RankedTensorType BufferType::getTensorType() const {
  return RankedTensorType::get(getShape(), getElementType());
}

BufferType BufferType::get(RankedTensorType type, int64_t ld) {
  return get(type.getContext(), type.getShape(), type.getElementType(), ld);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyOffset(Operation *op,
                                  std::optional<uint64_t> offset) {
  if (!offset)
    return success();
  if (int64_t(*offset) < 0)
    return op->emitOpError("offset ") << int64_t(*offset) << " is negative";
  if (*offset % kAlignment)
    return op->emitOpError("offset ")
           << *offset << " is not a multiple of " << kAlignment << " bytes";
  return success();
}

LogicalResult InputOp::verify() {
  auto arg = dyn_cast<BlockArgument>(getArg());
  auto fn = (*this)->getParentOfType<func::FuncOp>();
  if (!arg || !fn || arg.getOwner() != &fn.getBody().front() ||
      (*this)->getBlock() != arg.getOwner())
    return emitOpError("binds an argument of the enclosing function's body");
  BufferType type = getBuffer().getType();
  if (type.getTensorType() != getArg().getType() || type.getLd())
    return emitOpError("buffer type ")
           << type << " is not the argument's type " << getArg().getType()
           << " with packed rows";
  return verifyOffset(*this, getOffset());
}

LogicalResult AllocOp::verify() { return verifyOffset(*this, getOffset()); }

LogicalResult ViewOp::verify() {
  BufferType from = getSource().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType() ||
      from.getTensorType().getNumElements() !=
          to.getTensorType().getNumElements())
    return emitOpError("views ") << from << " as " << to
                                 << "; a view keeps the element type and count";
  if ((from.getLd() || to.getLd()) &&
      (from.getLd() != to.getLd() || from.getShape().empty() ||
       to.getShape().empty() || from.getShape().back() != to.getShape().back()))
    return emitOpError("views ")
           << from << " as " << to
           << "; a buffer with a leading dimension keeps it and its innermost "
              "size";
  return success();
}

LogicalResult LaunchOp::verify() {
  DenseSet<Value> written;
  for (Value out : getOutputs()) {
    if (!written.insert(out).second)
      return emitOpError("writes the same buffer twice");
    Value root = out;
    while (auto view = root.getDefiningOp<ViewOp>())
      root = view.getSource();
    if (!root.getDefiningOp<AllocOp>())
      return emitOpError("writes a buffer that is not a nova_mem.alloc (or a "
                         "view of one); entry inputs are replaced by writing "
                         "an alloc at their offset");
  }
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel = symbols.lookupNearestSymbolFrom<nova_tile::KernelOp>(
      *this, getKernelAttr());
  if (!kernel)
    return emitOpError("'@")
           << getKernel() << "' is not a nova_tile.kernel of the module";
  FunctionType type = kernel.getKernelType();
  auto check = [&](StringRef what, TypeRange want,
                   OperandRange buffers) -> LogicalResult {
    if (want.size() != buffers.size())
      return emitOpError("passes ")
             << buffers.size() << " " << what << " buffers to '@" << getKernel()
             << "', which has " << want.size();
    for (auto [i, t, b] : llvm::enumerate(want, buffers))
      if (cast<BufferType>(b.getType()).getTensorType() != t)
        return emitOpError()
               << what << " buffer #" << i << " of type " << b.getType()
               << " does not hold the kernel's " << t;
    return success();
  };
  if (failed(check("input", type.getInputs(), getInputs())) ||
      failed(check("output", type.getResults(), getOutputs())))
    return failure();
  return success();
}

LogicalResult OutputOp::verify() {
  if (getBuffer().getType().getTensorType() != getResult().getType())
    return emitOpError("reads ")
           << getResult().getType() << " from a buffer of type "
           << getBuffer().getType();
  for (Operation *user : getResult().getUsers())
    if (!isa<func::ReturnOp>(user))
      return emitOpError("result is used by '")
             << user->getName() << "'; outputs are only returned";
  return success();
}

LogicalResult
NovaMemDialect::verifyOperationAttribute(Operation *op,
                                         NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name != kPeakBytesAttr && name != kNaiveBytesAttr)
    return op->emitError("unknown nova_mem attribute '") << name << "'";
  auto value = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!value || value.getInt() < 0)
    return op->emitError("'") << name << "' is a non-negative integer";
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn)
    return op->emitError("'") << name << "' belongs on a func.func";
  if (name == kNaiveBytesAttr)
    return success();
  return verifyPlan(fn);
}
