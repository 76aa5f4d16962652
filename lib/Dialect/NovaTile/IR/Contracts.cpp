//===- Contracts.cpp - what each kernel family's body may be --------------===//
//
// Each family's check walks the body once, classifies every op (prologue,
// main op, epilogue) and every input (how the kernel reads it), and stops at
// the first broken rule with a diagnostic at the op that breaks it.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaTile/IR/Contracts.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::nova_tile;
namespace nv = mlir::nova;

const char *mlir::nova_tile::accessKindName(AccessKind kind) {
  switch (kind) {
  case AccessKind::Elementwise:
    return "elementwise";
  case AccessKind::Broadcast:
    return "broadcast";
  case AccessKind::Transposed:
    return "transposed";
  case AccessKind::Reshaped:
    return "reshaped";
  case AccessKind::Sliced:
    return "sliced";
  case AccessKind::Concatenated:
    return "concatenated";
  case AccessKind::PerRow:
    return "per-row";
  case AccessKind::PerColumn:
    return "per-column";
  case AccessKind::Scalar:
    return "scalar";
  case AccessKind::MatmulLhs:
    return "matmul-lhs";
  case AccessKind::MatmulRhs:
    return "matmul-rhs";
  case AccessKind::Query:
    return "query";
  case AccessKind::Key:
    return "key";
  case AccessKind::Value:
    return "value";
  case AccessKind::AttentionOutput:
    return "attention-output";
  case AccessKind::LogSumExp:
    return "log-sum-exp";
  case AccessKind::GradOutput:
    return "grad-output";
  case AccessKind::Table:
    return "table";
  case AccessKind::Indices:
    return "indices";
  case AccessKind::Scattered:
    return "scattered";
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// Op and shape classification
//===----------------------------------------------------------------------===//

bool mlir::nova_tile::isElementwiseOp(Operation *op) {
  if (op->hasTrait<nv::OpTrait::BroadcastingElementwise>() ||
      isa<nv::CastOp, nv::GeluOp, nv::ConstantOp, nv::IotaOp>(op))
    return true;
  // The unary math ops; softmax and log_softmax share the trait but mix a
  // whole row.
  return isa<nv::NovaDialect>(op->getDialect()) && op->getNumOperands() == 1 &&
         op->getNumResults() == 1 &&
         op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
         !isa<nv::SoftmaxOp, nv::LogSoftmaxOp>(op);
}

/// Views that only rename elements (free anywhere in a body).
static bool isFreeView(Operation *op) {
  return isa<nv::ReshapeOp, nv::BroadcastOp>(op);
}

/// Views that move elements between threads: allowed on inputs only. A
/// concat joins inputs (and constants) without computing on them.
static bool isInputView(Operation *op) {
  return isa<nv::TransposeOp, nv::SliceOp, nv::ConcatOp>(op);
}

/// Whether `v` is something a view may read: a kernel input, or a constant
/// (which a concat may place beside inputs).
static bool isViewSource(Operation *view, Value v) {
  return isa<BlockArgument>(v) ||
         (isa<nv::ConcatOp>(view) && v.getDefiningOp<nv::ConstantOp>());
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

static int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// How a value of `shape` maps onto `space` under NumPy broadcasting, or
/// nothing when it does not broadcast to it.
static std::optional<Access> shapeAccess(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> space) {
  if (shape == space)
    return Access{AccessKind::Elementwise, {}, false};
  if (product(shape) == 1)
    return Access{AccessKind::Scalar, {}, false};
  if (shape.size() > space.size())
    return std::nullopt;
  Access access{AccessKind::Broadcast, {}, false};
  size_t offset = space.size() - shape.size();
  for (size_t i = 0; i < space.size(); ++i) {
    int64_t size = i < offset ? 1 : shape[i - offset];
    if (size == space[i])
      continue;
    if (size != 1)
      return std::nullopt;
    access.dims.push_back(i);
  }
  return access;
}

/// The results of `main` that `v` is computed from (sorted, once each).
static SmallVector<unsigned> resultsReaching(Value v, Operation *main) {
  SmallVector<unsigned> found;
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    Operation *def = cur.getDefiningOp();
    if (!def)
      continue;
    if (def == main) {
      found.push_back(cast<OpResult>(cur).getResultNumber());
      continue;
    }
    llvm::append_range(work, def->getOperands());
  }
  llvm::sort(found);
  return found;
}

namespace {
/// The contract check of one group.
class Checker {
public:
  Checker(FusionGroupOpInterface group, bool emitErrors)
      : group(group), body(group.getBodyBlock()), emitErrors(emitErrors) {
    contract.family = group.getFamily();
  }

  FailureOr<Contract> run();

private:
  LogicalResult fail(Operation *at, const Twine &rule) {
    if (emitErrors)
      at->emitError() << stringifyFamily(contract.family)
                      << " contract: " << rule;
    return failure();
  }
  Operation *yield() { return body.getTerminator(); }
  ValueRange outputs() { return yield()->getOperands(); }

  LogicalResult checkCommon();
  LogicalResult pointwise();
  LogicalResult rowOrColumnReduction(bool rows);
  LogicalResult matmul();
  LogicalResult attention(bool backward);
  LogicalResult gather();
  LogicalResult scatterAdd();
  LogicalResult optimizer();

  /// An elementwise op or a view; transposes and slices read inputs only.
  LogicalResult checkElementwiseOrView(Operation *op, StringRef allowed);
  /// Elementwise ops and views (the rule every family applies outside its
  /// main op): transposes and slices read inputs only, every value
  /// broadcasts to `space`.
  LogicalResult checkElementwise(Operation *op, ArrayRef<int64_t> space,
                                 StringRef allowed);
  /// How input `arg` is read by elementwise code over `space`.
  FailureOr<Access> elementwiseAccess(BlockArgument arg,
                                      ArrayRef<int64_t> space);
  /// Records how every input is read: the main op's operands as `direct`
  /// says, every other input elementwise over `space`.
  LogicalResult recordInputs(ArrayRef<int64_t> space,
                             const DenseMap<Value, Access> &direct = {});
  /// Every output has shape `space`.
  LogicalResult outputsHaveShape(ArrayRef<int64_t> space, StringRef what);
  /// The single op of type OpT in the body, or failure with a diagnostic.
  template <typename OpT> FailureOr<OpT> single(StringRef family);
  /// Walks a main-op operand back to an input through casts and views
  /// (the prologue); records the ops it passes in `prologue`.
  FailureOr<BlockArgument> prologueRoot(Value v, StringRef role,
                                        DenseSet<Operation *> &prologue,
                                        bool &transposed);

  FusionGroupOpInterface group;
  Block &body;
  bool emitErrors;
  Contract contract;
};
} // namespace

LogicalResult Checker::checkCommon() {
  if (outputs().empty())
    return fail(yield(), "a kernel produces at least one output");
  for (Operation &op : body.without_terminator())
    if (!isa<nv::NovaDialect>(op.getDialect()))
      return fail(&op, "'" + op.getName().getStringRef() +
                           "' is not a nova op; bodies hold nova ops only");
  return success();
}

LogicalResult Checker::checkElementwiseOrView(Operation *op,
                                              StringRef allowed) {
  if (!isElementwiseOp(op) && !isFreeView(op) && !isInputView(op))
    return fail(op, "'" + op->getName().getStringRef() +
                        "' is not allowed here; " + allowed);
  if (isInputView(op) && !llvm::all_of(op->getOperands(), [&](Value v) {
        return isViewSource(op, v);
      }))
    return fail(op, "'" + op->getName().getStringRef() +
                        "' applies to kernel inputs only: a kernel reads an "
                        "input through a view but cannot permute or cut "
                        "values it computes");
  return success();
}

LogicalResult Checker::checkElementwise(Operation *op, ArrayRef<int64_t> space,
                                        StringRef allowed) {
  if (failed(checkElementwiseOrView(op, allowed)))
    return failure();
  // A constant a concat places has the shape of its window, not the space.
  if (isa<nv::ConstantOp>(op) &&
      llvm::all_of(op->getUsers(),
                   [](Operation *user) { return isa<nv::ConcatOp>(user); }))
    return success();
  for (Value r : op->getResults())
    if (!shapeAccess(shapeOf(r), space))
      return fail(op, "value of shape " + shapeStr(shapeOf(r)) +
                          " does not broadcast to the iteration space " +
                          shapeStr(space));
  return success();
}

FailureOr<Access> Checker::elementwiseAccess(BlockArgument arg,
                                             ArrayRef<int64_t> space) {
  Operation *view = nullptr;
  for (Operation *user : arg.getUsers())
    if (isInputView(user) || isa<nv::ReshapeOp>(user))
      view = user;
  if (view && !arg.hasOneUse())
    return fail(view, llvm::formatv("input #{0} is read both through '{1}' "
                                    "and directly; a kernel reads each input "
                                    "one way",
                                    arg.getArgNumber(),
                                    view->getName().getStringRef())
                          .str());
  if (auto transpose = dyn_cast_or_null<nv::TransposeOp>(view))
    return Access{AccessKind::Transposed,
                  llvm::to_vector(transpose.getPermutation()), false};
  if (auto concat = dyn_cast_or_null<nv::ConcatOp>(view)) {
    int64_t axis = concat.getDim(), start = 0;
    for (Value operand : concat.getOperands()) {
      if (operand == arg)
        break;
      start += shapeOf(operand)[axis];
    }
    return Access{AccessKind::Concatenated, {axis, start}, false};
  }
  if (auto slice = dyn_cast_or_null<nv::SliceOp>(view)) {
    Access access{AccessKind::Sliced, {}, false};
    llvm::append_range(access.dims, slice.getStarts());
    llvm::append_range(access.dims, slice.getLimits());
    llvm::append_range(access.dims, slice.getStrides());
    return access;
  }
  if (view && product(shapeOf(arg)) == product(space))
    return Access{AccessKind::Reshaped, {}, false};
  if (auto access = shapeAccess(shapeOf(arg), space))
    return *access;
  return fail(arg.getOwner()->getParentOp(),
              llvm::formatv("input #{0} of shape {1} is neither the iteration "
                            "space {2} nor broadcast to it",
                            arg.getArgNumber(), shapeStr(shapeOf(arg)),
                            shapeStr(space))
                  .str());
}

LogicalResult Checker::outputsHaveShape(ArrayRef<int64_t> space,
                                        StringRef what) {
  for (auto [i, v] : llvm::enumerate(outputs()))
    if (shapeOf(v) != space)
      return fail(yield(),
                  llvm::formatv("output #{0} has shape {1}, but every "
                                "output has the {2} shape {3}",
                                i, shapeStr(shapeOf(v)), what, shapeStr(space))
                      .str());
  contract.results.assign(outputs().size(),
                          Access{AccessKind::Elementwise, {}, false});
  return success();
}

template <typename OpT> FailureOr<OpT> Checker::single(StringRef family) {
  SmallVector<OpT> found(body.getOps<OpT>());
  if (found.size() == 1)
    return found.front();
  StringRef name = OpT::getOperationName();
  if (found.empty())
    return fail(group, llvm::formatv("a {0} kernel holds exactly one '{1}', "
                                     "the body has none",
                                     family, name)
                           .str());
  return fail(found[1], llvm::formatv("a {0} kernel holds exactly one '{1}', "
                                      "this is the second",
                                      family, name)
                            .str());
}

FailureOr<BlockArgument> Checker::prologueRoot(Value v, StringRef role,
                                               DenseSet<Operation *> &prologue,
                                               bool &transposed) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<nv::CastOp, nv::TransposeOp, nv::ReshapeOp, nv::BroadcastOp>(def))
      return fail(def, "'" + def->getName().getStringRef() + "' computes the " +
                           role +
                           "; a prologue only casts, transposes, reshapes or "
                           "broadcasts an input");
    if (!v.hasOneUse())
      return fail(def, "the " + role +
                           " prologue value is also used elsewhere; prologue "
                           "values feed only their operand");
    if (auto t = dyn_cast<nv::TransposeOp>(def)) {
      ArrayRef<int64_t> perm = t.getPermutation();
      size_t r = perm.size();
      if (r >= 2 && perm[r - 1] == int64_t(r - 2))
        transposed = !transposed;
    }
    prologue.insert(def);
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  if (!llvm::all_of(arg.getUsers(),
                    [&](Operation *u) { return prologue.contains(u); }) &&
      !arg.hasOneUse())
    return fail(group, llvm::formatv("input #{0} is the {1} and also read "
                                     "elsewhere; a kernel reads each input "
                                     "one way",
                                     arg.getArgNumber(), role)
                           .str());
  return arg;
}

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

