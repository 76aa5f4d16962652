//===- Autocast.cpp - mixed precision like torch.autocast -----------------===//
//
// nova-autocast changes element types inside a function after
// nova-train-step: matrix products in bf16 (or marked for TF32), statistics,
// the loss and the optimizer in f32, everything else following its inputs.
// Passes.td states the policy; this file applies it in one forward sweep.
//
//===----------------------------------------------------------------------===//

#include "ModuleLocation.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::nova {
#define GEN_PASS_DEF_NOVAAUTOCAST
#include "nova/Transforms/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
using namespace mlir::nova;

namespace {

/// Discardable attribute asking for TF32 products; the interpreter honours it.
constexpr StringLiteral kPrecisionAttr = NovaDialect::getPrecisionAttrName();

enum class Policy {
  /// Matrix products: bf16 operands and result.
  LowPrecision,
  /// Sums and statistics, the loss, the optimizer: f32 operands.
  FullPrecision,
  /// Runs in bf16 when its full-precision inputs are all bf16, else f32.
  Follow,
  /// Left as written; reads its inputs in their original types. Casts and
  /// constants state their own result type.
  Opaque,
};

Policy policyOf(Operation *op) {
  if (isa<MatmulOp, AttentionOp, AttentionFwdOp, AttentionBwdOp>(op))
    return Policy::LowPrecision;
  // torch.autocast's float32 list: statistics, the loss and the optimizer,
  // and the functions whose range or precision bf16 loses (exp, log, pow,
  // reciprocal, rsqrt).
  if (isa<ReduceOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, CrossEntropyOp,
          ScatterAddOp, AdamWOp, ExpOp, LogOp, PowOp, ReciprocalOp, RsqrtOp>(
          op))
    return Policy::FullPrecision;
  if (isa<CastOp, ConstantOp, IotaOp, RoundTF32Op>(op) ||
      !isa<NovaDialect>(op->getDialect()))
    return Policy::Opaque;
  return Policy::Follow;
}

Type elementType(Value v) { return getElementTypeOrSelf(v.getType()); }

int64_t numElements(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() : -1;
}

/// Applies compute=bf16 to one single-block function.
class Autocaster {
public:
  explicit Autocaster(func::FuncOp fn)
      : fn(fn), b(fn.getContext()), f32(b.getF32Type()), bf16(b.getBF16Type()) {
  }

  void run() {
    Block &body = fn.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      switch (policyOf(&op)) {
      case Policy::LowPrecision:
        lower(&op, /*onlyWeak=*/false);
        break;
      case Policy::FullPrecision:
        restoreOperands(&op);
        break;
      case Policy::Follow:
        if (followsLowPrecision(&op))
          lower(&op, /*onlyWeak=*/true);
        else
          restoreOperands(&op);
        break;
      case Policy::Opaque:
        if (auto castOp = dyn_cast<CastOp>(op);
            castOp && castOp.getInput().getType() == castOp.getType()) {
          // The input already has the type this cast asked for.
          castOp.replaceAllUsesWith(castOp.getInput());
          castOp.erase();
          break;
        }
        if (!isa<CastOp>(op))
          restoreOperands(&op);
        break;
      }
    }
    // Constants and views that were replaced by their bf16 twins.
    for (Operation *op : llvm::reverse(replaced))
      if (op->use_empty())
        op->erase();
  }

private:
  /// Weak operands take the op's precision instead of choosing it: splat
  /// constants (PyTorch's Python scalars) and function arguments broadcast
  /// into a larger result (a linear layer's bias, which `addmm` casts too).
  bool isWeak(Value v, Operation *user) {
    SplatElementsAttr splat;
    if (matchPattern(v, m_Constant(&splat)))
      return true;
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->isEntryBlock() &&
           user->getNumResults() == 1 &&
           numElements(v) < numElements(user->getResult(0));
  }

  /// Whether every float operand that is not weak is a value this pass
  /// lowered to bf16 (and there is at least one). The f32 statistics of a
  /// lowered op (an attention's log-sum-exp) do not vote.
  bool followsLowPrecision(Operation *op) {
    bool any = false;
    for (Value v : op->getOperands()) {
      if (!isa<FloatType>(elementType(v)) || isWeak(v, op) ||
          statistics.contains(v))
        continue;
      if (!lowered.contains(v))
        return false;
      any = true;
    }
    return any;
  }

