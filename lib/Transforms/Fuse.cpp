//===- Fuse.cpp - group elementwise ops into pointwise kernels ------------===//
//
// Greedy producer-consumer fusion of elementwise nova ops into
// nova_tile.fusion pointwise groups. Groups never form a cycle with the ops
// left outside, every value used outside a group is one of its results, and
// each group satisfies the pointwise contract (Contracts.h).
//
//===----------------------------------------------------------------------===//

#include "FuseMatmul.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAFUSE
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
namespace nv = mlir::nova;
namespace nt = mlir::nova_tile;

/// A constant a kernel can hold as an immediate: one repeated value.
static nv::ConstantOp splatConstant(Value v) {
  auto constant = v.getDefiningOp<nv::ConstantOp>();
  return constant && isa<SplatElementsAttr>(constant.getValue()) ? constant
                                                                 : nullptr;
}

/// An op that may join a pointwise group. Splat constants are cloned into
/// the groups that read them instead; check_labels is a runtime check, not
/// arithmetic a kernel computes.
static bool isFusible(Operation *op) {
  return nt::isElementwiseOp(op) && op->getNumResults() == 1 &&
         !isa<nv::ConstantOp, nv::CheckLabelsOp>(op);
}

static ArrayRef<int64_t> resultShape(Operation *op) {
  return cast<ShapedType>(op->getResult(0).getType()).getShape();
}

namespace {
/// The groups of one block while they are being formed.
class BlockFuser {
public:
  explicit BlockFuser(Block &block) : block(block) {
    for (Operation &op : block)
      position[&op] = position.size();
  }

  /// Forms the groups, then replaces each by a nova_tile.fusion op.
  LogicalResult run();

private:
  struct Group {
    SmallVector<Operation *> ops; // in block order once materialized
    size_t firstPosition;
  };

  /// The group of `op`, or -1.
  int groupOf(Operation *op) const {
    auto it = member.find(op);
    return it == member.end() ? -1 : it->second;
  }

  /// The op of this block that defines `v`, if any.
  Operation *producerInBlock(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && def->getBlock() == &block ? def : nullptr;
  }

  /// Whether a path leaves group `from`, passes through at least one op in
  /// neither group and enters group `to`. Merging the two would then make a
  /// cycle. The search walks producers backwards from `to` and stops at ops
  /// placed before `from`'s first op, which cannot depend on it.
  bool reachesThroughOutside(int from, int to) const;

  void merge(int into, int from);

  LogicalResult materialize(Group &group);

  Block &block;
  DenseMap<Operation *, size_t> position;
  DenseMap<Operation *, int> member;
  SmallVector<Group> groups;
};
} // namespace

bool BlockFuser::reachesThroughOutside(int from, int to) const {
  size_t floor = groups[from].firstPosition;
  SmallVector<Operation *> stack;
  DenseSet<Operation *> seen;
  auto pushProducers = [&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Operation *def = producerInBlock(operand);
      if (def && position.lookup(def) >= floor && seen.insert(def).second)
        stack.push_back(def);
    }
  };
  // Direct edges between the two groups are fine: only producers outside
  // both start a path.
  for (Operation *op : groups[to].ops)
    for (Value operand : op->getOperands())
      if (Operation *def = producerInBlock(operand)) {
        int g = groupOf(def);
        if (g != from && g != to && position.lookup(def) >= floor &&
            seen.insert(def).second)
          stack.push_back(def);
      }
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    int g = groupOf(op);
    if (g == from)
      return true;
    // A path through `to` itself would be a cycle `to` already avoids.
    if (g == to)
      continue;
    pushProducers(op);
  }
  return false;
}

void BlockFuser::merge(int into, int from) {
  for (Operation *op : groups[from].ops) {
    member[op] = into;
    groups[into].ops.push_back(op);
  }
  groups[into].firstPosition =
      std::min(groups[into].firstPosition, groups[from].firstPosition);
  groups[from].ops.clear();
}

LogicalResult BlockFuser::run() {
  for (Operation &op : block) {
    if (!isFusible(&op))
      continue;
    int self = groups.size();
    groups.push_back({{&op}, position[&op]});
    member[&op] = self;
    for (Value operand : op.getOperands()) {
      Operation *def = producerInBlock(operand);
      if (!def)
        continue;
      int producer = groupOf(def);
      if (producer < 0 || producer == groupOf(&op))
        continue;
      // One iteration space per kernel: every member has the shape of the
      // group's outputs; smaller operands come in broadcast.
      if (resultShape(def) != resultShape(&op))
        continue;
      int current = groupOf(&op);
      if (reachesThroughOutside(producer, current) ||
          reachesThroughOutside(current, producer))
        continue;
      merge(producer, current);
    }
  }
  for (Group &group : groups) {
    if (group.ops.empty())
      continue;
    llvm::sort(group.ops, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    if (failed(materialize(group)))
      return failure();
  }
  // A group sits where its last op was; ops outside it that read an earlier
  // member's value move below it. No cycle exists, so this order exists.
  if (!sortTopologically(&block))
    return block.getParentOp()->emitError(
               "nova-fuse: the fused block has no topological order"),
           failure();
  return success();
}

LogicalResult BlockFuser::materialize(Group &group) {
  DenseSet<Operation *> inGroup(group.ops.begin(), group.ops.end());
  auto usedOutside = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return !inGroup.contains(block.findAncestorOpInBlock(*user));
    });
  };

  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  SmallVector<Location> locations;
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && inGroup.contains(def))
        continue;
      if (!splatConstant(operand))
        inputs.insert(operand);
    }
    if (usedOutside(op->getResult(0)))
      outputs.push_back(op->getResult(0));
    locations.push_back(op->getLoc());
  }
  // Nothing outside reads the group: its ops are dead (elementwise ops have
  // no side effects), and a kernel without outputs breaks the contract.
  if (outputs.empty()) {
    for (Operation *op : llvm::reverse(group.ops))
      op->erase();
    return success();
  }

  Operation *last = group.ops.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  auto fusion = nt::FusionOp::create(
      builder, builder.getFusedLoc(locations), ValueRange(outputs).getTypes(),
      nt::Family::pointwise, inputs.getArrayRef(), nt::ScheduleAttr());

  Block *body = builder.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands())
      if (auto constant = splatConstant(operand);
          constant && !mapping.contains(operand))
        builder.clone(*constant, mapping);
    builder.clone(*op, mapping);
  }
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  nt::YieldOp::create(builder, last->getLoc(), yielded);

  if (failed(nt::computeContract(
          cast<nt::FusionGroupOpInterface>(fusion.getOperation()))))
    return failure();

  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inGroup.contains(block.findAncestorOpInBlock(*use.getOwner()));
    });
  llvm::SetVector<Operation *> constants;
  for (Operation *op : llvm::reverse(group.ops)) {
    for (Value operand : op->getOperands())
      if (auto constant = splatConstant(operand))
        constants.insert(constant);
    op->erase();
  }
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
  return success();
}

namespace {
struct NovaFusePass : nv::impl::NovaFuseBase<NovaFusePass> {
  void runOnOperation() override {
    for (Block &block : getOperation().getBody())
      if (failed(BlockFuser(block).run()) ||
          failed(nv::fuseMatmulsAndAttention(block)))
        return signalPassFailure();
  }
};

} // namespace
