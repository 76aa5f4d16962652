//===- TileToGPU.cpp - nova_tile kernels to gpu.func ----------------------===//
//
// One emitter per kernel family. All of them share BodyEmitter, which writes
// the scalar code of a fusion body's value at one index of that value's
// shape: a kernel body is whole-tensor nova ops, so "the value of %v at
// index i" is the only question a thread ever asks, and views (broadcast,
// transpose, slice, reshape) are index arithmetic on the way to a load.
// The families differ in how threads split the iteration space and in how
// reductions combine partial results (warp shuffles, shared memory).
//
//===----------------------------------------------------------------------===//

#include "nova/Conversion/Passes.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "nova/Conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova_tile;
namespace nv = mlir::nova;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}
Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }
int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Writes the scalar code of body values inside one gpu.func.
class BodyEmitter {
public:
  BodyEmitter(ImplicitLocOpBuilder &b, Block &entry) : b(b), entry(entry) {}

  /// Kernel input `arg` lives in `buffer`.
  void bindInput(BlockArgument arg, Value buffer) { buffers[arg] = buffer; }
  Value input(BlockArgument arg) { return buffers.lookup(arg); }

  /// An index constant, made once at the top of the function so every use
  /// (inside any loop) sees the same SSA value.
  Value index(int64_t v) {
    auto [it, fresh] = indexConstants.try_emplace(v, Value());
    if (fresh) {
      OpBuilder top(b.getContext());
      top.setInsertionPointToStart(&entry);
      it->second = arith::ConstantIndexOp::create(top, b.getLoc(), v);
    }
    return it->second;
  }

  /// `linear` as an index of `shape` (row-major).
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape) {
    SmallVector<Value> idx(shape.size());
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (d == 0) {
        idx[d] = shape[d] == 1 ? index(0) : linear;
        break;
      }
      if (shape[d] == 1) { // the same SSA zero that project() uses
        idx[d] = index(0);
        continue;
      }
      idx[d] = arith::RemUIOp::create(b, linear, index(shape[d]));
      linear = arith::DivUIOp::create(b, linear, index(shape[d]));
    }
    return idx;
  }
  Value linearize(ValueRange idx, ArrayRef<int64_t> shape) {
    Value linear = index(0);
    for (auto [i, size] : llvm::zip(idx, shape))
      linear = arith::AddIOp::create(
          b, arith::MulIOp::create(b, linear, index(size)), i);
    return linear;
  }
  /// NumPy alignment: the index of a value of `to` (which broadcasts to
  /// the shape `idx` indexes) that the point `idx` reads.
  SmallVector<Value> project(ValueRange idx, ArrayRef<int64_t> to) {
    SmallVector<Value> out;
    size_t offset = idx.size() - to.size();
    for (size_t d = 0; d < to.size(); ++d)
      out.push_back(to[d] == 1 ? index(0) : idx[offset + d]);
    return out;
  }

  /// Memoized values live in scopes: a value computed inside a loop or a
  /// branch must not be reused after it.
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  /// `v` at `idx` is `scalar` in the current scope (an element of a vector
  /// load).
  void bind(Value v, ValueRange idx, Value scalar) {
    scopes.back()[Key{v, SmallVector<Value, 4>(idx.begin(), idx.end())}] =
        scalar;
  }

  /// A value fixed for the whole thread (a row's statistics): `eval` of
  /// `v` at any index returns it.
  void setUniform(Value v, Value scalar) { uniform[v] = scalar; }

  /// The scalar of `v` at `idx` (an index of v's own shape).
  FailureOr<Value> eval(Value v, ValueRange idx);

  /// Converts between an element type and the type its arithmetic runs in
  /// (f32 for bf16/f16: one rounding per op, as the interpreter rounds each
  /// op's result).
  Value widen(Value x) {
    Type t = x.getType();
    if (t.isBF16() || t.isF16())
      return arith::ExtFOp::create(b, b.getF32Type(), x);
    return x;
  }
  Value narrow(Value x, Type element) {
    if (x.getType() == element)
      return x;
    return arith::TruncFOp::create(b, element, x);
  }
  /// Any scalar converted to `to` with nova.cast's rules.
  Value convert(Value x, Type to);

  Operation *unsupported = nullptr; // the first op no emitter lowers

private:
  using Key = std::pair<Value, SmallVector<Value, 4>>;
  struct KeyLess {
    bool operator()(const Key &a, const Key &b) const {
      auto ptr = [](Value v) { return v.getAsOpaquePointer(); };
      if (a.first != b.first)
        return ptr(a.first) < ptr(b.first);
      return std::lexicographical_compare(
          a.second.begin(), a.second.end(), b.second.begin(), b.second.end(),
          [&](Value x, Value y) { return ptr(x) < ptr(y); });
    }
  };
  FailureOr<Value> compute(Value v, ValueRange idx);
  FailureOr<Value> elementwise(Operation *op, ValueRange idx);
  /// The element at `idx` of a concatenation, from part `part` on (which
  /// starts at `offset` along the axis).
  FailureOr<Value> concatenated(nv::ConcatOp concat, ValueRange idx,
                                unsigned part, int64_t offset);
  Value floatConstant(Type t, double v) {
    return arith::ConstantOp::create(b, t, b.getFloatAttr(t, v));
  }

  ImplicitLocOpBuilder &b;
  Block &entry;
  DenseMap<Value, Value> buffers, uniform;
  std::map<int64_t, Value> indexConstants;
  std::vector<std::map<Key, Value, KeyLess>> scopes{1};
};

Value BodyEmitter::convert(Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from);
  auto toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth()
               ? arith::ExtFOp::create(b, to, x).getResult()
               : arith::TruncFOp::create(b, to, x).getResult();
  if (fromF) {
    if (to.isInteger(1))
      return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, x,
                                   floatConstant(from, 0.0));
    // Truncates toward zero and saturates, NaN to 0 (the interpreter's
    // floatToInt): the PTX cvt.rzi does exactly that.
    return arith::FPToSIOp::create(b, to, x);
  }
  unsigned fromBits = from.getIntOrFloatBitWidth();
  if (toF) {
    if (fromBits == 1)
      return arith::UIToFPOp::create(b, to, x);
    // Through f32 for the narrow types, as the interpreter converts.
    if (toF.getWidth() < 32)
      return arith::TruncFOp::create(
          b, to, arith::SIToFPOp::create(b, b.getF32Type(), x));
    return arith::SIToFPOp::create(b, to, x);
  }
  unsigned toBits = to.getIntOrFloatBitWidth();
  if (toBits == 1)
    return arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne, x,
        arith::ConstantOp::create(b, from, b.getIntegerAttr(from, 0)));
  if (fromBits == 1)
    return arith::ExtUIOp::create(b, to, x);
  return fromBits < toBits ? arith::ExtSIOp::create(b, to, x).getResult()
                           : arith::TruncIOp::create(b, to, x).getResult();
}

