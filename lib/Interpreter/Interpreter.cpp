//===- Interpreter.cpp - reference evaluator of the nova dialect ----------===//
//
// One function per op kind, dispatched with a TypeSwitch. Values live in a
// map from SSA value to HostTensor and are freed after their last use, so a
// program needs little more memory than its largest live set.
//
//===----------------------------------------------------------------------===//

#include "nova/Interpreter/Interpreter.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/Support/ScalarMath.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

using namespace mlir;
using namespace mlir::nova;
using ::nova::DType;
using ::nova::HostTensor;

std::optional<HostTensor> mlir::nova::emptyTensorOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<DType> dtype = dtypeOf(tensor.getElementType());
  if (!dtype ||
      !::nova::checkedNumElements(tensor.getShape().data(), tensor.getRank()))
    return std::nullopt;
  return HostTensor(*dtype, std::vector<int64_t>(tensor.getShape().begin(),
                                                 tensor.getShape().end()));
}

std::optional<std::string>
mlir::nova::checkTensorSize(Type type, const InterpreterOptions &options) {
  std::string message;
  llvm::raw_string_ostream os(message);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !dtypeOf(tensor.getElementType())) {
    os << "the reference interpreter needs statically shaped tensors of f64, "
          "f32, bf16, f16, i64, i32 or i1, got '"
       << type << "'";
    return message;
  }
  std::optional<int64_t> elements = ::nova::checkedNumElements(
      tensor.getShape().data(), size_t(tensor.getRank()));
  if (!elements) {
    os << "'" << type << "' has more than 2^63 elements";
    return message;
  }
  // Every element is held as an 8-byte double or int64.
  std::optional<uint64_t> bytes = ::nova::checkedBytes(*elements, 8);
  if (!bytes || *bytes > options.maxTensorBytes) {
    os << "the reference interpreter would need ";
    if (bytes)
      os << *bytes;
    else
      os << "more than 2^64";
    os << " bytes for '" << type << "', more than its limit of "
       << options.maxTensorBytes;
    return message;
  }
  return std::nullopt;
}

