//===- Report.cpp - nova-report -------------------------------------------===//
//
// What fusion bought, per function: kernels and launches, predicted DRAM
// traffic against the least any schedule could move, and the planned peak.
// A kernel here is what would be one GPU launch at the current level: a
// fusion group, a launch of an outlined kernel, or a loose compute op.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/StructuralHash.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace mlir::nova_tile {
#define GEN_PASS_DEF_NOVAREPORT
#include "nova/Dialect/NovaTile/Transforms/Passes.h.inc"
} // namespace mlir::nova_tile

using namespace mlir;
using namespace mlir::nova_tile;
namespace nv = mlir::nova;

static constexpr StringLiteral kUnfusedKernels = "nova_tile.unfused_kernels";
static constexpr StringLiteral kUnfusedBytes = "nova_tile.unfused_bytes";
static constexpr StringLiteral kFloor = "nova_tile.floor_bytes";
static constexpr StringLiteral kPeakBytes = "nova_mem.peak_bytes";
static constexpr StringLiteral kNaiveBytes = "nova_mem.naive_bytes";
static constexpr StringLiteral kMemDialect = "nova_mem";
static constexpr StringLiteral kMemLaunch = "nova_mem.launch";

static int64_t tensorBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return shaped.getNumElements() *
         std::max<int64_t>(1, shaped.getElementTypeBitWidth() / 8);
}

/// Ops that launch nothing: views of contiguous data and constants (a
/// splat folds into its consumer's code; other constants are data).
static bool isFree(Operation *op) {
  return isa<nv::ReshapeOp, nv::ConstantOp, func::ReturnOp>(op) ||
         (op->getDialect() &&
          op->getDialect()->getNamespace() == kMemDialect &&
          op->getName().getStringRef() != kMemLaunch);
}

/// The kernel a launch runs: nova_tile.launch, or nova_mem.launch after
/// bufferization (read by name: nova_mem builds on nova_tile, not the other
/// way round). Null for any other op.
static FlatSymbolRefAttr launchedKernel(Operation *op) {
  if (auto launch = dyn_cast<LaunchOp>(op))
    return launch.getKernelAttr();
  if (op->getName().getStringRef() == kMemLaunch)
    return op->getAttrOfType<FlatSymbolRefAttr>("kernel");
  return nullptr;
}

