//===- NovaGradients.cpp - differentiation rules of the nova ops ----------===//
//
// DifferentiableOpInterface for every differentiable op: given the result's
// gradient `g`, build each operand's gradient with nova ops. Broadcasting
// ops sum `g` back to their operand's shape. Conventions where the
// derivative is not unique: abs and relu have derivative 0 at 0; max/min
// send the whole gradient to lhs on ties; reduce max/min share it equally
// among tied elements.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

#define NOVA_GRADIENT(OP)                                                      \
  LogicalResult OP::buildGradients(OpBuilder &builder,                         \
                                   ArrayRef<Value> resultGrads,                \
                                   MutableArrayRef<Value> operandGrads)

/// Prologue of every single-result rule: a NovaBuilder at the op's location
/// and the incoming gradient; rules return early when none flows in.
#define NOVA_GRADIENT_PROLOGUE                                                 \
  NovaBuilder nb(builder, getLoc());                                           \
  Value g = resultGrads[0];                                                    \
  if (!g)                                                                      \
    return success();

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

NOVA_GRADIENT(NegOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.neg(g);
  return success();
}

NOVA_GRADIENT(AbsOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getInput(), zero = nb.scalar(x.getType(), 0.0);
  Type e = elementTypeOf(x);
  Value sign = nb.sub(nb.cast(nb.cmp(CmpPredicate::gt, x, zero), e),
                      nb.cast(nb.cmp(CmpPredicate::lt, x, zero), e));
  operandGrads[0] = nb.mul(g, sign);
  return success();
}

NOVA_GRADIENT(ReluOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getInput(), zero = nb.scalar(x.getType(), 0.0);
  operandGrads[0] = nb.select(nb.cmp(CmpPredicate::gt, x, zero), g, zero);
  return success();
}

NOVA_GRADIENT(ExpOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.mul(g, getResult());
  return success();
}

NOVA_GRADIENT(LogOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.div(g, getInput());
  return success();
}

NOVA_GRADIENT(TanhOp) {
  NOVA_GRADIENT_PROLOGUE
  Value y = getResult();
  operandGrads[0] =
      nb.mul(g, nb.sub(nb.scalar(y.getType(), 1.0), nb.mul(y, y)));
  return success();
}

NOVA_GRADIENT(SqrtOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.div(nb.mul(g, 0.5), getResult());
  return success();
}

NOVA_GRADIENT(RsqrtOp) {
  NOVA_GRADIENT_PROLOGUE
  Value y = getResult();
  operandGrads[0] = nb.mul(g, nb.mul(nb.mul(y, nb.mul(y, y)), -0.5));
  return success();
}

NOVA_GRADIENT(SigmoidOp) {
  NOVA_GRADIENT_PROLOGUE
  Value y = getResult();
  operandGrads[0] =
      nb.mul(g, nb.mul(y, nb.sub(nb.scalar(y.getType(), 1.0), y)));
  return success();
}

NOVA_GRADIENT(ReciprocalOp) {
  NOVA_GRADIENT_PROLOGUE
  Value y = getResult();
  operandGrads[0] = nb.neg(nb.mul(g, nb.mul(y, y)));
  return success();
}

// Straight through: TF32 products are differentiated as if exact, and this
// is their operands' rounding done ahead of them.
NOVA_GRADIENT(RoundTF32Op) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = g;
  return success();
}

NOVA_GRADIENT(ErfOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getInput();
  operandGrads[0] =
      nb.mul(g, nb.mul(nb.exp(nb.neg(nb.mul(x, x))), 2.0 / std::sqrt(M_PI)));
  return success();
}

NOVA_GRADIENT(GeluOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getInput(), one = nb.scalar(x.getType(), 1.0);
  Value x2 = nb.mul(x, x), d;
  if (getApproximation() == GeluApproximation::tanh) {
    // d/dx = (1 + t)/2 + x (1 - t^2) c (1 + 3a x^2) / 2,
    // t = tanh(c (x + a x^3)), c = sqrt(2/pi), a = 0.044715.
    const double a = 0.044715, c = std::sqrt(2.0 / M_PI);
    Value t = nb.tanh(nb.mul(nb.mul(x, nb.add(one, nb.mul(x2, a))), c));
    Value first = nb.mul(nb.add(t, one), 0.5);
    Value second = nb.mul(nb.mul(nb.mul(x, nb.sub(one, nb.mul(t, t))),
                                 nb.add(one, nb.mul(x2, 3 * a))),
                          0.5 * c);
    d = nb.add(first, second);
  } else {
    // d/dx = Phi(x) + x phi(x).
    Value cdf =
        nb.mul(nb.add(one, ErfOp::create(builder, getLoc(),
                                         nb.mul(x, 1.0 / std::sqrt(2.0)))),
               0.5);
    Value pdf = nb.mul(nb.exp(nb.mul(x2, -0.5)), 1.0 / std::sqrt(2.0 * M_PI));
    d = nb.add(cdf, nb.mul(x, pdf));
  }
  operandGrads[0] = nb.mul(g, d);
  return success();
}

