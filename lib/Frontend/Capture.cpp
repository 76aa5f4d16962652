//===- Capture.cpp - record eager-style C++ into the nova dialect ---------===//

#include "nova/Frontend/Capture.h"
#include "nova/Dialect/Nova/IR/NovaBuilder.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::capture;

Error::Error(const Where &where, const std::string &message)
    : std::runtime_error(std::string(where.file) + ":" +
                         std::to_string(where.line) + ": error: " + message),
      file_(where.file), line_(where.line) {}

ArrayRef<int64_t> Tensor::shape() const {
  return llvm::cast<RankedTensorType>(value_.getType()).getShape();
}

int64_t Tensor::dim(int64_t i) const { return shape()[i < 0 ? i + rank() : i]; }

Type Tensor::elementType() const {
  return llvm::cast<RankedTensorType>(value_.getType()).getElementType();
}

Graph::Graph(MLIRContext &context, StringRef name)
    : ctx(context), builder(&context) {
  ctx.getOrLoadDialect<NovaDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  module = ModuleOp::create(builder.getUnknownLoc());
  builder.setInsertionPointToEnd(module->getBody());
  fn = func::FuncOp::create(builder, builder.getUnknownLoc(), name,
                            builder.getFunctionType({}, {}));
  builder.setInsertionPointToStart(fn.addEntryBlock());
}

Location Graph::loc(const Where &where) {
  return FileLineColLoc::get(&ctx, where.file, where.line, 0);
}

Tensor Graph::addArgument(StringRef name, ArrayRef<int64_t> shape, Type element,
                          bool trainable, const Where &where) {
  if (finished)
    throw Error(where, "the graph is finished");
  for (int64_t d : shape)
    if (d < 0)
      throw Error(where, "argument '" + name.str() +
                             "' has a negative dimension " + std::to_string(d));
  if (!element)
    element = f32();
  if (trainable && !llvm::isa<FloatType>(element))
    throw Error(where, "parameter '" + name.str() +
                           "' must have a floating-point element type");
  auto type = RankedTensorType::get(shape, element);
  NamedAttrList attrs;
  attrs.append(NovaDialect::getNameAttrName(), builder.getStringAttr(name));
  if (trainable)
    attrs.append(NovaDialect::getParamAttrName(), builder.getUnitAttr());
  argAttrs.push_back(attrs.getDictionary(&ctx));
  BlockArgument arg = fn.getBody().front().addArgument(type, loc(where));
  return Tensor(this, arg);
}

Tensor Graph::param(StringRef name, ArrayRef<int64_t> shape, Type element,
                    Where where) {
  return addArgument(name, shape, element, true, where);
}

Tensor Graph::input(StringRef name, ArrayRef<int64_t> shape, Type element,
                    Where where) {
  return addArgument(name, shape, element, false, where);
}

Tensor Graph::scalar(double value, Type element, Where where) {
  if (!element)
    element = f32();
  return emit(
      where, ConstantOp::getOperationName(), {},
      {builder.getNamedAttr(
          "value", splatAttr(RankedTensorType::get({}, element), value))});
}

std::vector<Tensor> Graph::emitMulti(const Where &where, StringRef opName,
                                     ArrayRef<Tensor> operands,
                                     ArrayRef<NamedAttribute> attributes,
                                     TypeRange resultTypes) {
  if (finished)
    throw Error(where, "the graph is finished");
  for (const Tensor &t : operands)
    if (!t.value() || &t.graph() != this)
      throw Error(where, "an operand of " + opName.str() +
                             " is empty or belongs to another graph");
  // Collect the first error the dialect reports about this op.
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && message.empty())
      message = d.str();
    return success();
  });
  Location l = loc(where);
  OperationState state(l, opName);
  for (const Tensor &t : operands)
    state.addOperands(t.value());
  bool infer = resultTypes.empty();
  if (infer)
    state.addTypes(NoneType::get(&ctx)); // replaced by the inferred type
  else
    state.addTypes(resultTypes);
  Operation *op = builder.create(state);
  auto fail = [&](const std::string &fallback) {
    op->erase();
    throw Error(where, message.empty() ? fallback : message);
  };
  if (!op->isRegistered())
    fail("unknown op '" + opName.str() + "'");
  // Inherent attributes go to the op's properties.
  op->setAttrs(builder.getDictionaryAttr(attributes));
  if (infer) {
    auto iface = llvm::dyn_cast<InferTypeOpInterface>(op);
    if (!iface)
      fail(opName.str() + " needs an explicit result type");
    SmallVector<Type> inferred;
    if (failed(iface.inferReturnTypes(
            &ctx, l, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), inferred)) ||
        inferred.size() != 1)
      fail("cannot infer the result type of " + opName.str());
    op->getResult(0).setType(inferred.front());
  }
  if (failed(mlir::verify(op)))
    fail("invalid " + opName.str());
  std::vector<Tensor> results;
  for (Value r : op->getResults())
    results.emplace_back(this, r);
  return results;
}