FailureOr<Value> BodyEmitter::eval(Value v, ValueRange idx) {
  if (auto it = uniform.find(v); it != uniform.end())
    return it->second;
  Key key{v, SmallVector<Value, 4>(idx.begin(), idx.end())};
  for (auto &scope : llvm::reverse(scopes))
    if (auto it = scope.find(key); it != scope.end())
      return it->second;
  FailureOr<Value> r = compute(v, idx);
  if (succeeded(r))
    scopes.back()[key] = *r;
  return r;
}

FailureOr<Value> BodyEmitter::compute(Value v, ValueRange idx) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Value buffer = buffers.lookup(arg);
    return memref::LoadOp::create(b, buffer, idx).getResult();
  }
  Operation *op = v.getDefiningOp();
  if (auto reshape = dyn_cast<nv::ReshapeOp>(op)) {
    Value input = reshape.getInput();
    return eval(input, delinearize(linearize(idx, shapeOf(v)), shapeOf(input)));
  }
  if (auto bcast = dyn_cast<nv::BroadcastOp>(op))
    return eval(bcast.getInput(), project(idx, shapeOf(bcast.getInput())));
  if (auto transpose = dyn_cast<nv::TransposeOp>(op)) {
    // result[i] = input[j] with j[perm[d]] = i[d].
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<Value> in(perm.size());
    for (auto [d, p] : llvm::enumerate(perm))
      in[p] = idx[d];
    return eval(transpose.getInput(), in);
  }
  if (auto slice = dyn_cast<nv::SliceOp>(op)) {
    SmallVector<Value> in;
    for (auto [i, start, stride] :
         llvm::zip(idx, slice.getStarts(), slice.getStrides()))
      in.push_back(arith::AddIOp::create(
          b, index(start), arith::MulIOp::create(b, i, index(stride))));
    return eval(slice.getInput(), in);
  }
  if (auto concat = dyn_cast<nv::ConcatOp>(op))
    return concatenated(concat, idx, 0, 0);
  return elementwise(op, idx);
}

FailureOr<Value> BodyEmitter::concatenated(nv::ConcatOp concat, ValueRange idx,
                                           unsigned part, int64_t offset) {
  // Part `part` starts at `offset` along the axis: read it when the index
  // is below its end, else look further (a chain of branches, so only the
  // part that holds the element is read).
  int64_t axis = concat.getDim();
  Value input = concat.getInputs()[part];
  int64_t size = shapeOf(input)[axis];
  auto read = [&]() -> FailureOr<Value> {
    SmallVector<Value> in(idx);
    in[axis] = arith::SubIOp::create(b, idx[axis], index(offset));
    return eval(input, in);
  };
  if (part + 1 == concat.getInputs().size())
    return read();
  Value here = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, idx[axis],
                                     index(offset + size));
  auto ifOp = scf::IfOp::create(b, TypeRange{elementOf(concat.getResult())},
                                here, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool first : {true, false}) {
    b.setInsertionPointToStart(first ? ifOp.thenBlock() : ifOp.elseBlock());
    pushScope();
    FailureOr<Value> x =
        first ? read() : concatenated(concat, idx, part + 1, offset + size);
    popScope();
    if (failed(x))
      return failure();
    scf::YieldOp::create(b, *x);
  }
  return ifOp.getResult(0);
}

