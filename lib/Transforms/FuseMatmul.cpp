//===- FuseMatmul.cpp - matmul and attention kernels in nova-fuse ---------===//
//
// The second phase of nova-fuse, on IR whose pointwise groups are formed:
//  0. with single GEMMs, operands whose rows TMA cannot load get padded
//     copies, and TF32 products' copies round (nova.round_tf32, the
//     product marked nova.rounded), a K-major weight getting one where
//     that is cheaper than the kernel rounding it;
//  1. every matmul becomes a matmul group that reads its operands through
//     their views (reshape, transpose, broadcast, slice) and through cast
//     groups that only matmuls and attention read (the prologue);
//  2. pointwise groups over a product's shape join its group (the
//     epilogue: bias, activation, its gradient, residual, scale, cast);
//  3. matmul groups that read one value, and column sums of that value (or
//     of a copy of it at another precision computed by the same kernel,
//     possibly through casts and views only they read), become one grouped
//     GEMM when none depends on another (not with single GEMMs: Hopper's
//     wgmma kernel takes one GEMM whose operands it loads as stored, so
//     there a weight's cast stays a kernel of its own and siblings stay
//     apart);
//  4. every attention op becomes an attention group that reads its operands
//     through their views and writes its results through the transposes and
//     reshapes (and a concat of them) that only feed outputs.
// A merge happens only when no path through ops outside both sides links
// them (no cycle) and the resulting body passes its family's contract;
// otherwise the ops stay as they were. Views are cloned into every kernel
// that reads through them (they move no data there); the originals go once
// unused. No matmul, attention or reduction is ever duplicated.
//
//===----------------------------------------------------------------------===//

#include "FuseMatmul.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/CostModel/Configurator.h"
#include "nova/CostModel/WgmmaTiling.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
namespace nv = mlir::nova;
namespace nt = mlir::nova_tile;

static bool isView(Operation *op) {
  return isa<nv::ReshapeOp, nv::TransposeOp, nv::BroadcastOp, nv::SliceOp>(op);
}

static nt::FusionOp groupOf(Operation *op, nt::Family family) {
  auto fusion = dyn_cast_or_null<nt::FusionOp>(op);
  return fusion && fusion.getFamily() == family ? fusion : nullptr;
}

/// A pointwise group that only casts and views its one input: a prologue
/// op.
static bool isCastGroup(Operation *op) {
  auto fusion = groupOf(op, nt::Family::pointwise);
  if (!fusion || fusion.getInputs().size() != 1 || fusion.getNumResults() != 1)
    return false;
  Block &body = fusion.getBody().front();
  return llvm::all_of(body.without_terminator(), [](Operation &inner) {
    return isa<nv::CastOp>(inner) || isView(&inner);
  });
}

static bool isMainOp(Operation *op) {
  return isa<nv::MatmulOp, nv::AttentionOp, nv::AttentionFwdOp,
             nv::AttentionBwdOp>(op);
}

/// Whether every reader of `v` is a matmul or attention op, directly or
/// through views: each such kernel can then convert on load itself.
static bool onlyFeedsMainOps(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    return isMainOp(user) ||
           (isView(user) && onlyFeedsMainOps(user->getResult(0)));
  });
}

static bool isColumnSum(Operation *op) {
  auto reduce = dyn_cast<nv::ReduceOp>(op);
  if (!reduce || reduce.getKind() != nv::ReduceKind::sum)
    return false;
  int64_t rank = cast<ShapedType>(reduce.getInput().getType()).getRank();
  return rank >= 2 &&
         llvm::equal(reduce.getDims(), llvm::seq<int64_t>(0, rank - 1));
}

static int64_t numElements(Value v) {
  return cast<ShapedType>(v.getType()).getNumElements();
}

