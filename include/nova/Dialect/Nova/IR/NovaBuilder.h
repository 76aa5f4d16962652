//===- NovaBuilder.h - terse construction of nova IR ------------*- C++ -*-===//
//
// A thin layer over OpBuilder with one location, used wherever C++ writes
// nova programs: differentiation rules, decompositions, the train-step
// builder and the capture API. Every method creates exactly the op its name
// says (plus a constant for scalar operands); result types are inferred.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVABUILDER_H
#define NOVA_DIALECT_NOVA_IR_NOVABUILDER_H

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::nova {

class NovaBuilder {
public:
  NovaBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

  /// A 0-D constant of `like`'s element type (broadcasts against anything).
  Value scalar(Type like, double value);
  /// A 0-D integer constant of `like`'s element type.
  Value scalarInt(Type like, int64_t value);
  /// A splat constant of exactly `type`.
  Value splat(RankedTensorType type, double value);

  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value div(Value x, Value y);
  Value mul(Value x, double c) { return mul(x, scalar(x.getType(), c)); }
  Value neg(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value tanh(Value x);
  Value sqrt(Value x);
  Value rsqrt(Value x);
  Value reciprocal(Value x);
  Value cmp(CmpPredicate p, Value x, Value y);
  Value select(Value c, Value x, Value y);
  Value cast(Value x, Type elementType);

  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> dims, bool keepDims);
  Value reshape(Value x, ArrayRef<int64_t> shape);
  Value transpose(Value x, ArrayRef<int64_t> permutation);
  /// Swaps the last two dimensions.
  Value transposeLast2(Value x);
  Value broadcastTo(Value x, ArrayRef<int64_t> shape);
  /// Joins `xs` along `dim`; one input is returned as it is.
  Value concat(ValueRange xs, int64_t dim);
  /// Elements [begin, end) of `x` along `dim`, stride 1.
  Value sliceDim(Value x, int64_t dim, int64_t begin, int64_t end);
  Value matmul(Value x, Value y, bool transposeLhs = false,
               bool transposeRhs = false);
  Value iota(ArrayRef<int64_t> shape, Type elementType, int64_t dim);

  /// Sums `g` over the dimensions NumPy broadcasting added or stretched so
  /// it gets `shape`: the adjoint of an implicit broadcast.
  Value sumToShape(Value g, ArrayRef<int64_t> shape);

  /// Shared by a composite's decomposition and its gradient rule:
  /// `scale * q k^T`, with keys after the query masked to -inf if `causal`.
  Value attentionScores(Value q, Value k, double scale, bool causal);
  /// Attention's dq, dk, dv from primitives, with P = exp(scores - lse)
  /// (`lse` f32 of shape [..., Tq]) and
  /// dS = P * (dO v^T - rowsum(dO * o) + dlse): `attention_bwd`'s
  /// definition plus the gradient `dlse` of the log-sum-exp itself. `dO` or
  /// `dlse` may be null (no gradient flows there).
  SmallVector<Value, 3> attentionGradients(Value q, Value k, Value v, Value o,
                                           Value lse, Value dO, Value dlse,
                                           double scale, bool causal);
  /// Normalized input of layer_norm over the last dimension and the
  /// per-row reciprocal standard deviation (kept dimension).
  std::pair<Value, Value> layerNormStats(Value x, double epsilon);
  /// `labels` read through a nova.check_labels against `logits`' classes
  /// (the last dimension) and `ignoreIndex`: the range check of
  /// cross_entropy, the same op wherever the labels are read, so CSE shares
  /// what is computed from them.
  Value checkedLabels(Value logits, Value labels, int64_t ignoreIndex);
  /// `i1` mask of `logits`' shape, true where the class (last dimension)
  /// equals the row's label: the one-hot form of cross_entropy's labels.
  Value labelMask(Value logits, Value labels);
  /// `i1` of `labels`' shape: true where the label is not `ignoreIndex`,
  /// i.e. where the position counts in cross_entropy's mean.
  Value countedLabels(Value labels, int64_t ignoreIndex);
  /// Sum over every dimension, as a 0-D tensor (a 0-D `x` as it is).
  Value sumAll(Value x);
  /// Composite softmax / log_softmax along `dim`.
  Value softmax(Value x, int64_t dim);
  Value logSoftmax(Value x, int64_t dim);
  /// Mean over the last dimension, kept.
  Value meanLast(Value x);

private:
  OpBuilder &b;
  Location loc;
};

/// A dense attribute of `type` whose every element is `value` (converted to
/// an integer for integer element types).
DenseElementsAttr splatAttr(RankedTensorType type, double value);

ArrayRef<int64_t> shapeOf(Value v);
Type elementTypeOf(Value v);

} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_IR_NOVABUILDER_H