  /// Moves `op` to bf16: its f32 operands (all, or only the weak ones)
  /// become bf16 and its results take the types the op infers from them, so
  /// a result that is f32 by definition stays f32 (a statistic, which later
  /// ops keep reading as f32). An op that does not verify that way is put
  /// back and reads its original types.
  void lower(Operation *op, bool onlyWeak) {
    SmallVector<Value> originalOperands(op->getOperands());
    SmallVector<Type> originalTypes(op->getResultTypes());
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      if (elementType(v) == f32 && !statistics.contains(v) &&
          (!onlyWeak || isWeak(v, op)))
        use.set(toBF16(v));
    }
    SmallVector<Type> types;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      if (failed(infer.inferReturnTypes(
              op->getContext(), /*location=*/std::nullopt, op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), types)))
        types.clear();
    } else {
      for (Type t : originalTypes)
        types.push_back(getElementTypeOrSelf(t) == f32
                            ? cast<RankedTensorType>(t).clone(bf16)
                            : t);
    }
    if (types.size() == originalTypes.size())
      for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
        result.setType(type);
    if (types.size() != originalTypes.size() || !verifiesQuietly(op)) {
      for (auto [result, type] :
           llvm::zip_equal(op->getResults(), originalTypes))
        result.setType(type);
      op->setOperands(originalOperands);
      return restoreOperands(op);
    }
    for (auto [result, type] :
         llvm::zip_equal(op->getResults(), originalTypes)) {
      if (elementType(result) == f32)
        statistics.insert(result);
      else if (result.getType() != type)
        lowered.insert(result);
    }
  }

public:
  /// working-copies: each parameter's bf16 copy becomes state of the step.
  /// An argument `<param>.bf16` replaces the cast of the parameter, and a
  /// result of that name, aliased to it, is the cast of the value that
  /// replaces the parameter (AdamW's update), made right after it.
  LogicalResult carryWorkingCopies() {
    MLIRContext *ctx = fn.getContext();
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    DenseMap<int64_t, unsigned> resultReplacing;
    for (unsigned r = 0, e = fn.getNumResults(); r < e; ++r)
      if (auto alias = fn.getResultAttrOfType<IntegerAttr>(
              r, NovaDialect::getAliasAttrName()))
        resultReplacing[alias.getInt()] = r;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      BlockArgument param = fn.getArgument(i);
      // The casts of the parameter to bf16: this run's, or an earlier one's.
      SmallVector<CastOp> copies;
      for (Operation *user : param.getUsers())
        if (auto castOp = dyn_cast<CastOp>(user);
            castOp && elementType(castOp.getResult()) == bf16)
          copies.push_back(castOp);
      auto replacing = resultReplacing.find(i);
      if (copies.empty() || replacing == resultReplacing.end() ||
          !fn.getArgAttr(i, NovaDialect::getParamAttrName()))
        continue;
      std::string name = argumentName(fn, i) + ".bf16";
      for (unsigned j = 0, n = fn.getNumArguments(); j < n; ++j)
        if (argumentName(fn, j) == name)
          return fn.emitError("nova-autocast: @")
                 << fn.getSymName() << " already has an argument named '"
                 << name << "' for the working copy of '" << argumentName(fn, i)
                 << "'";
      NamedAttrList argAttrs;
      argAttrs.append(NovaDialect::getNameAttrName(),
                      StringAttr::get(ctx, name));
      unsigned carriedIndex = fn.getNumArguments();
      if (failed(fn.insertArgument(carriedIndex, copies.front().getType(),
                                   argAttrs.getDictionary(ctx),
                                   param.getLoc())))
        return failure();
      for (CastOp copy : copies) {
        // Nothing may keep pointing at the erased cast: later casts of
        // arguments are placed after `lastArgumentCast`, and toBF16 hands
        // out `bf16Copy` entries.
        if (lastArgumentCast == copy.getOperation())
          lastArgumentCast = nullptr;
        if (bf16Copy.lookup(param) == copy.getResult())
          bf16Copy.erase(param);
        copy.replaceAllUsesWith(fn.getArgument(carriedIndex));
        copy.erase();
      }

      Value next = createCast(ret.getOperand(replacing->second), bf16);
      NamedAttrList resultAttrs(argAttrs);
      resultAttrs.append(
          NovaDialect::getAliasAttrName(),
          IntegerAttr::get(IntegerType::get(ctx, 64), carriedIndex));
      if (failed(fn.insertResult(fn.getNumResults(), next.getType(),
                                 resultAttrs.getDictionary(ctx))))
        return failure();
      ret.getOperandsMutable().append(next);
    }
    return success();
  }