LogicalResult Checker::pointwise() {
  SmallVector<int64_t> space(shapeOf(outputs().front()));
  contract.space = space;
  contract.computeType = getElementTypeOrSelf(outputs().front().getType());
  for (Operation &op : body.without_terminator())
    if (failed(checkElementwise(&op, space,
                                "a pointwise kernel holds elementwise ops "
                                "and views of its inputs")))
      return failure();
  if (failed(outputsHaveShape(space, "iteration-space")))
    return failure();
  return recordInputs(space);
}

LogicalResult Checker::recordInputs(ArrayRef<int64_t> space,
                                    const DenseMap<Value, Access> &direct) {
  for (BlockArgument arg : body.getArguments()) {
    if (auto it = direct.find(arg); it != direct.end()) {
      contract.inputs.push_back(it->second);
      continue;
    }
    auto access = elementwiseAccess(arg, space);
    if (failed(access))
      return failure();
    contract.inputs.push_back(*access);
  }
  return success();
}

/// The rows x cols view of a reduced tensor: how a value of `shape` is read
/// or written by a row (`rows`) or column reduction over `full`. When rows
/// and columns have the same size a vector of that size could be either;
/// a column reduction's outputs (`rows` false) take it per column.
static std::optional<AccessKind> reductionAccess(ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> full,
                                                 bool rows = true) {
  if (shape == full)
    return AccessKind::Elementwise;
  if (product(shape) == 1)
    return AccessKind::Scalar;
  if (!rows && !full.empty() && !shape.empty() &&
      product(shape) == full.back() && shape.back() == full.back())
    return AccessKind::PerColumn;
  ArrayRef<int64_t> lead = full.drop_back();
  if (shape == lead || (shape.size() == full.size() &&
                        shape.drop_back() == lead && shape.back() == 1))
    return AccessKind::PerRow;
  if (auto access = shapeAccess(shape, full)) {
    // Broadcast along every dim but the last: one value per column.
    if (access->kind == AccessKind::Broadcast &&
        !llvm::is_contained(access->dims, int64_t(full.size() - 1)))
      return AccessKind::PerColumn;
    return std::nullopt;
  }
  if (!full.empty() && product(shape) == full.back() &&
      shape.back() == full.back())
    return AccessKind::PerColumn;
  return std::nullopt;
}