namespace {
class MatmulFuser {
public:
  MatmulFuser(Block &block, bool singleGemms)
      : block(block), singleGemms(singleGemms) {}
  LogicalResult run();

private:
  /// Replaces `moved` (ops of the block, fusion groups among them inlined)
  /// by one group of `family` that also clones `cloned` (views and cast
  /// groups its members read, kept outside while something else reads
  /// them). Values of moved ops read outside become outputs. Returns null
  /// and changes nothing when the body breaks the family's contract.
  nt::FusionOp materialize(nt::Family family, ArrayRef<Operation *> moved,
                           ArrayRef<Operation *> cloned, bool commit = true);

  /// What a trial (`commit` false) that the contract accepts returns: a
  /// placeholder group that is never inserted.
  nt::FusionOp trialAccepted() {
    if (!placeholder) {
      OpBuilder builder(block.getParentOp()->getContext());
      placeholder = nt::FusionOp::create(builder, builder.getUnknownLoc(),
                                         TypeRange(), nt::Family::pointwise,
                                         ValueRange(), nt::ScheduleAttr());
    }
    return placeholder;
  }

  /// Groups `moved` with the longest prefix of each chain of `chains`
  /// (views, from the main op outwards) that the contract accepts, trying
  /// one chain at a time. Null when not even the bare ops make a group.
  nt::FusionOp materializeWithChains(nt::Family family,
                                     ArrayRef<Operation *> moved,
                                     ArrayRef<SmallVector<Operation *>> chains);

  /// Whether a path of def-use edges leads from `from` to `to`; with
  /// `throughOutside`, only paths through at least one other op count (a
  /// direct edge is what fusing the two absorbs).
  bool reaches(Operation *from, Operation *to, bool throughOutside) const;

  /// The views and cast groups (with `casts`) `operand` is read through,
  /// from the operand back to what they read.
  SmallVector<Operation *> prologueOf(Value operand, bool casts = true) const;

  /// Single GEMMs: padded copies of operands whose rows TMA cannot load,
  /// and TF32's rounded copies of weights (nova.rounded).
  void copyOperands();
  void formMatmulGroups();
  void mergeEpilogues();
  void groupHorizontally();
  void formAttentionGroups();
  /// Lets the attention ops that read `result` read it back through the
  /// inverse of `chain` (the transposes and reshapes the kernel writes it
  /// through), so the kernel writes it once, as the chain's value.
  void readThroughWrittenView(Value result, ArrayRef<Operation *> chain);

  Block &block;
  bool singleGemms;
  nt::FusionOp placeholder;

public:
  ~MatmulFuser() {
    if (placeholder)
      placeholder.erase();
  }
};
} // namespace

bool MatmulFuser::reaches(Operation *from, Operation *to,
                          bool throughOutside) const {
  SmallVector<Operation *> stack;
  DenseSet<Operation *> seen;
  auto push = [&](Operation *op, bool direct) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      if (def == from && direct && throughOutside)
        continue;
      if (seen.insert(def).second)
        stack.push_back(def);
    }
  };
  push(to, /*direct=*/true);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (op == from)
      return true;
    if (op != to)
      push(op, /*direct=*/false);
  }
  return false;
}

SmallVector<Operation *> MatmulFuser::prologueOf(Value operand,
                                                 bool casts) const {
  SmallVector<Operation *> chain;
  bool singleUse = true;
  Value v = operand;
  while (Operation *def = v.getDefiningOp()) {
    if (def->getBlock() != &block)
      break;
    singleUse &= v.hasOneUse();
    // A cast that only matmuls and attention read (a weight's bf16 copy)
    // is converted on load by each of them: reading the f32 value twice
    // moves fewer bytes than writing the copy and reading it twice, and
    // saves a launch. A cast something else reads stays a kernel.
    if (!isView(def) && !(casts && isCastGroup(def) &&
                          (singleUse || onlyFeedsMainOps(def->getResult(0)))))
      break;
    chain.push_back(def);
    v = def->getOperand(0);
  }
  return chain;
}

