//===- Fuse.cpp - group nova ops into pointwise, reduction and optimizer
//               kernels ----------------------------------------------===//
//
// Greedy fusion of the ops of each block into nova_tile.fusion groups:
//
// - elementwise ops (and explicit broadcasts) of one shape form pointwise
//   groups;
// - a reduction along the innermost dim joins its elementwise producers and
//   consumers over the same rows (per-element, per-row or scalar values) in a
//   row_reduction group, several of them per group when they reduce the same
//   rows x cols space;
// - reductions across the rows (a column sum over leading dims, or a total)
//   join a group over the same space whose other ops do not read their
//   result: with no row reduction the group is a column_reduction, and a
//   row_reduction group may produce them too (per-block partials combined
//   after the last row);
// - a reshape between a reduction and its reader joins their group;
// - groups over the same space that read the same tensor join one kernel
//   (horizontal fusion: LayerNorm backward's dgamma, dbeta and dx);
// - transposes and slices of a tensor computed elsewhere are read by the
//   group through the view instead of being copied first;
// - every adamw of the block, the elementwise ops that only feed them (a
//   clipping scale) and the ones that only read them (bf16 working copies)
//   form one optimizer group; with global-norm clipping, the sums over whole
//   tensors whose scalars reach the updates form a second, multi-tensor one;
// - an elementwise op of function arguments (a parameter's cast) that only
//   fused ops read is recomputed in each group that reads it instead of
//   being a kernel of its own; after grouping, a kernel output that one
//   elementwise op computes from the kernel's other outputs is recomputed by
//   its readers when they read those anyway (LayerNorm's normalized x is not
//   saved for the backward);
// - a row kernel's sum that waits on another row reduction only through
//   per-row factors is split by linearity into sums that do not
//   (RowSums.cpp: LayerNorm's backward reads its rows once for its sums).
//
// A merge happens only when the union satisfies its family's contract, and
// never when a path leaves one of the two groups and re-enters the other
// through ops or groups outside both (a cycle). Among the producers of an
// op, the one whose value is largest is tried first, so the largest
// intermediate is the one kept in registers. Reductions and matmuls are
// never duplicated; fusible ops nothing reads are dropped; ops no rule
// covers stay outside, unchanged.
//
//===----------------------------------------------------------------------===//

#include "FuseMatmul.h"
#include "RowSums.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Sequence.h"
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

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

static int64_t byteSize(Value v) {
  auto type = cast<ShapedType>(v.getType());
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

namespace {
/// How an op takes part in a group.
enum class Role {
  None,        // stays outside every group
  Elementwise, // one value per point of its result (broadcasts included)
  AlongRows,   // a reduction along the innermost dim of its first operand
  AcrossRows,  // a column sum or a total: read by nothing in its group
  Update,      // an optimizer update
  Relabel,     // a reshape: joins a reduction kernel that reads or makes
               // its operand, never a kernel of its own
};
} // namespace

static bool isDims(ArrayRef<int64_t> dims, int64_t count) {
  return dims.size() == size_t(count) &&
         llvm::equal(dims, llvm::seq<int64_t>(0, count));
}

static Role roleOf(Operation *op) {
  if (isa<nv::AdamWOp>(op))
    return Role::Update;
  if (isa<nv::ReshapeOp>(op))
    return Role::Relabel;
  // check_labels is a runtime check, not arithmetic a kernel computes;
  // splat constants are cloned into the groups that read them instead.
  if (isa<nv::BroadcastOp>(op) ||
      (nt::isElementwiseOp(op) && op->getNumResults() == 1 &&
       !isa<nv::ConstantOp, nv::CheckLabelsOp>(op)))
    return Role::Elementwise;
  if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
    int64_t rank = shapeOf(reduce.getInput()).size();
    ArrayRef<int64_t> dims = reduce.getDims();
    if (rank >= 1 && dims == ArrayRef<int64_t>{rank - 1})
      return Role::AlongRows;
    // Column sums over leading dims (every dim but the last, or fewer: a
    // sum over the batch dim alone) and totals over every dim.
    if (rank >= 2 && !dims.empty() && isDims(dims, dims.size()))
      return Role::AcrossRows;
    return Role::None;
  }
  if (isa<nv::SoftmaxOp, nv::LogSoftmaxOp>(op)) {
    int64_t rank = shapeOf(op->getOperand(0)).size();
    return op->getAttrOfType<IntegerAttr>("dim").getInt() == rank - 1
               ? Role::AlongRows
               : Role::None;
  }
  if (isa<nv::LayerNormOp>(op))
    return Role::AlongRows;
  return Role::None;
}