Tensor Graph::emit(const Where &where, StringRef opName,
                   ArrayRef<Tensor> operands,
                   ArrayRef<NamedAttribute> attributes, Type resultType) {
  SmallVector<Type> types;
  if (resultType)
    types.push_back(resultType);
  return emitMulti(where, opName, operands, attributes, types).front();
}

OwningOpRef<ModuleOp> Graph::finish(ArrayRef<Tensor> results,
                                    ArrayRef<std::string> names) {
  Where where;
  if (finished)
    throw Error(where, "the graph is finished");
  SmallVector<Value> values;
  SmallVector<Type> types;
  for (const Tensor &t : results) {
    if (!t.value() || &t.graph() != this)
      throw Error(where, "a result is empty or belongs to another graph");
    values.push_back(t.value());
    types.push_back(t.value().getType());
  }
  func::ReturnOp::create(builder, builder.getUnknownLoc(), values);
  fn.setFunctionType(
      builder.getFunctionType(fn.getBody().front().getArgumentTypes(), types));
  fn.setAllArgAttrs(argAttrs);
  for (auto [i, n] : llvm::enumerate(names))
    if (i < results.size())
      fn.setResultAttr(i, NovaDialect::getNameAttrName(),
                       builder.getStringAttr(n));
  finished = true;
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (message.empty())
      message = d.str();
    return success();
  });
  if (failed(mlir::verify(*module)))
    throw Error(where, "the captured module does not verify: " + message);
  return std::move(module);
}

//===----------------------------------------------------------------------===//
// Free functions
//===----------------------------------------------------------------------===//

namespace {
NamedAttribute attr(Graph &g, StringRef name, Attribute value) {
  return g.b().getNamedAttr(name, value);
}

/// Normalizes a possibly negative dimension; out-of-range stays out of range
/// so the verifier reports it.
int64_t norm(const Tensor &t, int64_t d) { return d < 0 ? d + t.rank() : d; }

SmallVector<int64_t> dimsOrAll(const Tensor &t, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> out;
  if (dims.empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, t.rank()));
  for (int64_t d : dims)
    out.push_back(norm(t, d));
  return out;
}

Tensor binary(At a, const Tensor &b, StringRef op) {
  return a.t.graph().emit(a.where, op, {a.t, b});
}

Tensor binaryScalar(At a, double c, StringRef op) {
  Graph &g = a.t.graph();
  Tensor s = g.scalar(c, a.t.elementType(), a.where);
  return g.emit(a.where, op, {a.t, s});
}

Tensor unary(At x, StringRef op, ArrayRef<NamedAttribute> attrs = {}) {
  return x.t.graph().emit(x.where, op, {x.t}, attrs, x.t.value().getType());
}

Tensor reduceOp(At x, ReduceKind kind, ArrayRef<int64_t> dims, bool keep) {
  Graph &g = x.t.graph();
  SmallVector<NamedAttribute> attrs{
      attr(g, "kind", ReduceKindAttr::get(&g.context(), kind)),
      attr(g, "dims", g.b().getDenseI64ArrayAttr(dimsOrAll(x.t, dims)))};
  if (keep)
    attrs.push_back(attr(g, "keep_dims", g.b().getUnitAttr()));
  return g.emit(x.where, ReduceOp::getOperationName(), {x.t}, attrs);
}
} // namespace