nt::FusionOp MatmulFuser::materialize(nt::Family family,
                                      ArrayRef<Operation *> moved,
                                      ArrayRef<Operation *> cloned,
                                      bool commit) {
  DenseSet<Operation *> inGroup(moved.begin(), moved.end());
  inGroup.insert(cloned.begin(), cloned.end());
  SmallVector<Operation *> members(inGroup.begin(), inGroup.end());
  // Block order first, then any member that reads another after it: the
  // block is only sorted once all kernels are formed.
  llvm::sort(members,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  computeTopologicalSorting(members);
  DenseSet<Operation *> movedSet(moved.begin(), moved.end());

  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  SmallVector<Location> locations;
  for (Operation *op : members) {
    for (Value operand : op->getOperands())
      if (!inGroup.contains(operand.getDefiningOp()))
        inputs.insert(operand);
    if (movedSet.contains(op))
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inGroup.contains(user);
            }))
          outputs.push_back(result);
    locations.push_back(op->getLoc());
  }

  OpBuilder builder(block.getParentOp()->getContext());
  builder.setInsertionPointAfter(members.back());
  auto fusion = nt::FusionOp::create(builder, builder.getFusedLoc(locations),
                                     ValueRange(outputs).getTypes(), family,
                                     inputs.getArrayRef(), nt::ScheduleAttr());
  Block *body = builder.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  for (Operation *op : members) {
    auto inner = dyn_cast<nt::FusionOp>(op);
    if (!inner) {
      builder.clone(*op, mapping);
      continue;
    }
    // Inline a group: its arguments are what its operands map to.
    Block &innerBody = inner.getBody().front();
    for (auto [arg, operand] :
         llvm::zip(innerBody.getArguments(), inner.getInputs()))
      mapping.map(arg, mapping.lookup(operand));
    for (Operation &innerOp : innerBody.without_terminator())
      builder.clone(innerOp, mapping);
    for (auto [result, yielded] : llvm::zip(
             inner.getResults(), innerBody.getTerminator()->getOperands()))
      mapping.map(result, mapping.lookup(yielded));
  }
  SmallVector<Value> yielded;
  for (Value output : outputs)
    yielded.push_back(mapping.lookup(output));
  nt::YieldOp::create(builder, fusion.getLoc(), yielded);

  if (failed(nt::computeContract(
          cast<nt::FusionGroupOpInterface>(fusion.getOperation()),
          /*emitErrors=*/false))) {
    fusion.erase();
    return nullptr;
  }
  if (!commit) {
    fusion.erase();
    return trialAccepted();
  }
  for (auto [output, result] : llvm::zip(outputs, fusion.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !inGroup.contains(use.getOwner());
    });
  // Members go in reverse order, each once nothing reads it any more;
  // cloned views other kernels still read stay.
  for (Operation *op : llvm::reverse(members))
    if (op->use_empty())
      op->erase();
  // Outside readers of an output may sit above the group until run()
  // restores a topological order once at the end.
  return fusion;
}

nt::FusionOp
MatmulFuser::materializeWithChains(nt::Family family,
                                   ArrayRef<Operation *> moved,
                                   ArrayRef<SmallVector<Operation *>> chains) {
  auto cloned = [&](ArrayRef<size_t> lengths) {
    SmallVector<Operation *> ops;
    for (auto [chain, length] : llvm::zip(chains, lengths))
      llvm::append_range(ops, ArrayRef(chain).take_front(length));
    return ops;
  };
  SmallVector<size_t> lengths;
  for (const auto &chain : chains)
    lengths.push_back(chain.size());
  if (!materialize(family, moved, cloned(lengths), /*commit=*/false)) {
    // Some view is not one strided view: find each chain's longest
    // prefix the contract accepts, starting from none at all.
    SmallVector<size_t> full = lengths;
    lengths.assign(chains.size(), 0);
    if (!materialize(family, moved, {}, /*commit=*/false))
      return nullptr;
    for (size_t i = 0; i < chains.size(); ++i)
      for (size_t length = full[i]; length > 0; --length) {
        lengths[i] = length;
        if (materialize(family, moved, cloned(lengths), /*commit=*/false))
          break;
        lengths[i] = 0;
      }
  }
  return materialize(family, moved, cloned(lengths));
}