/// The iteration space of a kernel: its shape, and for reductions how many
/// leading dims index the rows (the others index the columns).
struct Space {
  SmallVector<int64_t> shape;
  size_t rowDims = 0;
};

/// Whether `shape` is one value per element, per row or a scalar of
/// `space`: the values a reduction kernel computes.
static bool computedInSpace(ArrayRef<int64_t> shape, const Space &space) {
  ArrayRef<int64_t> full = space.shape;
  if (shape == full || llvm::product_of(shape) == 1)
    return true;
  ArrayRef<int64_t> rows = full.take_front(space.rowDims);
  return shape == rows ||
         (shape.size() == full.size() &&
          shape.take_front(space.rowDims) == rows &&
          llvm::product_of(shape.drop_front(space.rowDims)) == 1);
}

/// Drops the fusible ops nothing reads (elementwise code, reductions,
/// reshapes and updates have no side effects), so no kernel computes them.
static void eraseDeadFusibleOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (op.use_empty() && roleOf(&op) != Role::None)
      op.erase();
}

namespace {
/// The groups of one block while they are being formed.
class BlockFuser {
public:
  explicit BlockFuser(Block &block) : block(block) {
    for (Operation &op : block) {
      position[&op] = opAt.size();
      opAt.push_back(&op);
    }
    // An op depends on what it and the ops of its regions read.
    producers.resize(opAt.size());
    for (auto [i, op] : llvm::enumerate(opAt))
      op->walk([&, i = i](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = producerInBlock(operand);
              def && !llvm::is_contained(producers[i], position[def]))
            producers[i].push_back(position[def]);
      });
    groupAt.assign(opAt.size(), -1);
    visited.assign(opAt.size(), 0);
  }

  /// Forms the groups, then replaces each by a nova_tile.fusion op.
  LogicalResult run();

private:
  struct Group {
    SmallVector<Operation *> ops; // in block order once materialized
    SmallVector<unsigned> ids;    // the positions of `ops`
    bool optimizer = false;
  };

  /// The group of `op`, or -1.
  int groupOf(Operation *op) const {
    auto it = position.find(op);
    return it == position.end() ? -1 : groupAt[it->second];
  }

  /// The op of this block that defines `v`, if any.
  Operation *producerInBlock(Value v) const {
    Operation *def = v.getDefiningOp();
    return def && def->getBlock() == &block ? def : nullptr;
  }

  int newGroup(Operation *op) {
    int id = groups.size();
    unsigned at = position.lookup(op);
    groups.push_back({{op}, {at}});
    groupAt[at] = id;
    groupVisited.push_back(0);
    return id;
  }

  bool optimizerCandidate(Operation *op) const;
  bool joinOptimizer(int &group, Operation *op);

  /// Takes the only op of a group just made back out of it.
  void ungroup(int single) {
    for (unsigned at : groups[single].ids)
      groupAt[at] = -1;
    groups[single].ops.clear();
    groups[single].ids.clear();
  }

  /// The iteration space of the union of groups `a` and `b` (b may be -1),
  /// or nothing when their ops cannot share one kernel: one shape for
  /// elementwise code alone; otherwise one rows x cols space every
  /// reduction works on, every computed value per element, per row or
  /// scalar of it, and no reduction across the rows read inside.
  std::optional<Space> unionSpace(int a, int b) const;

  /// Whether a path leaves group `from`, passes through at least one kernel
  /// or op in neither group and enters group `to`. Merging the two would
  /// then make a cycle. The search walks producers backwards from `to`; on
  /// reaching an op of another group it continues from every op of that
  /// group, since the group becomes one kernel.
  bool reachesThroughOutside(int from, int to);

  /// Merges `from` into `into` when the union has a space and no cycle.
  bool tryMerge(int into, int from);
  void merge(int into, int from);

  void findRecomputable();
  /// The updates group; -1 when the block has no update.
  int formOptimizerGroup();
  /// Sums over whole tensors whose scalars reach the updates (a global
  /// gradient norm) in one multi-tensor kernel before them.
  void formGlobalNormGroup(int updates);
  /// Adds to optimizer group `group` every elementwise producer that only
  /// the group reads, until none is left.
  void absorbProducersOnlyReadBy(int group, SmallVector<Operation *> worklist);
  void fuseProducersAndConsumers();
  void fuseSiblings();

  /// A transpose or slice outside every group that `group` can read its
  /// operand through.
  bool absorbsView(const Group &group, ArrayRef<int64_t> space, Value v) const;

  /// Replaces the group by a nova_tile.fusion op.
  void materialize(Group &group);

