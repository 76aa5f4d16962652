//===- TileToGPU.cpp - nova_tile kernels to gpu.func
//------------------------===//
//
// The pass: one gpu.module with one gpu.func per outlined kernel, written by
// its family's emitter (Emitter.h), with the launch geometry recorded as
// the function's known block and grid sizes.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"
#include "nova/Dialect/Nova/IR/Target.h"

#include "nova/Conversion/Passes.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaMem/IR/NovaMem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// A kernel parameter: the tensor's memref, rows `pitch` elements apart
/// when the memory planner padded them (0: packed).
MemRefType bufferType(Type tensor, int64_t pitch) {
  auto t = cast<RankedTensorType>(tensor);
  if (!pitch || t.getRank() < 2 || pitch == t.getShape().back())
    return MemRefType::get(t.getShape(), t.getElementType());
  SmallVector<int64_t> strides(t.getRank(), 1);
  strides[t.getRank() - 2] = pitch;
  for (int64_t d = t.getRank() - 3; d >= 0; --d)
    strides[d] = strides[d + 1] * t.getShape()[d + 1];
  return MemRefType::get(t.getShape(), t.getElementType(),
                         StridedLayoutAttr::get(t.getContext(), 0, strides));
}

/// Kernel -> the row pitch of each of its buffers (inputs, then outputs) as
/// its launches pass them; a kernel launched on buffers of different
/// pitches is reported (the planner pads only buffers of kernels launched
/// once).
using Pitches = std::map<std::string, SmallVector<int64_t>>;
FailureOr<Pitches> findPitches(ModuleOp module) {
  Pitches pitches;
  WalkResult walk = module.walk([&](nova_mem::LaunchOp launch) {
    SmallVector<int64_t> here;
    for (Value v : llvm::concat<Value>(launch.getInputs(), launch.getOutputs()))
      here.push_back(cast<nova_mem::BufferType>(v.getType()).getLd());
    auto [it, isNew] = pitches.try_emplace(launch.getKernel().str(), here);
    if (!isNew && it->second != here) {
      launch.emitError("convert-tile-to-gpu: kernel @")
          << launch.getKernel()
          << " is launched on buffers with different row pitches (ld)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return pitches;
}

/// Kernel -> output index -> the StatusBit raised when that scalar output
/// is not finite.
using FiniteChecks = std::map<std::string, DenseMap<unsigned, uint32_t>>;

/// The scalar float results of planned entries that the runtime checks: the
/// one named "loss" (non-finite loss) and "grad_norm" (the global norm of
/// every gradient that clip-norm computes: non-finite when any gradient
/// is). The kernel that writes the result checks it.
FiniteChecks findFiniteChecks(ModuleOp module) {
  FiniteChecks checks;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    DenseMap<Value, std::pair<nova_mem::LaunchOp, unsigned>> writer;
    fn.walk([&](nova_mem::LaunchOp launch) {
      for (auto [i, out] : llvm::enumerate(launch.getOutputs()))
        writer[out] = {launch, unsigned(i)};
    });
    auto ret = dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    if (!ret)
      continue;
    for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      auto output = value.getDefiningOp<nova_mem::OutputOp>();
      if (!type || type.getRank() != 0 ||
          !isa<FloatType>(type.getElementType()) || !output)
        continue;
      std::string name = mlir::nova::resultName(fn, j);
      uint32_t bit = name == "loss" ? uint32_t(::nova::NonFiniteLoss)
                     : name == "grad_norm"
                         ? uint32_t(::nova::NonFiniteGradients)
                         : 0u;
      auto w = writer.find(output.getBuffer());
      if (bit && w != writer.end())
        checks[w->second.first.getKernel().str()][w->second.second] |= bit;
    }
  }
  return checks;
}

/// Whether `kernel` needs the status record, and the bits it may set.
std::optional<uint32_t>
statusBitsOf(KernelOp kernel, const DenseMap<unsigned, uint32_t> &finite) {
  uint32_t bits = 0;
  for (auto [i, bit] : finite)
    bits |= bit;
  kernel.walk([&](nv::CheckLabelsOp) { bits |= ::nova::LabelsOutOfRange; });
  kernel.walk([&](nv::GatherOp) { bits |= ::nova::IndicesOutOfRange; });
  if (bits || kernel.getFamily() == Family::optimizer)
    return bits;
  return std::nullopt;
}

LogicalResult lowerKernel(KernelOp kernel, OpBuilder &moduleBuilder,
                          ArrayRef<int64_t> pitches,
                          const DenseMap<unsigned, uint32_t> &finite,
                          const EmitOptions &options,
                          const ::nova::DeviceDescriptor &target) {
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
  for (auto [i, t] : llvm::enumerate(
           llvm::concat<const Type>(type.getInputs(), type.getResults())))
    params.push_back(bufferType(t, i < pitches.size() ? pitches[i] : 0));
  // The status record is the last parameter, marked with the bits the
  // kernel may set (CompileKernels turns it into a StatusWord parameter).
  std::optional<uint32_t> statusBits = statusBitsOf(kernel, finite);
  if (statusBits)
    params.push_back(
        MemRefType::get({::nova::kStatusBytes / 8}, inner.getI64Type()));
  auto func = gpu::GPUFuncOp::create(inner, loc, name,
                                     inner.getFunctionType(params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), inner.getUnitAttr());
  if (statusBits)
    func.setArgAttr(params.size() - 1, mlir::nova::kStatusBitsAttr,
                    inner.getI32IntegerAttr(int32_t(*statusBits)));
  Block &entry = func.getBody().front();
  ImplicitLocOpBuilder b(loc, inner);
  b.setInsertionPointToStart(&entry);
  BodyEmitter body(b, entry);
  body.fastF32 = options.fastF32Math;
  Block &kernelBlock = kernel.getBody().front();
  for (BlockArgument arg : kernelBlock.getArguments())
    body.bindInput(arg, entry.getArgument(arg.getArgNumber()));

  KernelContext k{kernel, *contract, schedule, func,   b,
                  body,   {},        finite,   options, target};
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    k.outputBuffers.push_back(entry.getArgument(type.getNumInputs() + i));
  if (statusBits)
    body.status = entry.getArguments().back();
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
  // A block's shared memory (its workgroup buffers and the dynamic buffer)
  // must fit the target's opt-in maximum, or the launch would fail.
  int64_t sharedBytes = 0;
  for (BlockArgument buffer : func.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    sharedBytes += type.getNumElements() *
                   llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  if (auto dynamic =
          func->getAttrOfType<IntegerAttr>(mlir::nova::kDynamicSharedBytesAttr))
    sharedBytes += dynamic.getInt();
  if (sharedBytes > int64_t(target.smemPerBlock)) {
    gpuModule.erase();
    return where() << "needs " << sharedBytes
                   << " bytes of shared memory a block, more than the "
                   << target.smemPerBlock << " of the target ("
                   << target.name << ")";
  }
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
    FiniteChecks finite = findFiniteChecks(module);
    FailureOr<Pitches> pitches = findPitches(module);
    if (failed(pitches))
      return signalPassFailure();
    // The module's target (nova-configure), or the default when it has
    // none; the instructions it lacks are off whatever the options say.
    mlir::nova::TargetAttr targetAttr =
        mlir::nova::resolveTarget(module, "", getArgument());
    if (!targetAttr)
      return signalPassFailure();
    ::nova::DeviceDescriptor target = mlir::nova::deviceOf(targetAttr);
    EmitOptions options{deterministic,
                        wgmma && target.hasWgmma(),
                        tf32Wgmma && target.hasWgmma(),
                        stageRows,
                        bulkRows && target.hasBulkCopies(),
                        fastF32Math};
    for (KernelOp kernel : kernels) {
      std::string name = kernel.getSymName().str();
      failedAny |= failed(lowerKernel(kernel, builder, (*pitches)[name],
                                      finite[name], options, target));
    }
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
