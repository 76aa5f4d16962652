//===- NovaBuilder.cpp - terse construction of nova IR --------------------===//

#include "nova/Dialect/Nova/IR/NovaBuilder.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

ArrayRef<int64_t> mlir::nova::shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

Type mlir::nova::elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

DenseElementsAttr mlir::nova::splatAttr(RankedTensorType type, double value) {
  Type e = type.getElementType();
  Attribute element = isa<FloatType>(e)
                          ? Attribute(FloatAttr::get(e, value))
                          : Attribute(IntegerAttr::get(e, int64_t(value)));
  return DenseElementsAttr::get(type, element);
}

Value NovaBuilder::splat(RankedTensorType type, double value) {
  return ConstantOp::create(b, loc, splatAttr(type, value));
}

Value NovaBuilder::scalar(Type like, double value) {
  return splat(RankedTensorType::get({}, getElementTypeOrSelf(like)), value);
}

Value NovaBuilder::scalarInt(Type like, int64_t value) {
  auto type = RankedTensorType::get({}, getElementTypeOrSelf(like));
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type,
                             IntegerAttr::get(type.getElementType(), value)));
}

Value NovaBuilder::add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
Value NovaBuilder::sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
Value NovaBuilder::mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
Value NovaBuilder::div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
Value NovaBuilder::neg(Value x) { return NegOp::create(b, loc, x); }
Value NovaBuilder::exp(Value x) { return ExpOp::create(b, loc, x); }
Value NovaBuilder::log(Value x) { return LogOp::create(b, loc, x); }
Value NovaBuilder::tanh(Value x) { return TanhOp::create(b, loc, x); }
Value NovaBuilder::sqrt(Value x) { return SqrtOp::create(b, loc, x); }
Value NovaBuilder::rsqrt(Value x) { return RsqrtOp::create(b, loc, x); }
Value NovaBuilder::reciprocal(Value x) {
  return ReciprocalOp::create(b, loc, x);
}

Value NovaBuilder::cmp(CmpPredicate p, Value x, Value y) {
  return CmpOp::create(b, loc, CmpPredicateAttr::get(b.getContext(), p), x, y);
}

Value NovaBuilder::select(Value c, Value x, Value y) {
  return SelectOp::create(b, loc, c, x, y);
}

Value NovaBuilder::cast(Value x, Type elementType) {
  if (elementTypeOf(x) == elementType)
    return x;
  return CastOp::create(b, loc, RankedTensorType::get(shapeOf(x), elementType),
                        x);
}

Value NovaBuilder::reduce(ReduceKind kind, Value x, ArrayRef<int64_t> dims,
                          bool keepDims) {
  return ReduceOp::create(b, loc, ReduceKindAttr::get(b.getContext(), kind), x,
                          b.getDenseI64ArrayAttr(dims),
                          keepDims ? b.getUnitAttr() : nullptr);
}

Value NovaBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  if (shapeOf(x) == shape)
    return x;
  return ReshapeOp::create(b, loc,
                           RankedTensorType::get(shape, elementTypeOf(x)), x);
}

Value NovaBuilder::transpose(Value x, ArrayRef<int64_t> permutation) {
  return TransposeOp::create(b, loc, x, b.getDenseI64ArrayAttr(permutation));
}

Value NovaBuilder::transposeLast2(Value x) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(x, perm);
}

Value NovaBuilder::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  if (shapeOf(x) == shape)
    return x;
  return BroadcastOp::create(b, loc,
                             RankedTensorType::get(shape, elementTypeOf(x)), x);
}

Value NovaBuilder::concat(ValueRange xs, int64_t dim) {
  if (xs.size() == 1)
    return xs.front();
  return ConcatOp::create(b, loc, xs, b.getI64IntegerAttr(dim));
}

Value NovaBuilder::sliceDim(Value x, int64_t dim, int64_t begin, int64_t end) {
  ArrayRef<int64_t> shape = shapeOf(x);
  if (begin == 0 && end == shape[dim])
    return x;
  SmallVector<int64_t> starts(shape.size(), 0), limits(shape),
      strides(shape.size(), 1);
  starts[dim] = begin;
  limits[dim] = end;
  return SliceOp::create(b, loc, x, b.getDenseI64ArrayAttr(starts),
                         b.getDenseI64ArrayAttr(limits),
                         b.getDenseI64ArrayAttr(strides));
}

Value NovaBuilder::matmul(Value x, Value y, bool transposeLhs,
                          bool transposeRhs) {
  return MatmulOp::create(b, loc, x, y,
                          transposeLhs ? b.getUnitAttr() : nullptr,
                          transposeRhs ? b.getUnitAttr() : nullptr);
}

