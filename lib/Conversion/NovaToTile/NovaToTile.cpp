//===- NovaToTile.cpp - every nova op into a kernel -----------------------===//
//
// After nova-fuse, the ops that no fusion group took become kernels of one op
// each, so later passes (configure, outline, bufferize) see a function body
// that is a list of kernels plus free reshapes and constant data.
//
//===----------------------------------------------------------------------===//

#include "nova/Conversion/Passes.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/InterleavedRange.h"

namespace mlir::nova {
#define GEN_PASS_DEF_CONVERTNOVATOTILE
#include "nova/Conversion/Passes.h.inc"
} // namespace mlir::nova

using namespace mlir;
namespace nv = mlir::nova;
namespace nt = mlir::nova_tile;

static bool isSplatConstant(Operation *op) {
  auto constant = dyn_cast_or_null<nv::ConstantOp>(op);
  return constant && isa<SplatElementsAttr>(constant.getValue());
}

/// Values a function body may hold outside kernels.
static bool staysOutside(Operation *op) {
  return isa<nt::FusionOp, nt::LaunchOp, nv::ReshapeOp, func::ReturnOp>(op) ||
         (isa<nv::ConstantOp>(op) && !isSplatConstant(op));
}

/// Whether a kernel of `family` holding `op` may compute a splat constant
/// operand itself: elementwise code may, the operand of a matmul, attention,
/// gather or scatter (read through a prologue from an input) and of a view
/// (which reads inputs only) may not. A concat places constants beside
/// inputs.
static bool holdsConstants(Operation *op, nt::Family family) {
  switch (family) {
  case nt::Family::pointwise:
    return !isa<nv::TransposeOp, nv::SliceOp, nv::BroadcastOp>(op);
  case nt::Family::row_reduction:
  case nt::Family::column_reduction:
  case nt::Family::optimizer:
    return true;
  default:
    return false;
  }
}

/// Replaces `op` by a fusion group of `family` holding a clone of it. Every
/// operand gets its own block argument (a matmul x @ x reads its input once
/// as each operand); splat constants are cloned into the body where the
/// family allows it.
static nt::FusionOp wrap(Operation *op, nt::Family family) {
  bool cloneConstants = holdsConstants(op, family);
  auto inBody = [&](Value operand) {
    return cloneConstants && isSplatConstant(operand.getDefiningOp());
  };
  OpBuilder builder(op);
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (!inBody(operand))
      inputs.push_back(operand);
  auto group = nt::FusionOp::create(builder, op->getLoc(), op->getResultTypes(),
                                    family, inputs, nt::ScheduleAttr());
  Block *body = builder.createBlock(&group.getBody());
  IRMapping constants;
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    if (!inBody(operand)) {
      operands.push_back(body->addArgument(operand.getType(), op->getLoc()));
      continue;
    }
    if (!constants.contains(operand))
      constants.map(operand,
                    builder.clone(*operand.getDefiningOp())->getResult(0));
    operands.push_back(constants.lookup(operand));
  }
  Operation *clone = builder.clone(*op);
  clone->setOperands(operands);
  nt::YieldOp::create(builder, op->getLoc(), clone->getResults());
  op->replaceAllUsesWith(group.getResults());
  op->erase();
  return group;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

/// The rank-preserving kernels a reduce over `dims` of a rank-`rank` tensor
/// maps onto directly.
static std::optional<nt::Family> directReduction(ArrayRef<int64_t> dims,
                                                 int64_t rank) {
  if (rank >= 1 && dims == ArrayRef<int64_t>{rank - 1})
    return nt::Family::row_reduction;
  if (rank >= 2 && int64_t(dims.size()) == rank - 1 &&
      llvm::all_of(llvm::enumerate(dims),
                   [](auto p) { return p.value() == int64_t(p.index()); }))
    return nt::Family::column_reduction;
  return std::nullopt;
}