/// Rates of the Hopper target that decide whether a GEMM operand gets a
/// padded or rounded copy: wgmma against mma.sync (bf16 TFLOP/s measured
/// on the H200; TF32 runs at half of each), the copy bandwidth (bytes/s,
/// read + write) and a kernel launch (the configurator's); the H200's SMs
/// and clock come from its device descriptor.
static constexpr double kWgmmaFlops = 700e12, kMmaSyncFlops = 300e12,
                        kCopyBytesPerSecond = 4.1e12, kLaunchSeconds = 3e-6;

/// The bytes per element of `mm`'s operands when wgmma could take them
/// (bf16, or f32 marked TF32: unmarked f32 keeps f32 accuracy on mma.sync),
/// else 0.
static int64_t wgmmaElementBytes(nv::MatmulOp mm) {
  Type element = cast<RankedTensorType>(mm.getLhs().getType()).getElementType();
  if (element.isBF16())
    return 2;
  auto precision = mm->getAttrOfType<StringAttr>("nova.precision");
  if (element.isF32() && precision && precision.getValue() == "tf32")
    return 4;
  return 0;
}

/// Whether nova-plan-memory will pad the rows of `v`'s buffer, so a GEMM
/// reads it through TMA without a copy: a kernel's result (a fusion of a
/// family that honours a row pitch, or a GEMM) that is not returned and
/// that only such kernels read, directly, through reshapes that keep its
/// rows, or through views that GEMMs take as their prologue.
static bool plannerPadsRows(Value v) {
  auto fusion = v.getDefiningOp<nt::FusionOp>();
  if (!(fusion && nt::honoursRowPitch(fusion.getFamily())) &&
      !v.getDefiningOp<nv::MatmulOp>())
    return false;
  int64_t width = cast<RankedTensorType>(v.getType()).getShape().back();
  auto onlyGemmsRead = [](Value x) {
    return llvm::all_of(
        x.getUsers(), [](Operation *user) { return isa<nv::MatmulOp>(user); });
  };
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (Operation *user : x.getUsers()) {
      if (isa<nv::MatmulOp>(user))
        continue;
      if (auto reader = dyn_cast<nt::FusionOp>(user)) {
        if (!nt::honoursRowPitch(reader.getFamily()))
          return false;
        continue;
      }
      auto reshape = dyn_cast<nv::ReshapeOp>(user);
      if (reshape &&
          cast<RankedTensorType>(reshape.getType()).getShape().back() ==
              width) {
        work.push_back(reshape);
        continue;
      }
      if (isa<nv::TransposeOp>(user) && onlyGemmsRead(user->getResult(0)))
        continue;
      return false; // returned, or read by another kind of op
    }
  }
  return true;
}