Tensor capture::operator+(At a, const Tensor &b) {
  return binary(a, b, AddOp::getOperationName());
}
Tensor capture::operator-(At a, const Tensor &b) {
  return binary(a, b, SubOp::getOperationName());
}
Tensor capture::operator*(At a, const Tensor &b) {
  return binary(a, b, MulOp::getOperationName());
}
Tensor capture::operator/(At a, const Tensor &b) {
  return binary(a, b, DivOp::getOperationName());
}
Tensor capture::operator+(At a, double b) {
  return binaryScalar(a, b, AddOp::getOperationName());
}
Tensor capture::operator-(At a, double b) {
  return binaryScalar(a, b, SubOp::getOperationName());
}
Tensor capture::operator*(At a, double b) {
  return binaryScalar(a, b, MulOp::getOperationName());
}
Tensor capture::operator/(At a, double b) {
  return binaryScalar(a, b, DivOp::getOperationName());
}
Tensor capture::operator-(At a) { return unary(a, NegOp::getOperationName()); }
Tensor capture::exp(At x) { return unary(x, ExpOp::getOperationName()); }
Tensor capture::log(At x) { return unary(x, LogOp::getOperationName()); }
Tensor capture::tanh(At x) { return unary(x, TanhOp::getOperationName()); }
Tensor capture::sqrt(At x) { return unary(x, SqrtOp::getOperationName()); }
Tensor capture::rsqrt(At x) { return unary(x, RsqrtOp::getOperationName()); }
Tensor capture::relu(At x) { return unary(x, ReluOp::getOperationName()); }
Tensor capture::sigmoid(At x) {
  return unary(x, SigmoidOp::getOperationName());
}

Tensor capture::gelu(At x, bool tanhApproximation) {
  Graph &g = x.t.graph();
  return unary(
      x, GeluOp::getOperationName(),
      {attr(g, "approximation",
            GeluApproximationAttr::get(
                &g.context(), tanhApproximation ? GeluApproximation::tanh
                                                : GeluApproximation::erf))});
}

Tensor capture::cast(At x, Type element) {
  return x.t.graph().emit(x.where, CastOp::getOperationName(), {x.t}, {},
                          RankedTensorType::get(x.t.shape(), element));
}

Tensor capture::compare(At a, const Tensor &b, CmpPredicate predicate) {
  Graph &g = a.t.graph();
  return g.emit(
      a.where, CmpOp::getOperationName(), {a.t, b},
      {attr(g, "predicate", CmpPredicateAttr::get(&g.context(), predicate))});
}

Tensor capture::select(At condition, const Tensor &onTrue,
                       const Tensor &onFalse) {
  return condition.t.graph().emit(condition.where, SelectOp::getOperationName(),
                                  {condition.t, onTrue, onFalse});
}

Tensor capture::sum(At x, ArrayRef<int64_t> dims, bool keepDims) {
  return reduceOp(x, ReduceKind::sum, dims, keepDims);
}
Tensor capture::max(At x, ArrayRef<int64_t> dims, bool keepDims) {
  return reduceOp(x, ReduceKind::max, dims, keepDims);
}
Tensor capture::mean(At x, ArrayRef<int64_t> dims, bool keepDims) {
  int64_t count = 1;
  for (int64_t d : dimsOrAll(x.t, dims))
    if (d >= 0 && d < x.t.rank())
      count *= x.t.shape()[d];
  Tensor s = reduceOp(x, ReduceKind::sum, dims, keepDims);
  return binaryScalar(At(s, x.where), 1.0 / double(count),
                      MulOp::getOperationName());
}

Tensor capture::reshape(At x, ArrayRef<int64_t> shape) {
  return x.t.graph().emit(x.where, ReshapeOp::getOperationName(), {x.t}, {},
                          RankedTensorType::get(shape, x.t.elementType()));
}