LogicalResult Checker::rowOrColumnReduction(bool rows) {
  StringRef family = rows ? "row reduction" : "column reduction";
  std::string allowed =
      rows ? "a row reduction holds elementwise ops, views and reductions "
             "along the innermost dim (reduce, softmax, log_softmax, "
             "layer_norm, cross_entropy)"
           : "a column reduction holds elementwise ops, views and reductions "
             "over every dim but the innermost";
  // The reduced tensor's shape, from the first reduction.
  SmallVector<int64_t> full;
  auto reduces = [&](Operation *op, ArrayRef<int64_t> shape) {
    if (full.empty()) {
      full.assign(shape.begin(), shape.end());
      contract.computeType = getElementTypeOrSelf(op->getOperand(0));
      return success();
    }
    if (ArrayRef<int64_t>(full) == shape)
      return success();
    return fail(op, llvm::formatv("reduces a {0} tensor, but the kernel's "
                                  "rows x cols space is {1} (from its first "
                                  "reduction); all reductions share it",
                                  shapeStr(shape), shapeStr(full))
                        .str());
  };
  for (Operation &op : body.without_terminator()) {
    if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
      ArrayRef<int64_t> in = shapeOf(reduce.getInput());
      int64_t rank = in.size();
      SmallVector<int64_t> want;
      if (rows) {
        if (rank >= 1)
          want.push_back(rank - 1);
      } else {
        for (int64_t d = 0; d + 1 < rank; ++d)
          want.push_back(d);
      }
      ArrayRef<int64_t> dims = reduce.getDims();
      if (want.empty() || dims != ArrayRef<int64_t>(want))
        return fail(&op, llvm::formatv("reduces dims [{0}] of a rank-{1} "
                                       "tensor; a {2} reduces exactly dims "
                                       "[{3}]",
                                       llvm::interleaved(dims), rank, family,
                                       llvm::interleaved(want))
                             .str());
      if (failed(reduces(&op, in)))
        return failure();
      continue;
    }
    if (rows && isa<nv::SoftmaxOp, nv::LogSoftmaxOp>(op)) {
      int64_t dim = op.getAttrOfType<IntegerAttr>("dim").getInt();
      int64_t rank = shapeOf(op.getOperand(0)).size();
      if (dim != rank - 1)
        return fail(&op, llvm::formatv("normalizes along dim {0} of a "
                                       "rank-{1} tensor; a row reduction "
                                       "reduces only the innermost dim",
                                       dim, rank)
                             .str());
      if (failed(reduces(&op, shapeOf(op.getOperand(0)))))
        return failure();
      continue;
    }
    if (rows && isa<nv::LayerNormOp, nv::CrossEntropyOp>(op)) {
      if (failed(reduces(&op, shapeOf(op.getOperand(0)))))
        return failure();
      continue;
    }
    if (rows && isa<nv::CheckLabelsOp>(op))
      continue;
  }
  if (full.empty())
    return fail(
        group, llvm::formatv("a {0} holds at least one reduction {1}", family,
                             rows ? "along the innermost dim" : "over the rows")
                   .str());
  // Everything else: elementwise code over the reduced tensor's space, and
  // every value per element, per row, per column or scalar.
  for (Operation &op : body.without_terminator()) {
    bool reduction =
        isa<nv::ReduceOp>(op) ||
        (rows && isa<nv::SoftmaxOp, nv::LogSoftmaxOp, nv::LayerNormOp,
                     nv::CrossEntropyOp, nv::CheckLabelsOp>(op));
    if (!reduction && failed(checkElementwiseOrView(&op, allowed)))
      return failure();
    for (Value r : op.getResults())
      if (!reductionAccess(shapeOf(r), full))
        return fail(&op, llvm::formatv("value of shape {0} is not per "
                                       "element, per row or per column of "
                                       "the reduced {1} tensor",
                                       shapeStr(shapeOf(r)), shapeStr(full))
                             .str());
  }
  int64_t cols = full.empty() ? 1 : full.back();
  contract.space = {product(full) / std::max<int64_t>(cols, 1), cols};
  for (auto [i, v] : llvm::enumerate(outputs())) {
    std::optional<AccessKind> kind = reductionAccess(shapeOf(v), full, rows);
    bool ok = kind && (rows ? *kind != AccessKind::PerColumn
                            : *kind == AccessKind::PerColumn ||
                                  *kind == AccessKind::Elementwise ||
                                  *kind == AccessKind::Scalar);
    if (!ok)
      return fail(yield(),
                  llvm::formatv("output #{0} of shape {1} is not {2} of the "
                                "reduced {3} tensor",
                                i, shapeStr(shapeOf(v)),
                                rows ? "per element, per row or a scalar"
                                     : "per element, per column or a scalar",
                                shapeStr(full))
                      .str());
    contract.results.push_back({*kind, {}, false});
  }
  for (BlockArgument arg : body.getArguments()) {
    std::optional<AccessKind> kind = reductionAccess(shapeOf(arg), full);
    if (!kind)
      return fail(group, llvm::formatv("input #{0} of shape {1} is not per "
                                       "element, per row or per column of "
                                       "the reduced {2} tensor",
                                       arg.getArgNumber(),
                                       shapeStr(shapeOf(arg)), shapeStr(full))
                             .str());
    contract.inputs.push_back({*kind, {}, false});
  }
  return success();
}