/// A reduce over a contiguous run of trailing dims (a full reduction
/// included) or of leading dims: its input reshaped so the run is one dim
/// (the innermost, or the outer of two), reduced as a row or column
/// reduction, and the result reshaped back. Other dims are first moved
/// innermost by a transposing copy kernel. Failure when the dims are neither.
static FailureOr<nt::FusionOp> wrapMergedReduce(nv::ReduceOp reduce) {
  OpBuilder builder(reduce);
  Location loc = reduce.getLoc();
  Value source = reduce.getInput();
  SmallVector<int64_t> in(shapeOf(source));
  int64_t rank = in.size();
  SmallVector<int64_t> dims(reduce.getDims());
  llvm::sort(dims);
  bool contiguous = dims.back() - dims.front() + 1 == int64_t(dims.size());
  bool trailing = contiguous && dims.back() == rank - 1;
  bool leading = contiguous && dims.front() == 0;
  if (!trailing && !leading) {
    // A copy kernel moves the reduced dims innermost, in order, behind the
    // kept ones (whose order the result keeps).
    SmallVector<int64_t> perm, permuted;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d))
        perm.push_back(d);
    llvm::append_range(perm, dims);
    for (int64_t d : perm)
      permuted.push_back(in[d]);
    auto transpose = nv::TransposeOp::create(
        builder, loc,
        RankedTensorType::get(permuted, getElementTypeOrSelf(source.getType())),
        source, builder.getDenseI64ArrayAttr(perm));
    nt::FusionOp copy = wrap(transpose, nt::Family::pointwise);
    if (failed(nt::computeContract(
            cast<nt::FusionGroupOpInterface>(copy.getOperation()))))
      return failure();
    builder.setInsertionPoint(reduce);
    source = copy.getResult(0);
    in = permuted;
    int64_t first = rank - int64_t(dims.size());
    for (auto [i, d] : llvm::enumerate(dims))
      d = first + int64_t(i);
    trailing = true;
  }
  auto product = [&](int64_t from, int64_t to) {
    int64_t n = 1;
    for (int64_t d = from; d < to; ++d)
      n *= in[d];
    return n;
  };
  SmallVector<int64_t> merged, reducedShape;
  int64_t mergedDim;
  if (trailing) {
    merged.assign(in.begin(), in.begin() + dims.front());
    reducedShape = merged;
    merged.push_back(product(dims.front(), rank));
    mergedDim = merged.size() - 1;
  } else {
    // [reduced, kept]: a column reduction of a rank-2 tensor.
    merged = {product(0, dims.back() + 1), product(dims.back() + 1, rank)};
    reducedShape = {merged.back()};
    mergedDim = 0;
  }
  Type element = getElementTypeOrSelf(source.getType());
  // Reshapes only where the shape changes.
  auto reshape = [&](Value v, Type type) -> Value {
    if (v.getType() == type)
      return v;
    return nv::ReshapeOp::create(builder, loc, type, v);
  };
  Value input = reshape(source, RankedTensorType::get(merged, element));
  auto reduced = nv::ReduceOp::create(
      builder, loc, RankedTensorType::get(reducedShape, element),
      reduce.getKindAttr(), input, builder.getDenseI64ArrayAttr({mergedDim}),
      /*keep_dims=*/nullptr);
  auto group = wrap(reduced, trailing ? nt::Family::row_reduction
                                      : nt::Family::column_reduction);
  builder.setInsertionPointAfter(group);
  Value back = reshape(group.getResult(0), reduce.getType());
  reduce.replaceAllUsesWith(back);
  reduce.erase();
  return group;
}

/// A softmax or log_softmax along another dim than the innermost: copy
/// kernels swap that dim with the innermost before and after a row
/// reduction along the innermost.
static FailureOr<nt::FusionOp> wrapTransposedNormalize(Operation *op) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = type.getRank();
  int64_t dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<int64_t> shape;
  std::swap(perm[dim], perm[rank - 1]); // its own inverse
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  auto swapped = RankedTensorType::get(shape, type.getElementType());
  auto copyKernel = [&](Value v, Type to) -> FailureOr<nt::FusionOp> {
    auto t = nv::TransposeOp::create(builder, loc, to, v,
                                     builder.getDenseI64ArrayAttr(perm));
    nt::FusionOp copy = wrap(t, nt::Family::pointwise);
    if (failed(nt::computeContract(
            cast<nt::FusionGroupOpInterface>(copy.getOperation()))))
      return failure();
    builder.setInsertionPoint(op);
    return copy;
  };
  FailureOr<nt::FusionOp> in = copyKernel(op->getOperand(0), swapped);
  if (failed(in))
    return failure();
  Operation *normalize = builder.clone(*op);
  normalize->setOperand(0, in->getResult(0));
  normalize->setAttr("dim", builder.getI64IntegerAttr(rank - 1));
  normalize->getResult(0).setType(swapped);
  nt::FusionOp group = wrap(normalize, nt::Family::row_reduction);
  if (failed(nt::computeContract(
          cast<nt::FusionGroupOpInterface>(group.getOperation()))))
    return failure();
  builder.setInsertionPoint(op);
  FailureOr<nt::FusionOp> out = copyKernel(group.getResult(0), type);
  if (failed(out))
    return failure();
  op->replaceAllUsesWith(out->getResults());
  op->erase();
  return *out;
}