namespace {

/// The width `nova::scalar`'s integer functions take for an integer dtype.
unsigned intBits(DType t) {
  return t == DType::I1 ? 1 : t == DType::I32 ? 32 : 64;
}

int64_t wrapInt(DType t, int64_t v) {
  return ::nova::scalar::wrapInt(v, intBits(t));
}

/// Walks `shape` in row-major order and returns, for each position, the
/// linear index `base + sum_d idx[d] * stride[d]`: the source element that a
/// broadcast, transpose or slice reads.
std::vector<int64_t> stridedIndex(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &stride,
                                  int64_t base = 0) {
  int64_t n = ::nova::numElements(shape), rank = int64_t(shape.size());
  std::vector<int64_t> out(n), idx(rank, 0);
  int64_t cur = base;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = cur;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        cur += stride[d];
        break;
      }
      cur -= stride[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

/// For every element of `dst` (row-major), the linear index of the element of
/// `src` that NumPy broadcasting reads. Empty when the shapes are equal.
std::vector<int64_t> broadcastIndex(const std::vector<int64_t> &src,
                                    const std::vector<int64_t> &dst) {
  if (src == dst)
    return {};
  size_t off = dst.size() - src.size();
  std::vector<int64_t> srcStrides = ::nova::stridesOf(src);
  std::vector<int64_t> stride(dst.size(), 0);
  for (size_t d = 0; d < src.size(); ++d)
    stride[off + d] = src[d] == 1 ? 0 : srcStrides[d];
  return stridedIndex(dst, stride);
}

/// Copies elements `index[k]` of `src` into element `k` of `dst` (same
/// dtype); an empty index is the identity.
void gatherElements(const HostTensor &src, HostTensor &dst,
                    const std::vector<int64_t> &index) {
  int64_t n = dst.numElements();
  if (src.isFloat()) {
    for (int64_t k = 0; k < n; ++k)
      dst.f[k] = src.f[index.empty() ? k : index[k]];
  } else {
    for (int64_t k = 0; k < n; ++k)
      dst.i[k] = src.i[index.empty() ? k : index[k]];
  }
}

std::vector<int64_t> shapeOf(Value v) {
  auto s = cast<ShapedType>(v.getType()).getShape();
  return {s.begin(), s.end()};
}

/// Evaluates the ops of one function body.
class Evaluator {
public:
  Evaluator(InterpreterOptions options, ModuleOp module,
            function_ref<FailureOr<std::vector<HostTensor>>(
                func::FuncOp, std::vector<HostTensor>)>
                call)
      : options(options), module(module), call(call) {}

  /// Runs a function body or a fusion group's body on `args`; the values
  /// its terminator returns.
  FailureOr<std::vector<HostTensor>> runBlock(Block &body,
                                              std::vector<HostTensor> args);

private:
  InterpreterOptions options;
  ModuleOp module;
  function_ref<FailureOr<std::vector<HostTensor>>(func::FuncOp,
                                                  std::vector<HostTensor>)>
      call;
  DenseMap<Value, HostTensor> env;

  double fin(DType t, double x) const {
    return options.f64 ? x : ::nova::roundTo(t, x);
  }
  const HostTensor &in(Value v) { return env.find(v)->second; }
  HostTensor make(Value result) { return *emptyTensorOf(result.getType()); }

  LogicalResult eval(Operation *op);
  LogicalResult set(Value v, HostTensor t) {
    env[v] = std::move(t);
    return success();
  }

  template <typename F> LogicalResult unaryFloat(Operation *op, F fn) {
    const HostTensor &x = in(op->getOperand(0));
    HostTensor r = make(op->getResult(0));
    for (int64_t k = 0, n = r.numElements(); k < n; ++k)
      r.f[k] = fin(r.dtype, fn(x.f[k]));
    return set(op->getResult(0), std::move(r));
  }

  /// `fi(x, bits)` computes an integer element of width `bits`.
  template <typename FF, typename FI>
  LogicalResult unaryNumeric(Operation *op, FF ff, FI fi) {
    const HostTensor &x = in(op->getOperand(0));
    if (x.isFloat())
      return unaryFloat(op, ff);
    HostTensor r = make(op->getResult(0));
    unsigned bits = intBits(r.dtype);
    for (int64_t k = 0, n = r.numElements(); k < n; ++k)
      r.i[k] = fi(x.i[k], bits);
    return set(op->getResult(0), std::move(r));
  }

  /// Broadcasting binary op. `fi(a, b, bits)` computes an integer element of
  /// width `bits`, nullopt for integer division by zero; nullptr for an op
  /// the verifier allows on floats only.
  template <typename FF, typename FI>
  LogicalResult binary(Operation *op, FF ff, FI fi) {
    const HostTensor &a = in(op->getOperand(0)), &b = in(op->getOperand(1));
    HostTensor r = make(op->getResult(0));
    std::vector<int64_t> ia = broadcastIndex(a.shape, r.shape),
                         ib = broadcastIndex(b.shape, r.shape);
    int64_t n = r.numElements();
    if (a.isFloat()) {
      for (int64_t k = 0; k < n; ++k)
        r.f[k] = fin(r.dtype, ff(a.f[ia.empty() ? k : ia[k]],
                                 b.f[ib.empty() ? k : ib[k]]));
    } else if constexpr (!std::is_same_v<FI, std::nullptr_t>) {
      unsigned bits = intBits(r.dtype);
      for (int64_t k = 0; k < n; ++k) {
        std::optional<int64_t> v =
            fi(a.i[ia.empty() ? k : ia[k]], b.i[ib.empty() ? k : ib[k]], bits);
        if (!v)
          return op->emitError("integer division by zero at element ") << k;
        r.i[k] = *v;
      }
    }
    return set(op->getResult(0), std::move(r));
  }

  LogicalResult constant(ConstantOp op);
  LogicalResult cast(CastOp op);
  LogicalResult cmp(CmpOp op);
  LogicalResult select(SelectOp op);
  LogicalResult reduce(ReduceOp op);
  LogicalResult transpose(TransposeOp op);
  LogicalResult slice(SliceOp op);
  LogicalResult concat(ConcatOp op);
  LogicalResult gather(GatherOp op);
  LogicalResult scatterAdd(ScatterAddOp op);
  LogicalResult matmul(MatmulOp op);
  const HostTensor &productOperand(Value v, bool tf32,
                                   std::optional<HostTensor> &copy);
  LogicalResult normalize(Operation *op, int64_t dim, bool log);
  LogicalResult layerNorm(LayerNormOp op);
  LogicalResult crossEntropy(CrossEntropyOp op);
  LogicalResult checkLabels(CheckLabelsOp op);
  /// Attention's output and, when `lse` is given, each row's log-sum-exp.
  LogicalResult attentionForward(Operation *op, double scale, bool causal,
                                 HostTensor &out, HostTensor *lse);
  LogicalResult attentionBackward(AttentionBwdOp op);
  LogicalResult adamw(AdamWOp op);
  LogicalResult callOp(func::CallOp op);
  /// A kernel runs as its body of nova ops on its inputs.
  LogicalResult runGroup(nova_tile::FusionGroupOpInterface group,
                         ValueRange inputs, ValueRange results);
  LogicalResult launch(nova_tile::LaunchOp op);
};

} // namespace

LogicalResult Evaluator::eval(Operation *op) {
  namespace scalar = ::nova::scalar;
  // An integer rule that cannot fail, in the shape binary() takes.
  auto always = [](int64_t (*f)(int64_t, int64_t, unsigned)) {
    return [f](int64_t a, int64_t b, unsigned bits) -> std::optional<int64_t> {
      return f(a, b, bits);
    };
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ConstantOp>([&](auto o) { return constant(o); })
      .Case<IotaOp>([&](IotaOp o) {
        HostTensor r = make(o.getResult());
        int64_t dim = o.getDim();
        std::vector<int64_t> strides = ::nova::stridesOf(r.shape);
        for (int64_t k = 0, n = r.numElements(); k < n; ++k) {
          int64_t v = (k / strides[dim]) % r.shape[dim];
          if (r.isFloat())
            r.f[k] = fin(r.dtype, double(v));
          else
            r.i[k] = wrapInt(r.dtype, v);
        }
        return set(o.getResult(), std::move(r));
      })
      .Case<NegOp>([&](auto o) {
        return unaryNumeric(
            o, [](double x) { return -x; }, scalar::negInt);
      })
      .Case<AbsOp>([&](auto o) {
        return unaryNumeric(
            o, [](double x) { return std::fabs(x); }, scalar::absInt);
      })
      .Case<ReluOp>([&](auto o) {
        return unaryNumeric(
            o, [](double x) { return x > 0 ? x : 0.0; },
            [](int64_t x, unsigned) { return x > 0 ? x : int64_t(0); });
      })
      .Case<ExpOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return std::exp(x); });
      })
      .Case<LogOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return std::log(x); });
      })
      .Case<TanhOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return std::tanh(x); });
      })
      .Case<SqrtOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return std::sqrt(x); });
      })
      .Case<RsqrtOp>(
          [&](auto o) { return unaryFloat(o, ::nova::scalar::rsqrt); })
      .Case<SigmoidOp>(
          [&](auto o) { return unaryFloat(o, ::nova::scalar::sigmoid); })
      .Case<ReciprocalOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return 1.0 / x; });
      })
      .Case<ErfOp>([&](auto o) {
        return unaryFloat(o, [](double x) { return std::erf(x); });
      })
      .Case<RoundTF32Op>([&](auto o) {
        // The rounding of a TF32 product, which the f64 mode leaves out.
        return unaryFloat(o, [&](double x) {
          return options.f64 ? x : double(::nova::roundToTF32(float(x)));
        });
      })
      .Case<GeluOp>([&](GeluOp o) {
        return o.getApproximation() == GeluApproximation::tanh
                   ? unaryFloat(o, ::nova::scalar::geluTanh)
                   : unaryFloat(o, ::nova::scalar::geluErf);
      })
      .Case<CastOp>([&](auto o) { return cast(o); })
      .Case<AddOp>([&](auto o) {
        return binary(
            o, [](double a, double b) { return a + b; },
            always(scalar::addInt));
      })
      .Case<SubOp>([&](auto o) {
        return binary(
            o, [](double a, double b) { return a - b; },
            always(scalar::subInt));
      })
      .Case<MulOp>([&](auto o) {
        return binary(
            o, [](double a, double b) { return a * b; },
            always(scalar::mulInt));
      })
      .Case<DivOp>([&](auto o) {
        return binary(
            o, [](double a, double b) { return a / b; }, scalar::divInt);
      })
      .Case<MaxOp>([&](auto o) {
        return binary(o, scalar::maxFloat,
                      always([](int64_t a, int64_t b, unsigned) {
                        return std::max(a, b);
                      }));
      })
      .Case<MinOp>([&](auto o) {
        return binary(o, scalar::minFloat,
                      always([](int64_t a, int64_t b, unsigned) {
                        return std::min(a, b);
                      }));
      })
      .Case<PowOp>([&](auto o) {
        return binary(
            o, [](double a, double b) { return std::pow(a, b); }, nullptr);
      })
      .Case<CmpOp>([&](auto o) { return cmp(o); })
      .Case<SelectOp>([&](auto o) { return select(o); })
      .Case<ReduceOp>([&](auto o) { return reduce(o); })
      .Case<ReshapeOp>([&](ReshapeOp o) {
        HostTensor r = in(o.getInput());
        r.shape = shapeOf(o.getResult());
        return set(o.getResult(), std::move(r));
      })
      .Case<BroadcastOp>([&](BroadcastOp o) {
        HostTensor r = make(o.getResult());
        const HostTensor &x = in(o.getInput());
        gatherElements(x, r, broadcastIndex(x.shape, r.shape));
        return set(o.getResult(), std::move(r));
      })
      .Case<TransposeOp>([&](auto o) { return transpose(o); })
      .Case<SliceOp>([&](auto o) { return slice(o); })
      .Case<ConcatOp>([&](auto o) { return concat(o); })
      .Case<GatherOp>([&](auto o) { return gather(o); })
      .Case<ScatterAddOp>([&](auto o) { return scatterAdd(o); })
      .Case<MatmulOp>([&](auto o) { return matmul(o); })
      .Case<SoftmaxOp>(
          [&](SoftmaxOp o) { return normalize(o, o.getDim(), false); })
      .Case<LogSoftmaxOp>(
          [&](LogSoftmaxOp o) { return normalize(o, o.getDim(), true); })
      .Case<LayerNormOp>([&](auto o) { return layerNorm(o); })
      .Case<CrossEntropyOp>([&](auto o) { return crossEntropy(o); })
      .Case<CheckLabelsOp>([&](auto o) { return checkLabels(o); })
      .Case<AttentionOp>([&](AttentionOp o) {
        HostTensor out = make(o.getResult());
        if (failed(attentionForward(o, o.getScale().convertToDouble(),
                                    o.getCausal(), out, nullptr)))
          return failure();
        return set(o.getResult(), std::move(out));
      })
      .Case<AttentionFwdOp>([&](AttentionFwdOp o) {
        HostTensor out = make(o.getOutput()), lse = make(o.getLse());
        if (failed(attentionForward(o, o.getScale().convertToDouble(),
                                    o.getCausal(), out, &lse)))
          return failure();
        (void)set(o.getOutput(), std::move(out));
        return set(o.getLse(), std::move(lse));
      })
      .Case<AttentionBwdOp>([&](auto o) { return attentionBackward(o); })
      .Case<AdamWOp>([&](auto o) { return adamw(o); })
      .Case<func::CallOp>([&](auto o) { return callOp(o); })
      .Case<nova_tile::FusionOp>([&](nova_tile::FusionOp o) {
        return runGroup(o, o.getInputs(), o.getResults());
      })
      .Case<nova_tile::LaunchOp>([&](auto o) { return launch(o); })
      .Default([&](Operation *o) {
        return o->emitError("the reference interpreter does not support '")
               << o->getName() << "'";
      });
}