void MatmulFuser::copyOperands() {
  // The copy of each value, shared by every GEMM that reads it; for f32
  // values it rounds to TF32 (only TF32 products take copies of f32).
  DenseMap<Value, Value> copies;
  static const ::nova::DeviceDescriptor h200 =
      *::nova::DeviceDescriptor::lookup("h200");
  SmallVector<nv::MatmulOp> matmuls(block.getOps<nv::MatmulOp>());
  for (nv::MatmulOp mm : matmuls) {
    auto lhs = cast<RankedTensorType>(mm.getLhs().getType());
    auto result = cast<RankedTensorType>(mm.getType());
    int64_t rank = result.getRank();
    // What wgmma would take but for the rows: bf16 or TF32, at least
    // 64 x 64.
    int64_t elementBytes = wgmmaElementBytes(mm);
    if (!elementBytes || rank < 2 ||
        result.getNumElements() / result.getShape().back() < 64 ||
        result.getShape().back() < 64)
      continue;
    bool tf32 = elementBytes == 4;
    int64_t n = result.getShape().back(),
            rows = result.getNumElements() / n,
            k = lhs.getShape()[mm.getTransposeLhs() ? rank - 2 : rank - 1];
    // Each operand's value before the views (reshapes that keep its rows
    // whole, transposes) the kernel reads it through, and whether the rhs
    // is then stored K-major (N x K: K its last dim). A TF32 copy rounds,
    // so it replaces only views that this product alone reads.
    struct Root {
      OpOperand *use;
      Value value;
      bool kMajor;
    };
    auto rootOf = [&](OpOperand &operand, std::optional<int64_t> kDim) {
      Root r{&operand, operand.get(), false};
      auto rankOf = [](Value v) {
        return cast<RankedTensorType>(v.getType()).getRank();
      };
      while (Operation *def = r.value.getDefiningOp()) {
        if (def->getBlock() != &block || (tf32 && !r.value.hasOneUse()))
          break;
        auto reshape = dyn_cast<nv::ReshapeOp>(def);
        auto transpose = dyn_cast<nv::TransposeOp>(def);
        if (reshape &&
            cast<RankedTensorType>(reshape.getType()).getShape().back() !=
                cast<RankedTensorType>(reshape.getInput().getType())
                    .getShape()
                    .back())
          break;
        if (!reshape && !transpose)
          break;
        // K's dim in the view's input: moved by a transpose; kept last by
        // a reshape that keeps the rows, lost by one that regroups them.
        if (kDim && transpose)
          kDim = transpose.getPermutation()[*kDim];
        else if (kDim && reshape)
          kDim = *kDim == rankOf(r.value) - 1
                     ? std::optional<int64_t>(rankOf(def->getOperand(0)) - 1)
                     : std::nullopt;
        r.use = &def->getOpOperand(0);
        r.value = def->getOperand(0);
      }
      r.kMajor = kDim && *kDim == rankOf(r.value) - 1;
      return r;
    };
    int64_t rhsRank = cast<RankedTensorType>(mm.getRhs().getType()).getRank();
    SmallVector<Root> roots = {rootOf(mm->getOpOperand(0), std::nullopt),
                               rootOf(mm->getOpOperand(1), mm.getTransposeRhs()
                                                               ? rhsRank - 1
                                                               : rhsRank - 2)};
    // Operands whose rows TMA cannot load get a padded copy when wgmma on
    // the copies beats mma.sync on the originals.
    SmallVector<unsigned> copied;
    double copySeconds = 0;
    for (auto [i, root] : llvm::enumerate(roots)) {
      auto type = cast<RankedTensorType>(root.value.getType());
      int64_t rowBytes =
          type.getRank() ? type.getShape().back() * elementBytes : 0;
      if (type.getRank() < 2 || rowBytes < 16 || rowBytes % 16 == 0 ||
          plannerPadsRows(root.value))
        continue;
      copied.push_back(i);
      if (!copies.contains(root.value))
        copySeconds += 2.0 * double(type.getNumElements()) * elementBytes /
                       kCopyBytesPerSecond;
    }
    double flops = 2.0 * double(rows) * double(n) * double(k) *
                   (elementBytes / 2);
    // Without its padded copies the product stays on mma.sync, which
    // rounds as it stages: no other copy then.
    if (!copied.empty() &&
        copySeconds >= flops / kMmaSyncFlops - flops / kWgmmaFlops)
      continue;
    if (tf32) {
      // A TF32 copy that exists already costs nothing more; a K-major B
      // without one gets one where it costs less than the kernel's
      // rounding pass (a weight that many row tiles read).
      for (auto [i, root] : llvm::enumerate(roots))
        if (!llvm::is_contained(copied, i) && copies.lookup(root.value))
          copied.push_back(i);
      if (!llvm::is_contained(copied, 1u) && roots[1].kMajor && rhsRank == 2 &&
          ::nova::wgmma::roundedCopyPays(rows, n, k, h200.sms,
                                         h200.clockGHz * 1e9,
                                         kCopyBytesPerSecond, kLaunchSeconds))
        copied.push_back(1);
    }
    SmallVector<int64_t> rounded;
    for (unsigned i : copied) {
      OpOperand *use = roots[i].use;
      Value v = roots[i].value;
      Operation *reader = use->getOwner();
      if (Value copy = copies.lookup(v)) {
        // Before its first reader in block order (v is defined earlier
        // still: the reader reads a view of it).
        Operation *group = copy.getDefiningOp();
        if (reader->isBeforeInBlock(group))
          group->moveBefore(reader);
        use->set(copy);
        rounded.push_back(i);
        continue;
      }
      // Just before its reader, so that a weight's copy is not live from
      // the step's start.
      OpBuilder builder(reader);
      // A rounding to TF32, or a cast to its own type: a pointwise kernel
      // that only copies (not a cast group, which single GEMMs would take
      // as a prologue).
      Operation *op =
          tf32 ? nv::RoundTF32Op::create(builder, v.getLoc(), v).getOperation()
               : nv::CastOp::create(builder, v.getLoc(), v.getType(), v)
                     .getOperation();
      use->set(op->getResult(0));
      nt::FusionOp group = materialize(nt::Family::pointwise, {op}, {});
      if (!group) {
        use->set(v);
        op->erase();
        continue;
      }
      copies[v] = group.getResult(0);
      rounded.push_back(i);
    }
    if (tf32 && !rounded.empty()) {
      llvm::sort(rounded);
      mm->setAttr(nv::NovaDialect::getRoundedAttrName(),
                  DenseI64ArrayAttr::get(mm.getContext(), rounded));
    }
  }
}