static bool isSplatConstant(Value v) {
  auto constant = v.getDefiningOp<nv::ConstantOp>();
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

namespace {
/// The kernels of one function at the level the report runs.
struct KernelCount {
  int64_t kernels = 0;
  int64_t distinct = 0;
  int64_t bytes = 0;
};
} // namespace

/// Kernels, distinct kernels (structural hash for groups, the op with its
/// attributes and types for loose ops) and bytes streamed: contracts for
/// groups, every operand read and result written once for a loose op.
static FailureOr<KernelCount> countKernels(func::FuncOp fn,
                                           SymbolTableCollection &symbols) {
  KernelCount count;
  std::set<std::string> hashes;
  for (Operation &op : fn.getBody().getOps()) {
    if (isFree(&op))
      continue;
    ++count.kernels;
    FusionGroupOpInterface group = dyn_cast<FusionGroupOpInterface>(&op);
    if (FlatSymbolRefAttr name = launchedKernel(&op)) {
      auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(&op, name);
      if (!kernel)
        return op.emitOpError("'")
               << name.getValue() << "' does not name a nova_tile.kernel";
      group = cast<FusionGroupOpInterface>(kernel.getOperation());
    }
    if (group) {
      FailureOr<Contract> contract = computeContract(group);
      if (failed(contract))
        return failure();
      count.bytes += contract->streamedBytes;
      hashes.insert("k" + structuralHash(group).str());
      continue;
    }
    // An operand used twice (x * x) is still read once.
    llvm::SmallDenseSet<Value, 4> read;
    for (Value operand : op.getOperands())
      if (!isSplatConstant(operand) && read.insert(operand).second)
        count.bytes += tensorBytes(operand.getType());
    for (Type type : op.getResultTypes())
      count.bytes += tensorBytes(type);
    llvm::hash_code hash = OperationEquivalence::computeHash(
        &op, [](Value v) { return hash_value(v.getType()); },
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
    hashes.insert("o" + std::to_string(size_t(hash)));
  }
  count.distinct = hashes.size();
  return count;
}

/// The returned loss: the result named "loss", else a lone scalar float
/// first result.
static Value lossOf(func::FuncOp fn) {
  auto ret = dyn_cast<func::ReturnOp>(fn.getBody().back().getTerminator());
  if (!ret)
    return nullptr;
  for (unsigned i = 0, e = ret.getNumOperands(); i < e; ++i)
    if (auto name = fn.getResultAttrOfType<StringAttr>(
            i, nv::NovaDialect::getNameAttrName());
        name && name.getValue() == "loss")
      return ret.getOperand(i);
  if (ret.getNumOperands() == 0)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(ret.getOperand(0).getType());
  if (type && type.getRank() == 0 && isa<FloatType>(type.getElementType()))
    return ret.getOperand(0);
  return nullptr;
}

namespace {
struct Floor {
  int64_t inputs = 0, outputs = 0, saved = 0;
  int64_t total() const { return inputs + outputs + 2 * saved; }
};
} // namespace

/// Every entry input read once, every output written once, every saved
/// activation (defined before the op computing the loss, used after it)
/// written once and read once. Views count as their source.
static Floor floorOf(func::FuncOp fn) {
  Floor floor;
  for (Type type : fn.getArgumentTypes())
    floor.inputs += tensorBytes(type);
  for (Type type : fn.getResultTypes())
    floor.outputs += tensorBytes(type);
  Value loss = lossOf(fn);
  Operation *lossOp = loss ? loss.getDefiningOp() : nullptr;
  if (!lossOp)
    return floor;
  Block &body = fn.getBody().front();
  lossOp = body.findAncestorOpInBlock(*lossOp);
  llvm::DenseSet<Value> saved;
  for (Operation &op : body) {
    if (&op == lossOp)
      break;
    if (isa<nv::ConstantOp>(op))
      continue;
    for (Value result : op.getResults()) {
      Value source = result;
      while (auto view = source.getDefiningOp<nv::ReshapeOp>())
        source = view.getOperand();
      if (isa<BlockArgument>(source) || source.getDefiningOp<nv::ConstantOp>())
        continue;
      bool usedAfter = llvm::any_of(result.getUsers(), [&](Operation *user) {
        Operation *top = body.findAncestorOpInBlock(*user);
        return top && top != lossOp && lossOp->isBeforeInBlock(top) &&
               !isa<func::ReturnOp>(top);
      });
      if (usedAfter && saved.insert(source).second)
        floor.saved += tensorBytes(source.getType());
    }
  }
  return floor;
}

static std::string gb(int64_t bytes) {
  return llvm::formatv("{0:F3} GB", double(bytes) / 1e9).str();
}

static std::string gib(int64_t bytes) {
  return llvm::formatv("{0:F3} GiB", double(bytes) / double(1 << 30)).str();
}

static std::optional<int64_t> intAttr(Operation *op, StringRef name) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return std::nullopt;
}

static void printReport(llvm::raw_ostream &os, func::FuncOp fn,
                        const KernelCount &now) {
  std::optional<int64_t> unfusedKernels = intAttr(fn, kUnfusedKernels);
  std::optional<int64_t> unfusedBytes = intAttr(fn, kUnfusedBytes);
  os << "nova-report @" << fn.getSymName() << '\n';
  os << "  kernels before fusion: ";
  if (unfusedKernels)
    os << *unfusedKernels << '\n';
  else
    os << "not recorded (run nova-report{record=true} before nova-fuse)\n";
  os << "  kernels after fusion: " << now.kernels << '\n';
  os << "  distinct kernels: " << now.distinct << '\n';
  os << "  launches per step: " << now.kernels << '\n';
  // Fusion reorders ops around the loss, so the floor of the unfused step,
  // when recorded, is the one every level is measured against.
  Floor floor = floorOf(fn);
  if (auto recorded = fn->getAttrOfType<DenseI64ArrayAttr>(kFloor);
      recorded && recorded.size() == 3)
    floor = {recorded[0], recorded[1], recorded[2]};
  os << "  bytes moved per step: " << now.bytes << " (" << gb(now.bytes)
     << ")\n";
  os << "  floor: " << floor.total() << " (" << gb(floor.total())
     << "): inputs " << floor.inputs << ", outputs " << floor.outputs
     << ", saved activations 2 x " << floor.saved << '\n';
  if (floor.total() > 0)
    os << llvm::formatv("  bytes against the floor: {0:F2}x\n",
                        double(now.bytes) / double(floor.total()));
  if (unfusedBytes && *unfusedBytes > 0)
    os << "  bytes before fusion: " << *unfusedBytes << " ("
       << gb(*unfusedBytes) << "); fusion removed "
       << llvm::formatv("{0:F1}%", 100.0 * double(*unfusedBytes - now.bytes) /
                                       double(*unfusedBytes))
       << '\n';
  std::optional<int64_t> peak = intAttr(fn, kPeakBytes);
  std::optional<int64_t> naive = intAttr(fn, kNaiveBytes);
  if (peak && naive && *naive > 0)
    os << "  planned peak: " << *peak << " (" << gib(*peak)
       << ") against a naive sum of " << *naive << " (" << gib(*naive) << "), "
       << llvm::formatv("{0:F1}%", 100.0 * double(*peak) / *naive) << '\n';
  else
    os << "  planned peak: not planned (no " << kPeakBytes << " and "
       << kNaiveBytes << ")\n";
}

namespace {
struct ReportPass : public nova_tile::impl::NovaReportBase<ReportPass> {
  using Base::Base;
  void runOnOperation() override {
    SymbolTableCollection symbols;
    llvm::raw_ostream &os = llvm::outs();
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      FailureOr<KernelCount> count = countKernels(fn, symbols);
      if (failed(count))
        return signalPassFailure();
      if (record) {
        Builder b(fn.getContext());
        fn->setAttr(kUnfusedKernels, b.getI64IntegerAttr(count->kernels));
        fn->setAttr(kUnfusedBytes, b.getI64IntegerAttr(count->bytes));
        Floor floor = floorOf(fn);
        fn->setAttr(kFloor, b.getDenseI64ArrayAttr(
                                {floor.inputs, floor.outputs, floor.saved}));
        continue;
      }
      printReport(os, fn, *count);
    }
    os.flush();
    if (!record)
      markAllAnalysesPreserved();
  }
};
} // namespace