  Block &block;
  DenseMap<Operation *, unsigned> position;
  std::vector<Operation *> opAt;
  /// The producers in this block of each op, by position.
  std::vector<SmallVector<unsigned, 4>> producers;
  /// The group of each op, by position, or -1.
  std::vector<int> groupAt;
  SmallVector<Group> groups;
  /// Marks of the current reachability search.
  std::vector<unsigned> visited, groupVisited;
  unsigned search = 0;
  /// Elementwise ops of function arguments cloned into every group that
  /// reads them.
  DenseSet<Operation *> recomputable;
  /// Ops cloned into groups; erased once nothing reads them.
  llvm::SetVector<Operation *> cloned;
};
} // namespace

std::optional<Space> BlockFuser::unionSpace(int a, int b) const {
  auto ops = llvm::concat<Operation *const>(
      ArrayRef<Operation *>(groups[a].ops),
      b < 0 ? ArrayRef<Operation *>() : ArrayRef<Operation *>(groups[b].ops));
  auto inUnion = [&](Operation *op) {
    int g = groupOf(op);
    return g == a || (b >= 0 && g == b);
  };
  // Row reductions and column sums fix the space; a total only sums a
  // value of it.
  std::optional<Space> fixed;
  SmallVector<int64_t> largest;
  bool reduces = false;
  for (Operation *op : ops) {
    Role role = roleOf(op);
    if (role != Role::AlongRows && role != Role::AcrossRows)
      continue;
    reduces = true;
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    std::optional<size_t> rowDims;
    if (role == Role::AlongRows)
      rowDims = in.size() - 1;
    else if (size_t reduced = cast<nv::ReduceOp>(op).getDims().size();
             reduced < in.size())
      rowDims = reduced;
    if (rowDims) {
      if (fixed &&
          (ArrayRef<int64_t>(fixed->shape) != in || fixed->rowDims != *rowDims))
        return std::nullopt;
      fixed = Space{SmallVector<int64_t>(in), *rowDims};
    }
    if (largest.empty() || llvm::product_of(in) > llvm::product_of(largest))
      largest.assign(in.begin(), in.end());
    // Nothing in the kernel may read a result complete only at its end.
    if (role == Role::AcrossRows)
      for (Operation *user : op->getUsers())
        if (inUnion(user))
          return std::nullopt;
  }
  if (!reduces) {
    // Pointwise: one iteration space, the shape of every value.
    ArrayRef<int64_t> shape = shapeOf(groups[a].ops.front()->getResult(0));
    for (Operation *op : ops)
      if (shapeOf(op->getResult(0)) != shape)
        return std::nullopt;
    return Space{SmallVector<int64_t>(shape), 0};
  }
  Space space =
      fixed ? *fixed : Space{largest, largest.empty() ? 0 : largest.size() - 1};
  for (Operation *op : ops) {
    if (roleOf(op) == Role::AcrossRows) {
      if (!computedInSpace(shapeOf(op->getOperand(0)), space))
        return std::nullopt;
      continue;
    }
    for (Value r : op->getResults())
      if (!computedInSpace(shapeOf(r), space))
        return std::nullopt;
  }
  return space;
}

bool BlockFuser::reachesThroughOutside(int from, int to) {
  ++search;
  SmallVector<unsigned> stack;
  // Direct edges between the two groups are fine: only producers outside
  // both start a path.
  for (unsigned op : groups[to].ids)
    for (unsigned def : producers[op])
      if (groupAt[def] != from && groupAt[def] != to)
        stack.push_back(def);
  while (!stack.empty()) {
    unsigned op = stack.pop_back_val();
    if (visited[op] == search)
      continue;
    visited[op] = search;
    int g = groupAt[op];
    if (g == from)
      return true;
    // A path through `to` itself would be a cycle `to` already avoids.
    if (g == to)
      continue;
    if (g < 0) {
      llvm::append_range(stack, producers[op]);
      continue;
    }
    if (groupVisited[g] == search)
      continue;
    groupVisited[g] = search;
    for (unsigned member : groups[g].ids) {
      visited[member] = search;
      llvm::append_range(stack, producers[member]);
    }
  }
  return false;
}

void BlockFuser::merge(int into, int from) {
  for (auto [op, at] : llvm::zip(groups[from].ops, groups[from].ids)) {
    groupAt[at] = into;
    groups[into].ops.push_back(op);
    groups[into].ids.push_back(at);
  }
  groups[from].ops.clear();
  groups[from].ids.clear();
}

