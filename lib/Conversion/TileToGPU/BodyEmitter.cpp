//===- BodyEmitter.cpp - scalar code of fusion bodies
//-----------------------===//

#include "Emitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {

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

void BodyEmitter::raiseStatus(uint32_t bits) {
  Value word = arith::ConstantOp::create(b, b.getI64Type(),
                                         b.getI64IntegerAttr(int64_t(bits)));
  memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::ori, word, status,
                              ValueRange{index(0)});
}

Value BodyEmitter::statusRaised() {
  Value word = memref::LoadOp::create(b, status, ValueRange{index(0)});
  Value zero =
      arith::ConstantOp::create(b, b.getI64Type(), b.getI64IntegerAttr(0));
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, word, zero);
}

FailureOr<Value> BodyEmitter::checkLabels(nv::CheckLabelsOp op,
                                          ValueRange idx) {
  Value input = op.getInput();
  auto x = eval(input, idx);
  if (failed(x) || !status) {
    if (!status)
      unsupported = op;
    return failure();
  }
  // The interpreter's rule: a label is the ignore_index or in [0, classes).
  Type t = x->getType();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(b, t, b.getIntegerAttr(t, v));
  };
  using P = arith::CmpIPredicate;
  Value ignored = arith::CmpIOp::create(b, P::eq, *x, c(op.getIgnoreIndex()));
  Value inRange = arith::AndIOp::create(
      b, arith::CmpIOp::create(b, P::sge, *x, c(0)),
      arith::CmpIOp::create(b, P::slt, *x, c(op.getClasses())));
  Value bad = arith::CmpIOp::create(
      b, P::eq, arith::OrIOp::create(b, ignored, inRange),
      arith::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(false)));
  auto ifBad = scf::IfOp::create(b, bad, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifBad.thenBlock());
  raiseStatus(::nova::LabelsOutOfRange);
  recordFirstBad(1, linearize(idx, shapeOf(op.getResult())), *x);
  auto k64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, b.getI64Type(), b.getI64IntegerAttr(v));
  };
  memref::StoreOp::create(b, k64(op.getClasses()), status,
                          ValueRange{index(2)});
  memref::StoreOp::create(b, k64(op.getIgnoreIndex()), status,
                          ValueRange{index(3)});
  return *x;
}

void BodyEmitter::recordFirstBad(unsigned word, Value position, Value value) {
  // The record's largest word is the lowest position (positions past
  // 2^32 - 2 share the last code); the value saturates to 32 bits.
  Type i64 = b.getI64Type();
  auto k64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, i64, b.getI64IntegerAttr(v));
  };
  Value clamped = arith::MinUIOp::create(
      b, arith::IndexCastUIOp::create(b, i64, position), k64(0xFFFFFFFEll));
  Value code = arith::ShLIOp::create(
      b, arith::SubIOp::create(b, k64(0xFFFFFFFFll), clamped), k64(32));
  Value wide = value.getType().getIntOrFloatBitWidth() < 64
                   ? arith::ExtSIOp::create(b, i64, value).getResult()
                   : value;
  Value saturated = arith::MaxSIOp::create(
      b, arith::MinSIOp::create(b, wide, k64(INT32_MAX)), k64(INT32_MIN));
  Value low = arith::AndIOp::create(b, saturated, k64(0xFFFFFFFFll));
  memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::maxu,
                              arith::OrIOp::create(b, code, low), status,
                              ValueRange{index(word)});
}

