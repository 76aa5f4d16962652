//===- RowSums.cpp - sums along the rows that wait on no other one --------===//
//
// A row kernel reads its rows once per pass, and a reduction along the rows
// whose input depends on another one's result must wait a pass for it.
// Sums are linear: along a row, sum(a + s b) = sum(a) + s sum(b) when s is
// the same across the row. LayerNorm's backward, as autodiff writes it,
// sums dxhat = g rstd + 2 c xc, whose c is a per-row value made from
// sum(g xc): rewritten, that sum becomes rstd sum(g) + 2 c sum(xc), whose
// sums join the first pass with sum(g xc), and the kernel reads its rows
// once for its reductions instead of twice.
//
// The rewrite is made only when it removes every wait of the kernel (so a
// pass is saved), on f32 and f64 sums (a 16-bit per-row intermediate would
// round where the per-element sum did not), with few terms. It reassociates:
// sum(a) - s sum(b) can cancel where each a - s b was small; LayerNorm's
// xc sums to about zero, so its term stays small.
//
//===----------------------------------------------------------------------===//

#include "RowSums.h"

#include "nova/Dialect/Nova/IR/NovaBuilder.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
namespace nv = mlir::nova;
namespace nt = mlir::nova_tile;

namespace {

/// At most this many terms a sum splits into; past it the sum is kept.
constexpr size_t kMaxTerms = 16;

/// coefficient * (product of factors) * row: a term of a row-shaped value.
struct Term {
  SmallVector<Value> factors; // each the same across a row
  int64_t coefficient = 1;
  Value row; // of the rows' shape
};

class RowSumDistributor {
public:
  RowSumDistributor(Block &body, function_ref<bool(Operation *)> alongRows)
      : body(body), alongRows(alongRows) {}

  unsigned run() {
    // Every reduction along the rows that waits on another must be a sum
    // this rewrite frees; else the kernel keeps its second pass anyway.
    SmallVector<std::pair<nv::ReduceOp, SmallVector<Term>>> plan;
    for (Operation &op : body) {
      if (!alongRows(&op) ||
          llvm::none_of(op.getOperands(),
                        [&](Value x) { return readsRowReduction(x); }))
        continue;
      auto sum = dyn_cast<nv::ReduceOp>(op);
      if (!sum || sum.getKind() != nv::ReduceKind::sum || !sum.getKeepDims())
        return 0;
      auto rows = cast<RankedTensorType>(sum.getInput().getType());
      if (!isa<Float32Type, Float64Type>(rows.getElementType()))
        return 0;
      SmallVector<Term> terms;
      if (!linearize(sum.getInput(), rows, Term{}, terms) ||
          llvm::any_of(terms,
                       [&](const Term &t) { return readsRowReduction(t.row); }))
        return 0;
      plan.push_back({sum, merged(terms)});
    }
    if (plan.empty())
      return 0;
    // Sums of the rows already in the body serve the new terms too.
    for (auto sum : body.getOps<nv::ReduceOp>())
      if (sum.getKind() == nv::ReduceKind::sum && sum.getKeepDims() &&
          alongRows(sum))
        sumOf.try_emplace(sum.getInput(), sum.getResult());
    for (auto &[sum, terms] : plan)
      rewrite(sum, terms);
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op))
        op.erase();
    return plan.size();
  }

