//===- PrintHash.cpp - nova-print-hash
//-------------------------------------===//

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

/// "[broadcast(0), matmul-lhs(T)]": kind, its dims, (T) when transposed.
static void printAccesses(llvm::raw_ostream &os, StringRef label,
                          ArrayRef<Access> accesses) {
  os << label << '[';
  llvm::interleaveComma(accesses, os, [&](const Access &a) {
    os << accessKindName(a.kind);
    if (!a.dims.empty())
      os << '(' << llvm::interleaved(a.dims, ",", "", "") << ')';
    if (a.transposed)
      os << "(T)";
  });
  os << ']';
}

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
          succeeded(contract)) {
        os << " space " << llvm::interleaved(contract->space, "x", "", "");
        printAccesses(os, " in ", contract->inputs);
        printAccesses(os, " out ", contract->results);
      }
      os << '\n';
    });
    os.flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