bool BlockFuser::tryMerge(int into, int from) {
  if (into == from || groups[into].optimizer != groups[from].optimizer)
    return false;
  // The optimizer's contract has no shared space: each update is
  // elementwise over its own tensor.
  if (!groups[into].optimizer && !unionSpace(into, from))
    return false;
  if (reachesThroughOutside(from, into) || reachesThroughOutside(into, from))
    return false;
  merge(into, from);
  return true;
}

void BlockFuser::findRecomputable() {
  for (Operation &op : block) {
    if (roleOf(&op) != Role::Elementwise || op.use_empty())
      continue;
    bool ofArguments = llvm::all_of(op.getOperands(), [&](Value v) {
      auto arg = dyn_cast<BlockArgument>(v);
      return (arg && arg.getOwner() == &block) || splatConstant(v);
    });
    bool readByFusedOps = llvm::all_of(op.getUsers(), [&](Operation *user) {
      return user->getBlock() == &block && roleOf(user) != Role::None;
    });
    if (ofArguments && readByFusedOps)
      recomputable.insert(&op);
  }
}

/// An elementwise op an optimizer kernel may hold.
bool BlockFuser::optimizerCandidate(Operation *op) const {
  return op && op->getBlock() == &block && roleOf(op) == Role::Elementwise &&
         !isa<nv::BroadcastOp>(op) && groupOf(op) < 0 &&
         !recomputable.contains(op);
}

/// Adds `op` to optimizer group `*group` (made on first use), unless that
/// would make a cycle.
bool BlockFuser::joinOptimizer(int &group, Operation *op) {
  int single = newGroup(op);
  groups[single].optimizer = true;
  if (group < 0) {
    group = single;
    return true;
  }
  if (tryMerge(group, single))
    return true;
  ungroup(single);
  return false;
}

void BlockFuser::absorbProducersOnlyReadBy(int group,
                                           SmallVector<Operation *> worklist) {
  auto inGroup = [&](Operation *op) { return groupOf(op) == group; };
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *def = producerInBlock(operand);
      if (optimizerCandidate(def) && llvm::all_of(def->getUsers(), inGroup) &&
          joinOptimizer(group, def))
        worklist.push_back(def);
    }
  }
}

int BlockFuser::formOptimizerGroup() {
  int optimizer = -1;
  SmallVector<Operation *> updates;
  for (Operation &op : block)
    if (roleOf(&op) == Role::Update && joinOptimizer(optimizer, &op))
      updates.push_back(&op);
  if (optimizer < 0)
    return -1;
  // Readers of the updated tensors alone (bf16 working copies), then the
  // producers only the kernel reads (a clipping scale, gradient casts).
  SmallVector<Operation *> worklist(updates);
  for (size_t i = 0; i < worklist.size(); ++i)
    for (Operation *user : worklist[i]->getUsers())
      if (optimizerCandidate(user) &&
          llvm::all_of(user->getOperands(),
                       [&](Value v) {
                         Operation *def = producerInBlock(v);
                         return splatConstant(v) ||
                                (def && groupOf(def) == optimizer);
                       }) &&
          joinOptimizer(optimizer, user))
        worklist.push_back(user);
  absorbProducersOnlyReadBy(optimizer, worklist);
  return optimizer;
}

static bool sumsWholeTensor(Operation *op) {
  auto reduce = dyn_cast<nv::ReduceOp>(op);
  if (!reduce || reduce.getKind() != nv::ReduceKind::sum)
    return false;
  int64_t rank = shapeOf(reduce.getInput()).size();
  return rank >= 1 && isDims(reduce.getDims(), rank);
}

void BlockFuser::formGlobalNormGroup(int updates) {
  if (updates < 0)
    return;
  // Walk back from the updates through scalar elementwise ops (the norm's
  // square root, the sum of the per-tensor sums) to the sums.
  SmallVector<Operation *> sums;
  SmallVector<Value> work;
  DenseSet<Operation *> seen;
  for (Operation *op : groups[updates].ops)
    llvm::append_range(work, op->getOperands());
  while (!work.empty()) {
    Operation *def = producerInBlock(work.pop_back_val());
    if (!def || groupOf(def) >= 0 || !seen.insert(def).second)
      continue;
    if (sumsWholeTensor(def))
      sums.push_back(def);
    else if (roleOf(def) == Role::Elementwise &&
             llvm::product_of(shapeOf(def->getResult(0))) == 1)
      llvm::append_range(work, def->getOperands());
  }
  // One sum is an ordinary reduction kernel.
  if (sums.size() < 2)
    return;
  llvm::sort(sums, [&](Operation *a, Operation *b) {
    return position[a] < position[b];
  });
  int norm = -1;
  SmallVector<Operation *> joined;
  for (Operation *sum : sums)
    if (joinOptimizer(norm, sum))
      joined.push_back(sum);
  absorbProducersOnlyReadBy(norm, joined);
}

