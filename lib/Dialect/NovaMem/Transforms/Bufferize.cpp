//===- Bufferize.cpp - nova-bufferize -------------------------------------===//
//
// From value semantics (kernels on tensors) to the host program the runtime
// executes: buffers, launches in order, outputs. Placement is left to
// nova-plan-memory.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaMem/Transforms/Passes.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::nova_mem {
#define GEN_PASS_DEF_NOVABUFFERIZE
#include "nova/Dialect/NovaMem/Transforms/Passes.h.inc"
} // namespace mlir::nova_mem

using namespace mlir;
using namespace mlir::nova_mem;
namespace nv = mlir::nova;
namespace nt = mlir::nova_tile;

static bool isMemProgram(func::FuncOp fn) {
  return llvm::any_of(fn.getOps(), [](Operation &op) {
    return isa<NovaMemDialect>(op.getDialect());
  });
}

/// Checks that `fn`'s body is what bufferization handles, at the first op
/// that is not.
static LogicalResult checkTileFunction(func::FuncOp fn) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("nova-bufferize: a function body of one block is "
                        "required");
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        !tensor || !tensor.hasStaticShape())
      return fn.emitError("nova-bufferize: argument #")
             << i << " has type " << type
             << "; buffers need statically shaped tensors";
  for (Operation &op : fn.getBody().front()) {
    if (isa<nt::LaunchOp, nt::FusionOp, nv::ReshapeOp, nv::ConstantOp,
            func::ReturnOp>(op)) {
      for (Type t : op.getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t);
            !tensor || !tensor.hasStaticShape())
          return op.emitError("nova-bufferize: result of type ")
                 << t << "; buffers need statically shaped tensors";
      continue;
    }
    return op.emitError("nova-bufferize: '")
           << op.getName()
           << "' is outside a kernel; a function body holds kernels, "
              "nova.reshape, nova.constant and func.return (run "
              "convert-nova-to-tile first)";
  }
  return success();
}

/// A constant outside kernels is data a kernel writes: a pointwise group of
/// the constant alone.
static void wrapConstants(func::FuncOp fn) {
  for (auto constant :
       llvm::make_early_inc_range(fn.getBody().getOps<nv::ConstantOp>())) {
    OpBuilder builder(constant);
    auto group = nt::FusionOp::create(
        builder, constant.getLoc(), constant->getResultTypes(),
        nt::Family::pointwise, ValueRange(), nt::ScheduleAttr());
    builder.createBlock(&group.getBody());
    Operation *clone = builder.clone(*constant);
    nt::YieldOp::create(builder, constant.getLoc(), clone->getResults());
    constant->replaceAllUsesWith(group);
    constant.erase();
  }
}

/// The reads of `v` by launches, through reshapes.
static void collectReaders(Value v, SmallVectorImpl<Operation *> &readers) {
  for (Operation *user : v.getUsers()) {
    if (isa<nv::ReshapeOp>(user))
      collectReaders(user->getResult(0), readers);
    else
      readers.push_back(user);
  }
}

