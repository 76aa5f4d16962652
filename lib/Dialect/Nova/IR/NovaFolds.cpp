//===- NovaFolds.cpp - nova folders ---------------------------------------===//
//
// Constant folding of small constants (every result element computed here in
// double or 64-bit integer arithmetic, then rounded to the result type as the
// device would), algebraic identities (x + 0, x * 1, ...) and the structural
// folds of data movement (reshape of reshape, transpose of transpose,
// identity broadcast / reshape / transpose / slice / cast).
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Support/ScalarMath.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

//===----------------------------------------------------------------------===//
// Elementwise constant evaluation with NumPy broadcasting
//===----------------------------------------------------------------------===//

namespace {
/// One operand of an elementwise fold: its elements as doubles or as
/// integers, and the row-major strides that read it broadcast to the result.
template <typename T> struct BroadcastOperand {
  SmallVector<T> values;
  SmallVector<int64_t> strides; // 0 along broadcast dimensions
};
} // namespace

static double toDouble(const APFloat &v) {
  APFloat d = v;
  bool lost;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return d.convertToDouble();
}

static APFloat fromDouble(double v, Type elementType) {
  APFloat r(v);
  bool lost;
  r.convert(cast<FloatType>(elementType).getFloatSemantics(),
            APFloat::rmNearestTiesToEven, &lost);
  return r;
}

/// Reads the stored elements of a dense constant as `T` (double or int64_t):
/// one value for a splat, every element otherwise. `i1` reads as 0 or 1,
/// other integers sign-extended.
template <typename T>
static SmallVector<T> readElements(DenseElementsAttr attr) {
  int64_t count = attr.isSplat() ? 1 : attr.getNumElements();
  SmallVector<T> out;
  if (isa<FloatType>(attr.getElementType())) {
    auto values = attr.getValues<APFloat>();
    for (int64_t i = 0; i < count; ++i)
      out.push_back(static_cast<T>(toDouble(values[i])));
    return out;
  }
  auto values = attr.getValues<APInt>();
  for (int64_t i = 0; i < count; ++i) {
    APInt v = values[i];
    out.push_back(static_cast<T>(v.getBitWidth() == 1 ? v.getZExtValue()
                                                      : v.getSExtValue()));
  }
  return out;
}

template <typename T>
static BroadcastOperand<T> broadcastOperand(DenseElementsAttr attr,
                                            ArrayRef<int64_t> resultShape) {
  BroadcastOperand<T> op;
  ArrayRef<int64_t> shape = attr.getType().getShape();
  op.values = readElements<T>(attr);
  op.strides.assign(resultShape.size(), 0);
  if (attr.isSplat())
    return op;
  int64_t stride = 1;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    int64_t r = resultShape.size() - shape.size() + i;
    op.strides[r] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return op;
}

/// Builds the result attribute from computed elements (doubles or integers).
template <typename T>
static Attribute makeElements(RankedTensorType type, ArrayRef<T> values) {
  Type et = type.getElementType();
  if (isa<FloatType>(et)) {
    SmallVector<APFloat> out;
    for (T v : values)
      out.push_back(fromDouble(static_cast<double>(v), et));
    return DenseElementsAttr::get(type, out);
  }
  if (et.isInteger(1)) {
    SmallVector<bool> out;
    for (T v : values)
      out.push_back(v != 0);
    return DenseElementsAttr::get(type, out);
  }
  unsigned width = et.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (T v : values)
    out.push_back(APInt(width, static_cast<int64_t>(v), /*isSigned=*/true));
  return DenseElementsAttr::get(type, out);
}