void BlockFuser::fuseProducersAndConsumers() {
  for (Operation &op : block) {
    Role role = roleOf(&op);
    if (role == Role::None || role == Role::Update || role == Role::Relabel ||
        groupOf(&op) >= 0 || recomputable.contains(&op))
      continue;
    newGroup(&op);
    // The largest value first: keeping it in registers saves the most.
    SmallVector<Value> operands(op.getOperands());
    llvm::stable_sort(
        operands, [](Value x, Value y) { return byteSize(x) > byteSize(y); });
    for (Value operand : operands) {
      Operation *def = producerInBlock(operand);
      if (!def)
        continue;
      // A reshape only this op reads (a row sum given back its kept dim)
      // joins the reduction kernel that makes its operand, or else the one
      // that reads it; it is never a kernel of its own.
      if (roleOf(def) == Role::Relabel && groupOf(def) < 0 &&
          def->hasOneUse()) {
        Operation *source = producerInBlock(def->getOperand(0));
        int from = source ? groupOf(source) : -1;
        int single = newGroup(def);
        if (from < 0 || groups[from].optimizer) {
          if (!tryMerge(groupOf(&op), single))
            ungroup(single);
          continue;
        }
        if (!tryMerge(from, single)) {
          ungroup(single);
          continue;
        }
      }
      int producer = groupOf(def);
      if (producer < 0 || groups[producer].optimizer)
        continue;
      tryMerge(producer, groupOf(&op));
    }
  }
}

void BlockFuser::fuseSiblings() {
  // The groups that read `v`, directly or through an op they recompute.
  auto readers = [&](Value v) {
    SmallVector<int> found;
    auto add = [&](Operation *user) {
      Operation *op = block.findAncestorOpInBlock(*user);
      int g = op ? groupOf(op) : -1;
      if (g >= 0 && !groups[g].optimizer && !llvm::is_contained(found, g))
        found.push_back(g);
    };
    for (Operation *user : v.getUsers()) {
      if (recomputable.contains(user))
        llvm::for_each(user->getUsers(), add);
      else
        add(user);
    }
    return found;
  };
  auto visit = [&](Value v) {
    if (v.use_empty() || splatConstant(v))
      return;
    // Only a tensor both kernels stream is worth sharing.
    SmallVector<int> readingGroups = readers(v);
    if (readingGroups.size() < 2)
      return;
    SmallVector<int> candidates;
    for (int g : readingGroups) {
      auto space = unionSpace(g, -1);
      if (space && ArrayRef<int64_t>(space->shape) == shapeOf(v))
        candidates.push_back(g);
    }
    for (size_t i = 0; i < candidates.size(); ++i)
      for (size_t j = i + 1; j < candidates.size(); ++j)
        if (!groups[candidates[i]].ops.empty() &&
            !groups[candidates[j]].ops.empty())
          tryMerge(candidates[i], candidates[j]);
  };
  for (BlockArgument arg : block.getArguments())
    visit(arg);
  for (Operation &op : block)
    for (Value result : op.getResults())
      visit(result);
}