Tensor capture::transpose(At x, ArrayRef<int64_t> permutation) {
  Graph &g = x.t.graph();
  return g.emit(
      x.where, TransposeOp::getOperationName(), {x.t},
      {attr(g, "permutation", g.b().getDenseI64ArrayAttr(permutation))});
}

Tensor capture::slice(At x, ArrayRef<int64_t> starts, ArrayRef<int64_t> limits,
                      ArrayRef<int64_t> strides) {
  Graph &g = x.t.graph();
  SmallVector<int64_t> ones(x.t.rank(), 1);
  return g.emit(x.where, SliceOp::getOperationName(), {x.t},
                {attr(g, "starts", g.b().getDenseI64ArrayAttr(starts)),
                 attr(g, "limits", g.b().getDenseI64ArrayAttr(limits)),
                 attr(g, "strides",
                      g.b().getDenseI64ArrayAttr(
                          strides.empty() ? ArrayRef(ones) : strides))});
}

Tensor capture::concat(ArrayRef<Tensor> xs, int64_t dim, Where where) {
  if (xs.empty())
    throw Error(where, "concat of no tensors");
  Graph &g = xs.front().graph();
  return g.emit(
      where, ConcatOp::getOperationName(), xs,
      {attr(g, "dim", g.b().getI64IntegerAttr(norm(xs.front(), dim)))});
}

Tensor capture::gather(At table, const Tensor &indices, int64_t axis) {
  Graph &g = table.t.graph();
  return g.emit(
      table.where, GatherOp::getOperationName(), {table.t, indices},
      {attr(g, "axis", g.b().getI64IntegerAttr(norm(table.t, axis)))});
}

Tensor capture::iota(Graph &g, ArrayRef<int64_t> shape, Type element,
                     int64_t dim, Where where) {
  return g.emit(where, IotaOp::getOperationName(), {},
                {attr(g, "dim", g.b().getI64IntegerAttr(dim))},
                RankedTensorType::get(shape, element));
}

Tensor capture::matmul(At a, const Tensor &b, bool transposeA,
                       bool transposeB) {
  Graph &g = a.t.graph();
  SmallVector<NamedAttribute> attrs;
  if (transposeA)
    attrs.push_back(attr(g, "transpose_lhs", g.b().getUnitAttr()));
  if (transposeB)
    attrs.push_back(attr(g, "transpose_rhs", g.b().getUnitAttr()));
  return g.emit(a.where, MatmulOp::getOperationName(), {a.t, b}, attrs);
}

Tensor capture::softmax(At x, int64_t dim) {
  Graph &g = x.t.graph();
  return unary(x, SoftmaxOp::getOperationName(),
               {attr(g, "dim", g.b().getI64IntegerAttr(norm(x.t, dim)))});
}

Tensor capture::log_softmax(At x, int64_t dim) {
  Graph &g = x.t.graph();
  return unary(x, LogSoftmaxOp::getOperationName(),
               {attr(g, "dim", g.b().getI64IntegerAttr(norm(x.t, dim)))});
}

Tensor capture::layer_norm(At x, const Tensor &weight, const Tensor &bias,
                           double epsilon) {
  Graph &g = x.t.graph();
  return g.emit(x.where, LayerNormOp::getOperationName(), {x.t, weight, bias},
                {attr(g, "epsilon", g.b().getF64FloatAttr(epsilon))},
                x.t.value().getType());
}

Tensor capture::cross_entropy(At logits, const Tensor &labels,
                              int64_t ignoreIndex) {
  Graph &g = logits.t.graph();
  return g.emit(
      logits.where, CrossEntropyOp::getOperationName(), {logits.t, labels},
      {attr(g, "ignore_index", g.b().getI64IntegerAttr(ignoreIndex))});
}

Tensor capture::attention(At q, const Tensor &k, const Tensor &v, double scale,
                          bool causal) {
  Graph &g = q.t.graph();
  SmallVector<NamedAttribute> attrs{
      attr(g, "scale", g.b().getF64FloatAttr(scale))};
  if (causal)
    attrs.push_back(attr(g, "causal", g.b().getUnitAttr()));
  return g.emit(q.where, AttentionOp::getOperationName(), {q.t, k, v}, attrs);
}
