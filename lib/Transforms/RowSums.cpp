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

/// sign * (product of factors) * row: a term of a row-shaped value.
struct Term {
  SmallVector<Value> factors; // each the same across a row
  bool negative = false;
  Value row; // of the rows' shape
};

class RowSumDistributor {
public:
  explicit RowSumDistributor(Block &body) : body(body) {}

  unsigned run() {
    unsigned rewritten = 0;
    SmallVector<nv::ReduceOp> sums;
    for (auto reduce : body.getOps<nv::ReduceOp>())
      if (reduce.getKind() == nv::ReduceKind::sum && alongRows(reduce) &&
          reduce.getKeepDims())
        sums.push_back(reduce);
    for (nv::ReduceOp sum : sums)
      if (distribute(sum))
        ++rewritten;
    if (rewritten)
      eraseDead();
    return rewritten;
  }

private:
  /// A reduction over the innermost dim alone.
  static bool alongRows(nv::ReduceOp reduce) {
    int64_t rank = cast<RankedTensorType>(reduce.getInput().getType()).getRank();
    return rank > 0 && reduce.getDims() == ArrayRef<int64_t>{rank - 1};
  }

  /// Whether `v` is computed from a reduction along the rows in this body.
  bool readsRowReduction(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op || op->getBlock() != &body)
      return false;
    if (auto it = reads.find(op); it != reads.end())
      return it->second;
    bool result = false;
    if (auto reduce = dyn_cast<nv::ReduceOp>(op); reduce && alongRows(reduce))
      result = true;
    else
      result = llvm::any_of(op->getOperands(),
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
  /// and products by per-row factors.
  void linearize(Value v, RankedTensorType rows, Term context,
                 SmallVectorImpl<Term> &terms) {
    auto whole = [&](Value x) {
      return x.getType() == rows;
    };
    Operation *op = v.getDefiningOp();
    if (op && op->getBlock() == &body) {
      if (auto add = dyn_cast<nv::AddOp>(op);
          add && whole(add.getLhs()) && whole(add.getRhs())) {
        linearize(add.getLhs(), rows, context, terms);
        linearize(add.getRhs(), rows, context, terms);
        return;
      }
      if (auto sub = dyn_cast<nv::SubOp>(op);
          sub && whole(sub.getLhs()) && whole(sub.getRhs())) {
        linearize(sub.getLhs(), rows, context, terms);
        Term negated = context;
        negated.negative = !negated.negative;
        linearize(sub.getRhs(), rows, negated, terms);
        return;
      }
      if (auto neg = dyn_cast<nv::NegOp>(op); neg && whole(neg.getInput())) {
        Term negated = context;
        negated.negative = !negated.negative;
        linearize(neg.getInput(), rows, negated, terms);
        return;
      }
      if (auto mul = dyn_cast<nv::MulOp>(op)) {
        for (auto [factor, other] : {std::pair{mul.getLhs(), mul.getRhs()},
                                     {mul.getRhs(), mul.getLhs()}}) {
          Value f = perRow(factor, rows);
          if (!f || !whole(other))
            continue;
          Term scaled = context;
          scaled.factors.push_back(f);
          linearize(other, rows, scaled, terms);
          return;
        }
      }
    }
    context.row = v;
    terms.push_back(context);
  }

  /// Rewrites `sum` when its input reads a row reduction only through
  /// per-row factors.
  bool distribute(nv::ReduceOp sum) {
    Value input = sum.getInput();
    if (!readsRowReduction(input))
      return false;
    auto rows = cast<RankedTensorType>(input.getType());
    SmallVector<Term> terms;
    linearize(input, rows, Term{}, terms);
    if (llvm::any_of(terms, [&](const Term &t) {
          return readsRowReduction(t.row);
        }))
      return false;
    OpBuilder builder(sum);
    nv::NovaBuilder nb(builder, sum.getLoc());
    llvm::SmallDenseMap<Value, Value> sumOf; // row -> its sum, made once
    Value total;
    for (const Term &t : terms) {
      Value &s = sumOf[t.row];
      if (!s)
        s = nb.reduce(nv::ReduceKind::sum, t.row, sum.getDims(),
                      /*keepDims=*/true);
      Value x = s;
      for (Value f : t.factors)
        x = nb.mul(x, f);
      if (!total)
        total = t.negative ? nb.neg(x) : x;
      else
        total = t.negative ? nb.sub(total, x) : nb.add(total, x);
    }
    if (total.getType() != sum.getType())
      return false; // a scalar factor alone cannot make the row's shape
    sum.getResult().replaceAllUsesWith(total);
    sum.erase();
    return true;
  }

  /// Ops of the body whose results nothing reads any more (and that have
  /// no other effect).
  void eraseDead() {
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op))
        op.erase();
  }

  Block &body;
  DenseMap<Operation *, bool> reads;
};

} // namespace

unsigned mlir::nova::distributeRowSums(nt::FusionOp fusion) {
  if (fusion.getFamily() != nt::Family::row_reduction ||
      fusion.getBody().empty())
    return 0;
  return RowSumDistributor(fusion.getBody().front()).run();
}