LogicalResult BlockFuser::run() {
  findRecomputable();
  formGlobalNormGroup(formOptimizerGroup());
  fuseProducersAndConsumers();
  fuseSiblings();
  for (Group &group : groups) {
    if (group.ops.empty())
      continue;
    llvm::sort(group.ops, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    materialize(group);
  }
  for (Operation *op : llvm::reverse(cloned))
    if (op->use_empty())
      op->erase();
  // A group sits where its last op was; ops outside it that read an earlier
  // member's value move below it. No cycle exists, so this order exists.
  if (!sortTopologically(&block))
    return block.getParentOp()->emitError(
               "nova-fuse: the fused block has no topological order"),
           failure();
  return success();
}

bool BlockFuser::absorbsView(const Group &group, ArrayRef<int64_t> space,
                             Value v) const {
  Operation *view = producerInBlock(v);
  return view && !group.optimizer && isa<nv::TransposeOp, nv::SliceOp>(view) &&
         groupOf(view) < 0 && shapeOf(v) == space;
}

void BlockFuser::materialize(Group &group) {
  DenseSet<Operation *> inGroup(group.ops.begin(), group.ops.end());
  auto usedOutside = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return !inGroup.contains(block.findAncestorOpInBlock(*user));
    });
  };
  SmallVector<int64_t> space;
  nt::Family family = nt::Family::pointwise;
  if (group.optimizer) {
    family = nt::Family::optimizer;
  } else {
    int id = groupOf(group.ops.front());
    space = unionSpace(id, -1)->shape;
    for (Operation *op : group.ops) {
      Role role = roleOf(op);
      if (role == Role::AlongRows)
        family = nt::Family::row_reduction;
      else if (role == Role::AcrossRows && family == nt::Family::pointwise)
        family = nt::Family::column_reduction;
    }
  }

  // The kernel's inputs: values read directly (once each), and the operand
  // of every absorbed view (one input per view, since a kernel reads each
  // input one way). Values of recomputed ops are computed in the body from
  // their own operands.
  llvm::SetVector<Value> direct;
  llvm::SetVector<Operation *> views;
  auto addOperand = [&](Value v) {
    if (splatConstant(v))
      return;
    if (Operation *def = producerInBlock(v);
        def && recomputable.contains(def)) {
      for (Value x : def->getOperands())
        if (!splatConstant(x))
          direct.insert(x);
      return;
    }
    if (absorbsView(group, space, v))
      views.insert(v.getDefiningOp());
    else
      direct.insert(v);
  };
  SmallVector<Value> outputs;
  SmallVector<Location> locations;
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !inGroup.contains(def))
        addOperand(operand);
    }
    for (Value result : op->getResults())
      if (usedOutside(result))
        outputs.push_back(result);
    locations.push_back(op->getLoc());
  }
  // Nothing reads the group (its last reader was in a group that became
  // dead too): a kernel without outputs would break every contract.
  if (outputs.empty()) {
    for (Operation *op : llvm::reverse(group.ops))
      op->erase();
    return;
  }
  SmallVector<Value> inputs(direct.begin(), direct.end());
  for (Operation *view : views)
    inputs.push_back(view->getOperand(0));

  Operation *last = group.ops.back();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  auto fusion = nt::FusionOp::create(builder, builder.getFusedLoc(locations),
                                     ValueRange(outputs).getTypes(), family,
                                     inputs, nt::ScheduleAttr());

  Block *body = builder.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value input : direct)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *view : views) {
    Value operand = view->getOperand(0);
    IRMapping viewMapping;
    viewMapping.map(operand,
                    body->addArgument(operand.getType(), operand.getLoc()));
    mapping.map(view->getResult(0),
                builder.clone(*view, viewMapping)->getResult(0));
    cloned.insert(view);
  }
  // Splat constants and recomputed ops are cloned next to their first
  // reader.
  std::function<void(Value)> provide = [&](Value v) {
    if (mapping.contains(v))
      return;
    Operation *def = v.getDefiningOp();
    for (Value x : def->getOperands())
      provide(x);
    builder.clone(*def, mapping);
    cloned.insert(def);
  };
  for (Operation *op : group.ops) {
    for (Value operand : op->getOperands())
      provide(operand);
    builder.clone(*op, mapping);
  }
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  nt::YieldOp::create(builder, last->getLoc(), yielded);

  // The merge rules mirror the contracts; should a group still break its
  // family's contract, its ops stay as they are, unfused and correct.
  if (failed(nt::computeContract(
          cast<nt::FusionGroupOpInterface>(fusion.getOperation()),
          /*emitErrors=*/false))) {
    fusion.erase();
    return;
  }

  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inGroup.contains(block.findAncestorOpInBlock(*use.getOwner()));
    });
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
}

//===----------------------------------------------------------------------===//
// Recomputing cheap values instead of saving them
//===----------------------------------------------------------------------===//

/// A kernel family whose bodies hold any elementwise op over their space.
static bool holdsElementwise(nt::FusionOp op) {
  nt::Family family = op.getFamily();
  return family == nt::Family::pointwise ||
         family == nt::Family::row_reduction ||
         family == nt::Family::column_reduction;
}

/// `fusion` rebuilt with `inputs` and a body made by `build`, which gets the
/// new block (arguments added for `inputs`) and the mapping from the old
/// block arguments it keeps; the yield is rebuilt from `yielded` mapped.
/// Returns null, erasing the new op, when the result breaks the contract.
static nt::FusionOp
rebuildFusion(nt::FusionOp fusion, ArrayRef<Value> inputs,
              ArrayRef<Value> yielded,
              function_ref<void(OpBuilder &, IRMapping &)> build) {
  OpBuilder builder(fusion);
  auto rebuilt = nt::FusionOp::create(
      builder, fusion.getLoc(), ValueRange(yielded).getTypes(),
      fusion.getFamily(), inputs, fusion.getScheduleAttr());
  Block *body = builder.createBlock(&rebuilt.getBody());
  for (Value input : inputs)
    body->addArgument(input.getType(), input.getLoc());
  IRMapping mapping;
  build(builder, mapping);
  SmallVector<Value> results;
  for (Value v : yielded)
    results.push_back(mapping.lookupOrDefault(v));
  nt::YieldOp::create(
      builder, fusion.getBody().front().getTerminator()->getLoc(), results);
  if (failed(nt::computeContract(
          cast<nt::FusionGroupOpInterface>(rebuilt.getOperation()),
          /*emitErrors=*/false))) {
    rebuilt.erase();
    return nullptr;
  }
  return rebuilt;
}