LogicalResult Checker::matmul() {
  auto mm = single<nv::MatmulOp>("matmul");
  if (failed(mm))
    return failure();
  DenseSet<Operation *> prologue;
  bool lhsT = mm->getTransposeLhs(), rhsT = mm->getTransposeRhs();
  auto lhs = prologueRoot(mm->getLhs(), "matmul's lhs", prologue, lhsT);
  if (failed(lhs))
    return failure();
  auto rhs = prologueRoot(mm->getRhs(), "matmul's rhs", prologue, rhsT);
  if (failed(rhs))
    return failure();
  ArrayRef<int64_t> out = shapeOf(mm->getResult());
  ArrayRef<int64_t> a = shapeOf(mm->getLhs());
  int64_t k = mm->getTransposeLhs() ? a[a.size() - 2] : a.back();
  contract.space = {product(out.drop_back(2)), out[out.size() - 2], out.back(),
                    k};
  contract.computeType = getElementTypeOrSelf(mm->getLhs());
  for (Operation &op : body.without_terminator()) {
    if (&op == mm->getOperation() || prologue.contains(&op))
      continue;
    if (failed(checkElementwise(&op, out,
                                "a matmul kernel holds one matmul, a "
                                "prologue (cast, transpose, reshape, "
                                "broadcast of an operand) and an "
                                "elementwise epilogue on its result")))
      return failure();
  }
  if (failed(outputsHaveShape(out, "matmul product's")))
    return failure();
  // An input that is both operands (x @ x) counts as the left one.
  DenseMap<Value, Access> direct;
  direct[*rhs] = {AccessKind::MatmulRhs, {}, rhsT};
  direct[*lhs] = {AccessKind::MatmulLhs, {}, lhsT};
  return recordInputs(out, direct);
}

