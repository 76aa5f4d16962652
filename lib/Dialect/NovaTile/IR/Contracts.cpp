//===- Contracts.cpp - what each kernel family's body may be --------------===//
//
// Each family's check walks the body once, classifies every op (prologue,
// main op, epilogue) and every input (how the kernel reads it), and stops at
// the first broken rule with a diagnostic at the op that breaks it.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/Nova/IR/DType.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::nova_tile;
namespace nv = mlir::nova;

bool mlir::nova_tile::honoursRowPitch(Family family) {
  return family == Family::pointwise || family == Family::matmul ||
         family == Family::row_reduction;
}

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
  /// The view (transpose, slice, reshape) through which input `arg` is
  /// read, or null when it is read directly; failure when it is read both
  /// ways.
  FailureOr<Operation *> inputView(BlockArgument arg);
  /// How input `arg` is read by elementwise code over `space`.
  FailureOr<Access> elementwiseAccess(BlockArgument arg,
                                      ArrayRef<int64_t> space);
  /// Records how every input is read: the main op's operands as `direct`
  /// says, every other input elementwise over `space`.
  LogicalResult recordInputs(ArrayRef<int64_t> space,
                             const DenseMap<Value, Access> &direct = {});
  /// How a row or column reduction over `full` reads input `arg`.
  FailureOr<Access> reductionInputAccess(BlockArgument arg,
                                         ArrayRef<int64_t> full);
  /// Every output has shape `space`.
  LogicalResult outputsHaveShape(ArrayRef<int64_t> space, StringRef what);
  /// The single op of type OpT in the body, or failure with a diagnostic.
  template <typename OpT> FailureOr<OpT> single(StringRef family);
  /// Walks a main-op operand back to an input through casts and views
  /// (the prologue); records the ops it passes in `prologue` and returns
  /// the input with the strided view of it that the operand is.
  FailureOr<std::pair<BlockArgument, Access>>
  operandRead(Value v, StringRef role, DenseSet<Operation *> &prologue);
  /// An input a main op reads through a prologue is read by main ops and
  /// their prologues only; returns the first read of each such input.
  FailureOr<DenseMap<Value, Access>>
  mainReads(const DenseSet<Operation *> &prologue,
            const DenseSet<Operation *> &mains);

  FusionGroupOpInterface group;
  Block &body;
  bool emitErrors;
  Contract contract;
  /// Row and column reductions: how many leading dims of the reduced tensor
  /// index its rows.
  size_t split = 0;
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

FailureOr<Operation *> Checker::inputView(BlockArgument arg) {
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
  return view;
}

