//===- Configure.cpp - nova-configure and nova-explain --------------------===//
//
// Every kernel's schedule comes from the analytic configurator, fed by the
// same contract the verifier checks, so the schedule always describes the
// iteration space the emitters will generate.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/Target.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::nova_tile {
#define GEN_PASS_DEF_NOVACONFIGURE
#define GEN_PASS_DEF_NOVAEXPLAIN
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"
} // namespace mlir::nova_tile

using namespace mlir;
using namespace mlir::nova_tile;

/// The attribute form of a schedule: the tile sizes the family's loops use.
static ScheduleAttr toAttr(MLIRContext *ctx, Family family,
                           const ::nova::Schedule &s) {
  SmallVector<int64_t, 3> tile;
  switch (family) {
  case Family::matmul:
  case Family::attention_forward:
  case Family::attention_backward:
    tile = {s.tileM, s.tileN, s.tileK};
    break;
  case Family::row_reduction:
  case Family::column_reduction:
  case Family::gather:
  case Family::scatter_add:
    tile = {s.tileM, s.tileN};
    break;
  case Family::pointwise:
  case Family::optimizer:
    tile = {s.tileM};
    break;
  }
  // An empty dimension gets a zero tile from the model; a schedule's sizes
  // are positive, and any tile covers nothing.
  for (int64_t &size : tile)
    size = std::max<int64_t>(size, 1);
  return ScheduleAttr::get(ctx, tile, s.threads, s.stages, s.vectorWidth,
                           s.splitK);
}

/// Whether the kernel writes no element, so nothing is launched.
static bool writesNothing(FusionGroupOpInterface group) {
  return llvm::all_of(group.getYield()->getOperandTypes(), [](Type type) {
    return cast<ShapedType>(type).getNumElements() == 0;
  });
}

/// "fusion #3 matmul at loc(...)" or "kernel @name matmul".
static void printKernelName(llvm::raw_ostream &os, FusionGroupOpInterface group,
                            unsigned index) {
  if (auto kernel = dyn_cast<KernelOp>(group.getOperation()))
    os << "kernel @" << kernel.getSymName();
  else
    os << "fusion #" << index;
  os << ' ' << stringifyFamily(group.getFamily()) << " at " << group->getLoc()
     << '\n';
}

/// Schedules (and with `attach`, annotates) every kernel under `module` for
/// `target`, printing the reasoning when `explain`; with `attach`, the
/// module carries the target as nova.target. Fails with a located error on
/// an unknown target or a body without a contract.
static LogicalResult configureKernels(ModuleOp module, StringRef targetName,
                                      bool attach, bool explain,
                                      StringRef pass) {
  mlir::nova::TargetAttr target =
      mlir::nova::resolveTarget(module, targetName, pass);
  if (!target)
    return failure();
  if (attach)
    module->setAttr(mlir::nova::NovaDialect::getTargetAttrName(), target);
  ::nova::DeviceDescriptor device = mlir::nova::deviceOf(target);
  ::nova::Configurator configurator(device);
  llvm::raw_ostream &os = llvm::outs();
  if (explain)
    os << "target " << target.getName() << ": " << device.name << ", "
       << device.arch() << ", " << device.sms << " SMs\n";
  unsigned inlineGroups = 0;
  WalkResult walk = module.walk([&](FusionGroupOpInterface group) {
    FailureOr<Contract> contract = computeContract(group);
    if (failed(contract))
      return WalkResult::interrupt();
    ::nova::Problem problem = toProblem(*contract);
    ::nova::Schedule schedule = configurator.choose(problem, explain);
    unsigned index = isa<FusionOp>(group.getOperation()) ? inlineGroups++ : 0;
    if (explain) {
      printKernelName(os, group, index);
      if (writesNothing(group))
        os << "  every output is empty: nothing to launch\n";
      else
        os << ::nova::Configurator::explain(problem, schedule);
    }
    if (attach)
      group.setScheduleAttr(
          toAttr(module.getContext(), group.getFamily(), schedule));
    return WalkResult::advance();
  });
  os.flush();
  return failure(walk.wasInterrupted());
}

namespace {
struct ConfigurePass
    : public nova_tile::impl::NovaConfigureBase<ConfigurePass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(
            configureKernels(getOperation(), target, /*attach=*/true, explain,
                             getArgument())))
      signalPassFailure();
  }
};

struct ExplainPass : public nova_tile::impl::NovaExplainBase<ExplainPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(configureKernels(getOperation(), target, /*attach=*/false,
                                /*explain=*/true, getArgument())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
