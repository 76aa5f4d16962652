//===- NovaOps.cpp - nova op verification and type inference --------------===//
//
// Ops that infer their result type check every rule in `inferReturnTypes`, so
// the same message reaches a parser, a C++ builder and the verifier. The
// others have a `verify()` of their own.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Support/HostTensor.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

#include "nova/Dialect/Nova/IR/NovaEnums.cpp.inc"

#define GET_OP_CLASSES
#include "nova/Dialect/Nova/IR/NovaOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A shape as `[4, 8]` for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

LogicalResult mlir::nova::OpTrait::verifyCountableShapes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        ::nova::checkedNumElements(shaped.getShape().data(),
                                   shaped.getShape().size()))
      return success();
    return op->emitOpError() << kind << " #" << index << " of type " << type
                             << " has more than 2^63 elements";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

FailureOr<SmallVector<int64_t>>
mlir::nova::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> out;
  if (!mlir::OpTrait::util::getBroadcastedShape(a, b, out))
    return failure();
  return out;
}

static RankedTensorType tensorOf(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

/// An axis attribute must name a dimension of a tensor of rank `rank`.
static LogicalResult checkAxis(std::optional<Location> loc, StringRef what,
                               int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, what, " ", axis,
                             " is out of range for a tensor of rank ", rank);
  return success();
}

/// Broadcasts the shapes of `operands` (all ranked tensors); `names` lists
/// them for the diagnostic.
static FailureOr<SmallVector<int64_t>>
inferBroadcast(std::optional<Location> loc, ValueRange operands,
               StringRef names) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto t = tensorOf(v);
    if (!t)
      return emitOptionalError(loc, "operands must be ranked tensors");
    auto next = broadcastShapes(shape, t.getShape());
    if (failed(next)) {
      if (loc) {
        auto diag = emitError(*loc, "operands (")
                    << names << ") are not broadcast-compatible: ";
        llvm::interleave(
            operands, diag,
            [&](Value o) { diag << shapeStr(tensorOf(o).getShape()); }, " vs ");
      }
      return failure();
    }
    shape = *next;
  }
  return shape;
}

static LogicalResult inferBinary(std::optional<Location> loc, Value lhs,
                                 Value rhs, Type resultElement,
                                 SmallVectorImpl<Type> &types) {
  auto l = tensorOf(lhs), r = tensorOf(rhs);
  if (!l || !r)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc,
                             "operands must have the same element type, got ",
                             l.getElementType(), " and ", r.getElementType());
  auto shape = inferBroadcast(loc, {lhs, rhs}, "lhs, rhs");
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(
      *shape, resultElement ? resultElement : l.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto value = adaptor.getValueAttr();
  if (!value)
    return emitOptionalError(loc, "requires a 'value' elements attribute");
  types.push_back(value.getType());
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = getType();
  if (type.getRank() == 0)
    return emitOpError("result must have rank >= 1");
  return checkAxis(getLoc(), "iota dim", getDim(), type.getRank());
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getShape() != out.getShape())
    return emitOpError("must preserve the shape: ")
           << shapeStr(in.getShape()) << " vs " << shapeStr(out.getShape());
  return success();
}

#define NOVA_BINARY_INFER(OP)                                                  \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(), Type(),        \
                       types);                                                 \
  }
NOVA_BINARY_INFER(AddOp)
NOVA_BINARY_INFER(SubOp)
NOVA_BINARY_INFER(MulOp)
NOVA_BINARY_INFER(DivOp)
NOVA_BINARY_INFER(MaxOp)
NOVA_BINARY_INFER(MinOp)
NOVA_BINARY_INFER(PowOp)
#undef NOVA_BINARY_INFER