void MatmulFuser::formMatmulGroups() {
  SmallVector<nv::MatmulOp> matmuls(block.getOps<nv::MatmulOp>());
  for (nv::MatmulOp mm : matmuls)
    materializeWithChains(nt::Family::matmul, {mm},
                          {prologueOf(mm.getLhs(), !singleGemms),
                           prologueOf(mm.getRhs(), !singleGemms)});
}

/// The matmul groups of `block` that hold a single problem, in block order.
static SmallVector<nt::FusionOp> matmulGroups(Block &block) {
  SmallVector<nt::FusionOp> found;
  for (auto fusion : block.getOps<nt::FusionOp>())
    if (fusion.getFamily() == nt::Family::matmul)
      found.push_back(fusion);
  return found;
}

void MatmulFuser::mergeEpilogues() {
  for (nt::FusionOp group : matmulGroups(block)) {
    bool merged = true;
    while (merged) {
      merged = false;
      // The product: the group's first output that a matmul yields.
      for (Operation *user : group->getUsers()) {
        auto epilogue = groupOf(user, nt::Family::pointwise);
        if (!epilogue)
          continue;
        // One iteration space: the epilogue runs over the product.
        ArrayRef<int64_t> space =
            cast<ShapedType>(epilogue.getResult(0).getType()).getShape();
        if (!llvm::any_of(group.getResults(), [&](Value r) {
              return cast<ShapedType>(r.getType()).getShape() == space;
            }))
          continue;
        if (reaches(group, epilogue, /*throughOutside=*/true))
          continue;
        if (auto fused =
                materialize(nt::Family::matmul, {group, epilogue}, {})) {
          group = fused;
          merged = true;
          break;
        }
      }
    }
  }
}

