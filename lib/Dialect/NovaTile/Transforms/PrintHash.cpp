//===- PrintHash.cpp - nova-print-hash -------------------------------------===//

#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/StructuralHash.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::nova_tile {
#define GEN_PASS_DEF_NOVAPRINTHASH
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"
} // namespace mlir::nova_tile

using namespace mlir;
using namespace mlir::nova_tile;

namespace {
struct PrintHashPass
    : public nova_tile::impl::NovaPrintHashBase<PrintHashPass> {
  void runOnOperation() override {
    unsigned inlineGroups = 0;
    llvm::raw_ostream &os = llvm::outs();
    getOperation().walk([&](FusionGroupOpInterface group) {
      if (auto kernel = dyn_cast<KernelOp>(group.getOperation()))
        os << "kernel @" << kernel.getSymName();
      else
        os << "fusion #" << inlineGroups++;
      os << ' ' << stringifyFamily(group.getFamily()) << ' '
         << structuralHash(group).str();
      // The verifier has accepted the body, so the contract exists.
      if (auto contract = computeContract(group, /*emitErrors=*/false);
          succeeded(contract))
        os << " space " << llvm::interleaved(contract->space, "x", "", "");
      os << '\n';
    });
    os.flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