Value BodyEmitter::approxF32Op(StringRef instruction, Value x) {
  return LLVM::InlineAsmOp::create(b, b.getF32Type(), ValueRange{x},
                                   (instruction + " $0, $1;").str(), "=f,f",
                                   /*has_side_effects=*/false,
                                   /*is_align_stack=*/false,
                                   LLVM::tailcallkind::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

Value BodyEmitter::exponential(Value x, bool approximate, double scale) {
  Type t = x.getType();
  if (!approximate) {
    if (scale != 1.0)
      x = arith::MulFOp::create(b, floatConstant(t, scale), x);
    return math::ExpOp::create(b, x);
  }
  // The scale folded into ex2's log2 e.
  return approxF32Op(
      "ex2.approx.ftz.f32",
      arith::MulFOp::create(b, x, floatConstant(t, scale * M_LOG2E)));
}

FailureOr<Value> BodyEmitter::elementwise(Operation *op, ValueRange idx) {
  Type element = elementOf(op->getResult(0));
  if (auto check = dyn_cast<nv::CheckLabelsOp>(op))
    return checkLabels(check, idx);
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
  // e^(a - m) rounded to 16 bits (or in a 16-bit row kernel) with m fixed
  // for the thread (a row's max): one fma, a log2 e - m log2 e, into ex2's
  // argument instead of a subtraction and a multiplication. The shift's
  // rounding (|m log2 e| 2^-24) stays far below a bf16 ulp.
  if (auto e = dyn_cast<nv::ExpOp>(op)) {
    auto shift = e.getInput().getDefiningOp<nv::SubOp>();
    auto m = shift ? uniform.find(shift.getRhs()) : uniform.end();
    bool approximate = isa<FloatType>(element) &&
                       (element.getIntOrFloatBitWidth() < 32 || approxF32);
    if (m != uniform.end() && approximate) {
      Value lhs = shift.getLhs();
      auto a = eval(lhs, project(idx, shapeOf(lhs)));
      if (failed(a))
        return failure();
      Value x = widen(*a), max = widen(m->second);
      if (x.getType().isF32() && max.getType().isF32()) {
        Value log2e = floatConstant(x.getType(), M_LOG2E);
        Value arg = math::FmaOp::create(
            b, x, log2e,
            arith::NegFOp::create(b, arith::MulFOp::create(b, max, log2e)));
        return narrow(approxF32Op("ex2.approx.ftz.f32", arg), element);
      }
    }
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
    // A result rounded to bf16 or f16 does not need an IEEE f32 division:
    // x times the approximate reciprocal (within 2 f32 ulp) rounds the same
    // but for rare ties, and has no slow-path branch, which kept ptxas from
    // overlapping independent elements (a GEMM's GELU epilogue ran 4x
    // slower than the product).
    bool narrowResult = (floatType.getWidth() < 32 || approxF32) && ct.isF32();
    // With fastF32 an f32 result takes the same exp and division (a few
    // f32 ulp), but not tanh.approx (2^-11).
    bool fastResult =
        (floatType.getWidth() < 32 || approximateF32Arithmetic()) && ct.isF32();
    auto divide = [&](Value x, Value y) -> Value {
      if (!fastResult)
        return arith::DivFOp::create(b, x, y);
      return arith::MulFOp::create(b, x,
                                   NVVM::RcpApproxFtzF32Op::create(b, ct, y));
    };
    // The same for the transcendentals a bf16 or f16 result rounds: one
    // special-function instruction each instead of libdevice's accurate
    // forms (tanh's two evaluated paths and a select, exp's range
    // reduction), a third of a GEMM's GELU epilogue. ex2.approx is within
    // 2 f32 ulp (plus the rounding of x log2 e), tanh.approx within 2^-11
    // relative: under half a bf16 ulp (2^-9), so at most one ulp apart
    // after rounding.
    auto exp = [&](Value x, double scale = 1.0) -> Value {
      return exponential(x, fastResult, scale);
    };
    auto tanh = [&](Value x) -> Value {
      if (!narrowResult)
        return math::TanhOp::create(b, x);
      return approxF32Op("tanh.approx.f32", x);
    };
    Value r =
        llvm::TypeSwitch<Operation *, Value>(op)
            .Case(
                [&](nv::AddOp) { return arith::AddFOp::create(b, w[0], w[1]); })
            .Case(
                [&](nv::SubOp) { return arith::SubFOp::create(b, w[0], w[1]); })
            .Case(
                [&](nv::MulOp) { return arith::MulFOp::create(b, w[0], w[1]); })
            .Case([&](nv::DivOp) { return divide(w[0], w[1]); })
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
            .Case([&](nv::ExpOp) { return exp(w[0]); })
            .Case([&](nv::LogOp) { return math::LogOp::create(b, w[0]); })
            .Case([&](nv::TanhOp) { return tanh(w[0]); })
            .Case([&](nv::SqrtOp) { return math::SqrtOp::create(b, w[0]); })
            .Case([&](nv::RsqrtOp) {
              // 1 / sqrt(x), each correctly rounded in f32 (the division
              // approximate where divide() is).
              return divide(c(1.0), math::SqrtOp::create(b, w[0]));
            })
            .Case([&](nv::ErfOp) { return math::ErfOp::create(b, w[0]); })
            .Case([&](nv::RoundTF32Op) { return roundToTF32(b, w[0]); })
            .Case([&](nv::ReciprocalOp) { return divide(c(1.0), w[0]); })
            .Case([&](nv::SigmoidOp) {
              Value e = exp(arith::NegFOp::create(b, w[0]));
              return divide(c(1.0), arith::AddFOp::create(b, c(1.0), e));
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
              Value inner = arith::AddFOp::create(
                  b, x, arith::MulFOp::create(b, c(0.044715), x3));
              double root = std::sqrt(2.0 / M_PI);
              // u = root inner, e^(-2u): one scale when rounded to 16 bits.
              Value e =
                  narrowResult
                      ? exp(inner, -2.0 * root)
                      : exp(arith::MulFOp::create(b, c(root), inner), -2.0);
              return divide(x, arith::AddFOp::create(b, c(1.0), e));
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

void KernelContext::raiseUnlessFinite(Value x, uint32_t bit) {
  // |x| < inf is false for NaN and both infinities.
  Value wide = body.widen(x);
  Type t = wide.getType();
  Value finite = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, wide),
      arith::ConstantOp::create(b, t, b.getFloatAttr(t, INFINITY)));
  Value bad = arith::XOrIOp::create(
      b, finite,
      arith::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true)));
  auto ifBad = scf::IfOp::create(b, bad, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifBad.thenBlock());
  body.raiseStatus(bit);
}

/// Round to nearest even at bit 13: add 0xfff plus the kept part's lowest
/// bit, then clear the 13 bits.
Value roundToTF32(ImplicitLocOpBuilder &b, Value x) {
  Type i32 = b.getI32Type();
  if (auto vt = dyn_cast<VectorType>(x.getType()))
    i32 = VectorType::get(vt.getShape(), i32);
  auto c = [&](uint32_t v) -> Value {
    auto attr = b.getI32IntegerAttr(v);
    if (auto vt = dyn_cast<VectorType>(i32))
      return arith::ConstantOp::create(b, vt, SplatElementsAttr::get(vt, attr));
    return arith::ConstantOp::create(b, i32, attr);
  };
  Value bits = arith::BitcastOp::create(b, i32, x);
  Value odd =
      arith::AndIOp::create(b, arith::ShRUIOp::create(b, bits, c(13)), c(1));
  Value rounded = arith::AndIOp::create(
      b,
      arith::AddIOp::create(b, bits, arith::AddIOp::create(b, c(0xfff), odd)),
      c(~0x1fffu));
  Value special = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, bits, c(0x7f800000)), c(0x7f800000));
  return arith::BitcastOp::create(
      b, x.getType(), arith::SelectOp::create(b, special, bits, rounded));
}