LogicalResult Checker::attention(bool backward) {
  StringRef allowed = backward ? "'nova.attention_bwd'"
                               : "'nova.attention' or 'nova.attention_fwd'";
  SmallVector<Operation *> mains;
  for (Operation &op : body.without_terminator())
    if (backward ? isa<nv::AttentionBwdOp>(op)
                 : isa<nv::AttentionOp, nv::AttentionFwdOp>(op))
      mains.push_back(&op);
  if (mains.size() != 1)
    return fail(
        mains.empty() ? group.getOperation() : mains[1],
        "an attention kernel holds exactly one " + allowed +
            (mains.empty() ? ", the body has none" : ", this is the second"));
  Operation *attn = mains.front();

  // Operand i of the attention op is read as kinds[i].
  const AccessKind kinds[] = {
      AccessKind::Query,     AccessKind::Key,
      AccessKind::Value,     AccessKind::AttentionOutput,
      AccessKind::LogSumExp, AccessKind::GradOutput};
  const StringRef roles[] = {"query",       "key",
                             "value",       "attention output",
                             "log-sum-exp", "output gradient"};
  DenseSet<Operation *> prologue;
  DenseMap<BlockArgument, AccessKind> roots;
  for (auto [i, v] : llvm::enumerate(attn->getOperands())) {
    bool unusedTransposed = false;
    auto root = prologueRoot(v, roles[i], prologue, unusedTransposed);
    if (failed(root))
      return failure();
    roots[*root] = kinds[i];
  }
  ArrayRef<int64_t> q = shapeOf(attn->getOperand(0));
  ArrayRef<int64_t> k = shapeOf(attn->getOperand(1));
  contract.space = {product(q.drop_back(2)), q[q.size() - 2], k[k.size() - 2],
                    q.back()};
  contract.causal = attn->hasAttr("causal");
  contract.computeType = getElementTypeOrSelf(attn->getOperand(0));
  for (Operation &op : body.without_terminator())
    if (&op != attn && !prologue.contains(&op) &&
        failed(checkElementwiseOrView(
            &op, "an attention kernel holds one attention op, a prologue on "
                 "its operands and an elementwise epilogue on its results")))
      return failure();

  // Forward: the output through an elementwise epilogue, or the log-sum-exp
  // as it is. Backward: each output is dQ, dK or dV (through an epilogue),
  // shaped like it.
  ArrayRef<int64_t> out = shapeOf(attn->getResult(0));
  for (auto [i, v] : llvm::enumerate(outputs())) {
    SmallVector<unsigned> from = resultsReaching(v, attn);
    ArrayRef<int64_t> shape = shapeOf(v);
    if (!backward && v == attn->getResult(1)) {
      contract.results.push_back({AccessKind::LogSumExp, {}, false});
      continue;
    }
    if (!backward && from == SmallVector<unsigned>{0} && shape == out) {
      contract.results.push_back({AccessKind::Elementwise, {}, false});
      continue;
    }
    if (backward && from.size() == 1 &&
        shape == shapeOf(attn->getResult(from.front()))) {
      contract.results.push_back({kinds[from.front()], {}, false});
      continue;
    }
    return fail(yield(),
                llvm::formatv("output #{0} of shape {1} is {2}", i,
                              shapeStr(shape),
                              backward ? "not one of dQ, dK, dV (through an "
                                         "elementwise epilogue, same shape)"
                                       : "neither the attention output "
                                         "(through an elementwise epilogue, "
                                         "same shape) nor its log-sum-exp")
                    .str());
  }
  DenseMap<Value, Access> direct;
  for (auto [root, kind] : roots)
    direct[root] = {kind, {}, false};
  return recordInputs(backward ? q : out, direct);
}