FailureOr<Value> BodyEmitter::elementwise(Operation *op, ValueRange idx) {
  Type element = elementOf(op->getResult(0));
  auto operand = [&](unsigned i) -> FailureOr<Value> {
    Value x = op->getOperand(i);
    return eval(x, project(idx, shapeOf(x)));
  };
  if (auto constant = dyn_cast<nv::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || !dense.isSplat()) {
      unsupported = op;
      return failure();
    }
    return arith::ConstantOp::create(b, element,
                                     dense.getSplatValue<TypedAttr>())
        .getResult();
  }
  if (auto iota = dyn_cast<nv::IotaOp>(op)) {
    Value i = idx[iota.getDim()];
    if (isa<FloatType>(element))
      return convert(arith::IndexCastOp::create(b, b.getI64Type(), i), element);
    return arith::IndexCastOp::create(b, element, i).getResult();
  }
  if (auto cast = dyn_cast<nv::CastOp>(op)) {
    auto x = operand(0);
    if (failed(x))
      return failure();
    return convert(*x, element);
  }
  SmallVector<Value> in;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    auto x = operand(i);
    if (failed(x))
      return failure();
    in.push_back(*x);
  }
  if (auto select = dyn_cast<nv::SelectOp>(op))
    return arith::SelectOp::create(b, in[0], in[1], in[2]).getResult();
  if (auto cmp = dyn_cast<nv::CmpOp>(op)) {
    bool isFloat = isa<FloatType>(in[0].getType());
    Value l = widen(in[0]), r = widen(in[1]);
    using P = nv::CmpPredicate;
    if (isFloat) {
      arith::CmpFPredicate p;
      switch (cmp.getPredicate()) {
      case P::eq:
        p = arith::CmpFPredicate::OEQ;
        break;
      case P::ne:
        p = arith::CmpFPredicate::UNE;
        break;
      case P::lt:
        p = arith::CmpFPredicate::OLT;
        break;
      case P::le:
        p = arith::CmpFPredicate::OLE;
        break;
      case P::gt:
        p = arith::CmpFPredicate::OGT;
        break;
      case P::ge:
        p = arith::CmpFPredicate::OGE;
        break;
      }
      return arith::CmpFOp::create(b, p, l, r).getResult();
    }
    bool bit = in[0].getType().isInteger(1); // booleans compare unsigned
    arith::CmpIPredicate p;
    switch (cmp.getPredicate()) {
    case P::eq:
      p = arith::CmpIPredicate::eq;
      break;
    case P::ne:
      p = arith::CmpIPredicate::ne;
      break;
    case P::lt:
      p = bit ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
      break;
    case P::le:
      p = bit ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
      break;
    case P::gt:
      p = bit ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
      break;
    case P::ge:
      p = bit ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
      break;
    }
    return arith::CmpIOp::create(b, p, l, r).getResult();
  }

  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<Value> w;
    for (Value x : in)
      w.push_back(widen(x));
    Type ct = w[0].getType();
    auto c = [&](double x) { return floatConstant(ct, x); };
    Value r =
        llvm::TypeSwitch<Operation *, Value>(op)
            .Case(
                [&](nv::AddOp) { return arith::AddFOp::create(b, w[0], w[1]); })
            .Case(
                [&](nv::SubOp) { return arith::SubFOp::create(b, w[0], w[1]); })
            .Case(
                [&](nv::MulOp) { return arith::MulFOp::create(b, w[0], w[1]); })
            .Case(
                [&](nv::DivOp) { return arith::DivFOp::create(b, w[0], w[1]); })
            .Case([&](nv::MaxOp) {
              return arith::MaximumFOp::create(b, w[0], w[1]);
            })
            .Case([&](nv::MinOp) {
              return arith::MinimumFOp::create(b, w[0], w[1]);
            })
            .Case(
                [&](nv::PowOp) { return math::PowFOp::create(b, w[0], w[1]); })
            .Case([&](nv::NegOp) { return arith::NegFOp::create(b, w[0]); })
            .Case([&](nv::AbsOp) { return math::AbsFOp::create(b, w[0]); })
            .Case([&](nv::ReluOp) -> Value {
              // x > 0 ? x : 0, so NaN gives 0 as in the interpreter.
              Value pos = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT,
                                                w[0], c(0.0));
              return arith::SelectOp::create(b, pos, w[0], c(0.0));
            })
            .Case([&](nv::ExpOp) { return math::ExpOp::create(b, w[0]); })
            .Case([&](nv::LogOp) { return math::LogOp::create(b, w[0]); })
            .Case([&](nv::TanhOp) { return math::TanhOp::create(b, w[0]); })
            .Case([&](nv::SqrtOp) { return math::SqrtOp::create(b, w[0]); })
            .Case([&](nv::RsqrtOp) {
              // 1 / sqrt(x), each correctly rounded.
              return arith::DivFOp::create(b, c(1.0),
                                           math::SqrtOp::create(b, w[0]));
            })
            .Case([&](nv::ErfOp) { return math::ErfOp::create(b, w[0]); })
            .Case([&](nv::ReciprocalOp) {
              return arith::DivFOp::create(b, c(1.0), w[0]);
            })
            .Case([&](nv::SigmoidOp) {
              Value e = math::ExpOp::create(b, arith::NegFOp::create(b, w[0]));
              return arith::DivFOp::create(b, c(1.0),
                                           arith::AddFOp::create(b, c(1.0), e));
            })
            .Case([&](nv::GeluOp g) -> Value {
              Value x = w[0];
              if (g.getApproximation() == nv::GeluApproximation::erf) {
                Value e = math::ErfOp::create(
                    b, arith::MulFOp::create(b, x, c(M_SQRT1_2)));
                return arith::MulFOp::create(
                    b, arith::MulFOp::create(b, c(0.5), x),
                    arith::AddFOp::create(b, c(1.0), e));
              }
              // x/2 (1 + tanh u) = x / (1 + e^(-2u)): no cancellation where
              // tanh u is near -1, so the relative error stays small.
              Value x3 =
                  arith::MulFOp::create(b, arith::MulFOp::create(b, x, x), x);
              Value u = arith::MulFOp::create(
                  b, c(std::sqrt(2.0 / M_PI)),
                  arith::AddFOp::create(
                      b, x, arith::MulFOp::create(b, c(0.044715), x3)));
              Value e =
                  math::ExpOp::create(b, arith::MulFOp::create(b, c(-2.0), u));
              return arith::DivFOp::create(b, x,
                                           arith::AddFOp::create(b, c(1.0), e));
            })
            .Default([&](Operation *) { return Value(); });
    if (!r) {
      unsupported = op;
      return failure();
    }
    return narrow(r, floatType);
  }

  Type it = element;
  auto zero = [&] {
    return arith::ConstantOp::create(b, it, b.getIntegerAttr(it, 0));
  };
  Value r =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case(
              [&](nv::AddOp) { return arith::AddIOp::create(b, in[0], in[1]); })
          .Case(
              [&](nv::SubOp) { return arith::SubIOp::create(b, in[0], in[1]); })
          .Case(
              [&](nv::MulOp) { return arith::MulIOp::create(b, in[0], in[1]); })
          .Case([&](nv::MaxOp) {
            return it.isInteger(1)
                       ? arith::OrIOp::create(b, in[0], in[1]).getResult()
                       : arith::MaxSIOp::create(b, in[0], in[1]).getResult();
          })
          .Case([&](nv::MinOp) {
            return it.isInteger(1)
                       ? arith::AndIOp::create(b, in[0], in[1]).getResult()
                       : arith::MinSIOp::create(b, in[0], in[1]).getResult();
          })
          .Case([&](nv::NegOp) {
            return arith::SubIOp::create(b, zero(), in[0]);
          })
          .Case([&](nv::AbsOp) { return math::AbsIOp::create(b, in[0]); })
          .Case([&](nv::ReluOp) {
            return arith::MaxSIOp::create(b, in[0], zero());
          })
          .Default([&](Operation *) { return Value(); });
  // Integer division needs the interpreter's divide-by-zero error: not
  // lowered until the device status word exists.
  if (!r || (it.isInteger(1) && !isa<nv::MaxOp, nv::MinOp>(op))) {
    unsupported = op;
    return failure();
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Kernel skeleton
//===----------------------------------------------------------------------===//

/// What every family's emitter gets: the kernel, its contract and schedule,
/// the gpu.func under construction and a builder inside it.
struct KernelContext {
  KernelOp kernel;
  const Contract &contract;
  ScheduleAttr schedule;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
  SmallVector<Value> outputBuffers;

  Block &block() { return kernel.getBody().front(); }
  ValueRange outputs() { return block().getTerminator()->getOperands(); }
  Value threadId() { return gpu::ThreadIdOp::create(b, gpu::Dimension::x); }
  Value blockId() { return gpu::BlockIdOp::create(b, gpu::Dimension::x); }
  LogicalResult fail(const Twine &why) {
    return kernel.emitError()
           << "convert-tile-to-gpu: kernel @" << kernel.getSymName() << " ("
           << stringifyFamily(kernel.getFamily()) << "): " << why;
  }
  LogicalResult unsupported() {
    Operation *op = body.unsupported;
    InFlightDiagnostic d = op->emitError()
                           << "convert-tile-to-gpu: kernel @"
                           << kernel.getSymName() << " ("
                           << stringifyFamily(kernel.getFamily()) << "): '"
                           << op->getName() << "'";
    if (auto c = dyn_cast<nv::ConstantOp>(op))
      d << " with more than one distinct value";
    d << " is not lowered to the GPU yet";
    return d;
  }
  /// Stores `v`'s value at `idx` into output `i`.
  LogicalResult store(unsigned i, ValueRange idx) {
    auto x = body.eval(outputs()[i], idx);
    if (failed(x))
      return unsupported();
    memref::StoreOp::create(b, *x, outputBuffers[i], idx);
    return success();
  }
  /// Runs `fn` inside `if (cond)`, in a fresh memo scope.
  template <typename Fn> LogicalResult ifThen(Value cond, Fn fn) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body.pushScope();
    LogicalResult r = fn();
    body.popScope();
    return r;
  }
  /// for (i = lb; i < ub; i += step) fn(i), in a fresh memo scope.
  template <typename Fn>
  LogicalResult loop(Value lb, Value ub, Value step, Fn fn) {
    auto forOp = scf::ForOp::create(b, lb, ub, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    body.pushScope();
    LogicalResult r = fn(forOp.getInductionVar());
    body.popScope();
    return r;
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// How partial results of one nova.reduce combine: float sums in f64 (the
/// interpreter's accumulator), max/min in the element's arithmetic type.
struct Combiner {
  nv::ReduceKind kind;
  Type accType;

  static Combiner of(nv::ReduceOp reduce) {
    Type e = elementOf(reduce.getInput());
    Type acc = e;
    if (isa<FloatType>(e))
      acc = reduce.getKind() == nv::ReduceKind::sum
                ? Type(Float64Type::get(e.getContext()))
                : (e.isBF16() || e.isF16()
                       ? Type(Float32Type::get(e.getContext()))
                       : e);
    return {reduce.getKind(), acc};
  }
  Value identity(OpBuilder &b, Location loc) const {
    if (auto f = dyn_cast<FloatType>(accType)) {
      double v = kind == nv::ReduceKind::sum   ? 0.0
                 : kind == nv::ReduceKind::max ? -INFINITY
                                               : INFINITY;
      return arith::ConstantOp::create(b, loc, f, b.getFloatAttr(f, v));
    }
    unsigned bits = accType.getIntOrFloatBitWidth();
    APInt v = kind == nv::ReduceKind::sum   ? APInt::getZero(bits)
              : kind == nv::ReduceKind::max ? APInt::getSignedMinValue(bits)
                                            : APInt::getSignedMaxValue(bits);
    return arith::ConstantOp::create(b, loc, accType,
                                     b.getIntegerAttr(accType, v));
  }
  Value combine(OpBuilder &b, Location loc, Value x, Value y) const {
    if (isa<FloatType>(accType)) {
      switch (kind) {
      case nv::ReduceKind::sum:
        return arith::AddFOp::create(b, loc, x, y);
      case nv::ReduceKind::max:
        return arith::MaximumFOp::create(b, loc, x, y);
      case nv::ReduceKind::min:
        return arith::MinimumFOp::create(b, loc, x, y);
      }
    }
    switch (kind) {
    case nv::ReduceKind::sum:
      return arith::AddIOp::create(b, loc, x, y);
    case nv::ReduceKind::max:
      return arith::MaxSIOp::create(b, loc, x, y);
    case nv::ReduceKind::min:
      return arith::MinSIOp::create(b, loc, x, y);
    }
    llvm_unreachable("reduce kind");
  }
};

/// A loop over `count` items (first, first + step, ...) that folds
/// `item(i)` into an accumulator.
template <typename Item>
FailureOr<Value> accumulate(KernelContext &k, const Combiner &comb, Value first,
                            Value ub, Value step, Item item) {
  ImplicitLocOpBuilder &b = k.b;
  Value init = comb.identity(b, b.getLoc());
  auto forOp = scf::ForOp::create(b, first, ub, step, ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    k.body.pushScope();
    FailureOr<Value> x = item(forOp.getInductionVar());
    k.body.popScope();
    if (failed(x))
      return failure();
    Value acc = forOp.getRegionIterArg(0);
    Value wide = k.body.convert(k.body.widen(*x), comb.accType);
    scf::YieldOp::create(b, comb.combine(b, b.getLoc(), acc, wide));
  }
  return forOp.getResult(0);
}

/// Butterfly over `width` lanes (a power of two <= 32): afterwards every
/// lane holds the combination of its group's values.
Value shuffleReduce(ImplicitLocOpBuilder &b, const Combiner &comb, Value x,
                    int64_t width) {
  auto shuffle = [&](Value v, int32_t offset) -> Value {
    auto one = [&](Value w) {
      return gpu::ShuffleOp::create(b, w, offset, int32_t(32),
                                    gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    unsigned bits = v.getType().getIntOrFloatBitWidth();
    if (bits == 32)
      return one(v);
    // Other widths travel as one or two 32-bit words.
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Type asInt = b.getIntegerType(bits);
    Value i = isa<FloatType>(v.getType())
                  ? arith::BitcastOp::create(b, asInt, v).getResult()
                  : v;
    Value wide = bits < 64 ? arith::ExtSIOp::create(b, i64, i).getResult() : i;
    Value lo = one(arith::TruncIOp::create(b, i32, wide));
    Value hi = one(arith::TruncIOp::create(
        b, i32,
        arith::ShRUIOp::create(
            b, wide,
            arith::ConstantOp::create(b, i64, b.getI64IntegerAttr(32)))));
    Value joined = arith::OrIOp::create(
        b, arith::ExtUIOp::create(b, i64, lo),
        arith::ShLIOp::create(
            b, arith::ExtUIOp::create(b, i64, hi),
            arith::ConstantOp::create(b, i64, b.getI64IntegerAttr(32))));
    Value back = bits < 64
                     ? arith::TruncIOp::create(b, asInt, joined).getResult()
                     : joined;
    return isa<FloatType>(v.getType())
               ? arith::BitcastOp::create(b, v.getType(), back).getResult()
               : back;
  };
  for (int64_t offset = width / 2; offset >= 1; offset /= 2)
    x = comb.combine(b, b.getLoc(), x, shuffle(x, int32_t(offset)));
  return x;
}

/// Blocks and threads per block (x only).
struct Geometry {
  int64_t grid, threads;
};

/// The GPU lowering of one family.
class FamilyEmitter {
public:
  explicit FamilyEmitter(KernelContext &k) : k(k), b(k.b), body(k.body) {}
  FailureOr<Geometry> pointwise();
  FailureOr<Geometry> rowReduction(gpu::GPUFuncOp func);
  FailureOr<Geometry> columnReduction(gpu::GPUFuncOp func);
  FailureOr<Geometry> optimizer();

private:
  /// The index of `v` (a value of the reduced `full` tensor's space) at
  /// the point (lead..., col).
  SmallVector<Value> pointIndex(Value v, ArrayRef<int64_t> full,
                                ValueRange lead, Value col) {
    ArrayRef<int64_t> shape = shapeOf(v);
    if (shape == full.drop_back())
      return SmallVector<Value>(lead);
    SmallVector<Value> point(lead);
    point.push_back(col);
    return body.project(point, shape);
  }
  /// The reduced tensor's shape (from the first nova.reduce).
  FailureOr<SmallVector<int64_t>> reducedShape(SmallVector<nv::ReduceOp> &out) {
    for (Operation &op : k.block().without_terminator()) {
      if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
        out.push_back(reduce);
        continue;
      }
      if (isa<nv::SoftmaxOp, nv::LogSoftmaxOp, nv::LayerNormOp,
              nv::CrossEntropyOp, nv::CheckLabelsOp>(op)) {
        body.unsupported = &op;
        return failure();
      }
    }
    return SmallVector<int64_t>(shapeOf(out.front().getInput()));
  }

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
};

/// Booleans are bytes in memory but bits in an LLVM vector: they are read
/// and written element by element.
bool vectorizable(Type element) { return !element.isInteger(1); }

/// `buffer` as a 1-D memref (its static shape is contiguous).
Value flatten(ImplicitLocOpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.front().push_back(d);
  return memref::CollapseShapeOp::create(b, buffer, all);
}

FailureOr<Geometry> FamilyEmitter::pointwise() {
  ArrayRef<int64_t> space = k.contract.space;
  int64_t n = product(space);
  int64_t threads = k.schedule.getThreads();
  // Each thread takes `width` adjacent elements at a time: one 16-byte (or
  // narrower) access per contiguous tensor when the chunk is whole, scalar
  // accesses for the ragged last chunk. Buffers are 16-byte aligned (the
  // arena places them so), and chunks start at multiples of `width`.
  int64_t width = std::max<int64_t>(1, k.schedule.getVector());
  unsigned widest = 1;
  for (Value v : k.outputs())
    widest = std::max(widest, elementOf(v).getIntOrFloatBitWidth());
  for (BlockArgument arg : k.block().getArguments())
    widest = std::max(widest, elementOf(arg).getIntOrFloatBitWidth());
  width = std::min<int64_t>(width, std::max<int64_t>(1, 128 / widest));
  width = int64_t(llvm::bit_floor(uint64_t(width)));
  if (space.empty())
    width = 1;
  int64_t chunksPerBlock =
      std::max<int64_t>(k.schedule.getTile().front() / width, threads);
  chunksPerBlock = (chunksPerBlock + threads - 1) / threads * threads;
  int64_t chunks = (n + width - 1) / width;

  // Vector views of the tensors read and written element for element.
  SmallVector<std::pair<BlockArgument, Value>> direct;
  for (auto [arg, access] :
       llvm::zip(k.block().getArguments(), k.contract.inputs))
    if (width > 1 && access.kind == AccessKind::Elementwise &&
        !arg.use_empty() && vectorizable(elementOf(arg)))
      direct.push_back({arg, flatten(b, body.input(arg))});
  SmallVector<Value> flatOutputs; // null: stored element by element
  if (width > 1)
    for (auto [v, buffer] : llvm::zip(k.outputs(), k.outputBuffers))
      flatOutputs.push_back(vectorizable(elementOf(v)) ? flatten(b, buffer)
                                                       : Value());
  auto alignment = [&](Type element) {
    return llvm::MaybeAlign(
        std::max<uint64_t>(1, width * element.getIntOrFloatBitWidth() / 8));
  };

  // Block b covers chunks [b * chunksPerBlock, ...); in step s thread t
  // takes chunk b * chunksPerBlock + s * threads + t, so a warp's accesses
  // are adjacent.
  Value base = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(chunksPerBlock)),
      k.threadId());
  auto scalarElement = [&](Value e) {
    Value in =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, e, body.index(n));
    return k.ifThen(in, [&]() -> LogicalResult {
      SmallVector<Value> idx = body.delinearize(e, space);
      for (unsigned i = 0; i < k.outputs().size(); ++i)
        if (failed(k.store(i, idx)))
          return failure();
      return success();
    });
  };
  LogicalResult ok = k.loop(
      body.index(0), body.index(chunksPerBlock), body.index(threads),
      [&](Value s) -> LogicalResult {
        Value chunk = arith::AddIOp::create(b, base, s);
        if (width == 1)
          return scalarElement(chunk);
        Value first = arith::MulIOp::create(b, chunk, body.index(width));
        Value whole = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk,
                                            body.index(n / width));
        auto ifOp = scf::IfOp::create(b, whole, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        body.pushScope();
        SmallVector<Value> loaded;
        for (auto [arg, flat] : direct)
          loaded.push_back(vector::LoadOp::create(
              b, VectorType::get({width}, elementOf(arg)), flat,
              ValueRange{first}, /*nontemporal=*/false,
              alignment(elementOf(arg))));
        SmallVector<SmallVector<Value>> lanes(k.outputs().size());
        for (int64_t lane = 0; lane < width; ++lane) {
          body.pushScope();
          Value e = arith::AddIOp::create(b, first, body.index(lane));
          SmallVector<Value> idx = body.delinearize(e, space);
          for (auto [d, vec] : llvm::zip(direct, loaded))
            body.bind(d.first, idx, vector::ExtractOp::create(b, vec, lane));
          for (auto [i, v] : llvm::enumerate(k.outputs())) {
            auto x = body.eval(v, idx);
            if (failed(x))
              return k.unsupported();
            if (!flatOutputs[i])
              memref::StoreOp::create(b, *x, k.outputBuffers[i], idx);
            lanes[i].push_back(*x);
          }
          body.popScope();
        }
        for (auto [i, v] : llvm::enumerate(k.outputs())) {
          if (!flatOutputs[i])
            continue;
          Value vec = vector::FromElementsOp::create(
              b, VectorType::get({width}, elementOf(v)), lanes[i]);
          vector::StoreOp::create(b, vec, flatOutputs[i], ValueRange{first},
                                  /*nontemporal=*/false,
                                  alignment(elementOf(v)));
        }
        body.popScope();
        // The ragged last chunk, element by element.
        b.setInsertionPointToStart(ifOp.elseBlock());
        for (int64_t lane = 0; lane < width; ++lane)
          if (failed(scalarElement(
                  arith::AddIOp::create(b, first, body.index(lane)))))
            return failure();
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{
      std::max<int64_t>(1, (chunks + chunksPerBlock - 1) / chunksPerBlock),
      threads};
}

FailureOr<Geometry> FamilyEmitter::rowReduction(gpu::GPUFuncOp func) {
  SmallVector<nv::ReduceOp> reduces;
  auto fullOr = reducedShape(reduces);
  if (failed(fullOr))
    return k.unsupported();
  SmallVector<int64_t> full = *fullOr;
  ArrayRef<int64_t> lead = ArrayRef<int64_t>(full).drop_back();
  int64_t rows = product(lead), cols = full.back();
  int64_t threads = k.schedule.getThreads();
  // A power-of-two group of threads per row: a warp or less shuffles only,
  // more combines the warps through shared memory.
  int64_t rowsPerBlock = std::max<int64_t>(1, k.schedule.getTile().front());
  int64_t group =
      llvm::PowerOf2Ceil(std::max<int64_t>(1, threads / rowsPerBlock));
  group = std::min<int64_t>(group, 1024);
  if (rows == 0 || cols == 0)
    return k.fail("empty rows are not lowered yet");
  // The contract lets a row kernel also yield sums across its rows (column
  // sums, totals), complete only once every block has added its rows; this
  // emitter combines within a row only, so it refuses them rather than
  // write one block's share.
  for (nv::ReduceOp reduce : reduces) {
    int64_t last = shapeOf(reduce.getInput()).size() - 1;
    if (llvm::any_of(reduce.getDims(), [&](int64_t d) { return d != last; }))
      return k.fail("sums across the rows (a reduce over a leading dim) in a "
                    "row kernel are not lowered yet");
  }
  rowsPerBlock = std::max<int64_t>(1, threads / group);
  threads = group * rowsPerBlock;
  int64_t warpsPerRow = std::max<int64_t>(1, group / 32);
  Value partials;
  if (warpsPerRow > 1) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    partials = func.addWorkgroupAttribution(
        MemRefType::get({threads / 32}, b.getF64Type(), AffineMap(), space),
        b.getLoc());
  }

  Value tid = k.threadId();
  Value lane = arith::RemUIOp::create(b, tid, body.index(group));
  Value rowInBlock = arith::DivUIOp::create(b, tid, body.index(group));
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(rowsPerBlock)),
      rowInBlock);
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row,
                                      body.index(rows));
  // Threads past the last row compute the last row again (every thread
  // must reach the barriers) and store nothing.
  Value clamped = arith::MinUIOp::create(b, row, body.index(rows - 1));
  SmallVector<Value> leadIdx = body.delinearize(clamped, lead);

  // Each reduction, in body order, once per row: what follows may read it.
  for (nv::ReduceOp reduce : reduces) {
    Combiner comb = Combiner::of(reduce);
    Value input = reduce.getInput();
    auto partial = accumulate(
        k, comb, lane, body.index(cols), body.index(group), [&](Value col) {
          return body.eval(input, pointIndex(input, full, leadIdx, col));
        });
    if (failed(partial))
      return k.unsupported();
    Value total =
        shuffleReduce(b, comb, *partial, std::min<int64_t>(group, 32));
    if (warpsPerRow > 1) {
      // Lane 0 of each warp publishes; every thread folds its row's warps
      // in order (deterministic), then the buffer is free again.
      Value warp = arith::DivUIOp::create(b, tid, body.index(32));
      Value first = arith::CmpIOp::create(
          b, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, tid, body.index(32)), body.index(0));
      Value asF64 = body.convert(total, b.getF64Type());
      if (!isa<FloatType>(comb.accType))
        return k.fail("integer reductions over more than a warp per row are "
                      "not lowered yet");
      (void)k.ifThen(first, [&] {
        memref::StoreOp::create(b, asF64, partials, ValueRange{warp});
        return success();
      });
      gpu::BarrierOp::create(b);
      Value rowWarp0 =
          arith::MulIOp::create(b, rowInBlock, body.index(warpsPerRow));
      Value acc = comb.identity(b, b.getLoc());
      acc = body.convert(acc, b.getF64Type());
      Combiner wide{comb.kind, b.getF64Type()};
      for (int64_t w = 0; w < warpsPerRow; ++w) {
        Value x = memref::LoadOp::create(
            b, partials,
            ValueRange{arith::AddIOp::create(b, rowWarp0, body.index(w))});
        acc = wide.combine(b, b.getLoc(), acc, x);
      }
      gpu::BarrierOp::create(b);
      total = body.convert(acc, comb.accType);
    }
    Type element = elementOf(reduce.getResult());
    body.setUniform(reduce.getResult(), body.convert(total, element));
  }

  // Outputs: per-row ones from lane 0, full rows by every lane.
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    const Access &access = k.contract.results[i];
    if (access.kind == AccessKind::Elementwise) {
      LogicalResult ok = k.ifThen(valid, [&] {
        return k.loop(lane, body.index(cols), body.index(group),
                      [&](Value col) {
                        return k.store(i, pointIndex(v, full, leadIdx, col));
                      });
      });
      if (failed(ok))
        return failure();
      continue;
    }
    // Per-row outputs from each row's lane 0; a scalar output (which the
    // contract keeps independent of the rows) from the first row's.
    Value first = arith::AndIOp::create(
        b,
        access.kind == AccessKind::Scalar
            ? arith::CmpIOp::create(b, arith::CmpIPredicate::eq, row,
                                    body.index(0))
            : valid,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                              body.index(0)));
    LogicalResult ok = k.ifThen(first, [&] {
      return k.store(i, pointIndex(v, full, leadIdx, body.index(0)));
    });
    if (failed(ok))
      return failure();
  }
  return Geometry{(rows + rowsPerBlock - 1) / rowsPerBlock, threads};
}