std::pair<Value, Value> splitTF32(ImplicitLocOpBuilder &b, Value x) {
  Type i32 = b.getI32Type();
  Value hi = roundToTF32(b, x);
  Value lo = roundToTF32(b, arith::SubFOp::create(b, x, hi));
  return {arith::BitcastOp::create(b, i32, hi),
          arith::BitcastOp::create(b, i32, lo)};
}

Value flatten(ImplicitLocOpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.front().push_back(d);
  return memref::CollapseShapeOp::create(b, buffer, all);
}

int64_t rowPitchOf(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || type.getRank() < 2 || type.getLayout().isIdentity())
    return 0;
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t pitch = strides[type.getRank() - 2];
  return pitch == type.getShape().back() ? 0 : pitch;
}

Value flattenPadded(ImplicitLocOpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t pitch = rowPitchOf(buffer);
  if (!pitch)
    return flatten(b, buffer);
  int64_t rows = type.getNumElements() / type.getShape().back();
  return memref::ReinterpretCastOp::create(
      b, MemRefType::get({rows * pitch}, type.getElementType()), buffer,
      /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{rows * pitch},
      /*strides=*/ArrayRef<int64_t>{1});
}

Value pitchedIndex(ImplicitLocOpBuilder &b, Value linear, int64_t rowLength,
                   int64_t pitch) {
  Value length = arith::ConstantIndexOp::create(b, rowLength);
  return arith::AddIOp::create(
      b,
      arith::MulIOp::create(b, arith::DivUIOp::create(b, linear, length),
                            arith::ConstantIndexOp::create(b, pitch)),
      arith::RemUIOp::create(b, linear, length));
}

} // namespace mlir::nova::tile_to_gpu