LogicalResult CmpOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferBinary(loc, adaptor.getLhs(), adaptor.getRhs(),
                     IntegerType::get(ctx, 1), types);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto t = tensorOf(adaptor.getOnTrue()), f = tensorOf(adaptor.getOnFalse());
  if (!t || !f || !tensorOf(adaptor.getCondition()))
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (t.getElementType() != f.getElementType())
    return emitOptionalError(
        loc, "on_true and on_false must have the same element type, got ",
        t.getElementType(), " and ", f.getElementType());
  auto shape = inferBroadcast(
      loc, {adaptor.getCondition(), adaptor.getOnTrue(), adaptor.getOnFalse()},
      "condition, on_true, on_false");
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, t.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto in = tensorOf(adaptor.getInput());
  if (!in)
    return emitOptionalError(loc, "input must be a ranked tensor");
  ArrayRef<int64_t> dims = adaptor.getDims();
  if (dims.empty())
    return emitOptionalError(loc, "must reduce at least one dimension");
  int64_t rank = in.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t d : dims) {
    if (failed(checkAxis(loc, "reduction dimension", d, rank)))
      return failure();
    if (reduced.test(d))
      return emitOptionalError(loc, "reduction dimension ", d,
                               " is listed more than once");
    reduced.set(d);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      shape.push_back(in.getDimSize(i));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("must preserve the element type");
  // Counted with overflow checks (CountableShapes has run first).
  int64_t inCount = *::nova::checkedNumElements(in.getShape().data(),
                                                in.getShape().size()),
          outCount = *::nova::checkedNumElements(out.getShape().data(),
                                                 out.getShape().size());
  if (inCount != outCount)
    return emitOpError("must preserve the element count: ")
           << shapeStr(in.getShape()) << " has " << inCount << " elements but "
           << shapeStr(out.getShape()) << " has " << outCount;
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto in = tensorOf(adaptor.getInput());
  if (!in)
    return emitOptionalError(loc, "input must be a ranked tensor");
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "permutation has ", perm.size(),
                             " entries but the input has rank ", rank);
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen.test(p))
      return emitOptionalError(loc, "permutation is not a permutation of [0, ",
                               rank, ")");
    seen.set(p);
    shape.push_back(in.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("must preserve the element type");
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast rank ")
           << in.getRank() << " to the smaller rank " << out.getRank();
  int64_t offset = out.getRank() - in.getRank();
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t from = in.getDimSize(i), to = out.getDimSize(offset + i);
    if (from != to && from != 1)
      return emitOpError("cannot broadcast ")
             << shapeStr(in.getShape()) << " to " << shapeStr(out.getShape())
             << ": dimension " << i << " has size " << from
             << ", which is neither 1 nor " << to;
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto in = tensorOf(adaptor.getInput());
  if (!in)
    return emitOptionalError(loc, "input must be a ranked tensor");
  ArrayRef<int64_t> starts = adaptor.getStarts(), limits = adaptor.getLimits(),
                    strides = adaptor.getStrides();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(starts.size()) != rank ||
      static_cast<int64_t>(limits.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitOptionalError(loc,
                             "starts, limits and strides need one entry "
                             "per dimension (rank ",
                             rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (strides[d] < 1)
      return emitOptionalError(loc, "stride ", strides[d], " of dimension ", d,
                               " must be >= 1");
    if (starts[d] < 0 || starts[d] > limits[d] || limits[d] > in.getDimSize(d))
      return emitOptionalError(loc, "slice bounds [", starts[d], ", ",
                               limits[d], ") of dimension ", d,
                               " are outside [0, ", in.getDimSize(d), "]");
    shape.push_back((limits[d] - starts[d] + strides[d] - 1) / strides[d]);
  }
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "requires at least one input");
  auto first = tensorOf(inputs.front());
  if (!first)
    return emitOptionalError(loc, "inputs must be ranked tensors");
  int64_t dim = adaptor.getDim();
  if (failed(checkAxis(loc, "concat dim", dim, first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = tensorOf(v);
    if (!t || t.getRank() != first.getRank())
      return emitOptionalError(loc, "input ", i, " has rank ",
                               t ? t.getRank() : -1, " but input 0 has rank ",
                               first.getRank());
    if (t.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input ", i, " has element type ",
                               t.getElementType(), " but input 0 has ",
                               first.getElementType());
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, "input ", i, " has size ",
                                 t.getDimSize(d), " in dimension ", d,
                                 " but input 0 has ", first.getDimSize(d),
                                 " (only dimension ", dim, " may differ)");
    shape[dim] += t.getDimSize(dim);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

/// `outer[:axis] + indices + outer[axis+1:]`: the shape of a gather result and
/// of scatter_add's updates.
static SmallVector<int64_t> gatheredShape(ArrayRef<int64_t> outer,
                                          ArrayRef<int64_t> indices,
                                          int64_t axis) {
  SmallVector<int64_t> shape(outer.take_front(axis));
  llvm::append_range(shape, indices);
  llvm::append_range(shape, outer.drop_front(axis + 1));
  return shape;
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto table = tensorOf(adaptor.getTable());
  auto indices = tensorOf(adaptor.getIndices());
  if (!table || !indices)
    return emitOptionalError(loc, "operands must be ranked tensors");
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, "gather axis", axis, table.getRank())))
    return failure();
  types.push_back(RankedTensorType::get(
      gatheredShape(table.getShape(), indices.getShape(), axis),
      table.getElementType()));
  return success();
}