/// The family of a single `op`, or a located error.
static FailureOr<nt::Family> familyOf(Operation *op) {
  auto unsupported = [&](const Twine &why) -> FailureOr<nt::Family> {
    return op->emitError("convert-nova-to-tile: ") << why;
  };
  if (isa<nv::MatmulOp>(op))
    return nt::Family::matmul;
  if (isa<nv::AttentionOp, nv::AttentionFwdOp>(op))
    return nt::Family::attention_forward;
  if (isa<nv::AttentionBwdOp>(op))
    return nt::Family::attention_backward;
  if (isa<nv::SoftmaxOp, nv::LogSoftmaxOp>(op))
    return nt::Family::row_reduction; // along the innermost dim
  if (isa<nv::LayerNormOp, nv::CrossEntropyOp>(op))
    return nt::Family::row_reduction;
  if (auto gather = dyn_cast<nv::GatherOp>(op)) {
    if (gather.getAxis() != 0)
      return unsupported("a gather along axis " + Twine(gather.getAxis()) +
                         " has no kernel family (gather kernels take whole "
                         "rows, axis 0)");
    return nt::Family::gather;
  }
  if (auto scatter = dyn_cast<nv::ScatterAddOp>(op)) {
    if (scatter.getAxis() != 0)
      return unsupported("a scatter_add along axis " +
                         Twine(scatter.getAxis()) +
                         " has no kernel family (scatter_add kernels add "
                         "whole rows, axis 0)");
    return nt::Family::scatter_add;
  }
  if (isa<nv::AdamWOp>(op))
    return nt::Family::optimizer;
  // Views that move data become copy kernels; check_labels checks each
  // element on its own, so it is pointwise too.
  if (nt::isElementwiseOp(op) ||
      isa<nv::TransposeOp, nv::SliceOp, nv::BroadcastOp, nv::ConcatOp,
          nv::CheckLabelsOp>(op))
    return nt::Family::pointwise;
  return unsupported("'" + op->getName().getStringRef() +
                     "' has no kernel family");
}

namespace {
struct ConvertNovaToTilePass
    : public nv::impl::ConvertNovaToTileBase<ConvertNovaToTilePass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    if (!fn.getBody().hasOneBlock()) {
      fn.emitError("convert-nova-to-tile: a function body of one block is "
                   "required");
      return signalPassFailure();
    }
    Block &block = fn.getBody().front();
    bool ok = true;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (staysOutside(&op) || isSplatConstant(&op))
        continue;
      if (!isa<nv::NovaDialect>(op.getDialect()) || op.getNumRegions()) {
        // One error per function: a body of another level (a nova_mem
        // program) would otherwise report every op.
        op.emitError("convert-nova-to-tile: '")
            << op.getName() << "' is not a nova op of a kernel; a function "
            << "body holds nova ops, kernels and its return only";
        return signalPassFailure();
      }
      FailureOr<nt::FusionOp> group = failure();
      if (auto reduce = dyn_cast<nv::ReduceOp>(op);
          reduce && !directReduction(reduce.getDims(),
                                     shapeOf(reduce.getInput()).size())) {
        group = wrapMergedReduce(reduce);
      } else if (isa<nv::SoftmaxOp, nv::LogSoftmaxOp>(op) &&
                 op.getAttrOfType<IntegerAttr>("dim").getInt() !=
                     int64_t(shapeOf(op.getOperand(0)).size()) - 1) {
        group = wrapTransposedNormalize(&op);
      } else if (auto reduce = dyn_cast<nv::ReduceOp>(op)) {
        group = wrap(&op, *directReduction(reduce.getDims(),
                                           shapeOf(reduce.getInput()).size()));
      } else {
        FailureOr<nt::Family> family = familyOf(&op);
        if (succeeded(family))
          group = wrap(&op, *family);
      }
      if (failed(group) ||
          failed(nt::computeContract(
              cast<nt::FusionGroupOpInterface>(group->getOperation())))) {
        ok = false;
        continue;
      }
    }
    // A splat constant some kernel did not absorb (returned, or read by a
    // reshape) is written by a kernel of its own.
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (!isSplatConstant(&op))
        continue;
      if (op.use_empty())
        op.erase();
      else
        wrap(&op, nt::Family::pointwise);
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
