//===- NovaPatterns.cpp - canonicalization patterns of nova ops -----------===//
//
// Rewrites that need new ops, which folders cannot create.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::nova;

namespace {
/// One operand of the sum, cut into the pieces of its concatenation.
struct Pieces {
  SmallVector<Value> values;
  SmallVector<int64_t> ends; // exclusive end of each piece along the dim
};

/// add(concat(a_1..a_n), concat(b_1..b_m)) along one dim, both operands of
/// the result's shape -> concat(add(a, b) per segment), where the segments
/// are cut at every boundary of either side. A piece cut in two must be a
/// splat constant (it is re-created at the smaller size); any other piece
/// must already match the segment. Exact: elementwise addition commutes
/// with concatenation.
struct AddOfConcats : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  static Pieces piecesOf(ConcatOp concat) {
    Pieces p;
    int64_t end = 0, dim = concat.getDim();
    for (Value v : concat.getInputs()) {
      end += cast<RankedTensorType>(v.getType()).getDimSize(dim);
      p.values.push_back(v);
      p.ends.push_back(end);
    }
    return p;
  }

  /// The part [begin, end) of `p` along `dim`, or null when that needs
  /// cutting a piece that is not a splat constant.
  static Value segment(PatternRewriter &rewriter, Location loc,
                       const Pieces &p, int64_t dim, int64_t begin,
                       int64_t end) {
    size_t i = 0;
    while (p.ends[i] <= begin)
      ++i;
    int64_t pieceBegin = i ? p.ends[i - 1] : 0;
    Value piece = p.values[i];
    if (pieceBegin == begin && p.ends[i] == end)
      return piece;
    auto constant = piece.getDefiningOp<ConstantOp>();
    auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                          : SplatElementsAttr();
    if (!splat)
      return nullptr;
    auto type = cast<RankedTensorType>(piece.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = end - begin;
    auto cutType = RankedTensorType::get(shape, type.getElementType());
    return ConstantOp::create(rewriter, loc, cutType, splat.resizeSplat(cutType));
  }

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    auto lhs = add.getLhs().getDefiningOp<ConcatOp>();
    auto rhs = add.getRhs().getDefiningOp<ConcatOp>();
    if (!lhs || !rhs || lhs.getDim() != rhs.getDim() ||
        add.getLhs().getType() != add.getType() ||
        add.getRhs().getType() != add.getType())
      return failure();
    int64_t dim = lhs.getDim();
    Pieces a = piecesOf(lhs), b = piecesOf(rhs);
    SmallVector<int64_t> cuts(a.ends);
    cuts.append(b.ends);
    llvm::sort(cuts);
    cuts.erase(llvm::unique(cuts), cuts.end());
    // Nothing to gain when neither side has a boundary the other lacks
    // and there is a single segment.
    if (cuts.size() < 2)
      return failure();
    SmallVector<Value> sums;
    int64_t begin = 0;
    for (int64_t end : cuts) {
      if (end == begin)
        continue;
      Value x = segment(rewriter, add.getLoc(), a, dim, begin, end);
      Value y = x ? segment(rewriter, add.getLoc(), b, dim, begin, end)
                  : Value();
      if (!x || !y)
        return rewriter.notifyMatchFailure(
            add, "a piece that is not a splat constant would be cut");
      sums.push_back(AddOp::create(rewriter, add.getLoc(), x, y));
      begin = end;
    }
    rewriter.replaceOpWithNewOp<ConcatOp>(add, add.getType(), sums,
                                          rewriter.getI64IntegerAttr(dim));
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<AddOfConcats>(context);
}