/// Evaluates `fn` elementwise over broadcast constant operands. `fn` returns
/// std::nullopt to refuse (e.g. integer division by zero). Non-splat results
/// larger than kMaxFoldElements are not folded.
template <typename T, typename Fn>
static Attribute foldElementwise(ArrayRef<Attribute> operands,
                                 RankedTensorType resultType, Fn fn) {
  SmallVector<DenseElementsAttr> dense;
  for (Attribute a : operands) {
    auto d = dyn_cast_if_present<DenseElementsAttr>(a);
    if (!d)
      return {};
    dense.push_back(d);
  }
  bool splat = llvm::all_of(dense, [](auto d) { return d.isSplat(); });
  int64_t count = splat ? 1 : resultType.getNumElements();
  if (!splat && count > kMaxFoldElements)
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<BroadcastOperand<T>> ins;
  for (auto d : dense)
    ins.push_back(broadcastOperand<T>(d, shape));

  SmallVector<T> results, args(ins.size());
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    for (size_t i = 0; i < ins.size(); ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        offset += index[d] * ins[i].strides[d];
      args[i] = ins[i].values[offset];
    }
    std::optional<T> r = fn(ArrayRef<T>(args));
    if (!r)
      return {};
    results.push_back(*r);
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  // One value for a splat result: DenseElementsAttr::get makes it a splat.
  return makeElements<T>(resultType, results);
}

/// Folds an op whose operands all have the element type `operandElement`,
/// with a float rule and an integer rule.
template <typename FloatFn, typename IntFn>
static Attribute foldNumeric(ArrayRef<Attribute> operands, Type operandElement,
                             Type resultType, FloatFn floatFn, IntFn intFn) {
  auto type = cast<RankedTensorType>(resultType);
  if (isa<FloatType>(operandElement))
    return foldElementwise<double>(operands, type, floatFn);
  return foldElementwise<int64_t>(operands, type, intFn);
}

/// The same with one rule written once for both (a generic lambda).
template <typename Fn>
static Attribute foldNumeric(ArrayRef<Attribute> operands, Type operandElement,
                             Type resultType, Fn fn) {
  return foldNumeric(operands, operandElement, resultType, fn, fn);
}

static Type elementOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Float-only unary op: `fn(x)` per element.
template <typename Fn>
static Attribute foldFloatUnary(Attribute input, Type resultType, Fn fn) {
  return foldElementwise<double>(
      {input}, cast<RankedTensorType>(resultType),
      [&](ArrayRef<double> a) -> std::optional<double> { return fn(a[0]); });
}

//===----------------------------------------------------------------------===//
// Splat identities
//===----------------------------------------------------------------------===//

/// True when `attr` is a constant whose every element equals `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto d = dyn_cast_if_present<DenseElementsAttr>(attr);
  return d && d.isSplat() && readElements<double>(d).front() == value;
}