FailureOr<Access> Checker::elementwiseAccess(BlockArgument arg,
                                             ArrayRef<int64_t> space) {
  FailureOr<Operation *> viewOrNull = inputView(arg);
  if (failed(viewOrNull))
    return failure();
  Operation *view = *viewOrNull;
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

/// A strided view of a row-major tensor: element (i0, ..., in) of the view
/// is element `offset` + sum of i_d * strides[d] of the storage.
namespace {
struct StridedView {
  int64_t offset = 0;
  SmallVector<int64_t> shape, strides;
};
} // namespace

static StridedView contiguousView(ArrayRef<int64_t> shape) {
  StridedView v;
  v.shape.assign(shape.begin(), shape.end());
  v.strides.assign(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    v.strides[d] = v.strides[d + 1] * shape[d + 1];
  return v;
}

/// `v` seen with shape `to` (same elements, same row-major order), when
/// that is still one strided view: each run of dims that `to` merges or
/// splits must be contiguous within `v`.
static std::optional<StridedView> reshapeView(const StridedView &v,
                                              ArrayRef<int64_t> to) {
  StridedView r;
  r.offset = v.offset;
  r.shape.assign(to.begin(), to.end());
  r.strides.assign(to.size(), 0);
  if (product(v.shape) != product(to))
    return std::nullopt;
  if (product(to) == 0)
    return r;
  // Drop size-1 dims of the source: they never constrain the layout.
  SmallVector<int64_t> sizes, strides;
  for (auto [size, stride] : llvm::zip(v.shape, v.strides))
    if (size != 1) {
      sizes.push_back(size);
      strides.push_back(stride);
    }
  // Walk both shapes from the innermost dim, one contiguous run of source
  // dims at a time.
  int64_t t = int64_t(to.size()) - 1;
  int64_t s = int64_t(sizes.size()) - 1;
  while (s >= 0) {
    int64_t runBase = strides[s], runSize = sizes[s];
    while (s > 0 && strides[s - 1] == strides[s] * sizes[s]) {
      --s;
      runSize *= sizes[s];
    }
    --s;
    int64_t covered = 1;
    while (t >= 0 && (covered < runSize || to[t] == 1)) {
      r.strides[t] = covered * runBase;
      covered *= to[t];
      --t;
    }
    if (covered != runSize)
      return std::nullopt;
  }
  for (; t >= 0; --t)
    if (to[t] != 1)
      return std::nullopt;
  return r;
}

/// `v` after the view or cast `op` (read forward from its operand).
static std::optional<StridedView> applyView(const StridedView &v,
                                            Operation *op) {
  ArrayRef<int64_t> to = shapeOf(op->getResult(0));
  if (isa<nv::CastOp>(op))
    return v;
  if (isa<nv::ReshapeOp>(op))
    return reshapeView(v, to);
  StridedView r;
  r.offset = v.offset;
  r.shape.assign(to.begin(), to.end());
  if (auto t = dyn_cast<nv::TransposeOp>(op)) {
    for (int64_t d : t.getPermutation())
      r.strides.push_back(v.strides[d]);
    return r;
  }
  if (auto slice = dyn_cast<nv::SliceOp>(op)) {
    for (auto [start, step, stride] :
         llvm::zip(slice.getStarts(), slice.getStrides(), v.strides)) {
      r.offset += start * stride;
      r.strides.push_back(stride * step);
    }
    return r;
  }
  if (isa<nv::BroadcastOp>(op)) {
    size_t lead = to.size() - v.shape.size();
    r.strides.assign(lead, 0);
    for (auto [size, stride, target] :
         llvm::zip(v.shape, v.strides, to.drop_front(lead)))
      r.strides.push_back(size == target ? stride : 0);
    return r;
  }
  return std::nullopt;
}

/// `v` (a view of a result) seen through the operand of the view `op`
/// (read backward: a kernel writes its value to the storage of `op`'s
/// result).
static std::optional<StridedView> unapplyView(const StridedView &v,
                                              Operation *op) {
  ArrayRef<int64_t> from = shapeOf(op->getOperand(0));
  if (isa<nv::ReshapeOp>(op))
    return reshapeView(v, from);
  if (auto t = dyn_cast<nv::TransposeOp>(op)) {
    StridedView r;
    r.offset = v.offset;
    r.shape.assign(from.begin(), from.end());
    r.strides.assign(from.size(), 0);
    for (auto [i, d] : llvm::enumerate(t.getPermutation()))
      r.strides[d] = v.strides[i];
    return r;
  }
  return std::nullopt;
}

FailureOr<std::pair<BlockArgument, Access>>
Checker::operandRead(Value v, StringRef role, DenseSet<Operation *> &prologue) {
  SmallVector<Operation *> chain;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<nv::CastOp, nv::TransposeOp, nv::ReshapeOp, nv::BroadcastOp,
             nv::SliceOp>(def))
      return fail(def, "'" + def->getName().getStringRef() + "' computes the " +
                           role +
                           "; a prologue only casts, transposes, reshapes, "
                           "broadcasts or slices an input");
    // One view may feed several main-op operands (attention's key and
    // value both the same tensor); mainReads checks that every reader is.
    if (!llvm::all_of(v.getUsers(), [](Operation *user) {
          return isa<nv::CastOp, nv::TransposeOp, nv::ReshapeOp,
                     nv::BroadcastOp, nv::SliceOp, nv::MatmulOp, nv::ReduceOp,
                     nv::AttentionOp, nv::AttentionFwdOp, nv::AttentionBwdOp>(
              user);
        }))
      return fail(def, "the " + role +
                           " prologue value is also used elsewhere; prologue "
                           "values feed only their operand");
    prologue.insert(def);
    chain.push_back(def);
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  StridedView view = contiguousView(shapeOf(arg));
  for (Operation *op : llvm::reverse(chain)) {
    std::optional<StridedView> next = applyView(view, op);
    if (!next)
      return fail(op, llvm::formatv("the {0} prologue is not one strided view "
                                    "of input #{1}: this reshape merges dims "
                                    "that are not contiguous",
                                    role, arg.getArgNumber())
                          .str());
    view = std::move(*next);
  }
  Access access;
  access.offset = view.offset;
  access.strides = std::move(view.strides);
  return std::make_pair(arg, access);
}

FailureOr<DenseMap<Value, Access>>
Checker::mainReads(const DenseSet<Operation *> &prologue,
                   const DenseSet<Operation *> &mains) {
  DenseMap<Value, Access> reads;
  for (const MainProblem &p : contract.problems)
    for (auto &[input, access] : p.operands)
      reads.try_emplace(body.getArgument(input), access);
  for (Operation *op : prologue)
    for (Operation *user : op->getResult(0).getUsers())
      if (!prologue.contains(user) && !mains.contains(user))
        return fail(op, "this prologue value is also used elsewhere; "
                        "prologue values feed only main-op operands");
  for (auto &[value, access] : reads)
    for (Operation *user : value.getUsers())
      if (!prologue.contains(user) && !mains.contains(user))
        return fail(user,
                    llvm::formatv("input #{0} is a {1} operand and "
                                  "also read here; a kernel reads an "
                                  "input as main-op operands or "
                                  "elementwise, not both",
                                  cast<BlockArgument>(value).getArgNumber(),
                                  accessKindName(access.kind))
                        .str());
  return reads;
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

/// The rows x cols view of a reduced tensor `full` whose first `split` dims
/// index the rows and the others the columns: how a row or column reduction
/// kernel over it reads or writes a value of `shape`. Per row: the row dims,
/// the column dims dropped or kept as 1s. Per column: the column dims alone
/// (leading 1s allowed). Any other NumPy broadcast keeps its dims.
/// When rows and columns have the same size a vector of that size could be
/// either: `columnsFirst` takes it per column (what a column reduction
/// writes).
static std::optional<Access> reductionAccess(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> full,
                                             size_t split,
                                             bool columnsFirst = false) {
  ArrayRef<int64_t> rowDims = full.take_front(split);
  ArrayRef<int64_t> colDims = full.drop_front(split);
  // With a single row, a column sum keeping its dims has the full shape
  // (with a single element too, it is also the total).
  if (columnsFirst && shape == full && product(rowDims) == 1)
    return Access{product(shape) == 1 ? AccessKind::Scalar
                                      : AccessKind::PerColumn,
                  {}, false};
  if (shape == full)
    return Access{AccessKind::Elementwise, {}, false};
  if (product(shape) == 1)
    return Access{AccessKind::Scalar, {}, false};
  bool perRow = shape == rowDims || (shape.size() == full.size() &&
                                     shape.take_front(split) == rowDims &&
                                     product(shape.drop_front(split)) == 1);
  bool perColumn = !colDims.empty() && shape.size() >= colDims.size() &&
                   shape.take_back(colDims.size()) == colDims &&
                   product(shape) == product(colDims);
  if (perColumn && (columnsFirst || !perRow))
    return Access{AccessKind::PerColumn, {}, false};
  if (perRow)
    return Access{AccessKind::PerRow, {}, false};
  return shapeAccess(shape, full);
}

/// The dims [0, n) as a list.
static SmallVector<int64_t> leadingDims(int64_t n) {
  return llvm::to_vector(llvm::seq<int64_t>(0, std::max<int64_t>(n, 0)));
}

LogicalResult Checker::rowOrColumnReduction(bool rows) {
  StringRef family = rows ? "row reduction" : "column reduction";
  std::string allowed =
      rows ? "a row reduction holds elementwise ops, views and reductions "
             "along the innermost dim (reduce, softmax, log_softmax, "
             "layer_norm, cross_entropy) or across the rows"
           : "a column reduction holds elementwise ops, views and reductions "
             "over every dim but the innermost";
  // The reduced tensor's shape and how many of its leading dims index the
  // rows: in a row reduction the input of the first reduction along the
  // rows (every dim but the last), in a column reduction the input of the
  // first reduction across them (the dims it reduces).
  SmallVector<int64_t> full;
  auto reduces = [&](Operation *op, ArrayRef<int64_t> shape, size_t rowDims) {
    if (full.empty()) {
      full.assign(shape.begin(), shape.end());
      split = rowDims;
      contract.computeType = getElementTypeOrSelf(op->getOperand(0));
      return success();
    }
    if (ArrayRef<int64_t>(full) != shape)
      return fail(op, llvm::formatv("reduces a {0} tensor, but the kernel's "
                                    "rows x cols space is {1} (from its first "
                                    "reduction); all reductions share it",
                                    shapeStr(shape), shapeStr(full))
                          .str());
    if (split != rowDims)
      return fail(op, llvm::formatv("reduces the first {0} dims of a {1} "
                                    "tensor, but the kernel's rows are its "
                                    "first {2} dims (from its first "
                                    "reduction); all reductions share them",
                                    rowDims, shapeStr(shape), split)
                          .str());
    return success();
  };
  // Reductions across the rows (a column sum, a total, cross_entropy's
  // mean): complete only once every row is done, so their results leave the
  // kernel and nothing in it reads them. A GPU kernel keeps per-block
  // partials and combines them after the last row.
  SmallVector<Operation *> across;
  SmallVector<nv::ReduceOp> totals, columnSums;
  for (Operation &op : body.without_terminator()) {
    if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
      ArrayRef<int64_t> in = shapeOf(reduce.getInput());
      int64_t rank = in.size();
      ArrayRef<int64_t> dims = reduce.getDims();
      if (rows && rank >= 1 && dims == ArrayRef<int64_t>{rank - 1}) {
        if (failed(reduces(&op, in, rank - 1)))
          return failure();
        continue;
      }
      // A column sum over every dim but the last; a column reduction may
      // also take columns of several dims (a sum over the batch dim alone).
      if (rank >= 2 &&
          (dims == ArrayRef<int64_t>(leadingDims(rank - 1)) ||
           (!rows && !dims.empty() && dims.size() + 1 < size_t(rank) &&
            dims == ArrayRef<int64_t>(leadingDims(dims.size()))))) {
        across.push_back(&op);
        columnSums.push_back(reduce);
        if (!rows && failed(reduces(&op, in, dims.size())))
          return failure();
        continue;
      }
      if (rank >= 1 && dims == ArrayRef<int64_t>(leadingDims(rank))) {
        across.push_back(&op);
        totals.push_back(reduce);
        continue;
      }
      std::string want =
          rows ? llvm::formatv("[{0}] along the rows, or [{1}] or every dim "
                               "across them",
                               rank - 1,
                               llvm::interleaved(leadingDims(rank - 1)))
                     .str()
          : rank <= 2
              ? llvm::formatv("[{0}] or every dim",
                              llvm::interleaved(leadingDims(rank - 1)))
                    .str()
              : llvm::formatv("[0] to [{0}] (leading dims) or every dim",
                              llvm::interleaved(leadingDims(rank - 1)))
                    .str();
      return fail(&op,
                  llvm::formatv("reduces dims [{0}] of a rank-{1} "
                                "tensor; a {2} reduces dims {3}",
                                llvm::interleaved(dims), rank, family, want)
                      .str());
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
      if (failed(reduces(&op, shapeOf(op.getOperand(0)),
                         shapeOf(op.getOperand(0)).size() - 1)))
        return failure();
      continue;
    }
    if (rows && isa<nv::LayerNormOp, nv::CrossEntropyOp>(op)) {
      if (failed(reduces(&op, shapeOf(op.getOperand(0)),
                         shapeOf(op.getOperand(0)).size() - 1)))
        return failure();
      // The loss is a mean over every row.
      if (isa<nv::CrossEntropyOp>(op))
        across.push_back(&op);
      continue;
    }
  }
  // A column reduction with a total is lowered as a row reduction of its
  // space, its column sums (over every leading dim) as a row kernel's.
  contract.totals = int64_t(totals.size());
  contract.rowsOfTotals = !rows && !totals.empty();
  if (rows || contract.rowsOfTotals)
    contract.columnSums = int64_t(columnSums.size());
  // A column reduction made only of totals iterates over the largest
  // summed tensor.
  if (!rows && full.empty() && !totals.empty()) {
    Value largest = totals.front().getInput();
    for (nv::ReduceOp total : totals)
      if (product(shapeOf(total.getInput())) > product(shapeOf(largest)))
        largest = total.getInput();
    full.assign(shapeOf(largest).begin(), shapeOf(largest).end());
    split = full.size() - 1;
    contract.computeType = getElementTypeOrSelf(largest);
  }
  if (full.empty())
    return fail(
        group, llvm::formatv("a {0} holds at least one reduction {1}", family,
                             rows ? "along the innermost dim" : "over the rows")
                   .str());
  // A row reduction's column sums reduce its own space.
  for (nv::ReduceOp sum : columnSums)
    if (failed(reduces(sum, shapeOf(sum.getInput()), sum.getDims().size())))
      return failure();
  // A total sums a value the kernel has per element or per row.
  for (nv::ReduceOp total : totals) {
    auto access = reductionAccess(shapeOf(total.getInput()), full, split);
    if (!access || (access->kind != AccessKind::Elementwise &&
                    access->kind != AccessKind::PerRow &&
                    access->kind != AccessKind::Scalar))
      return fail(total, llvm::formatv("sums every element of a {0} tensor, "
                                       "which is neither per element nor per "
                                       "row of the kernel's {1} space",
                                       shapeStr(shapeOf(total.getInput())),
                                       shapeStr(full))
                             .str());
  }
  DenseSet<Operation *> acrossSet(across.begin(), across.end());
  for (Operation *op : across)
    for (Operation *user : op->getUsers())
      if (user != yield())
        return fail(user, "reads the result of a reduction across the rows, "
                          "which is complete only when every row is done; "
                          "such a result is only yielded");
  // Everything else: elementwise code over the reduced tensor's space, and
  // every value per element, per row or per column, broadcast or scalar.
  for (Operation &op : body.without_terminator()) {
    bool reduction =
        isa<nv::ReduceOp>(op) ||
        (rows && isa<nv::SoftmaxOp, nv::LogSoftmaxOp, nv::LayerNormOp,
                     nv::CrossEntropyOp, nv::CheckLabelsOp>(op));
    if (!reduction && failed(checkElementwiseOrView(&op, allowed)))
      return failure();
    for (Value r : op.getResults())
      if (!acrossSet.contains(&op) && !reductionAccess(shapeOf(r), full, split))
        return fail(&op, llvm::formatv("value of shape {0} is not per "
                                       "element, per row or per column of "
                                       "the reduced {1} tensor",
                                       shapeStr(shapeOf(r)), shapeStr(full))
                             .str());
  }
  int64_t cols = product(ArrayRef<int64_t>(full).drop_front(split));
  contract.space = {product(full) / std::max<int64_t>(cols, 1), cols};
  for (auto [i, v] : llvm::enumerate(outputs())) {
    Operation *def = v.getDefiningOp();
    bool fromAcross = def && acrossSet.contains(def);
    std::optional<Access> access =
        reductionAccess(shapeOf(v), full, split, fromAcross || !rows);
    auto is = [&](AccessKind kind) { return access && access->kind == kind; };
    bool ok = fromAcross ? is(AccessKind::PerColumn) || is(AccessKind::Scalar)
              : rows ? is(AccessKind::Elementwise) || is(AccessKind::PerRow) ||
                           is(AccessKind::Scalar)
                     : is(AccessKind::Elementwise) ||
                           is(AccessKind::PerColumn) || is(AccessKind::Scalar);
    if (!ok)
      return fail(yield(),
                  llvm::formatv("output #{0} of shape {1} is not {2} of the "
                                "reduced {3} tensor",
                                i, shapeStr(shapeOf(v)),
                                fromAcross ? "per column or a scalar"
                                : rows     ? "per element, per row or a scalar"
                                       : "per element, per column or a scalar",
                                shapeStr(full))
                      .str());
    contract.results.push_back(*access);
  }
  for (BlockArgument arg : body.getArguments()) {
    auto access = reductionInputAccess(arg, full);
    if (failed(access))
      return failure();
    contract.inputs.push_back(*access);
  }
  return success();
}

FailureOr<Access> Checker::reductionInputAccess(BlockArgument arg,
                                                ArrayRef<int64_t> full) {
  FailureOr<Operation *> viewOrNull = inputView(arg);
  if (failed(viewOrNull))
    return failure();
  Operation *view = *viewOrNull;
  if (!view) {
    if (auto access = reductionAccess(shapeOf(arg), full, split))
      return *access;
    return fail(group, llvm::formatv("input #{0} of shape {1} is not per "
                                     "element, per row or per column of "
                                     "the reduced {2} tensor",
                                     arg.getArgNumber(), shapeStr(shapeOf(arg)),
                                     shapeStr(full))
                           .str());
  }
  // A view of an input: a transpose or a slice feeds whole elements of the
  // space; a reshape may also relabel a per-row or per-column vector.
  std::optional<Access> seen =
      reductionAccess(shapeOf(view->getResult(0)), full, split);
  if (seen && seen->kind == AccessKind::Elementwise) {
    if (auto transpose = dyn_cast<nv::TransposeOp>(view))
      return Access{AccessKind::Transposed,
                    llvm::to_vector(transpose.getPermutation()), false};
    if (auto slice = dyn_cast<nv::SliceOp>(view)) {
      Access access{AccessKind::Sliced, {}, false};
      llvm::append_range(access.dims, slice.getStarts());
      llvm::append_range(access.dims, slice.getLimits());
      llvm::append_range(access.dims, slice.getStrides());
      return access;
    }
    return Access{AccessKind::Reshaped, {}, false};
  }
  if (seen && isa<nv::ReshapeOp>(view) &&
      (seen->kind == AccessKind::PerRow ||
       seen->kind == AccessKind::PerColumn || seen->kind == AccessKind::Scalar))
    return *seen;
  return fail(view, llvm::formatv("reads input #{0} as a {1} value, which is "
                                  "not one element per point of the reduced "
                                  "{2} tensor; a reduction kernel reads "
                                  "transposed, sliced or reshaped inputs "
                                  "element by element",
                                  arg.getArgNumber(),
                                  shapeStr(shapeOf(view->getResult(0))),
                                  shapeStr(full))
                        .str());
}

/// Whether `op` sums a tensor over every dim but the innermost: a column
/// sum, which a grouped GEMM computes as ones(1 x rows) . X.
static bool isColumnSum(Operation *op) {
  auto reduce = dyn_cast<nv::ReduceOp>(op);
  if (!reduce || reduce.getKind() != nv::ReduceKind::sum)
    return false;
  int64_t rank = shapeOf(reduce.getInput()).size();
  return rank >= 2 &&
         llvm::equal(reduce.getDims(), llvm::seq<int64_t>(0, rank - 1));
}

/// A matmul operand's view in the product's orientation ([batch..., M, K]
/// for the lhs, [batch..., K, N] for the rhs) over the product's batch dims
/// `batch`: swaps the last two dims when the matmul reads it transposed,
/// and gives batch dims it does not have (or has as 1) stride 0.
static Access orientOperand(Access declared, ArrayRef<int64_t> shape, bool swap,
                            ArrayRef<int64_t> batch) {
  SmallVector<int64_t> strides = declared.strides;
  size_t r = strides.size();
  if (swap)
    std::swap(strides[r - 2], strides[r - 1]);
  SmallVector<int64_t> oriented(batch.size() + 2 - r, 0);
  for (size_t d = 0; d + 2 < r; ++d)
    oriented.push_back(shape[d] == 1 ? 0 : strides[d]);
  oriented.push_back(strides[r - 2]);
  oriented.push_back(strides[r - 1]);
  declared.strides = std::move(oriented);
  return declared;
}

LogicalResult Checker::matmul() {
  // Main ops: matmuls and column sums, in body order.
  SmallVector<Operation *> mains;
  for (Operation &op : body.without_terminator())
    if (isa<nv::MatmulOp>(op) || isColumnSum(&op))
      mains.push_back(&op);
  if (!llvm::any_of(mains, [](Operation *op) { return isa<nv::MatmulOp>(op); }))
    return fail(group, "a matmul kernel holds at least one 'nova.matmul', "
                       "the body has none");
  DenseSet<Operation *> prologue, mainSet(mains.begin(), mains.end());
  // The shape each problem's epilogue runs over.
  SmallVector<SmallVector<int64_t>> epilogueShape;
  for (Operation *main : mains) {
    MainProblem problem;
    if (auto mm = dyn_cast<nv::MatmulOp>(main)) {
      ArrayRef<int64_t> out = shapeOf(mm.getResult());
      ArrayRef<int64_t> a = shapeOf(mm.getLhs());
      ArrayRef<int64_t> batch = out.drop_back(2);
      int64_t m = out[out.size() - 2], n = out.back();
      int64_t k = mm.getTransposeLhs() ? a[a.size() - 2] : a.back();
      problem.space = {product(batch), m, n, k};
      auto lhs = operandRead(mm.getLhs(), "matmul's lhs", prologue);
      if (failed(lhs))
        return failure();
      auto rhs = operandRead(mm.getRhs(), "matmul's rhs", prologue);
      if (failed(rhs))
        return failure();
      Access l = orientOperand(lhs->second, a, mm.getTransposeLhs(), batch);
      Access r = orientOperand(rhs->second, shapeOf(mm.getRhs()),
                               mm.getTransposeRhs(), batch);
      l.kind = AccessKind::MatmulLhs;
      r.kind = AccessKind::MatmulRhs;
      // Stored K x M (lhs) or N x K (rhs): K is not the fastest dim of the
      // lhs, but is of the rhs; a dim of size 1 says nothing.
      size_t rk = l.strides.size();
      l.transposed = m > 1 && k > 1 ? l.strides[rk - 2] < l.strides[rk - 1]
                                    : mm.getTransposeLhs();
      r.transposed = n > 1 && k > 1 ? r.strides[rk - 2] < r.strides[rk - 1]
                                    : mm.getTransposeRhs();
      problem.operands.push_back({lhs->first.getArgNumber(), l});
      problem.operands.push_back({rhs->first.getArgNumber(), r});
      problem.rhsRounded = mm.isRoundedOperand(1);
      epilogueShape.emplace_back(out);
    } else {
      auto reduce = cast<nv::ReduceOp>(main);
      ArrayRef<int64_t> in = shapeOf(reduce.getInput());
      int64_t n = in.back(), rows = product(in.drop_back());
      problem.space = {1, 1, n, rows};
      problem.columnSum = true;
      auto read =
          operandRead(reduce.getInput(), "column sum's operand", prologue);
      if (failed(read))
        return failure();
      StridedView view{read->second.offset, SmallVector<int64_t>(in),
                       read->second.strides};
      std::optional<StridedView> flat = reshapeView(view, {rows, n});
      if (!flat)
        return fail(main, "the column sum's operand is not one rows x "
                          "columns strided view of its input");
      Access x{AccessKind::MatmulRhs, {}, false, flat->offset, flat->strides};
      problem.operands.push_back({read->first.getArgNumber(), x});
      epilogueShape.emplace_back(shapeOf(reduce.getResult()));
    }
    contract.problems.push_back(std::move(problem));
  }
  contract.space = contract.problems.front().space;
  contract.computeType =
      getElementTypeOrSelf((*llvm::find_if(mains, [](Operation *op) {
                             return isa<nv::MatmulOp>(op);
                           }))->getOperand(0));

  // Every other op is epilogue of exactly one problem: the one it is
  // computed from, or else the one its value feeds.
  StringRef allowed = "a matmul kernel holds matmuls, column sums, a "
                      "prologue (cast, transpose, reshape, broadcast or "
                      "slice of an input) per operand and an elementwise "
                      "epilogue per result";
  DenseMap<Operation *, unsigned> problemOf;
  for (auto [i, main] : llvm::enumerate(mains))
    problemOf[main] = i;
  auto joinProblems = [&](Operation *op, auto &&related) -> LogicalResult {
    std::optional<unsigned> found;
    for (Operation *other : related) {
      auto it = other ? problemOf.find(other) : problemOf.end();
      if (it == problemOf.end())
        continue;
      if (found && *found != it->second)
        return fail(op, "combines two problems of a grouped GEMM; each "
                        "epilogue value follows one matmul or column sum");
      found = it->second;
    }
    if (found)
      problemOf[op] = *found;
    return success();
  };
  SmallVector<Operation *> epilogue;
  for (Operation &op : body.without_terminator())
    if (!mainSet.contains(&op) && !prologue.contains(&op))
      epilogue.push_back(&op);
  for (Operation *op : epilogue) {
    SmallVector<Operation *> producers;
    for (Value v : op->getOperands())
      producers.push_back(v.getDefiningOp());
    if (failed(joinProblems(op, producers)))
      return failure();
  }
  for (Operation *op : llvm::reverse(epilogue)) {
    if (problemOf.contains(op))
      continue;
    SmallVector<Operation *> users(op->getUsers());
    if (failed(joinProblems(op, users)))
      return failure();
    if (!problemOf.contains(op)) {
      if (mains.size() > 1)
        return fail(op, "follows no problem of the grouped GEMM; each "
                        "epilogue value follows one matmul or column sum");
      problemOf[op] = 0;
    }
  }
  for (Operation *op : epilogue)
    if (failed(checkElementwise(op, epilogueShape[problemOf[op]], allowed)))
      return failure();

  for (auto [i, v] : llvm::enumerate(outputs())) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return fail(yield(), llvm::formatv("output #{0} is an input; a kernel "
                                         "computes its outputs",
                                         i)
                               .str());
    unsigned p = problemOf.lookup(def);
    ArrayRef<int64_t> shape = shapeOf(v), want = epilogueShape[p];
    // A column sum's epilogue broadcasts to its N sums, so every value
    // computed from it is per column.
    if (contract.problems[p].columnSum) {
      contract.results.push_back({AccessKind::PerColumn, {}, false});
      continue;
    }
    if (shape != want)
      return fail(yield(), llvm::formatv("output #{0} has shape {1}, but "
                                         "every output has its matmul "
                                         "product's shape {2}",
                                         i, shapeStr(shape), shapeStr(want))
                               .str());
    contract.results.push_back({AccessKind::Elementwise, {}, false});
  }

  auto reads = mainReads(prologue, mainSet);
  if (failed(reads))
    return failure();
  for (BlockArgument arg : body.getArguments()) {
    if (auto it = reads->find(arg); it != reads->end()) {
      contract.inputs.push_back(it->second);
      continue;
    }
    // Read elementwise by the epilogue of the problem(s) of its users.
    std::optional<Access> first;
    for (Operation *user : arg.getUsers()) {
      auto access = elementwiseAccess(arg, epilogueShape[problemOf[user]]);
      if (failed(access))
        return failure();
      if (!first)
        first = *access;
    }
    contract.inputs.push_back(first ? *first : Access{});
  }
  return success();
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
  MainProblem problem;
  for (auto [i, v] : llvm::enumerate(attn->getOperands())) {
    auto read = operandRead(v, roles[i], prologue);
    if (failed(read))
      return failure();
    read->second.kind = kinds[i];
    problem.operands.push_back({read->first.getArgNumber(), read->second});
  }
  ArrayRef<int64_t> q = shapeOf(attn->getOperand(0));
  ArrayRef<int64_t> k = shapeOf(attn->getOperand(1));
  problem.space = {product(q.drop_back(2)), q[q.size() - 2], k[k.size() - 2],
                   q.back()};
  contract.space = problem.space;
  contract.problems.push_back(std::move(problem));
  contract.causal = attn->hasAttr("causal");
  contract.computeType = getElementTypeOrSelf(attn->getOperand(0));

  // An output may be written through transposes and reshapes of a result
  // (the heads merged back into rows), or be the concatenation of such
  // views of several results (one window each): those views and concats
  // feed only the output.
  struct Piece {
    unsigned output;
    Value base;
    SmallVector<Operation *> views;
    StridedView window; // the piece's elements within the output
    bool inConcat;
  };
  DenseSet<Operation *> outputViews;
  SmallVector<Piece> pieces;
  for (auto [i, v] : llvm::enumerate(outputs())) {
    StridedView whole = contiguousView(shapeOf(v));
    SmallVector<std::pair<Value, StridedView>> parts{{v, whole}};
    auto concat = v.getDefiningOp<nv::ConcatOp>();
    if (concat && llvm::none_of(concat->getOperands(), [](Value x) {
          return isa<BlockArgument>(x);
        })) {
      outputViews.insert(concat);
      parts.clear();
      int64_t dim = concat.getDim(), start = 0;
      for (Value part : concat->getOperands()) {
        StridedView window = whole;
        window.offset = start * whole.strides[dim];
        window.shape[dim] = shapeOf(part)[dim];
        start += window.shape[dim];
        parts.push_back({part, window});
      }
    }
    for (auto &[part, window] : parts) {
      // A repeated constant fills its window (the zeros around a gradient
      // written into one part of a larger tensor).
      if (auto constant = part.getDefiningOp<nv::ConstantOp>();
          constant && parts.size() > 1 &&
          isa<SplatElementsAttr>(constant.getValue()))
        continue;
      Piece piece{unsigned(i), part, {}, window, parts.size() > 1};
      while (Operation *def = piece.base.getDefiningOp()) {
        if (!isa<nv::TransposeOp, nv::ReshapeOp>(def) ||
            (piece.base != v && !piece.base.hasOneUse()) ||
            isa<BlockArgument>(def->getOperand(0)))
          break;
        piece.views.push_back(def);
        piece.base = def->getOperand(0);
      }
      outputViews.insert(piece.views.begin(), piece.views.end());
      pieces.push_back(std::move(piece));
    }
  }
  for (Operation &op : body.without_terminator())
    if (&op != attn && !prologue.contains(&op) && !outputViews.contains(&op) &&
        failed(checkElementwiseOrView(
            &op, "an attention kernel holds one attention op, a prologue on "
                 "its operands and an elementwise epilogue on its results, "
                 "written through transposes, reshapes and a concat")))
      return failure();

  // Forward: the output through an elementwise epilogue, or the log-sum-exp
  // as it is. Backward: each output is dQ, dK or dV (through an epilogue),
  // shaped like it.
  ArrayRef<int64_t> out = shapeOf(attn->getResult(0));
  contract.results.assign(outputs().size(), Access{});
  SmallVector<bool> described(outputs().size(), false);
  for (Piece &piece : pieces) {
    unsigned i = piece.output;
    Value v = piece.base;
    SmallVector<unsigned> from = resultsReaching(v, attn);
    ArrayRef<int64_t> shape = shapeOf(v);
    Access access;
    if (!backward && v == attn->getResult(1))
      access.kind = AccessKind::LogSumExp;
    else if (!backward && from == SmallVector<unsigned>{0} && shape == out)
      access.kind = AccessKind::Elementwise;
    else if (backward && from.size() == 1 &&
             shape == shapeOf(attn->getResult(from.front())))
      access.kind = kinds[from.front()];
    else
      return fail(yield(),
                  llvm::formatv("output #{0} of shape {1} is {2}", i,
                                shapeStr(shape),
                                backward ? "not one of dQ, dK, dV (through an "
                                           "elementwise epilogue, same shape)"
                                         : "neither the attention output "
                                           "(through an elementwise epilogue, "
                                           "same shape) nor its log-sum-exp")
                      .str());
    StridedView view = piece.window;
    for (Operation *op : piece.views) {
      std::optional<StridedView> prev = unapplyView(view, op);
      if (!prev)
        return fail(op, llvm::formatv("output #{0} is not one strided view "
                                      "of the value the kernel computes: "
                                      "this reshape splits dims that are "
                                      "not contiguous",
                                      i)
                            .str());
      view = std::move(*prev);
    }
    // A result written as it is keeps the contiguous (empty) strides.
    Access written = access;
    if (piece.inConcat || !piece.views.empty()) {
      written.offset = view.offset;
      written.strides = view.strides;
    }
    contract.problems.front().writes.push_back({i, written});
    // An output that is one piece is described by its access; a
    // concatenation by its first piece's kind (the windows are `writes`).
    if (!described[i]) {
      described[i] = true;
      contract.results[i] =
          piece.inConcat || piece.views.empty() ? access : written;
    }
  }
  auto reads = mainReads(prologue, DenseSet<Operation *>{attn});
  if (failed(reads))
    return failure();
  return recordInputs(backward ? q : out, *reads);
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
  // Two kinds of multi-tensor kernel, each elementwise tensor by tensor:
  // the AdamW updates of many parameters, or the sums over whole tensors
  // that a global gradient norm needs (each result complete only at the end
  // of the kernel, so only yielded). Updates of empty parameters are valid:
  // the kernel then has no elements.
  int64_t elements = 0, updates = 0, sums = 0;
  for (Operation &op : body.without_terminator()) {
    Value tensor;
    if (auto adamw = dyn_cast<nv::AdamWOp>(op)) {
      ++updates;
      tensor = adamw.getParam();
    } else if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
      int64_t rank = shapeOf(reduce.getInput()).size();
      if (rank == 0 || reduce.getDims() != ArrayRef<int64_t>(leadingDims(rank)))
        return fail(&op, "reduces part of a tensor; an optimizer kernel "
                         "sums whole tensors only");
      ++sums;
      tensor = reduce.getInput();
      for (Operation *user : op.getUsers())
        if (user != yield())
          return fail(user, "reads a sum over a whole tensor, which is "
                            "complete only at the end of the kernel; such a "
                            "sum is only yielded");
    } else {
      continue;
    }
    elements += product(shapeOf(tensor));
    if (!contract.computeType)
      contract.computeType = getElementTypeOrSelf(tensor);
  }
  if (!updates && !sums)
    return fail(group, "an optimizer kernel holds 'nova.adamw' updates or "
                       "sums over whole tensors (a global norm), the body "
                       "has neither");
  if (updates && sums)
    return fail(group, "an optimizer kernel holds either 'nova.adamw' "
                       "updates or sums over whole tensors, not both: the "
                       "updates read the finished sums");
  contract.space = {elements};
  // Everything else works tensor by tensor, so every value is elementwise
  // over its own tensor: no views that move elements.
  for (Operation &op : body.without_terminator()) {
    if (isa<nv::AdamWOp, nv::ReduceOp>(op))
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
  for (Value v : outputs())
    contract.results.push_back({product(shapeOf(v)) == 1 && sums
                                    ? AccessKind::Scalar
                                    : AccessKind::Elementwise,
                                {},
                                false});
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
  contract.transcendentals =
      llvm::count_if(body.without_terminator(), [](Operation &op) {
        return isa<nv::GeluOp, nv::TanhOp, nv::ExpOp, nv::ErfOp, nv::SigmoidOp>(
            op);
      });
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
    contract.writtenBytes += bytes(v);
  contract.streamedBytes += contract.writtenBytes;
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

::nova::Problem mlir::nova_tile::toProblem(const Contract &c) {
  ::nova::Problem p;
  p.dtype = mlir::nova::dtypeOf(c.computeType).value_or(::nova::DType::F32);
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
    // A column kernel with a total is lowered as a row kernel over its
    // space (convert-tile-to-gpu), and priced as one.
    p.family = c.family == Family::row_reduction || c.rowsOfTotals
                   ? ::nova::KernelFamily::RowReduction
                   : ::nova::KernelFamily::ColumnReduction;
    p.m = at(0);
    p.n = at(1);
    p.streamedBytes = c.streamedBytes;
    p.columnSums = c.columnSums;
    p.totals = c.totals;
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
    // The epilogue of a single GEMM (the wgmma kernel takes no grouped
    // ones) and its outputs.
    if (c.family == Family::matmul && c.problems.size() == 1)
      p.epilogueTranscendentals = c.transcendentals;
    p.outputBytes = c.writtenBytes;
    // Stored N x K: K-major, as the wgmma kernel's TF32 B must be.
    p.roundedKMajorB = c.problems.size() == 1 && c.problems[0].rhsRounded &&
                       c.problems[0].operands[1].second.transposed;
    // A TF32 product's B stored K x N, as the product reads it: N-major.
    p.nMajorB = c.family == Family::matmul && p.dtype == ::nova::DType::F32 &&
                c.problems.size() == 1 &&
                !c.problems[0].operands[1].second.transposed;
    if (c.problems.size() > 1) {
      // A grouped GEMM as one GEMM of the same work: the largest problem's
      // N and K, batch 1, and enough rows of M for every problem's
      // multiply-adds (the concatenated tile space).
      int64_t work = 0, largest = 0;
      for (const MainProblem &g : c.problems) {
        int64_t w = product(g.space);
        work += w;
        if (w > largest) {
          largest = w;
          p.n = g.space[2];
          p.k = g.space[3];
        }
      }
      p.batch = 1;
      p.m = (work + p.n * p.k - 1) / (p.n * p.k);
    }
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