FailureOr<Geometry> FamilyEmitter::columnReduction(gpu::GPUFuncOp func) {
  SmallVector<nv::ReduceOp> reduces;
  auto fullOr = reducedShape(reduces);
  if (failed(fullOr))
    return k.unsupported();
  SmallVector<int64_t> full = *fullOr;
  ArrayRef<int64_t> lead = ArrayRef<int64_t>(full).drop_back();
  int64_t rows = product(lead), cols = full.back();
  if (rows == 0 || cols == 0)
    return k.fail("empty columns are not lowered yet");
  // 32 adjacent columns per block (a warp reads 32 consecutive elements of
  // a row), the block's other threads split the rows.
  int64_t colsPerBlock = 32;
  int64_t threads = std::max<int64_t>(32, k.schedule.getThreads() / 32 * 32);
  int64_t groups = threads / colsPerBlock;
  auto space =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value partials = func.addWorkgroupAttribution(
      MemRefType::get({threads}, b.getF64Type(), AffineMap(), space),
      b.getLoc());

  Value tid = k.threadId();
  Value colInBlock = arith::RemUIOp::create(b, tid, body.index(colsPerBlock));
  Value rowGroup = arith::DivUIOp::create(b, tid, body.index(colsPerBlock));
  Value col = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(colsPerBlock)),
      colInBlock);
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col,
                                      body.index(cols));
  Value clamped = arith::MinUIOp::create(b, col, body.index(cols - 1));
  auto pointAt = [&](Value v, Value r) {
    SmallVector<Value> point = body.delinearize(r, lead);
    point.push_back(clamped);
    return body.project(point, shapeOf(v));
  };

  for (nv::ReduceOp reduce : reduces) {
    Combiner comb = Combiner::of(reduce);
    if (!isa<FloatType>(comb.accType))
      return k.fail("integer column reductions are not lowered yet");
    Value input = reduce.getInput();
    auto partial = accumulate(
        k, comb, rowGroup, body.index(rows), body.index(groups),
        [&](Value r) { return body.eval(input, pointAt(input, r)); });
    if (failed(partial))
      return k.unsupported();
    memref::StoreOp::create(b, body.convert(*partial, b.getF64Type()), partials,
                            ValueRange{tid});
    gpu::BarrierOp::create(b);
    Combiner wide{comb.kind, b.getF64Type()};
    Value acc = body.convert(comb.identity(b, b.getLoc()), b.getF64Type());
    for (int64_t g = 0; g < groups; ++g) {
      Value x = memref::LoadOp::create(
          b, partials,
          ValueRange{arith::AddIOp::create(b, colInBlock,
                                           body.index(g * colsPerBlock))});
      acc = wide.combine(b, b.getLoc(), acc, x);
    }
    gpu::BarrierOp::create(b);
    body.setUniform(reduce.getResult(),
                    body.convert(acc, elementOf(reduce.getResult())));
  }

  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    const Access &access = k.contract.results[i];
    if (access.kind == AccessKind::Elementwise) {
      LogicalResult ok = k.ifThen(valid, [&] {
        return k.loop(rowGroup, body.index(rows), body.index(groups),
                      [&](Value r) { return k.store(i, pointAt(v, r)); });
      });
      if (failed(ok))
        return failure();
      continue;
    }
    // Per-column outputs from each column's first row group; a scalar
    // output (independent of the columns) from the first column's.
    Value first = arith::AndIOp::create(
        b,
        access.kind == AccessKind::Scalar
            ? arith::CmpIOp::create(b, arith::CmpIPredicate::eq, col,
                                    body.index(0))
            : valid,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rowGroup,
                              body.index(0)));
    LogicalResult ok =
        k.ifThen(first, [&] { return k.store(i, pointAt(v, body.index(0))); });
    if (failed(ok))
      return failure();
  }
  return Geometry{(cols + colsPerBlock - 1) / colsPerBlock, threads};
}

