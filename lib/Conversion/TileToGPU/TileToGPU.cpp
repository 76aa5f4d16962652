//===- TileToGPU.cpp - nova_tile kernels to gpu.func
//------------------------===//
//
// The pass: one gpu.module with one gpu.func per outlined kernel, written by
// its family's emitter (Emitter.h), with the launch geometry recorded as
// the function's known block and grid sizes.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "nova/Conversion/Passes.h"
#include "nova/Conversion/TileToGPU/CompileKernels.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "nova/Conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova::tile_to_gpu;

namespace {

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

LogicalResult lowerKernel(KernelOp kernel, OpBuilder &moduleBuilder,
                          bool deterministic) {
  auto contract = computeContract(kernel);
  if (failed(contract))
    return failure();
  std::string name = kernel.getSymName().str();
  auto where = [&] {
    return kernel.emitError() << "convert-tile-to-gpu: kernel @" << name << " ("
                              << stringifyFamily(kernel.getFamily()) << "): ";
  };
  ScheduleAttr schedule = kernel.getScheduleAttr();
  if (!schedule)
    return where() << "has no schedule; run nova-configure first";
  switch (kernel.getFamily()) {
  case Family::pointwise:
  case Family::row_reduction:
  case Family::column_reduction:
  case Family::optimizer:
  case Family::matmul:
  case Family::attention_forward:
  case Family::attention_backward:
  case Family::gather:
  case Family::scatter_add:
    break;
  default:
    return where() << "the " << stringifyFamily(kernel.getFamily())
                   << " family is not lowered to the GPU yet";
  }
  Location loc = kernel.getLoc();
  auto gpuModule = gpu::GPUModuleOp::create(moduleBuilder, loc, name + "_gpu");
  OpBuilder inner(gpuModule.getBodyRegion());
  SmallVector<Type> params;
  FunctionType type = kernel.getKernelType();
  for (Type t : type.getInputs())
    params.push_back(bufferType(t));
  for (Type t : type.getResults())
    params.push_back(bufferType(t));
  auto func = gpu::GPUFuncOp::create(inner, loc, name,
                                     inner.getFunctionType(params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), inner.getUnitAttr());
  Block &entry = func.getBody().front();
  ImplicitLocOpBuilder b(loc, inner);
  b.setInsertionPointToStart(&entry);
  BodyEmitter body(b, entry);
  Block &kernelBlock = kernel.getBody().front();
  for (BlockArgument arg : kernelBlock.getArguments())
    body.bindInput(arg, entry.getArgument(arg.getArgNumber()));

  KernelContext k{kernel, *contract, schedule, func,
                  b,      body,      {},       deterministic};
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    k.outputBuffers.push_back(entry.getArgument(type.getNumInputs() + i));
  FailureOr<Geometry> geometry = failure();
  switch (kernel.getFamily()) {
  case Family::pointwise:
    geometry = emitPointwise(k);
    break;
  case Family::row_reduction:
    geometry = emitRowReduction(k);
    break;
  case Family::column_reduction:
    geometry = emitColumnReduction(k);
    break;
  case Family::optimizer:
    geometry = emitOptimizer(k);
    break;
  case Family::matmul:
    geometry = emitMatmul(k);
    break;
  case Family::attention_forward:
    geometry = emitAttentionForward(k);
    break;
  case Family::attention_backward:
    geometry = emitAttentionBackward(k);
    break;
  case Family::gather:
    geometry = emitGather(k);
    break;
  case Family::scatter_add:
    geometry = emitScatterAdd(k);
    break;
  default:
    break;
  }
  if (failed(geometry)) {
    gpuModule.erase();
    return failure();
  }
  gpu::ReturnOp::create(b);
  if (geometry->grid > std::numeric_limits<int32_t>::max()) {
    gpuModule.erase();
    return where() << "needs " << geometry->grid
                   << " blocks, more than one launch holds";
  }
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(geometry->threads), 1, 1}));
  func.setKnownGridSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(geometry->grid), 1, 1}));
  return success();
}

struct ConvertTileToGPUPass
    : public mlir::nova::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    module.walk([&](FusionOp group) {
      group.emitError("convert-tile-to-gpu: an inline fusion group; run "
                      "nova-outline-kernels first");
      failedAny = true;
    });
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    for (KernelOp kernel : kernels)
      failedAny |= failed(lowerKernel(kernel, builder, deterministic));
    if (failedAny)
      return signalPassFailure();
    if (!kernels.empty())
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      builder.getUnitAttr());
  }
};

} // namespace

Value mlir::nova::tile_to_gpu::KernelContext::addWorkspace(int64_t bytes) {
  unsigned index = func.getNumArguments();
  auto type = MemRefType::get({bytes}, b.getI8Type());
  (void)func.insertArgument(index, type, {}, b.getLoc());
  func->setAttr(mlir::nova::kWorkspaceBytesAttr, b.getI64IntegerAttr(bytes));
  return func.getArgument(index);
}