NOVA_GRADIENT(CastOp) {
  NOVA_GRADIENT_PROLOGUE
  Type from = elementTypeOf(getInput());
  if (isa<FloatType>(from) && isa<FloatType>(elementTypeOf(getResult())))
    operandGrads[0] = nb.cast(g, from);
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting binary and select
//===----------------------------------------------------------------------===//

NOVA_GRADIENT(AddOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.sumToShape(g, shapeOf(getLhs()));
  operandGrads[1] = nb.sumToShape(g, shapeOf(getRhs()));
  return success();
}

NOVA_GRADIENT(SubOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.sumToShape(g, shapeOf(getLhs()));
  operandGrads[1] = nb.sumToShape(nb.neg(g), shapeOf(getRhs()));
  return success();
}

NOVA_GRADIENT(MulOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.sumToShape(nb.mul(g, getRhs()), shapeOf(getLhs()));
  operandGrads[1] = nb.sumToShape(nb.mul(g, getLhs()), shapeOf(getRhs()));
  return success();
}

NOVA_GRADIENT(DivOp) {
  NOVA_GRADIENT_PROLOGUE
  Value rhs = getRhs();
  operandGrads[0] = nb.sumToShape(nb.div(g, rhs), shapeOf(getLhs()));
  operandGrads[1] =
      nb.sumToShape(nb.neg(nb.div(nb.mul(g, getResult()), rhs)), shapeOf(rhs));
  return success();
}

/// max/min: the side the comparison picked gets the gradient.
static void minMaxGradients(NovaBuilder &nb, Value g, Value lhs, Value rhs,
                            CmpPredicate lhsWins,
                            MutableArrayRef<Value> operandGrads) {
  Value zero = nb.scalar(g.getType(), 0.0);
  Value picked = nb.cmp(lhsWins, lhs, rhs);
  operandGrads[0] = nb.sumToShape(nb.select(picked, g, zero), shapeOf(lhs));
  operandGrads[1] = nb.sumToShape(nb.select(picked, zero, g), shapeOf(rhs));
}

NOVA_GRADIENT(MaxOp) {
  NOVA_GRADIENT_PROLOGUE
  minMaxGradients(nb, g, getLhs(), getRhs(), CmpPredicate::ge, operandGrads);
  return success();
}

NOVA_GRADIENT(MinOp) {
  NOVA_GRADIENT_PROLOGUE
  minMaxGradients(nb, g, getLhs(), getRhs(), CmpPredicate::le, operandGrads);
  return success();
}

NOVA_GRADIENT(PowOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getLhs(), p = getRhs(), one = nb.scalar(x.getType(), 1.0);
  Value dx = nb.mul(p, PowOp::create(builder, getLoc(), x, nb.sub(p, one)));
  operandGrads[0] = nb.sumToShape(nb.mul(g, dx), shapeOf(x));
  // d/dp = x^p ln x, taken as 0 where x <= 0 (where ln is undefined).
  Value zero = nb.scalar(x.getType(), 0.0);
  Value dp = nb.select(nb.cmp(CmpPredicate::gt, x, zero),
                       nb.mul(getResult(), nb.log(x)), zero);
  operandGrads[1] = nb.sumToShape(nb.mul(g, dp), shapeOf(p));
  return success();
}

NOVA_GRADIENT(SelectOp) {
  NOVA_GRADIENT_PROLOGUE
  Value zero = nb.scalar(g.getType(), 0.0), c = getCondition();
  operandGrads[1] = nb.sumToShape(nb.select(c, g, zero), shapeOf(getOnTrue()));
  operandGrads[2] = nb.sumToShape(nb.select(c, zero, g), shapeOf(getOnFalse()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and data movement
//===----------------------------------------------------------------------===//

NOVA_GRADIENT(ReduceOp) {
  NOVA_GRADIENT_PROLOGUE
  Value x = getInput();
  SmallVector<int64_t> kept(shapeOf(x));
  for (int64_t d : getDims())
    kept[d] = 1;
  Value gk = nb.reshape(g, kept);
  if (getKind() == ReduceKind::sum) {
    operandGrads[0] = nb.broadcastTo(gk, shapeOf(x));
    return success();
  }
  // max/min: split the gradient equally among the elements that attain it.
  Type e = elementTypeOf(x);
  Value hit =
      nb.cast(nb.cmp(CmpPredicate::eq, x, nb.reshape(getResult(), kept)), e);
  Value count = nb.reduce(ReduceKind::sum, hit, getDims(), true);
  operandGrads[0] = nb.mul(nb.div(hit, count), gk);
  return success();
}

NOVA_GRADIENT(ReshapeOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.reshape(g, shapeOf(getInput()));
  return success();
}

NOVA_GRADIENT(TransposeOp) {
  NOVA_GRADIENT_PROLOGUE
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads[0] = nb.transpose(g, inverse);
  return success();
}

NOVA_GRADIENT(BroadcastOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = nb.sumToShape(g, shapeOf(getInput()));
  return success();
}

/// Zeros of `x`'s shape with `size` elements along `dim` (a splat: O(1) IR).
/// Zeros shaped like `x` but `size` long along `dim`. They are -0.0, the
/// identity of addition (x + -0.0 == x for every x, -0.0 included), so when
/// such padded gradients are summed the zeros fold away exactly.
static Value zerosLike(NovaBuilder &nb, Value x, int64_t dim, int64_t size) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape[dim] = size;
  return nb.splat(RankedTensorType::get(shape, elementTypeOf(x)), -0.0);
}

NOVA_GRADIENT(SliceOp) {
  NOVA_GRADIENT_PROLOGUE
  // Put the window back in place one dimension at a time with zeros around
  // and between its elements. Every zero block is a splat constant, so the
  // rule's IR does not grow with the slice.
  auto inType = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> in = inType.getShape();
  if (inType.getNumElements() == 0 || llvm::is_contained(shapeOf(g), 0)) {
    operandGrads[0] = nb.splat(inType, 0.0);
    return success();
  }
  Value acc = g;
  for (int64_t d = 0, rank = in.size(); d < rank; ++d) {
    int64_t n = shapeOf(acc)[d], start = getStarts()[d],
            stride = getStrides()[d];
    if (n == in[d])
      continue;
    if (n > 1 && stride > 1) {
      // [.., n, ..] -> [.., n, 1, ..] ++ zeros [.., n, stride - 1, ..]
      // -> [.., n * stride, ..], then drop the zeros after the last element.
      SmallVector<int64_t> split(shapeOf(acc));
      split.insert(split.begin() + d + 1, 1);
      Value column = nb.reshape(acc, split);
      Value spread =
          nb.concat({column, zerosLike(nb, column, d + 1, stride - 1)}, d + 1);
      SmallVector<int64_t> flat(shapeOf(acc));
      flat[d] = n * stride;
      acc = nb.sliceDim(nb.reshape(spread, flat), d, 0, (n - 1) * stride + 1);
    }
    int64_t after = in[d] - start - shapeOf(acc)[d];
    SmallVector<Value> pieces;
    if (start > 0)
      pieces.push_back(zerosLike(nb, acc, d, start));
    pieces.push_back(acc);
    if (after > 0)
      pieces.push_back(zerosLike(nb, acc, d, after));
    acc = nb.concat(pieces, d);
  }
  operandGrads[0] = acc;
  return success();
}

NOVA_GRADIENT(ConcatOp) {
  NOVA_GRADIENT_PROLOGUE
  int64_t dim = getDim(), offset = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    int64_t size = shapeOf(input)[dim];
    operandGrads[i] = nb.sliceDim(g, dim, offset, offset + size);
    offset += size;
  }
  return success();
}

NOVA_GRADIENT(GatherOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] =
      ScatterAddOp::create(builder, getLoc(), getTable().getType(), g,
                           getIndices(), uint64_t(getAxis()));
  return success();
}

NOVA_GRADIENT(ScatterAddOp) {
  NOVA_GRADIENT_PROLOGUE
  operandGrads[0] = GatherOp::create(builder, getLoc(), g, getIndices(),
                                     builder.getI64IntegerAttr(getAxis()));
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

NOVA_GRADIENT(MatmulOp) {
  NOVA_GRADIENT_PROLOGUE
  Value a = getLhs(), b = getRhs();
  bool tl = getTransposeLhs(), tr = getTransposeRhs();
  ArrayRef<int64_t> as = shapeOf(a), bs = shapeOf(b);
  // C = op(A) op(B); each stored operand's gradient is one more matmul.
  Value da = tl ? nb.matmul(b, g, tr, true) : nb.matmul(g, b, false, !tr);
  operandGrads[0] = nb.sumToShape(da, as);
  if (bs.size() == 2 && as.size() > 2 && !tl) {
    // A 2-D weight under a batched input: fold the batch into the rows so the
    // weight gradient is one 2-D product instead of a batched one and a sum.
    int64_t k = as.back(), n = shapeOf(g).back();
    int64_t rows = 1;
    for (int64_t d : as.drop_back())
      rows *= d;
    Value a2 = nb.reshape(a, {rows, k}), g2 = nb.reshape(g, {rows, n});
    operandGrads[1] = tr ? nb.matmul(g2, a2, true) : nb.matmul(a2, g2, true);
    return success();
  }
  Value db = tr ? nb.matmul(g, a, true, tl) : nb.matmul(a, g, !tl, false);
  operandGrads[1] = nb.sumToShape(db, bs);
  return success();
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

NOVA_GRADIENT(SoftmaxOp) {
  NOVA_GRADIENT_PROLOGUE
  Value y = getResult();
  Value dot =
      nb.reduce(ReduceKind::sum, nb.mul(g, y), {int64_t(getDim())}, true);
  operandGrads[0] = nb.mul(y, nb.sub(g, dot));
  return success();
}

NOVA_GRADIENT(LogSoftmaxOp) {
  NOVA_GRADIENT_PROLOGUE
  Value total = nb.reduce(ReduceKind::sum, g, {int64_t(getDim())}, true);
  operandGrads[0] = nb.sub(g, nb.mul(nb.exp(getResult()), total));
  return success();
}

NOVA_GRADIENT(LayerNormOp) {
  NOVA_GRADIENT_PROLOGUE
  auto [xhat, rstd] =
      nb.layerNormStats(getInput(), getEpsilon().convertToDouble());
  ArrayRef<int64_t> ws = shapeOf(getWeight());
  operandGrads[1] = nb.sumToShape(nb.mul(g, xhat), ws);
  operandGrads[2] = nb.sumToShape(g, ws);
  // dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
  Value dxhat = nb.mul(g, getWeight());
  Value centered = nb.sub(dxhat, nb.meanLast(dxhat));
  operandGrads[0] = nb.mul(
      rstd, nb.sub(centered, nb.mul(xhat, nb.meanLast(nb.mul(dxhat, xhat)))));
  return success();
}

NOVA_GRADIENT(CrossEntropyOp) {
  NOVA_GRADIENT_PROLOGUE
  Value logits = getLogits();
  Type e = elementTypeOf(logits);
  int64_t last = int64_t(shapeOf(logits).size()) - 1;
  // Read through the check the decomposition writes, so that CSE shares the
  // forward's label mask and count once both are decomposed.
  Value labels = nb.checkedLabels(logits, getLabels(), getIgnoreIndex());
  // d/dlogits = (softmax(logits) - onehot(labels)) g / count on counted
  // rows, 0 on ignored ones. A select, not a product with the mask: with
  // every row ignored g / count is infinite, and PyTorch's gradient is 0.
  Value counted = nb.countedLabels(labels, getIgnoreIndex());
  Value count = nb.sumAll(nb.cast(counted, e));
  Value probs = nb.softmax(logits, last);
  Value onehot = nb.cast(nb.labelMask(logits, labels), e);
  SmallVector<int64_t> column(shapeOf(labels));
  column.push_back(1);
  operandGrads[0] = nb.select(nb.reshape(counted, column),
                              nb.mul(nb.sub(probs, onehot), nb.div(g, count)),
                              nb.scalar(logits.getType(), 0.0));
  return success();
}

// The differentiated attention becomes an attention_fwd (same output, plus
// the log-sum-exp) so the backward is one attention_bwd: no Tq x Tk tensor
// is built. The rule replaces its own op's result; autodiff erases the
// unused op afterwards.
NOVA_GRADIENT(AttentionOp) {
  NOVA_GRADIENT_PROLOGUE
  AttentionFwdOp fwd;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(*this);
    fwd = AttentionFwdOp::create(builder, getLoc(), getQuery(), getKey(),
                                 getValue(), getScaleAttr(), getCausalAttr());
  }
  getResult().replaceAllUsesWith(fwd.getOutput());
  auto bwd = AttentionBwdOp::create(builder, getLoc(), getQuery(), getKey(),
                                    getValue(), fwd.getOutput(), fwd.getLse(),
                                    g, getScaleAttr(), getCausalAttr());
  llvm::copy(bwd.getResults(), operandGrads.begin());
  return success();
}

// A gradient into lse (a program that reads the statistic) adds P * dlse to
// dS, which attention_bwd does not take: that case is built from
// primitives.
NOVA_GRADIENT(AttentionFwdOp) {
  NovaBuilder nb(builder, getLoc());
  Value dO = resultGrads[0], dlse = resultGrads[1];
  if (!dO && !dlse)
    return success();
  if (!dlse) {
    auto bwd = AttentionBwdOp::create(builder, getLoc(), getQuery(), getKey(),
                                      getValue(), getOutput(), getLse(), dO,
                                      getScaleAttr(), getCausalAttr());
    llvm::copy(bwd.getResults(), operandGrads.begin());
    return success();
  }
  llvm::copy(nb.attentionGradients(getQuery(), getKey(), getValue(),
                                   getOutput(), getLse(), dO, dlse,
                                   getScale().convertToDouble(), getCausal()),
             operandGrads.begin());
  return success();
}