Value NovaBuilder::iota(ArrayRef<int64_t> shape, Type elementType,
                        int64_t dim) {
  return IotaOp::create(b, loc, RankedTensorType::get(shape, elementType),
                        uint64_t(dim));
}

Value NovaBuilder::sumToShape(Value g, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = shapeOf(g);
  if (from == shape)
    return g;
  int64_t extra = int64_t(from.size()) - int64_t(shape.size());
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < int64_t(from.size()); ++d)
    if (d < extra || (shape[d - extra] == 1 && from[d] != 1))
      dims.push_back(d);
  Value summed = dims.empty() ? g : reduce(ReduceKind::sum, g, dims, true);
  return reshape(summed, shape);
}

Value NovaBuilder::meanLast(Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t last = int64_t(shape.size()) - 1;
  return mul(reduce(ReduceKind::sum, x, {last}, true),
             1.0 / double(shape[last]));
}

std::pair<Value, Value> NovaBuilder::layerNormStats(Value x, double epsilon) {
  Value centered = sub(x, meanLast(x));
  Value var = meanLast(mul(centered, centered));
  Value rstd = rsqrt(add(var, scalar(x.getType(), epsilon)));
  return {mul(centered, rstd), rstd};
}

Value NovaBuilder::attentionScores(Value q, Value k, double scale,
                                   bool causal) {
  Value s = mul(matmul(q, k, false, true), scale);
  if (!causal)
    return s;
  ArrayRef<int64_t> shape = shapeOf(s);
  SmallVector<int64_t> square(shape.end() - 2, shape.end());
  Type i64 = b.getI64Type();
  // Query i sees keys j <= i.
  Value allowed =
      cmp(CmpPredicate::le, iota(square, i64, 1), iota(square, i64, 0));
  return select(allowed, s, scalar(s.getType(), -INFINITY));
}

SmallVector<Value, 3> NovaBuilder::attentionGradients(Value q, Value k, Value v,
                                                      Value o, Value lse,
                                                      Value dO, Value dlse,
                                                      double scale,
                                                      bool causal) {
  Type e = elementTypeOf(q);
  // A per-row f32 statistic as a column of q's element type.
  auto column = [&](Value row) {
    SmallVector<int64_t> shape(shapeOf(row));
    shape.push_back(1);
    Value c = reshape(row, shape);
    return elementTypeOf(c) == e ? c : cast(c, e);
  };
  Value p = exp(sub(attentionScores(q, k, scale, causal), column(lse)));
  Value dv, ds;
  if (dO) {
    dv = matmul(p, dO, /*transposeLhs=*/true, false);
    Value delta = reduce(ReduceKind::sum, mul(dO, o),
                         {int64_t(shapeOf(o).size()) - 1}, true);
    Value inner = sub(matmul(dO, v, false, /*transposeRhs=*/true), delta);
    if (dlse)
      inner = add(inner, column(dlse));
    ds = mul(p, inner);
  } else {
    dv = splat(llvm::cast<RankedTensorType>(v.getType()), 0.0);
    ds = mul(p, column(dlse));
  }
  return {mul(matmul(ds, k), scale),
          mul(matmul(ds, q, /*transposeLhs=*/true, false), scale), dv};
}

Value NovaBuilder::checkedLabels(Value logits, Value labels,
                                 int64_t ignoreIndex) {
  return CheckLabelsOp::create(b, loc, labels,
                               b.getI64IntegerAttr(shapeOf(logits).back()),
                               b.getI64IntegerAttr(ignoreIndex));
}

Value NovaBuilder::labelMask(Value logits, Value labels) {
  ArrayRef<int64_t> shape = shapeOf(logits);
  SmallVector<int64_t> column(shapeOf(labels));
  column.push_back(1);
  return cmp(CmpPredicate::eq,
             iota(shape, elementTypeOf(labels), int64_t(shape.size()) - 1),
             reshape(labels, column));
}

Value NovaBuilder::countedLabels(Value labels, int64_t ignoreIndex) {
  return cmp(CmpPredicate::ne, labels,
             scalarInt(labels.getType(), ignoreIndex));
}

Value NovaBuilder::sumAll(Value x) {
  int64_t rank = shapeOf(x).size();
  if (rank == 0)
    return x;
  return reduce(ReduceKind::sum, x,
                llvm::to_vector(llvm::seq<int64_t>(0, rank)), false);
}

Value NovaBuilder::softmax(Value x, int64_t dim) {
  return SoftmaxOp::create(b, loc, x, b.getI64IntegerAttr(dim));
}

Value NovaBuilder::logSoftmax(Value x, int64_t dim) {
  return LogSoftmaxOp::create(b, loc, x, b.getI64IntegerAttr(dim));
}