LogicalResult ScatterAddOp::verify() {
  auto updates = getUpdates().getType(), out = getType();
  if (updates.getElementType() != out.getElementType())
    return emitOpError("updates and result must have the same element type");
  if (failed(checkAxis(getLoc(), "scatter axis", getAxis(), out.getRank())))
    return failure();
  auto expected = gatheredShape(out.getShape(),
                                getIndices().getType().getShape(), getAxis());
  if (ArrayRef<int64_t>(expected) != updates.getShape())
    return emitOpError("updates have shape ")
           << shapeStr(updates.getShape()) << " but indices and result need "
           << shapeStr(expected);
  return success();
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> MatmulOp::getRoundedOperands() {
  auto rounded = (*this)->getAttrOfType<DenseI64ArrayAttr>(
      NovaDialect::getRoundedAttrName());
  return rounded ? rounded.asArrayRef() : ArrayRef<int64_t>();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto lhs = tensorOf(adaptor.getLhs()), rhs = tensorOf(adaptor.getRhs());
  if (!lhs || !rhs)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(loc, "operands must have rank >= 2, got ",
                             lhs.getRank(), " and ", rhs.getRank());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(
        loc, "operands must have the same element type, got ",
        lhs.getElementType(), " and ", rhs.getElementType());
  auto matrix = [](RankedTensorType t, bool transposed) {
    int64_t r = t.getRank();
    int64_t rows = t.getDimSize(r - 2), cols = t.getDimSize(r - 1);
    return transposed ? std::make_pair(cols, rows) : std::make_pair(rows, cols);
  };
  auto [m, k] = matrix(lhs, adaptor.getTransposeLhs());
  auto [k2, n] = matrix(rhs, adaptor.getTransposeRhs());
  if (k != k2)
    return emitOptionalError(loc, "contraction sizes differ: lhs has K = ", k,
                             " but rhs has K = ", k2);
  auto batch =
      broadcastShapes(lhs.getShape().drop_back(2), rhs.getShape().drop_back(2));
  if (failed(batch))
    return emitOptionalError(loc,
                             "batch dimensions are not broadcast-compatible");
  SmallVector<int64_t> shape = *batch;
  shape.append({m, n});
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return checkAxis(getLoc(), "softmax dim", getDim(), getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return checkAxis(getLoc(), "log_softmax dim", getDim(), getType().getRank());
}

LogicalResult LayerNormOp::verify() {
  auto in = getInput().getType(), weight = getWeight().getType();
  if (in.getRank() == 0)
    return emitOpError("input must have rank >= 1");
  if (in.getElementType() != weight.getElementType())
    return emitOpError("weight and bias must have the input's element type");
  int64_t c = in.getShape().back();
  if (weight.getRank() != 1 || weight.getDimSize(0) != c)
    return emitOpError("weight and bias must have shape [")
           << c << "] (the normalized last dimension), got "
           << shapeStr(weight.getShape());
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  return success();
}

/// Whether `value` is representable in the signless integer type `type`
/// (read as signed), so comparing with it cannot match a truncated value.
static bool fitsIntegerType(int64_t value, Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  return width >= 64 || llvm::isIntN(width, value);
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto logits = tensorOf(adaptor.getLogits());
  auto labels = tensorOf(adaptor.getLabels());
  if (!logits || !labels)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (logits.getRank() < 1)
    return emitOptionalError(loc, "logits need a class dimension (rank >= 1)");
  if (labels.getShape() != logits.getShape().drop_back())
    return emitOptionalError(
        loc,
        "labels must have the shape of logits without the class "
        "dimension: expected ",
        shapeStr(logits.getShape().drop_back()), ", got ",
        shapeStr(labels.getShape()));
  if (int64_t ignoreIndex = adaptor.getIgnoreIndex();
      !fitsIntegerType(ignoreIndex, labels.getElementType()))
    return emitOptionalError(loc, "ignore_index ", ignoreIndex,
                             " does not fit the labels' element type ",
                             labels.getElementType());
  types.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

LogicalResult CheckLabelsOp::verify() {
  // I64Attr getters are unsigned; the attributes are signed.
  int64_t classes = getClasses(), ignoreIndex = getIgnoreIndex();
  if (classes < 0)
    return emitOpError("classes must be >= 0, got ") << classes;
  Type element = getInput().getType().getElementType();
  if (!fitsIntegerType(ignoreIndex, element))
    return emitOpError("ignore_index ")
           << ignoreIndex << " does not fit the element type " << element;
  return success();
}

/// The rules shared by attention, attention_fwd and attention_bwd; returns
/// the type of the attention's output.
static FailureOr<RankedTensorType>
inferAttentionOutput(std::optional<Location> loc, Value query, Value key,
                     Value value, FloatAttr scaleAttr, bool causal) {
  auto q = tensorOf(query), k = tensorOf(key), v = tensorOf(value);
  if (!q || !k || !v)
    return emitOptionalError(loc, "operands must be ranked tensors");
  if (q.getRank() < 2 || q.getRank() != k.getRank() ||
      q.getRank() != v.getRank())
    return emitOptionalError(loc,
                             "query, key and value must have one rank "
                             ">= 2, got ",
                             q.getRank(), ", ", k.getRank(), ", ", v.getRank());
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitOptionalError(loc,
                             "query, key and value must have one element type");
  int64_t r = q.getRank();
  if (q.getShape().drop_back(2) != k.getShape().drop_back(2) ||
      q.getShape().drop_back(2) != v.getShape().drop_back(2))
    return emitOptionalError(loc, "leading (batch, head) dimensions of query, "
                                  "key and value must match");
  int64_t tq = q.getDimSize(r - 2), tk = k.getDimSize(r - 2);
  if (q.getDimSize(r - 1) != k.getDimSize(r - 1))
    return emitOptionalError(loc, "query and key head sizes differ: ",
                             q.getDimSize(r - 1), " vs ", k.getDimSize(r - 1));
  if (tk != v.getDimSize(r - 2))
    return emitOptionalError(loc, "key and value sequence lengths differ: ", tk,
                             " vs ", v.getDimSize(r - 2));
  if (causal && tq != tk)
    return emitOptionalError(loc, "causal attention needs square scores, got ",
                             tq, "x", tk);
  double scale = scaleAttr.getValueAsDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return emitOptionalError(loc, "scale must be positive and finite");
  SmallVector<int64_t> shape(q.getShape().drop_back());
  shape.push_back(v.getDimSize(r - 1));
  return RankedTensorType::get(shape, q.getElementType());
}

/// Same, reading the operands and attributes from any of the three ops'
/// adaptors (they share the names).
template <typename Adaptor>
static FailureOr<RankedTensorType>
inferAttentionOutput(std::optional<Location> loc, Adaptor adaptor) {
  return inferAttentionOutput(loc, adaptor.getQuery(), adaptor.getKey(),
                              adaptor.getValue(), adaptor.getScaleAttr(),
                              adaptor.getCausal());
}

/// One f32 log-sum-exp per query row: the output's shape without its last
/// dimension.
static RankedTensorType lseTypeFor(RankedTensorType output) {
  return RankedTensorType::get(output.getShape().drop_back(),
                               Float32Type::get(output.getContext()));
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto output = inferAttentionOutput(loc, adaptor);
  if (failed(output))
    return failure();
  types.push_back(*output);
  return success();
}

LogicalResult AttentionFwdOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto output = inferAttentionOutput(loc, adaptor);
  if (failed(output))
    return failure();
  types.push_back(*output);
  types.push_back(lseTypeFor(*output));
  return success();
}

LogicalResult AttentionBwdOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  auto output = inferAttentionOutput(loc, adaptor);
  if (failed(output))
    return failure();
  Type o = adaptor.getOutput().getType(),
       dO = adaptor.getGradOutput().getType(), lse = adaptor.getLse().getType();
  if (o != *output)
    return emitOptionalError(loc,
                             "output must have the attention result's type ",
                             *output, ", got ", o);
  if (dO != *output)
    return emitOptionalError(
        loc, "grad_output must have the attention result's type ", *output,
        ", got ", dO);
  if (lse != lseTypeFor(*output))
    return emitOptionalError(loc, "lse must be ", lseTypeFor(*output),
                             " (one f32 per query row), got ", lse);
  for (Value operand :
       {adaptor.getQuery(), adaptor.getKey(), adaptor.getValue()})
    types.push_back(operand.getType());
  return success();
}

LogicalResult AdamWOp::verify() {
  auto in = [](double x, double lo, double hi) { return x >= lo && x < hi; };
  double b1 = getBeta1().convertToDouble(), b2 = getBeta2().convertToDouble();
  if (!in(b1, 0.0, 1.0) || !in(b2, 0.0, 1.0))
    return emitOpError("beta1 and beta2 must be in [0, 1)");
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be positive");
  if (!(getWeightDecay().convertToDouble() >= 0.0))
    return emitOpError("weight decay must be >= 0");
  return success();
}