LogicalResult Checker::gather() {
  auto g = single<nv::GatherOp>("gather");
  if (failed(g))
    return failure();
  if (g->getAxis() != 0)
    return fail(*g, llvm::formatv("gathers along axis {0}; a gather kernel "
                                  "gathers whole rows (axis 0)",
                                  g->getAxis())
                        .str());
  auto table = dyn_cast<BlockArgument>(g->getTable());
  auto indices = dyn_cast<BlockArgument>(g->getIndices());
  if (!table || !indices || !table.hasOneUse() || !indices.hasOneUse())
    return fail(*g, "the table and the indices are kernel inputs read only "
                    "by the gather");
  ArrayRef<int64_t> out = shapeOf(g->getResult());
  ArrayRef<int64_t> t = shapeOf(table);
  contract.space = {product(shapeOf(indices)), product(t.drop_front()),
                    t.front()};
  contract.computeType = getElementTypeOrSelf(table);
  for (Operation &op : body.without_terminator())
    if (&op != g->getOperation() &&
        failed(checkElementwise(&op, out,
                                "a gather kernel holds one gather and an "
                                "elementwise epilogue on the gathered rows")))
      return failure();
  if (failed(outputsHaveShape(out, "gathered")))
    return failure();
  DenseMap<Value, Access> direct;
  direct[table] = {AccessKind::Table, {}, false};
  direct[indices] = {AccessKind::Indices, {}, false};
  return recordInputs(out, direct);
}