/// The adamw op output `v` is computed from (through casts), if any.
nv::AdamWOp updateOf(Value v) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    Operation *def = cur.getDefiningOp();
    if (!def)
      continue;
    if (auto adamw = dyn_cast<nv::AdamWOp>(def))
      return adamw;
    llvm::append_range(work, def->getOperands());
  }
  return {};
}

FailureOr<Geometry> FamilyEmitter::optimizer() {
  // Each adamw's three results at one index, computed in f64 as the
  // interpreter does; registered as uniform values inside the branch that
  // handles that tensor.
  int64_t total = k.contract.space.front();
  int64_t threads = k.schedule.getThreads();
  int64_t tile = std::max<int64_t>(k.schedule.getTile().front(), threads);
  int64_t steps = (tile + threads - 1) / threads;
  tile = steps * threads;
  SmallVector<SmallVector<unsigned>> outputsOf;
  SmallVector<nv::AdamWOp> updates(k.block().getOps<nv::AdamWOp>());
  outputsOf.resize(updates.size());
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    nv::AdamWOp adamw = updateOf(v);
    if (!adamw || shapeOf(v) != shapeOf(adamw.getParam()))
      return k.fail("output #" + Twine(i) +
                    " is not an adamw result (through elementwise ops of "
                    "its shape)");
    outputsOf[llvm::find(updates, adamw) - updates.begin()].push_back(i);
  }

  Value base = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(tile)), k.threadId());
  Type f64 = b.getF64Type();
  auto c = [&](double x) {
    return arith::ConstantOp::create(b, f64, b.getF64FloatAttr(x));
  };
  LogicalResult ok = k.loop(
      body.index(0), body.index(tile), body.index(threads), [&](Value s) {
        Value e = arith::AddIOp::create(b, base, s);
        int64_t offset = 0;
        for (auto [u, adamw] : llvm::enumerate(updates)) {
          ArrayRef<int64_t> shape = shapeOf(adamw.getParam());
          int64_t n = product(shape);
          // e - offset < n, unsigned: false below offset too.
          Value local = arith::SubIOp::create(b, e, body.index(offset));
          Value mine = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                             local, body.index(n));
          offset += n;
          if (outputsOf[u].empty() || n == 0)
            continue;
          LogicalResult r = k.ifThen(mine, [&]() -> LogicalResult {
            SmallVector<Value> idx = body.delinearize(local, shape);
            auto at = [&](Value v) -> FailureOr<Value> {
              auto x = body.eval(v, body.project(idx, shapeOf(v)));
              if (failed(x))
                return failure();
              return body.convert(*x, f64);
            };
            auto p = at(adamw.getParam()), g = at(adamw.getGrad()),
                 m = at(adamw.getM()), v = at(adamw.getV()),
                 t = at(adamw.getStep()), lr = at(adamw.getLr());
            if (failed(p) || failed(g) || failed(m) || failed(v) || failed(t) ||
                failed(lr))
              return k.unsupported();
            double b1 = adamw.getBeta1().convertToDouble(),
                   b2 = adamw.getBeta2().convertToDouble(),
                   eps = adamw.getEpsilon().convertToDouble(),
                   wd = adamw.getWeightDecay().convertToDouble();
            auto mul = [&](Value x, Value y) {
              return arith::MulFOp::create(b, x, y).getResult();
            };
            auto add = [&](Value x, Value y) {
              return arith::AddFOp::create(b, x, y).getResult();
            };
            auto sub = [&](Value x, Value y) {
              return arith::SubFOp::create(b, x, y).getResult();
            };
            auto div = [&](Value x, Value y) {
              return arith::DivFOp::create(b, x, y).getResult();
            };
            Value c1 = sub(c(1), math::PowFOp::create(b, c(b1), *t));
            Value c2 = sub(c(1), math::PowFOp::create(b, c(b2), *t));
            Value mk = add(mul(c(b1), *m), mul(c(1 - b1), *g));
            Value vk = add(mul(c(b2), *v), mul(mul(c(1 - b2), *g), *g));
            Value denom = add(math::SqrtOp::create(b, div(vk, c2)), c(eps));
            Value pk =
                sub(*p, mul(*lr, add(div(div(mk, c1), denom), mul(c(wd), *p))));
            Type e = elementOf(adamw.getParam());
            body.setUniform(adamw.getNewParam(), body.convert(pk, e));
            body.setUniform(adamw.getNewM(), body.convert(mk, e));
            body.setUniform(adamw.getNewV(), body.convert(vk, e));
            for (unsigned i : outputsOf[u])
              if (failed(k.store(i, idx)))
                return failure();
            return success();
          });
          if (failed(r))
            return failure();
        }
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{std::max<int64_t>(1, (total + tile - 1) / tile), threads};
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

MemRefType bufferType(Type tensor) {
  auto t = cast<RankedTensorType>(tensor);
  return MemRefType::get(t.getShape(), t.getElementType());
}

LogicalResult lowerKernel(KernelOp kernel, OpBuilder &moduleBuilder) {
  auto contract = computeContract(kernel);
  if (failed(contract))
    return failure();
  std::string name = kernel.getSymName().str();
  auto where = [&] {
    return kernel.emitError() << "convert-tile-to-gpu: kernel @" << name << " ("
                              << stringifyFamily(kernel.getFamily()) << "): ";
  };
  ScheduleAttr schedule = kernel.getScheduleAttr();
  if (!schedule)
    return where() << "has no schedule; run nova-configure first";
  switch (kernel.getFamily()) {
  case Family::pointwise:
  case Family::row_reduction:
  case Family::column_reduction:
  case Family::optimizer:
    break;
  default:
    return where() << "the " << stringifyFamily(kernel.getFamily())
                   << " family is not lowered to the GPU yet";
  }
  Location loc = kernel.getLoc();
  auto gpuModule = gpu::GPUModuleOp::create(moduleBuilder, loc, name + "_gpu");
  OpBuilder inner(gpuModule.getBodyRegion());
  SmallVector<Type> params;
  FunctionType type = kernel.getKernelType();
  for (Type t : type.getInputs())
    params.push_back(bufferType(t));
  for (Type t : type.getResults())
    params.push_back(bufferType(t));
  auto func = gpu::GPUFuncOp::create(inner, loc, name,
                                     inner.getFunctionType(params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), inner.getUnitAttr());
  Block &entry = func.getBody().front();
  ImplicitLocOpBuilder b(loc, inner);
  b.setInsertionPointToStart(&entry);
  BodyEmitter body(b, entry);
  Block &kernelBlock = kernel.getBody().front();
  for (BlockArgument arg : kernelBlock.getArguments())
    body.bindInput(arg, entry.getArgument(arg.getArgNumber()));

  KernelContext k{kernel, *contract, schedule, func, b, body, {}};
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    k.outputBuffers.push_back(entry.getArgument(type.getNumInputs() + i));
  FamilyEmitter emit(k);
  FailureOr<Geometry> geometry = failure();
  switch (kernel.getFamily()) {
  case Family::pointwise:
    geometry = emit.pointwise();
    break;
  case Family::row_reduction:
    geometry = emit.rowReduction(func);
    break;
  case Family::column_reduction:
    geometry = emit.columnReduction(func);
    break;
  case Family::optimizer:
    geometry = emit.optimizer();
    break;
  default:
    break;
  }
  if (failed(geometry)) {
    gpuModule.erase();
    return failure();
  }
  gpu::ReturnOp::create(b);
  if (geometry->grid > std::numeric_limits<int32_t>::max()) {
    gpuModule.erase();
    return where() << "needs " << geometry->grid
                   << " blocks, more than one launch holds";
  }
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(geometry->threads), 1, 1}));
  func.setKnownGridSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(geometry->grid), 1, 1}));
  return success();
}

struct ConvertTileToGPUPass
    : public mlir::nova::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    module.walk([&](FusionOp group) {
      group.emitError("convert-tile-to-gpu: an inline fusion group; run "
                      "nova-outline-kernels first");
      failedAny = true;
    });
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    for (KernelOp kernel : kernels)
      failedAny |= failed(lowerKernel(kernel, builder));
    if (failedAny)
      return signalPassFailure();
    if (!kernels.empty())
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      builder.getUnitAttr());
  }
};

} // namespace