void MatmulFuser::groupHorizontally() {
  // The inputs a matmul kernel's problems read as operands.
  auto operandsOf = [](nt::FusionOp group) {
    SmallVector<Value> read;
    auto contract = nt::computeContract(
        cast<nt::FusionGroupOpInterface>(group.getOperation()),
        /*emitErrors=*/false);
    if (succeeded(contract))
      for (const nt::MainProblem &p : contract->problems)
        for (auto &[input, access] : p.operands)
          read.push_back(group.getInputs()[input]);
    return read;
  };
  // Whether a column sum of `summed` joins a kernel that reads `shared`:
  // the same value, or another output of the same kernel with as many
  // elements (its copy at another precision).
  auto sameOperand = [](Value summed, Value shared) {
    if (summed == shared)
      return true;
    Operation *def = summed.getDefiningOp();
    return def && def == shared.getDefiningOp() &&
           numElements(summed) == numElements(shared);
  };
  auto independent = [&](Operation *a, Operation *b) {
    return !reaches(a, b, /*throughOutside=*/false) &&
           !reaches(b, a, /*throughOutside=*/false);
  };

  // Groups that found no partner; a merge makes a new group, so the list
  // is rebuilt after each one.
  DenseSet<Operation *> done;
  bool merged = true;
  while (merged) {
    merged = false;
    for (nt::FusionOp group : matmulGroups(block)) {
      if (done.contains(group))
        continue;
      for (Value shared : operandsOf(group)) {
        // Each candidate with the casts and views it reads `shared` through.
        SmallVector<std::pair<Operation *, SmallVector<Operation *>>>
            candidates;
        for (Operation *user : shared.getUsers())
          if (user != group && groupOf(user, nt::Family::matmul) &&
              llvm::is_contained(operandsOf(cast<nt::FusionOp>(user)), shared))
            candidates.push_back({user, {}});
        // Column sums of the operand, or of its copy from the same kernel,
        // directly or through casts and views only they read.
        SmallVector<Value> copies{shared};
        if (Operation *def = shared.getDefiningOp())
          llvm::append_range(copies, def->getResults());
        for (Value copy : copies) {
          if (!sameOperand(copy, shared))
            continue;
          for (Operation *user : copy.getUsers()) {
            SmallVector<Operation *> chain;
            Operation *reader = user;
            while ((isView(reader) || isCastGroup(reader)) &&
                   reader->getResult(0).hasOneUse()) {
              chain.push_back(reader);
              reader = *reader->getResult(0).getUsers().begin();
            }
            if (isColumnSum(reader))
              candidates.push_back({reader, chain});
            else if (chain.empty() &&
                     groupOf(reader, nt::Family::column_reduction))
              candidates.push_back({reader, {}});
          }
        }
        for (auto &[other, chain] : candidates) {
          if (!independent(group, other))
            continue;
          done.erase(other);
          if (materialize(nt::Family::matmul, {group, other}, chain)) {
            merged = true;
            break;
          }
        }
        if (merged)
          break;
      }
      if (merged)
        break;
      done.insert(group);
    }
  }
}

