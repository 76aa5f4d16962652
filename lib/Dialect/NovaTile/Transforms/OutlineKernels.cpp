//===- OutlineKernels.cpp - nova-outline-kernels
//---------------------------===//
//
// Outlining by structural hash is what makes identical kernels (the same
// block repeated N times) compile once: the launch sites name one symbol.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaTile/IR/StructuralHash.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir::nova_tile {
#define GEN_PASS_DEF_NOVAOUTLINEKERNELS
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"
} // namespace mlir::nova_tile

using namespace mlir;
using namespace mlir::nova_tile;

namespace {
struct OutlineKernelsPass
    : public nova_tile::impl::NovaOutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    std::map<KernelHash, KernelOp> kernels;
    for (auto kernel : module.getOps<KernelOp>())
      kernels.try_emplace(structuralHash(kernel), kernel);

    SmallVector<FusionOp> groups;
    // Groups of nested modules stay inline: their launches could not see
    // this module's symbols.
    module.walk([&](FusionOp group) {
      if (group->getParentOfType<ModuleOp>() == module)
        groups.push_back(group);
    });
    for (FusionOp group : groups) {
      KernelHash hash = structuralHash(group);
      auto [it, isNew] = kernels.try_emplace(hash, nullptr);
      if (isNew) {
        OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
        std::string name = (stringifyFamily(group.getFamily()) + "_" +
                            StringRef(hash.str()).take_front(16))
                               .str();
        auto kernel =
            KernelOp::create(builder, group.getLoc(), name, group.getFamily(),
                             group.getScheduleAttr());
        kernel.getBody().takeBody(group.getBody());
        // Renames on a (vanishingly unlikely) prefix clash.
        symbols.insert(kernel);
        it->second = kernel;
      }
      OpBuilder builder(group);
      auto launch =
          LaunchOp::create(builder, group.getLoc(), group.getResultTypes(),
                           it->second.getSymName(), group.getInputs());
      group.replaceAllUsesWith(launch.getResults());
      group.erase();
    }
  }
};
} // namespace