/// Lets the kernels that read result `index` of `producer` compute it
/// themselves from values they already read (or small per-row, per-column
/// or scalar ones), so the producer no longer writes it: LayerNorm's x̂ =
/// (x - mean) * rstd is recomputed by the backward kernel that reads
/// x - mean and rstd anyway, and is not saved between forward and backward.
/// Only an elementwise op whose operands the producer already yields (or
/// reads) qualifies, and only when every reader is a kernel that can hold
/// it. Returns whether it rewrote anything.
static bool recomputeInReaders(nt::FusionOp producer, unsigned index) {
  Block &body = producer.getBody().front();
  Operation *yield = body.getTerminator();
  Value inner = yield->getOperand(index);
  Operation *op = inner.getDefiningOp();
  if (!op || op->getBlock() != &body || roleOf(op) != Role::Elementwise ||
      isa<nv::BroadcastOp>(op))
    return false;
  Value outer = producer.getResult(index);
  int64_t size = llvm::product_of(shapeOf(outer));
  // The elementwise ops that compute `inner` from values outside the
  // producer: its inputs, its other results and splat constants the readers
  // clone (`leaves`, each with its source outside, null for a constant).
  // A short chain only: recomputing is for cheap values (GELU's tanh term
  // written from primitives is six ops).
  constexpr size_t kMaxChain = 12;
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> leaves, sources;
  SmallVector<Value> work{inner};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (llvm::is_contained(leaves, v))
      continue;
    Value source;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      source = producer.getInputs()[arg.getArgNumber()];
    } else if (splatConstant(v)) {
      source = Value();
    } else if (auto it = llvm::find(yield->getOperands(), v);
               v != inner && it != yield->getOperands().end()) {
      source = producer.getResult(it - yield->operand_begin());
    } else {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != &body ||
          roleOf(def) != Role::Elementwise || isa<nv::BroadcastOp>(def))
        return false;
      if (chain.insert(def) && chain.size() > kMaxChain)
        return false;
      llvm::append_range(work, def->getOperands());
      continue;
    }
    leaves.push_back(v);
    sources.push_back(source);
  }
  SmallVector<nt::FusionOp> readers;
  for (Operation *user : outer.getUsers()) {
    auto reader = dyn_cast<nt::FusionOp>(user);
    if (!reader || reader == producer || !holdsElementwise(reader))
      return false;
    if (!llvm::is_contained(readers, reader))
      readers.push_back(reader);
  }
  if (readers.empty())
    return false;
  // A reader must not start reading a large tensor it did not read before:
  // that would keep the tensor alive instead of the one saved.
  for (nt::FusionOp reader : readers)
    for (Value source : sources)
      if (source && llvm::product_of(shapeOf(source)) * 8 > size &&
          !llvm::is_contained(reader.getInputs(), source))
        return false;

  SmallVector<std::pair<nt::FusionOp, nt::FusionOp>> rewritten;
  for (nt::FusionOp reader : readers) {
    Block &readerBody = reader.getBody().front();
    // Inputs: the old ones but `outer`, plus the sources not read directly
    // (through no view) yet.
    SmallVector<Value> inputs;
    SmallVector<BlockArgument> kept;
    for (auto [input, arg] :
         llvm::zip(reader.getInputs(), readerBody.getArguments()))
      if (input != outer) {
        inputs.push_back(input);
        kept.push_back(arg);
      }
    auto directArg = [&](Value source) -> int {
      for (auto [i, arg] : llvm::enumerate(kept))
        if (inputs[i] == source &&
            llvm::none_of(arg.getUsers(), [](Operation *u) {
              return isa<nv::TransposeOp, nv::SliceOp, nv::ReshapeOp>(u);
            }))
          return i;
      return -1;
    };
    SmallVector<int> sourceArg;
    for (Value source : sources) {
      if (!source) {
        sourceArg.push_back(-1);
        continue;
      }
      int at = directArg(source);
      if (at < 0) {
        at = inputs.size();
        inputs.push_back(source);
      }
      sourceArg.push_back(at);
    }
    SmallVector<Value> yielded(readerBody.getTerminator()->getOperands());
    nt::FusionOp rebuilt = rebuildFusion(
        reader, inputs, yielded, [&](OpBuilder &b, IRMapping &mapping) {
          Block *newBody = b.getInsertionBlock();
          for (auto [i, arg] : llvm::enumerate(kept))
            mapping.map(arg, newBody->getArgument(i));
          IRMapping local;
          for (auto [leaf, at] : llvm::zip(leaves, sourceArg)) {
            if (at >= 0)
              local.map(leaf, newBody->getArgument(at));
            else
              local.map(leaf, b.clone(*leaf.getDefiningOp())->getResult(0));
          }
          // The chain in the producer's order, so operands come first.
          SmallVector<Operation *> ordered(chain.begin(), chain.end());
          llvm::sort(ordered, [](Operation *a, Operation *b) {
            return a->isBeforeInBlock(b);
          });
          for (Operation *member : ordered)
            b.clone(*member, local);
          Value value = local.lookup(inner);
          for (auto [input, arg] :
               llvm::zip(reader.getInputs(), readerBody.getArguments()))
            if (input == outer)
              mapping.map(arg, value);
          for (Operation &inner : readerBody.without_terminator())
            b.clone(inner, mapping);
        });
    if (!rebuilt) {
      for (auto [old, made] : rewritten)
        made.erase();
      return false;
    }
    rewritten.push_back({reader, rebuilt});
  }
  for (auto [old, made] : rewritten) {
    old.replaceAllUsesWith(made.getResults());
    old.erase();
  }

  // The producer stops writing the value.
  SmallVector<Value> yielded;
  SmallVector<unsigned> kept;
  for (auto [i, v] : llvm::enumerate(yield->getOperands()))
    if (i != index) {
      yielded.push_back(v);
      kept.push_back(i);
    }
  nt::FusionOp rebuilt = rebuildFusion(
      producer, SmallVector<Value>(producer.getInputs()), yielded,
      [&](OpBuilder &b, IRMapping &mapping) {
        for (auto [arg, newArg] : llvm::zip(
                 body.getArguments(), b.getInsertionBlock()->getArguments()))
          mapping.map(arg, newArg);
        for (Operation &inner : body.without_terminator())
          b.clone(inner, mapping);
      });
  // Dropping an output cannot break a contract; keep the old op otherwise.
  if (!rebuilt)
    return true;
  for (auto [newIndex, oldIndex] : llvm::enumerate(kept))
    producer.getResult(oldIndex).replaceAllUsesWith(
        rebuilt.getResult(newIndex));
  producer.erase();
  // Ops of the body that fed only the dropped output.
  // (Collected first: a std::reverse_iterator points past the op it yields,
  // so erasing while iterating would invalidate it.)
  Block &newBody = rebuilt.getBody().front();
  SmallVector<Operation *> bodyOps;
  for (Operation &inner : newBody.without_terminator())
    bodyOps.push_back(&inner);
  for (Operation *inner : llvm::reverse(bodyOps))
    if (inner->use_empty() && isMemoryEffectFree(inner))
      inner->erase();
  return true;
}

