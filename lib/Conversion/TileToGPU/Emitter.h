//===- Emitter.h - shared code of the GPU emitters
//--------------------------===//
//
// Internal to convert-tile-to-gpu. One emitter per kernel family
// (Pointwise.cpp, Reductions.cpp, Optimizer.cpp, ...); all of them share
// BodyEmitter, which writes the scalar code of a fusion body's value at one
// index of that value's shape: a kernel body is whole-tensor nova ops, so
// "the value of %v at index i" is the only question a thread ever asks, and
// views (broadcast, transpose, slice, reshape) are index arithmetic on the
// way to a load. The families differ in how threads split the iteration
// space and in how reductions combine partial results.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_LIB_CONVERSION_TILETOGPU_EMITTER_H
#define NOVA_LIB_CONVERSION_TILETOGPU_EMITTER_H

#include "nova/Conversion/TileToGPU/CompileKernels.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <map>

namespace mlir::nova::tile_to_gpu {

namespace nv = mlir::nova;
using namespace mlir::nova_tile;

inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}
inline Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }
inline int64_t product(ArrayRef<int64_t> dims) {
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
  bool isUniform(Value v) const { return uniform.count(v); }
  void clearUniform(Value v) { uniform.erase(v); }

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

  /// Set by a row kernel whose full-size float tensors (read and written)
  /// are all bf16 or f16: its f32 exp and division then feed only values
  /// rounded to 16 bits or row statistics of thousands of terms, so they
  /// take the approximate special-function forms (2 f32 ulp), as ops with
  /// a 16-bit result always do.
  bool approxF32 = false;
  /// Set from convert-tile-to-gpu's fast-f32-math: f32 exp and division
  /// take those forms too (exp as ex2.approx.ftz of x log2 e: 2 ulp plus
  /// about |x| 2^-23 relative from rounding x log2 e; x / y as x times
  /// rcp.approx.ftz of y: denormal divisors and results flush to zero),
  /// and row kernels fold a chunk's f32 terms in f32 before the f64 sum;
  /// tanh, log and erf stay accurate.
  bool fastF32 = false;
  /// Whether f32 exp, division and chunk sums take the approximate forms:
  /// in a 16-bit row kernel or under fast-f32-math.
  bool approximateF32Arithmetic() const { return approxF32 || fastF32; }
  /// e^(scale x): where `approximate` (an f32 `x` only) one ex2.approx.ftz
  /// (within 2 f32 ulp), else libdevice's accurate exp.
  Value exponential(Value x, bool approximate, double scale = 1.0);
  /// The f32 special-function instruction `instruction` (e.g.
  /// "tanh.approx.f32") applied to `x`.
  Value approxF32Op(StringRef instruction, Value x);

  /// The instance's status record (memref<4xi64>, see nova::StatusBit) in
  /// kernels that check data or read the checks; null otherwise.
  Value status;
  /// Sets `bits` (nova::StatusBit) in word 0 of the status record.
  void raiseStatus(uint32_t bits);
  /// Whether any check has failed so far (word 0 is non-zero).
  Value statusRaised();
  /// Keeps in status word `word` the bad value (an integer) at the lowest
  /// flat `position` (an index) of those recorded there (see
  /// nova::StatusBit for the encoding).
  void recordFirstBad(unsigned word, Value position, Value value);

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
  /// check_labels at `idx`: the label, with the status raised when it is
  /// neither a class nor the ignore_index.
  FailureOr<Value> checkLabels(nv::CheckLabelsOp op, ValueRange idx);
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

/// convert-tile-to-gpu's options, as the emitters consult them.
struct EmitOptions {
  /// No float atomics: every float sum in a fixed order.
  bool deterministic = false;
  /// GEMMs on wgmma and TMA where they apply (MatmulWgmma.cpp).
  bool wgmma = true;
  /// TF32 products on wgmma too (operands rounded, see the pass option).
  bool tf32Wgmma = false;
  /// Wide rows read more than once staged in shared memory (Reductions.cpp).
  bool stageRows = true;
  /// Staged rows filled by bulk copies where aligned (Reductions.cpp).
  bool bulkRows = true;
  /// f32 exp and division in their fast forms (BodyEmitter::fastF32).
  bool fastF32Math = false;
};

/// What every family's emitter gets: the kernel, its contract and schedule,
/// the gpu.func under construction and a builder inside it, and the target's
/// facts (the module's nova.target).
struct KernelContext {
  KernelOp kernel;
  const Contract &contract;
  ScheduleAttr schedule;
  gpu::GPUFuncOp func;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
  SmallVector<Value> outputBuffers;
  /// Scalar outputs checked to be finite (an entry's loss or gradient
  /// norm): output index -> the nova::StatusBit raised when not.
  DenseMap<unsigned, uint32_t> finiteChecks;
  EmitOptions options;
  /// SMs (persistent grids), shared memory per SM and per block.
  const ::nova::DeviceDescriptor &target;

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
  /// A workspace of `bytes` zeroed bytes (the runtime's, shared by the
  /// launches, which leave it zeroed) as the function's last argument.
  Value addWorkspace(int64_t bytes);
  /// `workspace` bytes [offset, ...) as a memref of `shape` x `element`.
  Value workspaceView(Value workspace, int64_t offset, ArrayRef<int64_t> shape,
                      Type element) {
    return memref::ViewOp::create(b, MemRefType::get(shape, element), workspace,
                                  body.index(offset), ValueRange{});
  }
  /// Stores output `i`'s value at `idx`.
  LogicalResult store(unsigned i, ValueRange idx) {
    auto x = body.eval(outputs()[i], idx);
    if (failed(x))
      return unsupported();
    storeValue(i, *x, idx);
    return success();
  }
  /// Stores `x`, output `i`'s value evaluated earlier, at `idx`.
  void storeValue(unsigned i, Value x, ValueRange idx) {
    checkFinite(i, x);
    memref::StoreOp::create(b, x, outputBuffers[i], idx);
  }
  /// Raises output `i`'s non-finite check on `x`, its value, if it has one.
  void checkFinite(unsigned i, Value x) {
    if (auto check = finiteChecks.find(i); check != finiteChecks.end())
      raiseUnlessFinite(x, check->second);
  }
  /// Stores the outputs `which` at `indexOf(i)` each, every value evaluated
  /// before the first store: the planner may place an output in place over
  /// an input that another output still reads at the same point.
  template <typename IndexFn>
  LogicalResult storeAll(ArrayRef<unsigned> which, IndexFn indexOf) {
    SmallVector<std::pair<Value, SmallVector<Value>>> values;
    for (unsigned i : which) {
      SmallVector<Value> idx = indexOf(i);
      auto x = body.eval(outputs()[i], idx);
      if (failed(x))
        return unsupported();
      values.push_back({*x, std::move(idx)});
    }
    for (auto [i, x] : llvm::zip(which, values))
      storeValue(i, x.first, x.second);
    return success();
  }
  /// Raises `bit` when the float `x` is NaN or infinite.
  void raiseUnlessFinite(Value x, uint32_t bit);
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

/// Blocks and threads per block (x only).
struct Geometry {
  int64_t grid, threads;
};

/// One emitter per kernel family: each writes the body of `k.func` and
/// returns the launch geometry, or reports a located error.
FailureOr<Geometry> emitPointwise(KernelContext &k);
FailureOr<Geometry> emitRowReduction(KernelContext &k);
FailureOr<Geometry> emitColumnReduction(KernelContext &k);
FailureOr<Geometry> emitOptimizer(KernelContext &k);
FailureOr<Geometry> emitMatmul(KernelContext &k);
/// The Hopper GEMM (MatmulWgmma.cpp) when it takes the kernel, else none
/// and why not in `whyNot`.
std::optional<FailureOr<Geometry>> emitMatmulWgmma(KernelContext &k,
                                                   std::string &whyNot);
FailureOr<Geometry> emitAttentionForward(KernelContext &k);
FailureOr<Geometry> emitAttentionBackward(KernelContext &k);
FailureOr<Geometry> emitGather(KernelContext &k);
FailureOr<Geometry> emitScatterAdd(KernelContext &k);

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
                    int64_t width);

/// `x` (f32, scalar or vector) rounded to TF32: the 13 low mantissa bits
/// dropped to nearest even, Inf and NaN kept (as roundToTF32 in
/// HostTensor.cpp and the interpreter round a "tf32" product's operands).
Value roundToTF32(ImplicitLocOpBuilder &b, Value x);

/// An f32 `x` as the i32 bits of its TF32 high part and of the TF32-rounded
/// remainder: the operands of a 3xTF32 product (lo*hi + hi*lo + hi*hi),
/// which keeps f32 accuracy on TF32 tensor cores.
std::pair<Value, Value> splitTF32(ImplicitLocOpBuilder &b, Value x);

/// Booleans are bytes in memory but bits in an LLVM vector: they are read
/// and written element by element.
inline bool vectorizable(Type element) { return !element.isInteger(1); }

/// `buffer` as a 1-D memref (its static shape is contiguous).
Value flatten(ImplicitLocOpBuilder &b, Value buffer);

/// The padded row pitch (elements) of a kernel buffer whose rows the memory
/// planner padded (nova_mem.buffer's `ld`, a strided memref layout here),
/// or 0 when its rows are packed.
int64_t rowPitchOf(Value buffer);

/// A padded `buffer` as a 1-D memref over all its rows, padding included:
/// element (.., r, c) of row-major index `linear` over the packed shape is
/// at `pitchedIndex(linear)` in it.
Value flattenPadded(ImplicitLocOpBuilder &b, Value buffer);
Value pitchedIndex(ImplicitLocOpBuilder &b, Value linear, int64_t rowLength,
                   int64_t pitch);

} // namespace mlir::nova::tile_to_gpu

#endif // NOVA_LIB_CONVERSION_TILETOGPU_EMITTER_H