LogicalResult Evaluator::constant(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitError("the reference interpreter reads dense constants "
                        "only, got ")
           << op.getValue();
  HostTensor r = make(op.getResult());
  int64_t k = 0;
  if (r.isFloat()) {
    for (APFloat v : dense.getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      r.f[k++] = v.convertToDouble();
    }
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      r.i[k++] =
          r.dtype == DType::I1 ? int64_t(v.getZExtValue()) : v.getSExtValue();
  }
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::cast(CastOp op) {
  const HostTensor &x = in(op.getInput());
  HostTensor r = make(op.getResult());
  unsigned floatBits = 8 * ::nova::byteWidth(r.dtype);
  for (int64_t k = 0, n = r.numElements(); k < n; ++k) {
    if (r.isFloat())
      r.f[k] =
          fin(r.dtype, x.isFloat() ? x.f[k]
                                   : ::nova::scalar::intToFloat(
                                         x.i[k], options.f64 ? 64 : floatBits));
    else if (x.isFloat())
      r.i[k] = ::nova::scalar::floatToInt(x.f[k], intBits(r.dtype));
    else
      r.i[k] = ::nova::scalar::intToInt(x.i[k], intBits(r.dtype));
  }
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::cmp(CmpOp op) {
  const HostTensor &a = in(op.getLhs()), &b = in(op.getRhs());
  HostTensor r = make(op.getResult());
  std::vector<int64_t> ia = broadcastIndex(a.shape, r.shape),
                       ib = broadcastIndex(b.shape, r.shape);
  CmpPredicate p = op.getPredicate();
  for (int64_t k = 0, n = r.numElements(); k < n; ++k) {
    int64_t ka = ia.empty() ? k : ia[k], kb = ib.empty() ? k : ib[k];
    r.i[k] = a.isFloat() ? compareWith(p, a.f[ka], b.f[kb])
                         : compareWith(p, a.i[ka], b.i[kb]);
  }
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::select(SelectOp op) {
  const HostTensor &c = in(op.getCondition()), &t = in(op.getOnTrue()),
                   &f = in(op.getOnFalse());
  HostTensor r = make(op.getResult());
  std::vector<int64_t> ic = broadcastIndex(c.shape, r.shape),
                       it = broadcastIndex(t.shape, r.shape),
                       iff = broadcastIndex(f.shape, r.shape);
  for (int64_t k = 0, n = r.numElements(); k < n; ++k) {
    bool cond = c.i[ic.empty() ? k : ic[k]];
    const HostTensor &src = cond ? t : f;
    const std::vector<int64_t> &idx = cond ? it : iff;
    int64_t ks = idx.empty() ? k : idx[k];
    if (r.isFloat())
      r.f[k] = src.f[ks];
    else
      r.i[k] = src.i[ks];
  }
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::reduce(ReduceOp op) {
  const HostTensor &x = in(op.getInput());
  HostTensor r = make(op.getResult());
  size_t rank = x.shape.size();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : op.getDims())
    reduced[d] = true;
  // Stride in the result for every input dimension (0 where reduced).
  std::vector<int64_t> outStride(rank, 0);
  int64_t s = 1;
  for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
    if (reduced[d])
      continue;
    outStride[d] = s;
    s *= x.shape[d];
  }
  ReduceKind kind = op.getKind();
  int64_t n = r.numElements();
  unsigned bits = x.isFloat() ? 0 : intBits(x.dtype);
  std::vector<double> accF;
  if (x.isFloat()) {
    double init = kind == ReduceKind::sum   ? 0.0
                  : kind == ReduceKind::max ? -INFINITY
                                            : INFINITY;
    accF.assign(n, init);
  } else {
    // Over an empty dimension: the identity of the reduction, as for floats.
    int64_t init = kind == ReduceKind::sum   ? 0
                   : kind == ReduceKind::max ? ::nova::scalar::minInt(bits)
                                             : ::nova::scalar::maxInt(bits);
    r.i.assign(n, init);
  }
  // The result element each input element accumulates into.
  std::vector<int64_t> into = stridedIndex(x.shape, outStride);
  for (int64_t k = 0, total = x.numElements(); k < total; ++k) {
    int64_t o = into[k];
    if (x.isFloat()) {
      double v = x.f[k], &acc = accF[o];
      acc = kind == ReduceKind::sum   ? acc + v
            : kind == ReduceKind::max ? ::nova::scalar::maxFloat(acc, v)
                                      : ::nova::scalar::minFloat(acc, v);
    } else {
      int64_t v = x.i[k], &acc = r.i[o];
      acc = kind == ReduceKind::sum   ? ::nova::scalar::addInt(acc, v, bits)
            : kind == ReduceKind::max ? std::max(acc, v)
                                      : std::min(acc, v);
    }
  }
  if (x.isFloat())
    for (int64_t k = 0; k < n; ++k)
      r.f[k] = fin(r.dtype, accF[k]);
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::transpose(TransposeOp op) {
  const HostTensor &x = in(op.getInput());
  HostTensor r = make(op.getResult());
  ArrayRef<int64_t> perm = op.getPermutation();
  std::vector<int64_t> xs = ::nova::stridesOf(x.shape);
  size_t rank = r.shape.size();
  std::vector<int64_t> stride(rank);
  for (size_t d = 0; d < rank; ++d)
    stride[d] = xs[perm[d]];
  gatherElements(x, r, stridedIndex(r.shape, stride));
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::slice(SliceOp op) {
  const HostTensor &x = in(op.getInput());
  HostTensor r = make(op.getResult());
  std::vector<int64_t> xs = ::nova::stridesOf(x.shape);
  size_t rank = r.shape.size();
  int64_t base = 0;
  std::vector<int64_t> stride(rank);
  for (size_t d = 0; d < rank; ++d) {
    base += op.getStarts()[d] * xs[d];
    stride[d] = op.getStrides()[d] * xs[d];
  }
  gatherElements(x, r, stridedIndex(r.shape, stride, base));
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::concat(ConcatOp op) {
  HostTensor r = make(op.getResult());
  int64_t dim = op.getDim();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= r.shape[d];
  for (size_t d = dim + 1; d < r.shape.size(); ++d)
    inner *= r.shape[d];
  int64_t rowOut = r.shape[dim] * inner, offset = 0;
  for (Value v : op.getInputs()) {
    const HostTensor &x = in(v);
    int64_t row = x.shape[dim] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < row; ++j) {
        if (r.isFloat())
          r.f[o * rowOut + offset + j] = x.f[o * row + j];
        else
          r.i[o * rowOut + offset + j] = x.i[o * row + j];
      }
    offset += row;
  }
  return set(op.getResult(), std::move(r));
}

/// Shared walk of gather and scatter_add: calls `fn(tableIndex, sliceIndex)`
/// for every element, after checking each index is inside the table.
template <typename F>
static LogicalResult walkGather(Operation *op,
                                const std::vector<int64_t> &table,
                                const HostTensor &indices, int64_t axis, F fn) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= table[d];
  for (size_t d = axis + 1; d < table.size(); ++d)
    inner *= table[d];
  int64_t rows = table[axis], count = indices.numElements();
  for (int64_t j = 0; j < count; ++j)
    if (indices.i[j] < 0 || indices.i[j] >= rows)
      return op->emitError("index ")
             << indices.i[j] << " at position " << j
             << " is out of range for axis " << axis << " of size " << rows;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t t = (o * rows + indices.i[j]) * inner,
              s = (o * count + j) * inner;
      for (int64_t e = 0; e < inner; ++e)
        fn(t + e, s + e);
    }
  return success();
}

LogicalResult Evaluator::gather(GatherOp op) {
  const HostTensor &table = in(op.getTable());
  HostTensor r = make(op.getResult());
  if (failed(walkGather(op, table.shape, in(op.getIndices()), op.getAxis(),
                        [&](int64_t t, int64_t s) {
                          if (r.isFloat())
                            r.f[s] = table.f[t];
                          else
                            r.i[s] = table.i[t];
                        })))
    return failure();
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::scatterAdd(ScatterAddOp op) {
  const HostTensor &updates = in(op.getUpdates());
  HostTensor r = make(op.getResult());
  if (failed(walkGather(op, r.shape, in(op.getIndices()), op.getAxis(),
                        [&](int64_t t, int64_t s) {
                          if (r.isFloat())
                            r.f[t] += updates.f[s];
                          else
                            r.i[t] = ::nova::scalar::addInt(
                                r.i[t], updates.i[s], intBits(r.dtype));
                        })))
    return failure();
  for (double &v : r.f)
    v = fin(r.dtype, v);
  return set(op.getResult(), std::move(r));
}

/// Whether `op` asks for TF32 products (`nova.precision = "tf32"`, written
/// by nova-autocast compute=tf32); any other precision is an error.
static FailureOr<bool> requestsTF32(Operation *op) {
  Attribute precision = op->getAttr(NovaDialect::getPrecisionAttrName());
  if (!precision)
    return false;
  auto name = dyn_cast<StringAttr>(precision);
  if (!name || name.getValue() != "tf32")
    return op->emitError("unsupported nova.precision ")
           << precision << "; the interpreter knows \"tf32\"";
  return true;
}

/// The operands of a TF32 product as a tensor core reads them: each value
/// rounded to TF32, unless the interpreter keeps everything in f64.
const HostTensor &Evaluator::productOperand(Value v, bool tf32,
                                            std::optional<HostTensor> &copy) {
  const HostTensor &t = in(v);
  if (!tf32 || options.f64)
    return t;
  copy = t;
  for (double &x : copy->f)
    x = ::nova::roundToTF32(float(x));
  return *copy;
}

LogicalResult Evaluator::matmul(MatmulOp op) {
  FailureOr<bool> tf32 = requestsTF32(op);
  if (failed(tf32))
    return failure();
  // The operands marked `nova.rounded` go to the GPU's tensor cores as they
  // are: a value that is not TF32 there would be truncated, not rounded.
  if (!options.f64)
    for (int64_t i : op.getRoundedOperands()) {
      const std::vector<double> &values = in(op->getOperand(i)).f;
      for (size_t e = 0; e < values.size(); ++e)
        if (double x = values[e];
            double(::nova::roundToTF32(float(x))) != x && !std::isnan(x))
          return op->emitError("operand ")
                 << i << " is marked nova.rounded but its element " << e
                 << " is " << x << ", not a TF32 value";
    }
  std::optional<HostTensor> lhsCopy, rhsCopy;
  const HostTensor &a = productOperand(op.getLhs(), *tf32, lhsCopy),
                   &b = productOperand(op.getRhs(), *tf32, rhsCopy);
  HostTensor r = make(op.getResult());
  size_t ra = a.shape.size(), rr = r.shape.size();
  const bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  int64_t M = r.shape[rr - 2], N = r.shape[rr - 1];
  int64_t K = tl ? a.shape[ra - 2] : a.shape[ra - 1];
  // Batch broadcasting: which matrix of each operand feeds batch b.
  std::vector<int64_t> batch(r.shape.begin(), r.shape.end() - 2),
      batchA(a.shape.begin(), a.shape.end() - 2),
      batchB(b.shape.begin(), b.shape.end() - 2);
  int64_t nb = ::nova::numElements(batch);
  std::vector<int64_t> ia = broadcastIndex(batchA, batch),
                       ib = broadcastIndex(batchB, batch);
  std::vector<double> A(M * K), B(K * N);
  // Rows are split over the machine's threads once a product is big enough
  // to pay for starting them.
  unsigned threads =
      M * N * K >= (1 << 18)
          ? std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                            unsigned(M)))
          : 1;
  for (int64_t bt = 0; bt < nb; ++bt) {
    const double *pa = a.f.data() + (ia.empty() ? bt : ia[bt]) * M * K;
    const double *pb = b.f.data() + (ib.empty() ? bt : ib[bt]) * K * N;
    // Copy both operands to row-major M x K and K x N so the inner loop runs
    // over contiguous memory whatever the transpose flags.
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        A[m * K + k] = tl ? pa[k * M + m] : pa[m * K + k];
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        B[k * N + n] = tr ? pb[n * K + k] : pb[k * N + n];
    double *out = r.f.data() + bt * M * N;
    auto rows = [&](int64_t begin, int64_t end) {
      std::vector<double> c(N);
      for (int64_t m = begin; m < end; ++m) {
        std::fill(c.begin(), c.end(), 0.0);
        for (int64_t k = 0; k < K; ++k) {
          double av = A[m * K + k];
          const double *brow = B.data() + k * N;
          for (int64_t n = 0; n < N; ++n)
            c[n] += av * brow[n];
        }
        for (int64_t n = 0; n < N; ++n)
          out[m * N + n] = fin(r.dtype, c[n]);
      }
    };
    if (threads == 1) {
      rows(0, M);
      continue;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back(rows, M * t / threads, M * (t + 1) / threads);
    rows(0, M / threads);
    for (std::thread &t : pool)
      t.join();
  }
  return set(op.getResult(), std::move(r));
}

LogicalResult Evaluator::normalize(Operation *op, int64_t dim, bool log) {
  const HostTensor &x = in(op->getOperand(0));
  HostTensor r = make(op->getResult(0));
  int64_t outer = 1, inner = 1, n = x.shape[dim];
  for (int64_t d = 0; d < dim; ++d)
    outer *= x.shape[d];
  for (size_t d = dim + 1; d < x.shape.size(); ++d)
    inner *= x.shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t e = 0; e < inner; ++e) {
      auto at = [&](int64_t j) { return (o * n + j) * inner + e; };
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j)
        mx = std::max(mx, x.f[at(j)]);
      for (int64_t j = 0; j < n; ++j)
        sum += std::exp(x.f[at(j)] - mx);
      for (int64_t j = 0; j < n; ++j) {
        double v = x.f[at(j)] - mx;
        r.f[at(j)] = fin(r.dtype, log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  return set(op->getResult(0), std::move(r));
}

LogicalResult Evaluator::layerNorm(LayerNormOp op) {
  const HostTensor &x = in(op.getInput()), &w = in(op.getWeight()),
                   &b = in(op.getBias());
  HostTensor r = make(op.getResult());
  int64_t c = x.shape.back(), rows = c ? x.numElements() / c : 0;
  double eps = op.getEpsilon().convertToDouble();
  for (int64_t row = 0; row < rows; ++row) {
    const double *px = x.f.data() + row * c;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < c; ++j)
      mean += px[j];
    mean /= c;
    for (int64_t j = 0; j < c; ++j)
      var += (px[j] - mean) * (px[j] - mean);
    var /= c;
    double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < c; ++j)
      r.f[row * c + j] = fin(r.dtype, (px[j] - mean) * rstd * w.f[j] + b.f[j]);
  }
  return set(op.getResult(), std::move(r));
}

/// cross_entropy's label rule, shared with nova.check_labels: a label is a
/// class in [0, classes) or ignore_index. Returns whether `label` counts.
static FailureOr<bool> checkLabel(Operation *op, int64_t label, int64_t row,
                                  int64_t classes, int64_t ignoreIndex) {
  if (label == ignoreIndex)
    return false;
  if (label < 0 || label >= classes)
    return op->emitError("label ")
           << label << " at position " << row << " is outside [0, " << classes
           << ") and is not the ignore_index " << ignoreIndex;
  return true;
}

LogicalResult Evaluator::checkLabels(CheckLabelsOp op) {
  const HostTensor &labels = in(op.getInput());
  for (int64_t row = 0, n = labels.numElements(); row < n; ++row)
    if (failed(checkLabel(op, labels.i[row], row, op.getClasses(),
                          op.getIgnoreIndex())))
      return failure();
  return set(op.getResult(), HostTensor(labels));
}

LogicalResult Evaluator::crossEntropy(CrossEntropyOp op) {
  const HostTensor &x = in(op.getLogits()), &labels = in(op.getLabels());
  HostTensor r = make(op.getResult());
  int64_t c = x.shape.back(), rows = labels.numElements(), counted = 0;
  double total = 0;
  for (int64_t row = 0; row < rows; ++row) {
    int64_t label = labels.i[row];
    FailureOr<bool> counts = checkLabel(op, label, row, c, op.getIgnoreIndex());
    if (failed(counts))
      return failure();
    if (!*counts)
      continue;
    ++counted;
    const double *px = x.f.data() + row * c;
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < c; ++j)
      mx = std::max(mx, px[j]);
    for (int64_t j = 0; j < c; ++j)
      sum += std::exp(px[j] - mx);
    total += mx + std::log(sum) - px[label];
  }
  // No counted row: NaN, as PyTorch's mean gives (0.0 / 0 would be -nan).
  r.f[0] = fin(r.dtype, counted ? total / double(counted)
                                : std::numeric_limits<double>::quiet_NaN());
  return set(op.getResult(), std::move(r));
}

