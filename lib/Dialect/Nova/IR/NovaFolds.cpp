//===- NovaFolds.cpp - nova folders ---------------------------------------===//
//
// Constant folding of small constants (every result element computed with
// nova::scalar, the functions the interpreter evaluates, and rounded to the
// result type as the interpreter rounds it, so folding never changes what a
// program computes), algebraic identities that are exact in IEEE arithmetic
// (x + -0, x - 0, x * 1, ...) and the structural folds of data movement
// (reshape of reshape, transpose of transpose, identity broadcast / reshape /
// transpose / slice / cast).
//
// In a graph region an op may use its own result (`%0 = nova.reshape %0`).
// Folds that return an operand or chase a producer refuse such an op: the
// answer would be the op itself, a change the driver would retry forever.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Support/HostTensor.h"
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

/// `v` rounded to the float type `elementType` exactly as the interpreter
/// rounds a result (nova::roundTo: bf16 and f16 through f32), then stored.
static APFloat fromDouble(double v, Type elementType) {
  if (elementType.isF32())
    v = ::nova::roundTo(::nova::DType::F32, v);
  else if (elementType.isBF16())
    v = ::nova::roundTo(::nova::DType::BF16, v);
  else if (elementType.isF16())
    v = ::nova::roundTo(::nova::DType::F16, v);
  APFloat r(v); // exact from here on: v is representable
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

/// Builds the result attribute from computed elements (doubles or integers;
/// integers already wrapped to the element type's width).
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

/// Evaluates `fn` elementwise over broadcast constant operands read as `T`,
/// giving elements of type `R`. `fn` returns std::nullopt to refuse (e.g.
/// integer division by zero). Non-splat results larger than kMaxFoldElements
/// are not folded.
template <typename T, typename R = T, typename Fn>
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

  SmallVector<R> results;
  SmallVector<T> args(ins.size());
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    for (size_t i = 0; i < ins.size(); ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        offset += index[d] * ins[i].strides[d];
      args[i] = ins[i].values[offset];
    }
    std::optional<R> r = fn(ArrayRef<T>(args));
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
  return makeElements<R>(resultType, results);
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

/// The width nova::scalar's integer functions take (0 for floats, which
/// never reach an integer rule).
static unsigned intBitsOf(Value v) {
  Type t = elementOf(v);
  return t.isInteger() ? t.getIntOrFloatBitWidth() : 0;
}

/// Whether `v` is a result of `op` itself (a self-reference in a graph
/// region); see the file comment.
static bool isOwnResult(Operation *op, Value v) {
  return v.getDefiningOp() == op;
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

/// True when `attr` is a constant whose every element equals `value`, the
/// sign of a zero included.
static bool isSplatOf(Attribute attr, double value) {
  auto d = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!d || !d.isSplat())
    return false;
  double v = readElements<double>(d).front();
  return v == value && std::signbit(v) == std::signbit(value);
}

/// `x op identity` folds to `x` when broadcasting does not grow `x`.
/// `floatIdentity` is the one that is exact for every float x (x + -0 is x,
/// x + +0 is +0 for x = -0); integers use its absolute value.
static OpFoldResult foldIdentity(Operation *op, Value x, Attribute other,
                                 double floatIdentity) {
  double identity =
      isa<FloatType>(elementOf(x)) ? floatIdentity : std::fabs(floatIdentity);
  if (x.getType() == op->getResult(0).getType() && !isOwnResult(op, x) &&
      isSplatOf(other, identity))
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
  unsigned bits = intBitsOf(getInput());
  return foldNumeric(
      adaptor.getOperands(), elementOf(getInput()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return -a[0]; },
      [bits](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return ::nova::scalar::negInt(a[0], bits);
      });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  unsigned bits = intBitsOf(getInput());
  return foldNumeric(
      adaptor.getOperands(), elementOf(getInput()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> {
        return std::fabs(a[0]);
      },
      [bits](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return ::nova::scalar::absInt(a[0], bits);
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
OpFoldResult RoundTF32Op::fold(FoldAdaptor adaptor) {
  // Rounding is idempotent.
  if (getInput().getDefiningOp<RoundTF32Op>())
    return getInput();
  return foldFloatUnary(adaptor.getInput(), getType(), [](double x) {
    return double(::nova::roundToTF32(float(x)));
  });
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
  if (getInput().getType() == getType() && !isOwnResult(*this, getInput()))
    return getInput();
  auto type = cast<RankedTensorType>(getType());
  Type to = type.getElementType();
  bool fromFloat = isa<FloatType>(elementOf(getInput()));
  // To a float: the value itself, rounded to the target by makeElements.
  if (isa<FloatType>(to)) {
    if (fromFloat)
      return foldElementwise<double>(
          adaptor.getOperands(), type,
          [](ArrayRef<double> a) -> std::optional<double> { return a[0]; });
    return foldElementwise<int64_t, double>(
        adaptor.getOperands(), type,
        [bits = to.getIntOrFloatBitWidth()](
            ArrayRef<int64_t> a) -> std::optional<double> {
          return ::nova::scalar::intToFloat(a[0], bits);
        });
  }
  unsigned bits = to.getIntOrFloatBitWidth();
  if (fromFloat)
    return foldElementwise<double, int64_t>(
        adaptor.getOperands(), type,
        [bits](ArrayRef<double> a) -> std::optional<int64_t> {
          return ::nova::scalar::floatToInt(a[0], bits);
        });
  return foldElementwise<int64_t>(
      adaptor.getOperands(), type,
      [bits](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return ::nova::scalar::intToInt(a[0], bits);
      });
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

/// An integer rule of nova::scalar (add, sub, mul) as a fold rule.
static auto intRule(int64_t (*f)(int64_t, int64_t, unsigned), unsigned bits) {
  return [f, bits](ArrayRef<int64_t> a) -> std::optional<int64_t> {
    return f(a[0], a[1], bits);
  };
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, getLhs(), adaptor.getRhs(), -0.0))
    return r;
  if (auto r = foldIdentity(*this, getRhs(), adaptor.getLhs(), -0.0))
    return r;
  return foldNumeric(
      adaptor.getOperands(), elementOf(getLhs()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return a[0] + a[1]; },
      intRule(::nova::scalar::addInt, intBitsOf(getLhs())));
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, getLhs(), adaptor.getRhs(), 0.0))
    return r;
  return foldNumeric(
      adaptor.getOperands(), elementOf(getLhs()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return a[0] - a[1]; },
      intRule(::nova::scalar::subInt, intBitsOf(getLhs())));
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, getLhs(), adaptor.getRhs(), 1.0))
    return r;
  if (auto r = foldIdentity(*this, getRhs(), adaptor.getLhs(), 1.0))
    return r;
  return foldNumeric(
      adaptor.getOperands(), elementOf(getLhs()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return a[0] * a[1]; },
      intRule(::nova::scalar::mulInt, intBitsOf(getLhs())));
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldIdentity(*this, getLhs(), adaptor.getRhs(), 1.0))
    return r;
  unsigned bits = intBitsOf(getLhs());
  // Division by zero is left for the interpreter to report.
  return foldNumeric(
      adaptor.getOperands(), elementOf(getLhs()), getType(),
      [](ArrayRef<double> a) -> std::optional<double> { return a[0] / a[1]; },
      [bits](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return ::nova::scalar::divInt(a[0], a[1], bits);
      });
}