void MatmulFuser::formAttentionGroups() {
  SmallVector<Operation *> attentions;
  for (Operation &op : block)
    if (isa<nv::AttentionOp, nv::AttentionFwdOp, nv::AttentionBwdOp>(op))
      attentions.push_back(&op);
  for (Operation *attn : attentions) {
    nt::Family family = isa<nv::AttentionBwdOp>(attn)
                            ? nt::Family::attention_backward
                            : nt::Family::attention_forward;
    SmallVector<SmallVector<Operation *>> prologue;
    for (Value operand : attn->getOperands())
      prologue.push_back(prologueOf(operand));
    // Transposes and reshapes that only pass a result on to one reader
    // are how the kernel writes it.
    SmallVector<Operation *> moved{attn};
    for (Value result : attn->getResults()) {
      SmallVector<Operation *> users(result.getUsers());
      for (Operation *user : users) {
        SmallVector<Operation *> chain;
        Operation *view = user;
        while (isa<nv::TransposeOp, nv::ReshapeOp>(view)) {
          chain.push_back(view);
          Value out = view->getResult(0);
          if (!out.hasOneUse())
            break;
          view = *out.getUsers().begin();
        }
        if (!chain.empty())
          readThroughWrittenView(result, chain);
        llvm::append_range(moved, chain);
      }
    }
    // A concat of those views (dQ, dK, dV into dQKV) is written in windows.
    DenseSet<Value> written;
    for (Operation *op : moved)
      written.insert(op->getResult(0));
    for (Value result : attn->getResults())
      written.insert(result);
    // So is a concat of one of them with repeated constants (a gradient
    // zero-padded to the tensor it was sliced from): the kernel fills the
    // rest, and the copy kernel the concat would be is gone.
    auto splat = [](Value v) {
      auto constant = v.getDefiningOp<nv::ConstantOp>();
      return constant && isa<SplatElementsAttr>(constant.getValue());
    };
    llvm::SetVector<Operation *> concats, constants;
    for (Value v : written)
      if (v.hasOneUse())
        if (auto concat = dyn_cast<nv::ConcatOp>(*v.getUsers().begin()))
          if (llvm::all_of(concat->getOperands(), [&](Value part) {
                return (written.contains(part) && part.hasOneUse()) ||
                       splat(part);
              })) {
            concats.insert(concat);
            for (Value part : concat->getOperands())
              if (splat(part))
                constants.insert(part.getDefiningOp());
          }
    llvm::append_range(moved, concats);
    llvm::append_range(prologue.emplace_back(), constants);
    if (!materializeWithChains(family, moved, prologue))
      materializeWithChains(family, {attn}, prologue);
  }
}

void MatmulFuser::readThroughWrittenView(Value result,
                                         ArrayRef<Operation *> chain) {
  Value written = chain.back()->getResult(0);
  OpBuilder builder(chain.back()->getContext());
  builder.setInsertionPointAfter(chain.back());
  Value undone;
  for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
    Operation *reader = use.getOwner();
    if (!isa<nv::AttentionOp, nv::AttentionFwdOp, nv::AttentionBwdOp>(reader))
      continue;
    if (!undone) {
      // The chain backwards: each reshape to its operand's shape, each
      // transpose by the inverse permutation.
      undone = written;
      for (Operation *view : llvm::reverse(chain)) {
        Location loc = view->getLoc();
        Type type = view->getOperand(0).getType();
        if (auto t = dyn_cast<nv::TransposeOp>(view)) {
          SmallVector<int64_t> inverse(t.getPermutation().size());
          for (auto [i, d] : llvm::enumerate(t.getPermutation()))
            inverse[d] = i;
          undone =
              nv::TransposeOp::create(builder, loc, type, undone,
                                      builder.getDenseI64ArrayAttr(inverse));
        } else {
          undone = nv::ReshapeOp::create(builder, loc, type, undone);
        }
      }
    }
    use.set(undone);
  }
}

LogicalResult MatmulFuser::run() {
  if (singleGemms)
    copyOperands();
  formMatmulGroups();
  // Grouping first: an epilogue can make a kernel depend on its partner
  // (the tied embedding's gradient adds the scatter of the other GEMM's
  // result), while an epilogue still joins a grouped GEMM afterwards.
  if (!singleGemms)
    groupHorizontally();
  mergeEpilogues();
  formAttentionGroups();
  // None of the merges made a cycle, so this order exists.
  if (!sortTopologically(&block))
    return block.getParentOp()->emitError(
               "nova-fuse: the block has no topological order after "
               "forming matmul and attention kernels"),
           failure();
  return success();
}

LogicalResult mlir::nova::fuseMatmulsAndAttention(Block &block,
                                                  bool singleGemms) {
  return MatmulFuser(block, singleGemms).run();
}