namespace {
/// Sizes of an attention over operands q (..., tq, d), k (..., tk, d),
/// v (..., tk, dv).
struct AttentionSizes {
  int64_t batches, tq, tk, d, dv;
  AttentionSizes(const HostTensor &q, const HostTensor &k,
                 const HostTensor &v) {
    size_t rank = q.shape.size();
    tq = q.shape[rank - 2];
    d = q.shape[rank - 1];
    tk = k.shape[rank - 2];
    dv = v.shape[rank - 1];
    // Counted from the batch dimensions: dividing the element count by
    // tq * d fails when either is 0.
    batches = ::nova::numElements(
        std::vector<int64_t>(q.shape.begin(), q.shape.end() - 2));
  }
};
} // namespace

LogicalResult Evaluator::attentionForward(Operation *op, double scale,
                                          bool causal, HostTensor &out,
                                          HostTensor *lse) {
  FailureOr<bool> tf32 = requestsTF32(op);
  if (failed(tf32))
    return failure();
  std::optional<HostTensor> qCopy, kCopy, vCopy;
  const HostTensor &q = productOperand(op->getOperand(0), *tf32, qCopy),
                   &k = productOperand(op->getOperand(1), *tf32, kCopy),
                   &v = productOperand(op->getOperand(2), *tf32, vCopy);
  AttentionSizes n(q, k, v);
  int64_t tq = n.tq, tk = n.tk, d = n.d, dv = n.dv;
  std::vector<double> s(tk);
  for (int64_t bt = 0; bt < n.batches; ++bt) {
    const double *pq = q.f.data() + bt * tq * d, *pk = k.f.data() + bt * tk * d,
                 *pv = v.f.data() + bt * tk * dv;
    for (int64_t i = 0; i < tq; ++i) {
      int64_t last = causal ? std::min(i + 1, tk) : tk;
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < last; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += pq[i * d + e] * pk[j * d + e];
        s[j] = scale * dot;
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j < last; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      double *o = out.f.data() + (bt * tq + i) * dv;
      for (int64_t e = 0; e < dv; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < last; ++j)
          acc += s[j] * pv[j * dv + e];
        // No keys (tk = 0): an empty weighted sum is 0, as softmax(q k^T) v
        // gives in PyTorch.
        o[e] = fin(out.dtype, last ? acc / sum : 0.0);
      }
      // log(0) = -inf for a row without keys.
      if (lse)
        lse->f[bt * tq + i] =
            fin(lse->dtype, last ? mx + std::log(sum) : -INFINITY);
    }
  }
  return success();
}