/// Moves each launch that writes a result replacing argument `i` after the
/// last other launch that reads argument `i`, so that argument's bytes can
/// take the new value. Fails when a value the launch computes is read
/// before that point.
static LogicalResult scheduleInPlaceUpdates(func::FuncOp fn) {
  Block &block = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  DenseMap<Operation *, Operation *> mustFollow; // launch -> last reader
  for (unsigned r = 0; r < fn.getNumResults(); ++r) {
    auto alias = fn.getResultAttrOfType<IntegerAttr>(r, "nova.alias");
    if (!alias || alias.getInt() < 0 ||
        alias.getInt() >= int64_t(fn.getNumArguments()))
      continue;
    Value produced = ret.getOperand(r);
    while (auto reshape = produced.getDefiningOp<nv::ReshapeOp>())
      produced = reshape.getOperand();
    auto launch = produced.getDefiningOp<nt::LaunchOp>();
    if (!launch)
      continue;
    SmallVector<Operation *> readers;
    collectReaders(fn.getArgument(alias.getInt()), readers);
    for (Operation *reader : readers) {
      if (reader == launch || isa<func::ReturnOp>(reader))
        continue;
      Operation *&last = mustFollow[launch];
      if (!last || last->isBeforeInBlock(reader))
        last = reader;
    }
  }
  for (auto [launch, last] : mustFollow) {
    if (last->isBeforeInBlock(launch))
      continue;
    for (Value result : launch->getResults()) {
      SmallVector<Operation *> readers;
      collectReaders(result, readers);
      for (Operation *reader : readers)
        if (!isa<func::ReturnOp>(reader) && !last->isBeforeInBlock(reader)) {
          InFlightDiagnostic diag = launch->emitError(
              "nova-bufferize: this kernel updates an argument in place, "
              "so it must run after the argument's last reader, but a value "
              "it computes is read before that");
          diag.attachNote(last->getLoc()) << "the argument's last reader";
          diag.attachNote(reader->getLoc()) << "the early reader";
          return diag;
        }
    }
    // Reshapes of its results move along (they are views, read later).
    launch->moveAfter(last);
    for (Value result : launch->getResults())
      for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
        if (isa<nv::ReshapeOp>(user) && user->isBeforeInBlock(launch))
          user->moveAfter(launch);
  }
  return success();
}

static LogicalResult bufferize(func::FuncOp fn) {
  Block &block = fn.getBody().front();
  if (failed(scheduleInPlaceUpdates(fn)))
    return failure();
  OpBuilder builder = OpBuilder::atBlockBegin(&block);
  DenseMap<Value, Value> bufferOf;
  for (BlockArgument arg : block.getArguments())
    bufferOf[arg] =
        InputOp::create(builder, arg.getLoc(),
                        BufferType::get(cast<RankedTensorType>(arg.getType())),
                        arg, IntegerAttr());
  auto bufferTypeOf = [](Value v) {
    return BufferType::get(cast<RankedTensorType>(v.getType()));
  };
  SmallVector<Operation *> old;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<NovaMemDialect>(op.getDialect()))
      continue;
    builder.setInsertionPoint(&op);
    if (auto launch = dyn_cast<nt::LaunchOp>(op)) {
      SmallVector<Value> inputs, outputs;
      for (Value v : launch.getInputs())
        inputs.push_back(bufferOf.lookup(v));
      for (Value r : launch.getResults()) {
        Value buffer = AllocOp::create(builder, r.getLoc(), bufferTypeOf(r),
                                       IntegerAttr());
        bufferOf[r] = buffer;
        outputs.push_back(buffer);
      }
      LaunchOp::create(builder, launch.getLoc(), launch.getKernelAttr(), inputs,
                       outputs);
    } else if (auto reshape = dyn_cast<nv::ReshapeOp>(op)) {
      bufferOf[reshape.getResult()] = ViewOp::create(
          builder, reshape.getLoc(), bufferTypeOf(reshape.getResult()),
          bufferOf.lookup(reshape.getOperand()));
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Value> results;
      for (Value v : ret.getOperands())
        results.push_back(OutputOp::create(builder, ret.getLoc(), v.getType(),
                                           bufferOf.lookup(v)));
      func::ReturnOp::create(builder, ret.getLoc(), results);
    }
    old.push_back(&op);
  }
  for (Operation *op : llvm::reverse(old)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

namespace {
struct BufferizePass : public nova_mem::impl::NovaBufferizeBase<BufferizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions;
    for (auto fn : module.getOps<func::FuncOp>())
      if (!fn.isExternal() && !isMemProgram(fn))
        functions.push_back(fn);
    for (func::FuncOp fn : functions)
      if (failed(checkTileFunction(fn)))
        return signalPassFailure();
    for (func::FuncOp fn : functions)
      wrapConstants(fn);
    // Launches name outlined kernels.
    OpPassManager outline("builtin.module");
    outline.addPass(nt::createNovaOutlineKernels());
    if (failed(runPipeline(outline, module)))
      return signalPassFailure();
    for (func::FuncOp fn : functions)
      if (failed(bufferize(fn)))
        return signalPassFailure();
  }
};
} // namespace