/// max (IsMax) or min of two constants.
template <bool IsMax>
static Attribute foldExtremum(ArrayRef<Attribute> operands, Type element,
                              Type resultType) {
  return foldNumeric(
      operands, element, resultType,
      [&](ArrayRef<double> a) -> std::optional<double> {
        return IsMax ? ::nova::scalar::maxFloat(a[0], a[1])
                     : ::nova::scalar::minFloat(a[0], a[1]);
      },
      [&](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        return IsMax ? std::max(a[0], a[1]) : std::min(a[0], a[1]);
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
  if (auto r = foldIdentity(*this, getLhs(), adaptor.getRhs(), 1.0))
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
  auto pick = [&](Value side) -> OpFoldResult {
    if (side.getType() == getType() && !isOwnResult(*this, side))
      return side;
    return {};
  };
  if (isSplatOf(adaptor.getCondition(), 1.0))
    return pick(getOnTrue());
  if (isSplatOf(adaptor.getCondition(), 0.0))
    return pick(getOnFalse());
  if (getOnTrue() == getOnFalse())
    return pick(getOnTrue());
  return {};
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// The op of the same kind that defines `input`, when folding through it
/// makes progress: not when it uses its own result, which would leave the
/// input as it is and report a change forever.
template <typename OpTy> static OpTy producerToChase(Value input) {
  auto prev = input.getDefiningOp<OpTy>();
  if (!prev || isOwnResult(prev, prev.getInput()))
    return {};
  return prev;
}

/// A splat constant input makes any shape-only op a splat of the result type.
static Attribute foldSplatReshaped(Attribute input, Type resultType) {
  auto d = dyn_cast_if_present<SplatElementsAttr>(input);
  if (!d)
    return {};
  return d.resizeSplat(cast<ShapedType>(resultType));
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (isOwnResult(*this, getInput()))
    return {};
  if (getInput().getType() == getType())
    return getInput();
  if (auto prev = producerToChase<ReshapeOp>(getInput())) {
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  if (auto d = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return d.reshape(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (isOwnResult(*this, getInput()))
    return {};
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity)
    return getInput();
  if (auto prev = producerToChase<TransposeOp>(getInput())) {
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
  if (isOwnResult(*this, getInput()))
    return {};
  if (getInput().getType() == getType())
    return getInput();
  if (auto prev = producerToChase<BroadcastOp>(getInput())) {
    getInputMutable().assign(prev.getInput());
    return getResult();
  }
  return foldSplatReshaped(adaptor.getInput(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (isOwnResult(*this, getInput()))
    return {};
  if (getInput().getType() == getType() &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getInput();
  return foldSplatReshaped(adaptor.getInput(), getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && !isOwnResult(*this, getInputs().front()))
    return getInputs().front();
  return {};
}