LogicalResult Evaluator::attentionBackward(AttentionBwdOp op) {
  FailureOr<bool> tf32 = requestsTF32(op);
  if (failed(tf32))
    return failure();
  // TF32 rounds what the products read: q, k, v and the output gradient.
  std::optional<HostTensor> qCopy, kCopy, vCopy, doutCopy;
  const HostTensor &q = productOperand(op.getQuery(), *tf32, qCopy),
                   &k = productOperand(op.getKey(), *tf32, kCopy),
                   &v = productOperand(op.getValue(), *tf32, vCopy),
                   &o = in(op.getOutput()), &lse = in(op.getLse()),
                   &dout = productOperand(op.getGradOutput(), *tf32, doutCopy);
  AttentionSizes n(q, k, v);
  int64_t tq = n.tq, tk = n.tk, d = n.d, dv = n.dv;
  double scale = op.getScale().convertToDouble();
  bool causal = op.getCausal();
  HostTensor dq = make(op.getGradQuery()), dk = make(op.getGradKey()),
             dvT = make(op.getGradValue());
  // One row of probabilities at a time (O(tk) memory), recomputed from lse
  // as a flash-attention backward does; gradients accumulate in double.
  std::vector<double> p(tk);
  for (int64_t bt = 0; bt < n.batches; ++bt) {
    const double *pq = q.f.data() + bt * tq * d, *pk = k.f.data() + bt * tk * d,
                 *pv = v.f.data() + bt * tk * dv;
    double *gq = dq.f.data() + bt * tq * d, *gk = dk.f.data() + bt * tk * d,
           *gv = dvT.f.data() + bt * tk * dv;
    for (int64_t i = 0; i < tq; ++i) {
      int64_t last = causal ? std::min(i + 1, tk) : tk;
      const double *po = o.f.data() + (bt * tq + i) * dv,
                   *pdo = dout.f.data() + (bt * tq + i) * dv;
      double rowLse = lse.f[bt * tq + i], delta = 0;
      for (int64_t e = 0; e < dv; ++e)
        delta += pdo[e] * po[e];
      for (int64_t j = 0; j < last; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += pq[i * d + e] * pk[j * d + e];
        p[j] = std::exp(scale * dot - rowLse);
      }
      for (int64_t j = 0; j < last; ++j) {
        double dp = 0;
        for (int64_t e = 0; e < dv; ++e) {
          dp += pdo[e] * pv[j * dv + e];
          gv[j * dv + e] += p[j] * pdo[e];
        }
        double ds = scale * p[j] * (dp - delta);
        for (int64_t e = 0; e < d; ++e) {
          gq[i * d + e] += ds * pk[j * d + e];
          gk[j * d + e] += ds * pq[i * d + e];
        }
      }
    }
  }
  for (HostTensor *t : {&dq, &dk, &dvT})
    for (double &x : t->f)
      x = fin(t->dtype, x);
  (void)set(op.getGradQuery(), std::move(dq));
  (void)set(op.getGradKey(), std::move(dk));
  return set(op.getGradValue(), std::move(dvT));
}