/// Runs recomputeInReaders over every kernel result until nothing changes.
static void recomputeSavedValues(Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<nt::FusionOp> fusions(block.getOps<nt::FusionOp>());
    for (nt::FusionOp fusion : fusions) {
      if (!holdsElementwise(fusion))
        continue;
      for (unsigned i = 0; i < fusion.getNumResults(); ++i)
        if (recomputeInReaders(fusion, i)) {
          changed = true;
          break;
        }
      // The op may have been replaced; the next round sees the new one.
      if (changed)
        break;
    }
  }
}

namespace {
struct NovaFusePass : nv::impl::NovaFuseBase<NovaFusePass> {
  using NovaFuseBase::NovaFuseBase;
  void runOnOperation() override {
    for (Block &block : getOperation().getBody()) {
      eraseDeadFusibleOps(block);
      if (failed(BlockFuser(block).run()))
        return signalPassFailure();
      recomputeSavedValues(block);
      if (distributeRowSums)
        for (auto fusion : block.getOps<nt::FusionOp>())
          nv::distributeRowSums(fusion, [](Operation *op) {
            return roleOf(op) == Role::AlongRows;
          });
      if (failed(nv::fuseMatmulsAndAttention(block, singleGemms)))
        return signalPassFailure();
    }
  }
};

} // namespace