private:
  /// Whether `v` is computed from a reduction along the rows in this body.
  bool readsRowReduction(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != &body)
      return false;
    if (auto it = reads.find(op); it != reads.end())
      return it->second;
    bool result = alongRows(op) ||
                  llvm::any_of(op->getOperands(),
                               [&](Value x) { return readsRowReduction(x); });
    reads[op] = result;
    return result;
  }

  /// `v` as a factor that is the same across a row of `rows` (a tensor
  /// whose innermost dim is 1 and whose others are the rows', a scalar, or
  /// a broadcast of either), or null.
  static Value perRow(Value v, RankedTensorType rows) {
    if (auto broadcast = v.getDefiningOp<nv::BroadcastOp>())
      v = broadcast.getInput();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getElementType() != rows.getElementType())
      return nullptr;
    if (type.getRank() == 0)
      return v;
    ArrayRef<int64_t> shape = type.getShape(), full = rows.getShape();
    if (shape.size() != full.size() || shape.back() != 1 ||
        shape.drop_back() != full.drop_back())
      return nullptr;
    return v;
  }

  /// Splits `v` (of type `rows`) into terms, through additions, negations
  /// and products by per-row factors; false past kMaxTerms terms.
  bool linearize(Value v, RankedTensorType rows, Term context,
                 SmallVectorImpl<Term> &terms) {
    auto whole = [&](Value x) { return x.getType() == rows; };
    auto negated = [](Term t) {
      t.coefficient = -t.coefficient;
      return t;
    };
    Operation *op = v.getDefiningOp();
    if (op && op->getBlock() == &body) {
      if (auto add = dyn_cast<nv::AddOp>(op);
          add && whole(add.getLhs()) && whole(add.getRhs()))
        return linearize(add.getLhs(), rows, context, terms) &&
               linearize(add.getRhs(), rows, context, terms);
      if (auto sub = dyn_cast<nv::SubOp>(op);
          sub && whole(sub.getLhs()) && whole(sub.getRhs()))
        return linearize(sub.getLhs(), rows, context, terms) &&
               linearize(sub.getRhs(), rows, negated(context), terms);
      if (auto neg = dyn_cast<nv::NegOp>(op); neg && whole(neg.getInput()))
        return linearize(neg.getInput(), rows, negated(context), terms);
      if (auto mul = dyn_cast<nv::MulOp>(op)) {
        for (auto [factor, other] : {std::pair{mul.getLhs(), mul.getRhs()},
                                     {mul.getRhs(), mul.getLhs()}}) {
          Value f = perRow(factor, rows);
          if (!f || !whole(other))
            continue;
          Term scaled = context;
          scaled.factors.push_back(f);
          return linearize(other, rows, scaled, terms);
        }
      }
    }
    context.row = v;
    terms.push_back(context);
    return terms.size() <= kMaxTerms;
  }

  /// `terms` with equal rows and factors (in any order) combined, their
  /// coefficients added, in order of first appearance; those that cancel
  /// are dropped.
  static SmallVector<Term> merged(ArrayRef<Term> terms) {
    auto sameFactors = [](ArrayRef<Value> a, ArrayRef<Value> b) {
      return a.size() == b.size() && llvm::all_of(a, [&](Value f) {
               return llvm::count(a, f) == llvm::count(b, f);
             });
    };
    SmallVector<Term> out;
    for (const Term &t : terms) {
      auto same = llvm::find_if(out, [&](const Term &u) {
        return u.row == t.row && sameFactors(u.factors, t.factors);
      });
      if (same == out.end())
        out.push_back(t);
      else
        same->coefficient += t.coefficient;
    }
    llvm::erase_if(out, [](const Term &t) { return t.coefficient == 0; });
    return out;
  }

  void rewrite(nv::ReduceOp sum, ArrayRef<Term> terms) {
    OpBuilder builder(sum);
    nv::NovaBuilder nb(builder, sum.getLoc());
    Value total;
    for (const Term &t : terms) {
      // A sum of the row made before this one serves; else a new one.
      Value &s = sumOf[t.row];
      if (!s || !s.getDefiningOp()->isBeforeInBlock(sum))
        s = nb.reduce(nv::ReduceKind::sum, t.row, sum.getDims(),
                      /*keepDims=*/true);
      Value x = s;
      for (Value f : t.factors)
        x = nb.mul(x, f);
      int64_t magnitude = std::abs(t.coefficient);
      if (magnitude != 1)
        x = nb.mul(x, double(magnitude));
      bool negative = t.coefficient < 0;
      if (!total)
        total = negative ? nb.neg(x) : x;
      else
        total = negative ? nb.sub(total, x) : nb.add(total, x);
    }
    if (!total) // every term cancelled
      total = nb.splat(cast<RankedTensorType>(sum.getType()), 0.0);
    sum.getResult().replaceAllUsesWith(total);
    sum.erase();
  }

  Block &body;
  function_ref<bool(Operation *)> alongRows;
  DenseMap<Operation *, bool> reads;
  DenseMap<Value, Value> sumOf; // a row-shaped value -> its sum along rows
};

} // namespace

unsigned
mlir::nova::distributeRowSums(nt::FusionOp fusion,
                              function_ref<bool(Operation *)> alongRows) {
  if (fusion.getFamily() != nt::Family::row_reduction ||
      fusion.getBody().empty())
    return 0;
  return RowSumDistributor(fusion.getBody().front(), alongRows).run();
}