LogicalResult Evaluator::adamw(AdamWOp op) {
  const HostTensor &p = in(op.getParam()), &g = in(op.getGrad()),
                   &m = in(op.getM()), &v = in(op.getV());
  double t = in(op.getStep()).get(0);
  if (!(t >= 1)) // NaN too
    return op.emitError("adamw step must count from 1, got ") << t;
  double lr = in(op.getLr()).get(0);
  if (!(lr >= 0)) // NaN too
    return op.emitError("adamw learning rate must be >= 0, got ") << lr;
  double b1 = op.getBeta1().convertToDouble(),
         b2 = op.getBeta2().convertToDouble(),
         eps = op.getEpsilon().convertToDouble(),
         wd = op.getWeightDecay().convertToDouble();
  // The bias corrections as reciprocals, as the GPU kernel computes them.
  double r1 = 1 / (1 - std::pow(b1, t)), r2 = 1 / (1 - std::pow(b2, t));
  HostTensor np = make(op.getNewParam()), nm = make(op.getNewM()),
             nv = make(op.getNewV());
  for (int64_t k = 0, n = p.numElements(); k < n; ++k) {
    double mk = b1 * m.f[k] + (1 - b1) * g.f[k];
    double vk = b2 * v.f[k] + (1 - b2) * g.f[k] * g.f[k];
    nm.f[k] = fin(nm.dtype, mk);
    nv.f[k] = fin(nv.dtype, vk);
    np.f[k] =
        fin(np.dtype, p.f[k] - lr * ((mk * r1) / (std::sqrt(vk * r2) + eps) +
                                     wd * p.f[k]));
  }
  (void)set(op.getNewParam(), std::move(np));
  (void)set(op.getNewM(), std::move(nm));
  return set(op.getNewV(), std::move(nv));
}

