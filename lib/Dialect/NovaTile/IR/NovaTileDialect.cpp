//===- NovaTileDialect.cpp - the nova_tile dialect ------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nova_tile;

#include "nova/Dialect/NovaTile/IR/NovaTileDialect.cpp.inc"
#include "nova/Dialect/NovaTile/IR/NovaTileEnums.cpp.inc"
#include "nova/Dialect/NovaTile/IR/NovaTileInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nova/Dialect/NovaTile/IR/NovaTileAttrs.cpp.inc"

void NovaTileDialect::initialize() {
  // Bodies are nova ops: a module holding nova_tile needs nova loaded.
  getContext()->getOrLoadDialect<nova::NovaDialect>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nova/Dialect/NovaTile/IR/NovaTileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nova/Dialect/NovaTile/IR/NovaTileOps.cpp.inc"
      >();
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> tile, int64_t threads,
                                   int64_t stages, int64_t vector,
                                   int64_t splitK) {
  if (tile.empty() || tile.size() > 3)
    return emitError() << "schedule tile has " << tile.size()
                       << " sizes; expected 1 to 3";
  for (int64_t t : tile)
    if (t <= 0)
      return emitError() << "schedule tile sizes must be positive, got " << t;
  auto positive = [&](StringRef name, int64_t v) -> LogicalResult {
    if (v > 0)
      return success();
    return emitError() << "schedule " << name << " must be positive, got " << v;
  };
  if (failed(positive("threads", threads)) ||
      failed(positive("stages", stages)) ||
      failed(positive("vector", vector)) || failed(positive("split_k", splitK)))
    return failure();
  if (threads % 32 != 0 || threads > 1024)
    return emitError() << "schedule threads must be a multiple of 32 up to "
                          "1024, got "
                       << threads;
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// The body's terminator is a yield of static tensors, and its block
/// arguments are static tensors: what the contracts and the interpreter
/// rely on. Region verifiers run after MLIR has checked that every block
/// ends with a terminator.
static LogicalResult verifyBody(Operation *op, Block &body) {
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op->emitOpError("body must end with nova_tile.yield");
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return op->emitOpError("body argument #")
             << arg.getArgNumber()
             << " must be a statically shaped tensor, got " << arg.getType();
  }
  return success();
}

/// Block arguments against the inputs and yielded values against the
/// outputs.
static LogicalResult verifySignature(Operation *op, TypeRange inputs,
                                     TypeRange outputs, Block &body) {
  if (body.getArgumentTypes() != inputs) {
    auto diag = op->emitOpError("body arguments (");
    llvm::interleaveComma(body.getArgumentTypes(), diag);
    diag << ") must have the input types (";
    llvm::interleaveComma(inputs, diag);
    return diag << ")";
  }
  Operation *yield = body.getTerminator();
  if (yield->getOperandTypes() != outputs) {
    auto diag = yield->emitOpError("yields (");
    llvm::interleaveComma(yield->getOperandTypes(), diag);
    diag << ") but the group's results are (";
    llvm::interleaveComma(outputs, diag);
    return diag << ")";
  }
  return success();
}

LogicalResult FusionOp::verifyRegions() {
  Block &body = getBody().front();
  if (failed(verifyBody(*this, body)) ||
      failed(verifySignature(*this, getInputs().getTypes(), getResultTypes(),
                             body)))
    return failure();
  return computeContract(cast<FusionGroupOpInterface>(getOperation()));
}

FunctionType KernelOp::getKernelType() {
  Block &body = getBody().front();
  return FunctionType::get(getContext(), body.getArgumentTypes(),
                           body.getTerminator()->getOperandTypes());
}

LogicalResult KernelOp::verifyRegions() {
  if (failed(verifyBody(*this, getBody().front())))
    return failure();
  return computeContract(cast<FusionGroupOpInterface>(getOperation()));
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("'")
           << getKernel() << "' does not name a nova_tile.kernel";
  FunctionType type = kernel.getKernelType();
  if (TypeRange(type.getInputs()) != getInputs().getTypes() ||
      TypeRange(type.getResults()) != getResultTypes())
    return emitOpError("types do not match kernel @")
           << getKernel() << " of type " << type;
  return success();
}

#define GET_OP_CLASSES
#include "nova/Dialect/NovaTile/IR/NovaTileOps.cpp.inc"