/// `x op identity` folds to `x` when broadcasting does not grow `x`.
static OpFoldResult foldIdentity(Value x, Attribute other, double identity,
                                 Type resultType) {
  if (x.getType() == resultType && isSplatOf(other, identity))
    return x;
  return {};
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldNumeric(adaptor.getOperands(), elementOf(getInput()), getType(),
                     [](auto a) { return std::optional(-a[0]); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldNumeric(
      adaptor.getOperands(), elementOf(getInput()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> {
        return std::fabs(a[0]);
      },
      [](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return a[0] < 0 ? -a[0] : a[0];
      });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  return foldNumeric(
      adaptor.getOperands(), elementOf(getInput()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> {
        return a[0] > 0 ? a[0] : 0.0;
      },
      [](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return a[0] > 0 ? a[0] : 0;
      });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return std::exp(x); });
}
OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return std::log(x); });
}
OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return std::tanh(x); });
}
OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return std::sqrt(x); });
}
OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(), ::nova::scalar::rsqrt);
}
OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(), ::nova::scalar::sigmoid);
}
OpFoldResult ErfOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return std::erf(x); });
}
OpFoldResult ReciprocalOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) { return 1.0 / x; });
}

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        getApproximation() == GeluApproximation::tanh
                            ? ::nova::scalar::geluTanh
                            : ::nova::scalar::geluErf);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto type = cast<RankedTensorType>(getType());
  Type from = elementOf(getInput());
  // Through double only when the source is a float (integers keep 64 bits).
  if (isa<FloatType>(from))
    return foldElementwise<double>(
        adaptor.getOperands(), type,
        [&](ArrayRef<double> a) -> std::optional<double> {
          Type to = type.getElementType();
          if (isa<FloatType>(to))
            return a[0]; // rounded to the target format by makeElements
          if (to.isInteger(1))
            return double(a[0] != 0.0);
          if (!std::isfinite(a[0]))
            return std::nullopt; // float -> int of inf/nan is undefined
          return std::trunc(a[0]);
        });
  return foldElementwise<int64_t>(
      adaptor.getOperands(), type,
      [](ArrayRef<int64_t> a) -> std::optional<int64_t> { return a[0]; });
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return r;
  if (auto r = foldIdentity(getRhs(), adaptor.getLhs(), 0.0, getType()))
    return r;
  return foldNumeric(adaptor.getOperands(), elementOf(getLhs()), getType(),
                     [](auto a) { return std::optional(a[0] + a[1]); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return r;
  return foldNumeric(adaptor.getOperands(), elementOf(getLhs()), getType(),
                     [](auto a) { return std::optional(a[0] - a[1]); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return r;
  if (auto r = foldIdentity(getRhs(), adaptor.getLhs(), 1.0, getType()))
    return r;
  return foldNumeric(adaptor.getOperands(), elementOf(getLhs()), getType(),
                     [](auto a) { return std::optional(a[0] * a[1]); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return r;
  return foldNumeric(
      adaptor.getOperands(), elementOf(getLhs()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return a[0] / a[1]; },
      [](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        if (a[1] == 0)
          return std::nullopt;
        return a[0] / a[1];
      });
}

/// max (IsMax) or min of two constants; a NaN operand gives NaN.
template <bool IsMax>
static Attribute foldExtremum(ArrayRef<Attribute> operands, Type element,
                              Type resultType) {
  auto pick = [](auto a, auto b) { return (a > b) == IsMax ? a : b; };
  return foldNumeric(
      operands, element, resultType,
      [&](ArrayRef<double> a) -> std::optional<double> {
        return std::isnan(a[0]) || std::isnan(a[1]) ? NAN : pick(a[0], a[1]);
      },
      [&](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return pick(a[0], a[1]);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldExtremum<true>(adaptor.getOperands(), elementOf(getLhs()),
                            getType());
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldExtremum<false>(adaptor.getOperands(), elementOf(getLhs()),
                             getType());
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return r;
  return foldElementwise<double>(
      adaptor.getOperands(), cast<RankedTensorType>(getType()),
      [](ArrayRef<double> a) -> std::optional<double> {
        return std::pow(a[0], a[1]);
      });
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  // Compares in the operands' domain; makeElements turns nonzero into true.
  CmpPredicate p = getPredicate();
  return foldNumeric(adaptor.getOperands(), elementOf(getLhs()), getType(),
                     [p](auto a) {
                       using T = std::decay_t<decltype(a[0])>;
                       return std::optional<T>(compareWith(p, a[0], a[1]));
                     });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  // A uniform condition picks one side when that side already has the
  // result's shape.
  if (isSplatOf(adaptor.getCondition(), 1.0) &&
      getOnTrue().getType() == getType())
    return getOnTrue();
  if (isSplatOf(adaptor.getCondition(), 0.0) &&
      getOnFalse().getType() == getType())
    return getOnFalse();
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  return {};
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// A splat constant input makes any shape-only op a splat of the result type.
static Attribute foldSplatReshaped(Attribute input, Type resultType) {
  auto d = dyn_cast_if_present<SplatElementsAttr>(input);
  if (!d)
    return {};
  return d.resizeSplat(cast<ShapedType>(resultType));
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto prev = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  if (auto d = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return d.reshape(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity)
    return getInput();
  if (auto prev = getInput().getDefiningOp<TransposeOp>()) {
    // result[i] = prev.input[inner[outer[i]]]
    ArrayRef<int64_t> inner = prev.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner[p]);
    setPermutation(composed);
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  return foldSplatReshaped(adaptor.getInput(), getType());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto prev = getInput().getDefiningOp<BroadcastOp>()) {
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  return foldSplatReshaped(adaptor.getInput(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getInput();
  return foldSplatReshaped(adaptor.getInput(), getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}