LogicalResult Evaluator::callOp(func::CallOp op) {
  auto callee = module.lookupSymbol<func::FuncOp>(op.getCallee());
  if (!callee)
    return op.emitError("callee @")
           << op.getCallee() << " is not in the module";
  std::vector<HostTensor> args;
  for (Value v : op.getOperands())
    args.push_back(in(v));
  FailureOr<std::vector<HostTensor>> results = call(callee, std::move(args));
  if (failed(results))
    return failure(); // the callee reported where
  for (auto [v, t] : llvm::zip(op.getResults(), *results))
    (void)set(v, std::move(t));
  return success();
}

FailureOr<std::vector<HostTensor>>
Evaluator::runBlock(Block &body, std::vector<HostTensor> args) {
  for (auto [arg, t] : llvm::zip(body.getArguments(), args))
    env[arg] = std::move(t);
  // Free each value after its last use. Ops with a body (fusion groups) are
  // isolated from above, so every use of a value is in its own block.
  DenseMap<Value, Operation *> lastUse;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUse[v] = &op;
  for (Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      std::vector<HostTensor> results;
      for (Value v : op.getOperands())
        results.push_back(in(v));
      for (Value v : op.getOperands())
        env.erase(v);
      return results;
    }
    for (Value v : op.getResults())
      if (std::optional<std::string> tooBig =
              checkTensorSize(v.getType(), options))
        return op.emitError(*tooBig);
    if (failed(eval(&op)))
      return failure();
    for (Value v : op.getOperands())
      if (lastUse.lookup(v) == &op)
        env.erase(v);
  }
  return body.getParentOp()->emitError("body has no terminator");
}

LogicalResult Evaluator::runGroup(nova_tile::FusionGroupOpInterface group,
                                  ValueRange inputs, ValueRange results) {
  std::vector<HostTensor> args;
  for (Value v : inputs)
    args.push_back(in(v));
  FailureOr<std::vector<HostTensor>> outputs =
      runBlock(group.getBodyBlock(), std::move(args));
  if (failed(outputs))
    return failure();
  for (auto [v, t] : llvm::zip(results, *outputs))
    (void)set(v, std::move(t));
  return success();
}

LogicalResult Evaluator::launch(nova_tile::LaunchOp op) {
  auto kernel = module.lookupSymbol<nova_tile::KernelOp>(op.getKernel());
  if (!kernel)
    return op.emitError("kernel @")
           << op.getKernel() << " is not in the module";
  return runGroup(kernel, op.getInputs(), op.getResults());
}

FailureOr<std::vector<HostTensor>>
Interpreter::run(func::FuncOp fn, std::vector<HostTensor> args) {
  if (fn.isExternal())
    return fn.emitError("cannot interpret external function @")
           << fn.getSymName();
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("the reference interpreter runs single-block "
                        "functions only");
  if (depth > 64)
    return fn.emitError("call depth exceeds 64 (recursion?)");
  ArrayRef<Type> inputs = fn.getArgumentTypes();
  if (args.size() != inputs.size())
    return fn.emitError("@") << fn.getSymName() << " takes " << inputs.size()
                             << " arguments, got " << args.size();
  for (auto [idx, type] : llvm::enumerate(inputs)) {
    if (std::optional<std::string> unfit = checkTensorSize(type, options))
      return fn.emitError("argument #") << idx << ": " << *unfit;
    auto tensor = cast<RankedTensorType>(type);
    HostTensor &a = args[idx];
    if (ArrayRef<int64_t>(a.shape) != tensor.getShape() ||
        a.dtype != *dtypeOf(tensor.getElementType()))
      return fn.emitError("argument #")
             << idx << " must be " << type << ", got tensor<" << a.typeString()
             << ">";
    if (a.isFloat())
      for (double &v : a.f)
        v = options.f64 ? v : ::nova::roundTo(a.dtype, v);
  }
  if (llvm::any_of(fn.getOps(), [](Operation &op) {
        return isa<nova_mem::NovaMemDialect>(op.getDialect());
      }))
    return runMemoryProgram(fn, std::move(args));
  ++depth;
  // Named: the evaluator keeps a function_ref to it.
  auto callee = [this](func::FuncOp f, std::vector<HostTensor> a) {
    return run(f, std::move(a));
  };
  Evaluator evaluator(options, module, callee);
  auto result = evaluator.runBlock(fn.getBody().front(), std::move(args));
  --depth;
  return result;
}