private:
  /// Whether `op` alone passes its verifier; its diagnostics are dropped.
  static bool verifiesQuietly(Operation *op) {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    return succeeded(verify(op, /*verifyRecursively=*/false));
  }

  /// Gives every operand, also inside nested regions, the type it had.
  void restoreOperands(Operation *root) {
    root->walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (lowered.contains(use.get()))
          use.set(toF32(use.get()));
    });
  }

  /// Sets the insertion point right after `v`'s definition. Casts of
  /// arguments go to the function's start, in the order they are made.
  void setInsertionPointAfterDef(Value v) {
    if (Operation *def = v.getDefiningOp()) {
      b.setInsertionPointAfter(def);
      return;
    }
    Block &entry = fn.getBody().front();
    if (lastArgumentCast)
      b.setInsertionPointAfter(lastArgumentCast);
    else
      b.setInsertionPointToStart(&entry);
  }

  Value createCast(Value v, Type elem) {
    setInsertionPointAfterDef(v);
    auto c = CastOp::create(b, v.getLoc(),
                            cast<RankedTensorType>(v.getType()).clone(elem), v);
    if (isa<BlockArgument>(v))
      lastArgumentCast = c;
    return c;
  }

  /// The bf16 copy of f32 `v`, made once and shared by all its readers.
  Value toBF16(Value v) {
    if (Value copy = bf16Copy.lookup(v))
      return copy;
    Value copy = makeBF16(v);
    bf16Copy[v] = copy;
    return copy;
  }

  Value makeBF16(Value v) {
    Operation *def = v.getDefiningOp();
    // bf16 -> f32 -> bf16 is exact: read the bf16 value itself.
    if (auto castOp = dyn_cast_or_null<CastOp>(def);
        castOp && elementType(castOp.getInput()) == bf16)
      return castOp.getInput();
    SplatElementsAttr splat;
    if (matchPattern(v, m_Constant(&splat))) {
      APFloat value = splat.getSplatValue<APFloat>();
      bool losesInfo;
      value.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      b.setInsertionPointAfter(def);
      replaced.push_back(def);
      return ConstantOp::create(
          b, v.getLoc(),
          DenseElementsAttr::get(
              cast<RankedTensorType>(v.getType()).clone(bf16), value));
    }
    // Cast before data movement, so a weight read as itself, reshaped and
    // transposed still has one bf16 copy.
    if (isa_and_nonnull<ReshapeOp, TransposeOp, BroadcastOp, SliceOp>(def) &&
        def->getNumOperands() == 1 && elementType(def->getOperand(0)) == f32) {
      Value source = toBF16(def->getOperand(0));
      b.setInsertionPointAfter(def);
      replaced.push_back(def);
      Operation *moved = b.clone(*def);
      moved->setOperand(0, source);
      Value result = moved->getResult(0);
      result.setType(cast<RankedTensorType>(v.getType()).clone(bf16));
      return result;
    }
    return createCast(v, bf16);
  }

  /// `v`, lowered to bf16 by this pass, as f32 again (once per value).
  Value toF32(Value v) {
    if (Value copy = f32Copy.lookup(v))
      return copy;
    Value copy = createCast(v, f32);
    f32Copy[v] = copy;
    return copy;
  }

  func::FuncOp fn;
  OpBuilder b;
  Type f32, bf16;
  /// Results this pass turned from f32 into bf16.
  DenseSet<Value> lowered;
  /// f32 results of ops this pass moved to bf16.
  DenseSet<Value> statistics;
  DenseMap<Value, Value> bf16Copy, f32Copy;
  Operation *lastArgumentCast = nullptr;
  /// Definitions a bf16 twin was made of; erased when nothing reads them.
  SmallVector<Operation *> replaced;
};

struct NovaAutocastPass : mlir::nova::impl::NovaAutocastBase<NovaAutocastPass> {
  using NovaAutocastBase::NovaAutocastBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (compute != "bf16" && compute != "tf32" && compute != "f32") {
      emitError(moduleLocation(module), "nova-autocast: compute must be "
                                        "bf16, tf32 or f32, got '")
          << compute << "'";
      return signalPassFailure();
    }
    if (workingCopies && compute != "bf16") {
      emitError(moduleLocation(module),
                "nova-autocast: working-copies needs compute=bf16, got '")
          << compute << "'";
      return signalPassFailure();
    }
    if (compute == "f32")
      return;
    if (compute == "tf32") {
      StringAttr tf32 = StringAttr::get(&getContext(), "tf32");
      module.walk([&](Operation *op) {
        if (policyOf(op) == Policy::LowPrecision &&
            llvm::all_of(op->getOperandTypes(), [](Type t) {
              return getElementTypeOrSelf(t).isF32();
            }))
          op->setAttr(kPrecisionAttr, tf32);
      });
      return;
    }
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      if (!fn.getBody().hasOneBlock()) {
        fn.emitWarning("nova-autocast: @")
            << fn.getSymName() << " has several blocks; it stays in f32";
        continue;
      }
      Autocaster autocaster(fn);
      autocaster.run();
      if (workingCopies && failed(autocaster.carryWorkingCopies()))
        return signalPassFailure();
    }
  }
};

} // namespace
