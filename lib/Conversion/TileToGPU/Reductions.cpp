//===- Reductions.cpp - row and column reduction families
//-------------------===//

#include "Emitter.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {

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

namespace {
/// Row and column reductions: the same body, split differently.
class ReductionEmitter {
public:
  explicit ReductionEmitter(KernelContext &k) : k(k), b(k.b), body(k.body) {}
  FailureOr<Geometry> row(gpu::GPUFuncOp func);
  FailureOr<Geometry> column(gpu::GPUFuncOp func);

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
} // namespace

FailureOr<Geometry> ReductionEmitter::row(gpu::GPUFuncOp func) {
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

FailureOr<Geometry> ReductionEmitter::column(gpu::GPUFuncOp func) {
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

FailureOr<Geometry> emitRowReduction(KernelContext &k) {
  return ReductionEmitter(k).row(k.func);
}

FailureOr<Geometry> emitColumnReduction(KernelContext &k) {
  return ReductionEmitter(k).column(k.func);
}

} // namespace mlir::nova::tile_to_gpu
