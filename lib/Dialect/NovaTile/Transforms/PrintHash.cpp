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

/// "[broadcast(0), matmul-lhs(T)@0[8,1]]": kind, its dims, (T) when
/// transposed, @offset[strides] when read through a strided view.
static void printAccesses(llvm::raw_ostream &os, StringRef label,
                          ArrayRef<Access> accesses) {
  os << label << '[';
  llvm::interleaveComma(accesses, os, [&](const Access &a) {
    os << accessKindName(a.kind);
    if (!a.dims.empty())
      os << '(' << llvm::interleaved(a.dims, ",", "", "") << ')';
    if (a.transposed)
      os << "(T)";
    if (!a.strides.empty())
      os << '@' << a.offset << '[' << llvm::interleaved(a.strides, ",", "", "")
         << ']';
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
        // Results written into a window of an output (a concat): every
        // window.
        for (const MainProblem &p : contract->problems)
          if (llvm::any_of(p.writes, [&](const auto &write) {
                const Access &out = contract->results[write.first];
                return write.second.offset != out.offset ||
                       write.second.strides != out.strides;
              })) {
            os << " | writes";
            for (auto &[output, access] : p.writes)
              os << ' ' << accessKindName(access.kind) << "->#" << output << '@'
                 << access.offset << '['
                 << llvm::interleaved(access.strides, ",", "", "") << ']';
          }
        // A grouped GEMM: every problem, and what it reads.
        if (contract->problems.size() > 1)
          for (const MainProblem &p : contract->problems) {
            os << (p.columnSum ? " | column-sum " : " | gemm ")
               << llvm::interleaved(p.space, "x", "", "") << " reads";
            for (auto &[input, access] : p.operands)
              os << " #" << input << '@' << access.offset << '['
                 << llvm::interleaved(access.strides, ",", "", "") << ']';
          }
      }
      os << '\n';
    });
    os.flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