FailureOr<std::vector<HostTensor>>
Interpreter::run(StringRef name, std::vector<HostTensor> args) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn)
    return module.emitError("no function @") << name << " in the module";
  return run(fn, std::move(args));
}

//===----------------------------------------------------------------------===//
// nova_mem programs
//===----------------------------------------------------------------------===//

namespace {
/// One byte arena and the buffers of a program in it.
class Arena {
public:
  explicit Arena(int64_t bytes) : bytes(size_t(bytes), char(0xff)) {}

  /// Stores `t` (dense) into `buffer`'s bytes at `offset`, rows at its pitch.
  void store(nova_mem::BufferType type, int64_t offset, const HostTensor &t) {
    std::string dense;
    ::nova::encodeTensor(t, dense);
    forEachRow(type, offset, [&](size_t arenaAt, size_t denseAt, size_t n) {
      std::memcpy(&bytes[arenaAt], dense.data() + denseAt, n);
    });
  }

  HostTensor load(nova_mem::BufferType type, int64_t offset) {
    HostTensor t = *emptyTensorOf(type.getTensorType());
    std::string dense(size_t(t.numElements()) * ::nova::byteWidth(t.dtype),
                      '\0');
    forEachRow(type, offset, [&](size_t arenaAt, size_t denseAt, size_t n) {
      std::memcpy(dense.data() + denseAt, &bytes[arenaAt], n);
    });
    ::nova::decodeTensor(reinterpret_cast<const unsigned char *>(dense.data()),
                         t);
    return t;
  }

  /// All ones: NaN in every float format, -1 (or true) as an integer.
  void poison(int64_t offset, int64_t size) {
    std::memset(&bytes[size_t(offset)], 0xff, size_t(size));
  }

private:
  template <typename F>
  void forEachRow(nova_mem::BufferType type, int64_t offset, F copy) {
    ArrayRef<int64_t> shape = type.getShape();
    int64_t width = type.getElementBytes();
    int64_t cols = shape.empty() ? 1 : shape.back();
    int64_t rows = cols ? type.getTensorType().getNumElements() / cols : 0;
    int64_t pitch = type.getRowPitch() * width;
    for (int64_t r = 0; r < rows; ++r)
      copy(size_t(offset + r * pitch), size_t(r * cols * width),
           size_t(cols * width));
  }

  std::vector<char> bytes;
};
} // namespace

FailureOr<std::vector<HostTensor>>
Interpreter::runMemoryProgram(func::FuncOp fn, std::vector<HostTensor> args) {
  FailureOr<nova_mem::Program> program = nova_mem::analyzeProgram(fn);
  if (failed(program))
    return failure();
  // Every buffer (views included) holds a type the interpreter has.
  for (Operation &op : fn.getBody().front())
    for (Value v : op.getResults())
      if (auto buffer = dyn_cast<nova_mem::BufferType>(v.getType());
          buffer && !dtypeOf(buffer.getElementType()))
        return op.emitError("the reference interpreter has no ")
               << buffer.getElementType() << " elements";
  // Planned offsets, or each buffer in its own bytes when any is missing.
  bool placed = llvm::all_of(program->slots, [](const nova_mem::Slot &s) {
    return s.offset.has_value();
  });
  std::vector<int64_t> offsets;
  int64_t size = 0;
  for (const nova_mem::Slot &slot : program->slots) {
    int64_t at = placed ? *slot.offset : size;
    offsets.push_back(at);
    size = std::max(size, at + (slot.bytes + nova_mem::kAlignment - 1) /
                                   nova_mem::kAlignment * nova_mem::kAlignment);
  }
  if (uint64_t(size) > options.maxTensorBytes)
    return fn.emitError("the arena of ")
           << size << " bytes is larger than the interpreter's limit of "
           << options.maxTensorBytes;
  Arena arena(size);
  auto typeOf = [](Value buffer) {
    return cast<nova_mem::BufferType>(buffer.getType());
  };
  auto offsetOf = [&](Value buffer) {
    return offsets[program->slotOf.lookup(buffer)];
  };
  // Arguments at their offsets (a view reads its root's bytes at its own
  // pitch, which the view verifier keeps equal to the root's).
  for (auto input : fn.getBody().getOps<nova_mem::InputOp>()) {
    auto arg = cast<BlockArgument>(input.getArg());
    arena.store(typeOf(input.getBuffer()), offsetOf(input.getBuffer()),
                args[arg.getArgNumber()]);
  }
  auto poisonEnding = [&](int64_t k, bool writtenHere) {
    if (!options.poisonDeadBuffers)
      return;
    for (auto [i, slot] : llvm::enumerate(program->slots))
      if (slot.end == k && (slot.writer == k) == writtenHere)
        arena.poison(offsets[i], slot.bytes);
  };
  auto callee = [this](func::FuncOp f, std::vector<HostTensor> a) {
    return run(f, std::move(a));
  };
  for (auto [k, launch] : llvm::enumerate(program->launches)) {
    auto kernel = module.lookupSymbol<nova_tile::KernelOp>(launch.getKernel());
    if (!kernel)
      return launch.emitError("kernel @")
             << launch.getKernel() << " is not in the module";
    std::vector<HostTensor> inputs;
    for (Value buffer : launch.getInputs())
      inputs.push_back(arena.load(typeOf(buffer), offsetOf(buffer)));
    Evaluator evaluator(options, module, callee);
    FailureOr<std::vector<HostTensor>> outputs =
        evaluator.runBlock(kernel.getBody().front(), std::move(inputs));
    if (failed(outputs))
      return failure();
    // Freed inputs first: an in-place output then takes their bytes.
    poisonEnding(k, /*writtenHere=*/false);
    for (auto [buffer, t] : llvm::zip(launch.getOutputs(), *outputs))
      arena.store(typeOf(buffer), offsetOf(buffer), t);
    poisonEnding(k, /*writtenHere=*/true);
  }
  std::vector<HostTensor> results;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (Value v : ret.getOperands()) {
    auto output = v.getDefiningOp<nova_mem::OutputOp>();
    if (!output)
      return ret.emitError("a nova_mem program returns nova_mem.output values");
    results.push_back(
        arena.load(typeOf(output.getBuffer()), offsetOf(output.getBuffer())));
  }
  return results;
}