LogicalResult Checker::scatterAdd() {
  auto s = single<nv::ScatterAddOp>("scatter_add");
  if (failed(s))
    return failure();
  if (s->getAxis() != 0)
    return fail(*s, llvm::formatv("scatters along axis {0}; a scatter_add "
                                  "kernel adds whole rows (axis 0)",
                                  s->getAxis())
                        .str());
  auto indices = dyn_cast<BlockArgument>(s->getIndices());
  if (!indices || !indices.hasOneUse())
    return fail(*s, "the indices are a kernel input read only by the "
                    "scatter_add");
  // A row of the output is complete only when every update has landed, so
  // nothing in the same kernel can read it.
  if (outputs().size() != 1 || outputs().front() != s->getResult())
    return fail(yield(), "the scatter_add's result is the kernel's only "
                         "output; nothing may follow it");
  ArrayRef<int64_t> updates = shapeOf(s->getUpdates());
  ArrayRef<int64_t> out = shapeOf(s->getResult());
  contract.space = {product(shapeOf(indices)), product(out.drop_front()),
                    out.front()};
  contract.computeType = getElementTypeOrSelf(s->getResult());
  for (Operation &op : body.without_terminator())
    if (&op != s->getOperation() &&
        failed(checkElementwise(&op, updates,
                                "a scatter_add kernel holds an elementwise "
                                "prologue on the updates and one "
                                "scatter_add")))
      return failure();
  contract.results.push_back({AccessKind::Scattered, {}, false});
  DenseMap<Value, Access> direct;
  direct[indices] = {AccessKind::Indices, {}, false};
  return recordInputs(updates, direct);
}

LogicalResult Checker::optimizer() {
  // Updates of empty parameters are valid: the kernel then has no elements.
  int64_t elements = 0, updates = 0;
  for (auto adamw : body.getOps<nv::AdamWOp>()) {
    ++updates;
    elements += product(shapeOf(adamw.getParam()));
    if (!contract.computeType)
      contract.computeType = getElementTypeOrSelf(adamw.getParam());
  }
  if (!updates)
    return fail(group, "an optimizer kernel holds at least one 'nova.adamw'");
  contract.space = {elements};
  // Each update and what feeds or follows it works tensor by tensor, so
  // every value is elementwise over its own tensor: no views that move
  // elements.
  for (Operation &op : body.without_terminator()) {
    if (isa<nv::AdamWOp>(op))
      continue;
    if (!isElementwiseOp(&op))
      return fail(&op, "'" + op.getName().getStringRef() +
                           "' is not allowed here; an optimizer kernel holds "
                           "adamw updates and elementwise ops on the tensors "
                           "they update (clipping, casts)");
  }
  for (BlockArgument arg : body.getArguments())
    contract.inputs.push_back({product(shapeOf(arg)) == 1
                                   ? AccessKind::Scalar
                                   : AccessKind::Elementwise,
                               {},
                               false});
  contract.results.assign(outputs().size(),
                          Access{AccessKind::Elementwise, {}, false});
  return success();
}

