//===- InitAllDialects.h - every dialect nova-opt understands ----*- C++
//-*-===//
//
// The Nova dialects plus the upstream dialects the pipeline produces or
// consumes. Deliberately not registerAllDialects: a smaller registry keeps
// nova-opt's start-up and its error messages about unknown ops focused.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_INITALLDIALECTS_H
#define NOVA_INITALLDIALECTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaMem/IR/NovaMem.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

namespace mlir::nova {
inline void registerAllDialects(DialectRegistry &registry) {
  // clang-format off
  registry.insert<
      NovaDialect,
      nova_tile::NovaTileDialect,
      nova_mem::NovaMemDialect,
      arith::ArithDialect,
      func::FuncDialect,
      gpu::GPUDialect,
      LLVM::LLVMDialect,
      NVVM::NVVMDialect,
      math::MathDialect,
      memref::MemRefDialect,
      scf::SCFDialect,
      tensor::TensorDialect,
      vector::VectorDialect>();
  // clang-format on
}
} // namespace mlir::nova

#endif // NOVA_INITALLDIALECTS_H
