//===- MarkKernelParams.cpp - TMA descriptors as by-value kernel params ---===//
//
// After convert-gpu-to-nvvm: every llvm.func argument that convert-tile-to-gpu
// lists as TMA descriptors (nova_gpu.tma_params) becomes a 128-byte, 64-byte
// aligned __grid_constant__ parameter passed by value: the PTX declares
// `.param .align 64 .b8 p[128]` and the TMA instructions read the tensor map
// from parameter space, as the runtime passes it (no global-memory copy).
// The gpu.func verifier rejects nvvm.grid_constant and the conversion drops
// llvm.byval, hence this step after it.
//
//===----------------------------------------------------------------------===//

#include "nova/Conversion/TileToGPU/CompileKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

struct MarkKernelParamsPass
    : public PassWrapper<MarkKernelParamsPass,
                         OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MarkKernelParamsPass)
  StringRef getArgument() const override { return "nova-mark-kernel-params"; }
  StringRef getDescription() const override {
    return "Pass TMA descriptor arguments by value as grid constants";
  }
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      auto params =
          fn->getAttrOfType<DenseI32ArrayAttr>(mlir::nova::kTmaParamsAttr);
      if (!params)
        return;
      fn->removeAttr(mlir::nova::kTmaParamsAttr);
      Builder b(fn.getContext());
      for (int32_t i : params.asArrayRef()) {
        if (i < 0 || unsigned(i) >= fn.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(fn.getArgumentTypes()[i])) {
          fn.emitError("a TMA descriptor parameter #")
              << i << " that is not a pointer argument";
          return signalPassFailure();
        }
        fn.setArgAttr(
            i, LLVM::LLVMDialect::getByValAttrName(),
            TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(64));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                      b.getUnitAttr());
      }
    });
  }
};

} // namespace

std::unique_ptr<Pass> mlir::nova::createMarkKernelParamsPass() {
  return std::make_unique<MarkKernelParamsPass>();
}