FailureOr<Contract> Checker::run() {
  if (failed(checkCommon()))
    return failure();
  LogicalResult ok = failure();
  switch (contract.family) {
  case Family::pointwise:
    ok = pointwise();
    break;
  case Family::row_reduction:
    ok = rowOrColumnReduction(/*rows=*/true);
    break;
  case Family::column_reduction:
    ok = rowOrColumnReduction(/*rows=*/false);
    break;
  case Family::matmul:
    ok = matmul();
    break;
  case Family::attention_forward:
    ok = attention(/*backward=*/false);
    break;
  case Family::attention_backward:
    ok = attention(/*backward=*/true);
    break;
  case Family::gather:
    ok = gather();
    break;
  case Family::scatter_add:
    ok = scatterAdd();
    break;
  case Family::optimizer:
    ok = optimizer();
    break;
  }
  if (failed(ok))
    return failure();
  auto bytes = [](Value v) {
    auto type = cast<ShapedType>(v.getType());
    return type.getNumElements() *
           std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  };
  for (auto [arg, access] : llvm::zip(body.getArguments(), contract.inputs))
    if (access.kind != AccessKind::Broadcast &&
        access.kind != AccessKind::Scalar)
      contract.streamedBytes += bytes(arg);
  for (Value v : outputs())
    contract.streamedBytes += bytes(v);
  return contract;
}

FailureOr<Contract>
mlir::nova_tile::computeContract(FusionGroupOpInterface group,
                                 bool emitErrors) {
  return Checker(group, emitErrors).run();
}

//===----------------------------------------------------------------------===//
// Configurator problem
//===----------------------------------------------------------------------===//

static ::nova::DType dtypeOf(Type t) {
  if (t.isBF16())
    return ::nova::DType::BF16;
  if (t.isF16())
    return ::nova::DType::F16;
  if (t.isF64())
    return ::nova::DType::F64;
  if (t.isInteger(64))
    return ::nova::DType::I64;
  if (t.isInteger(32))
    return ::nova::DType::I32;
  if (t.isInteger(1))
    return ::nova::DType::I1;
  return ::nova::DType::F32;
}

::nova::Problem mlir::nova_tile::toProblem(const Contract &c) {
  ::nova::Problem p;
  p.dtype = dtypeOf(c.computeType);
  auto at = [&](size_t i) { return i < c.space.size() ? c.space[i] : 1; };
  switch (c.family) {
  case Family::pointwise:
  case Family::optimizer: {
    p.family = ::nova::KernelFamily::Pointwise;
    p.m = product(c.space);
    p.bytesPerElement = p.m ? (c.streamedBytes + p.m - 1) / p.m : 0;
    break;
  }
  case Family::row_reduction:
  case Family::column_reduction:
    p.family = c.family == Family::row_reduction
                   ? ::nova::KernelFamily::RowReduction
                   : ::nova::KernelFamily::ColumnReduction;
    p.m = at(0);
    p.n = at(1);
    break;
  case Family::matmul:
  case Family::attention_forward:
  case Family::attention_backward:
    p.family = c.family == Family::matmul ? ::nova::KernelFamily::Matmul
               : c.family == Family::attention_forward
                   ? ::nova::KernelFamily::AttentionForward
                   : ::nova::KernelFamily::AttentionBackward;
    p.batch = at(0);
    p.m = at(1);
    p.n = at(2);
    p.k = at(3);
    p.causal = c.causal;
    break;
  case Family::gather:
  case Family::scatter_add:
    p.family = c.family == Family::gather ? ::nova::KernelFamily::Gather
                                          : ::nova::KernelFamily::ScatterAdd;
    p.m = at(0);
    p.n = at(1);
    p.k = at(2);
    break;
  }
  return p;
}
