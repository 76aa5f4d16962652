//===- Reductions.cpp - row and column reduction families
//-------------------===//

#include "Emitter.h"
#include "Hopper.h"
#include "nova/CostModel/RowFold.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/ScopeExit.h"

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

/// Chunks a lane of a wide row loads before using them.
constexpr int64_t kChunksInFlight = 4;

/// The zero of integer or float type `type`.
Value zeroOf(ImplicitLocOpBuilder &b, Type type) {
  return arith::ConstantOp::create(b, cast<TypedAttr>(b.getZeroAttr(type)));
}
using ::nova::rowfold::FoldPlan;
using ::nova::rowfold::foldPlan;
using ::nova::rowfold::kFoldLoads;
using ::nova::rowfold::kMaxAcrossBlocks;

/// Row and column reductions: the same body, split differently.
class ReductionEmitter {
public:
  explicit ReductionEmitter(KernelContext &k) : k(k), b(k.b), body(k.body) {}
  FailureOr<Geometry> row(gpu::GPUFuncOp func);
  FailureOr<Geometry> column(gpu::GPUFuncOp func);

private:
  /// Column kernel in one pass: blocks of 16-byte-wide column strips x a
  /// chunk of the rows, per-thread partials in registers, combined in a
  /// fixed order (row lanes in shared memory, then the row chunks by the
  /// last block of each strip). The contract keeps the column results
  /// from being read in the kernel, so one pass computes every output.
  FailureOr<Geometry> columnStrips(gpu::GPUFuncOp func,
                                   ArrayRef<nv::ReduceOp> reduces,
                                   ArrayRef<int64_t> lead,
                                   ArrayRef<int64_t> kept);

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
  /// `v` (a value of the reduced `full` tensor's space) at the columns
  /// `cols` of the row at `lead`, widened to its arithmetic type.
  FailureOr<SmallVector<Value>> widenedAt(Value v, ArrayRef<int64_t> full,
                                          ValueRange lead,
                                          ArrayRef<Value> cols) {
    SmallVector<Value> xs;
    for (Value col : cols) {
      auto x = body.eval(v, pointIndex(v, full, lead, col));
      if (failed(x))
        return failure();
      xs.push_back(body.widen(*x));
    }
    return xs;
  }
  /// The nova.reduce ops whose results `v` is computed from.
  SmallPtrSet<Operation *, 4> reducesRead(Value v) {
    SmallPtrSet<Operation *, 4> found;
    DenseSet<Value> seen;
    SmallVector<Value> work{v};
    while (!work.empty()) {
      Value x = work.pop_back_val();
      Operation *def = x.getDefiningOp();
      if (!def || !seen.insert(x).second)
        continue;
      if (isa<nv::ReduceOp>(def)) {
        found.insert(def);
        continue;
      }
      llvm::append_range(work, def->getOperands());
    }
    return found;
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

  /// The full-shape tensors of a row kernel read and written in 16-byte
  /// chunks: `width` columns per chunk, chunks aligned in the flattened
  /// buffers, whose rows are `stride` elements apart (the planner's padded
  /// pitch, or the row's width: then a ragged row starts mid-chunk).
  /// Buffers of another row stride are read and written column by column.
  struct Chunking {
    int64_t width = 1;
    int64_t stride = 0;
    SmallVector<std::pair<BlockArgument, Value>> inputs; // with flat buffer
    SmallVector<Value> outputs; // flat buffer per output, null: scalar
  };
  Chunking chunking(ArrayRef<int64_t> full);
  /// What a thread does with some of its row's columns: `cols` (one, or
  /// one chunk's), `first` the flat index of a chunk's first element (null
  /// for a single column); it may update `carried`. `active` (null: true)
  /// is false for a chunk past the row's end, which must contribute
  /// nothing and store nothing.
  using ColumnsFn =
      function_ref<LogicalResult(ArrayRef<Value> cols, Value first,
                                 Value active, SmallVector<Value> &carried)>;
  /// A chunk of a row loaded into registers: its columns, the flat index of
  /// its first element, and whether it lies in the row (null: always).
  struct FixedChunk {
    SmallVector<Value> cols;
    Value first, active;
  };
  /// The `perLane` fixed chunks lane, lane + group, ... of row `row` (rows
  /// start on a chunk boundary), every one loaded before any is used (the
  /// loads in flight together) and bound in the current scope, so every
  /// pass over the row reads them from registers: one read of the row.
  /// A lane past the row's last chunk reads that chunk again (inactive).
  SmallVector<FixedChunk> loadFixedChunks(const Chunking &chunks, int64_t cols,
                                          Value row, ArrayRef<Value> lead,
                                          ArrayRef<int64_t> full, Value lane,
                                          int64_t group, int64_t perLane);
  /// Issues the cp.async copies of this lane's `perLane` fixed chunks of
  /// every chunked input, of its row of batch `index`, into the row area
  /// `area` (laid out as the staged rows'); chunks past the row's end are
  /// not copied (their lanes only read them inactive).
  void prefetchBatch(const Chunking &chunks, Value index, int64_t rowsPerBlock,
                     Value rowInBlock, int64_t rows, int64_t cols, Value lane,
                     int64_t group, int64_t perLane, ArrayRef<Value> globalBase,
                     Value area);
  /// Copies the rows of batch `index` (of a block's `rowsPerBlock`, rows
  /// past the last clamped to it) of every chunked input into the staged
  /// row areas from `block` (`area` bytes apart) by bulk copies that
  /// thread 0 issues, all threads then waiting on `barrier`'s phase of the
  /// batch's ordinal in the block's batches (blockId, blockId + grid, ..).
  /// A barrier first: every thread is done with the previous batch's rows.
  void bulkCopyBatch(const Chunking &chunks, Value index, int64_t rowsPerBlock,
                     int64_t rows, int64_t cols, int64_t grid, Value isThread0,
                     ArrayRef<Value> globalBase, Value block, int64_t area,
                     Value barrier);
  /// One bulk copy (issued by the calling thread) of `bytes` bytes from
  /// byte `from` of row `row` of chunked input `input` (global address
  /// `globalBase`) to the same byte of its row in the row area at shared
  /// byte `areaOffset` of `block`, completing on `barrier`.
  void copyRowBytes(const Chunking &chunks, unsigned input, Value row,
                    Value from, int64_t bytes, Value globalBase, Value block,
                    int64_t areaOffset, Value barrier);
  /// The global address (!llvm.ptr<1>) of the first element of the flat,
  /// offset-free buffer `flat`.
  Value globalAddress(Value flat) {
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, flat);
    Value generic = LLVM::IntToPtrOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext()),
        arith::IndexCastOp::create(b, b.getI64Type(), base).getResult());
    return LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), 1), generic);
  }
  /// Lane `lane`'s `j`-th fixed chunk of a row of `count` chunks (lane +
  /// j group), and whether it lies in the row: null where every lane's
  /// does, else an i1 (the lanes past the row's last chunk).
  std::pair<Value, Value> fixedChunk(Value lane, int64_t j, int64_t group,
                                     int64_t count) {
    Value chunk = arith::AddIOp::create(b, lane, body.index(j * group));
    if ((j + 1) * group <= count)
      return {chunk, Value()};
    return {chunk, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk,
                                         body.index(count))};
  }
  /// Runs `fn` where `active` (null: always).
  void whereActive(Value active, function_ref<LogicalResult()> fn) {
    if (active)
      (void)k.ifThen(active, fn);
    else
      (void)fn();
  }
  /// The shared address of chunked input `input`'s chunk from column
  /// `firstCol` in the staged row area `area` (the inputs' rows at
  /// staging.offsets).
  Value stagedAt(Value area, unsigned input, Value firstCol, int64_t element) {
    Value offset = arith::AddIOp::create(
        b, arith::MulIOp::create(b, firstCol, body.index(element)),
        body.index(staging.offsets[input]));
    return hopper::sharedAt(
        b, area, arith::IndexCastOp::create(b, b.getI32Type(), offset));
  }
  /// One chunk's vector loads at flat index `first`, each element bound to
  /// its column (from `firstCol` on); returns the chunk's columns.
  SmallVector<Value> loadChunk(const Chunking &chunks, ArrayRef<Value> lead,
                               ArrayRef<int64_t> full, Value firstCol,
                               Value first);
  /// The columns of row `row` (its flat index over the leading dims) that
  /// lane `lane` of the row's `group` threads takes: the columns before the
  /// row's first chunk boundary one by one, then whole chunks (one vector
  /// load of each chunked input, bound per column, in a scope of their own),
  /// then the ragged rest one by one; `carried` values thread through.
  /// With `perLane` > 0 `fn` runs on the lane's fixed chunks in order
  /// instead: `fixed` (loaded by the caller) or, if empty, ones loaded here
  /// in a scope of their own.
  LogicalResult overColumns(const Chunking &chunks, int64_t cols, Value row,
                            ArrayRef<Value> lead, ArrayRef<int64_t> full,
                            Value lane, int64_t group,
                            SmallVector<Value> &carried, ColumnsFn fn,
                            int64_t perLane = 0,
                            ArrayRef<FixedChunk> fixed = {});

  /// A reduction across the rows of a row kernel: a column sum (over every
  /// dim but the last) or a total (over every dim).
  struct Across {
    nv::ReduceOp reduce;
    Combiner comb;
    bool perColumn;
    unsigned output;         // the kernel output that yields it
    int64_t offset;          // of its per-block partials in the workspace
  };
  /// The last blocks to finish fold the blocks' partials of `across` (in
  /// the workspace, `grid` rows each) into the results, by
  /// rowfold::foldPlan; the counters and partials are left zeroed.
  LogicalResult foldAcrossBlocks(gpu::GPUFuncOp func, ArrayRef<Across> across,
                                 Value workspace, int64_t grid, int64_t threads,
                                 int64_t cols);
  /// Writes each block's partials of `across` (`acc`: per column sum its
  /// thread's slots, per total its thread's share) and lets the last block
  /// to finish combine them in block order. With fixed chunks the block's
  /// rows combine their column sums in `scratch` (shared, `scratchBytes`;
  /// null or too small: a buffer of their own).
  LogicalResult combineAcrossBlocks(gpu::GPUFuncOp func,
                                    ArrayRef<Across> across,
                                    ArrayRef<Value> acc, Value workspace,
                                    int64_t grid, int64_t threads, int64_t cols,
                                    int64_t slots, int64_t group,
                                    int64_t perLane, int64_t chunkWidth,
                                    Value scratch, int64_t scratchBytes);
  gpu::AddressSpaceAttr shared() {
    return gpu::AddressSpaceAttr::get(b.getContext(),
                                      gpu::AddressSpace::Workgroup);
  }
  /// Stores `values` (outputs evaluated earlier) from one thread each:
  /// the one whose `leader` is 0 where `valid`, and for a scalar output
  /// (which the contract keeps independent of the rows or columns) the one
  /// at `position` 0.
  void storeFromLeaders(ArrayRef<std::pair<unsigned, Value>> values,
                        Value position, Value valid, Value leader,
                        function_ref<SmallVector<Value>(Value)> pointOf) {
    auto isZero = [&](Value x) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x,
                                   body.index(0));
    };
    for (const auto &[i, x] : values) {
      Value first = arith::AndIOp::create(
          b,
          k.contract.results[i].kind == AccessKind::Scalar ? isZero(position)
                                                           : valid,
          isZero(leader));
      unsigned out = i;
      Value value = x;
      (void)k.ifThen(first, [&] {
        k.storeValue(out, value, pointOf(k.outputs()[out]));
        return success();
      });
    }
  }
  /// The address of element `at` (index) of a `type` array at shared
  /// `base`.
  Value scratchAt(Value base, Type type, Value at) {
    return LLVM::GEPOp::create(
        b, base.getType(), type, base,
        ArrayRef<LLVM::GEPArg>{
            arith::IndexCastOp::create(b, b.getI32Type(), at).getResult()});
  }
  /// Orders this thread's global writes before its later ones for the
  /// whole device (membar.gl).
  void fenceDevice() { NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU); }
  /// An i32 constant.
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(int32_t(v)));
  }
  /// 0 or 1 for batch `index`: the parity of its ordinal among the
  /// block's batches (blockId, blockId + grid, ...), the stage or phase
  /// that alternates batch by batch.
  Value batchParity(Value index, int64_t grid) {
    return arith::RemUIOp::create(
        b,
        arith::DivUIOp::create(b, arith::SubIOp::create(b, index, k.blockId()),
                               body.index(grid)),
        body.index(2));
  }
  /// Thread 0 draws a ticket from `counters[slot]` (after the block's
  /// fence and barrier) and shares `keep(ticket)` (an i32) with the block
  /// through shared memory; every thread gets it.
  Value drawTicket(gpu::GPUFuncOp func, Value isThread0, Value counters,
                   Value slot, function_ref<Value(Value ticket)> keep) {
    Value zero = body.index(0);
    Value kept = func.addWorkgroupAttribution(
        MemRefType::get({1}, b.getI32Type(), AffineMap(), shared()),
        b.getLoc());
    (void)k.ifThen(isThread0, [&] {
      Value one = arith::ConstantOp::create(b, b.getI32IntegerAttr(1));
      Value ticket = memref::AtomicRMWOp::create(
          b, arith::AtomicRMWKind::addi, one, counters, ValueRange{slot});
      memref::StoreOp::create(b, keep(ticket), kept, ValueRange{zero});
      return success();
    });
    gpu::BarrierOp::create(b);
    return memref::LoadOp::create(b, kept, ValueRange{zero});
  }
  /// True, for every thread of the block, in the block that draws ticket
  /// `last` of `counters[slot]`: the last to finish, which sees every
  /// block's partials.
  Value drawLastTicket(gpu::GPUFuncOp func, Value isThread0, Value counters,
                       Value slot, int64_t last) {
    Value flag =
        drawTicket(func, isThread0, counters, slot, [&](Value ticket) -> Value {
          return arith::ExtUIOp::create(
              b, b.getI32Type(),
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::eq, ticket,
                  arith::ConstantOp::create(b, b.getI32IntegerAttr(last))));
        });
    return arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne, flag,
        arith::ConstantOp::create(b, b.getI32IntegerAttr(0)));
  }

  /// A wide row read more than once, staged in shared memory: the first
  /// read (`fill`) loads each chunk from global memory and keeps a copy at
  /// the same column of the thread's row area `row` (each chunked input at
  /// its `offsets` byte), the later passes load the copy. A lane takes the
  /// same chunks in every pass, so it only reads back its own stores: no
  /// barrier. Stores wait in `pending` until the chunks loaded together
  /// have all been issued (a store right after its load would stall the
  /// next load behind it).
  struct Staging {
    Value row; // !llvm.ptr<3>; null: rows are not staged
    SmallVector<int64_t> offsets;
    bool fill = true;
    SmallVector<std::pair<Value, Value>> pending; // (vector, address)
    /// Rows copied in segments (segment s: overColumns' round s of
    /// kChunksInFlight chunks a lane, the last one the chunks after the
    /// whole rounds): a pass with `waitFor` waits for each segment's copy
    /// before it reads the segment; one with `release` hands each segment
    /// on (to the next row's copy) once it has read it. `rest` is true for
    /// the chunks after the whole rounds. `segments` counts them all.
    std::function<void(Value segment, bool rest)> waitFor, release;
    int64_t segments = 0;
  };
  Staging staging;
  void flushStaged() {
    for (auto [vec, at] : staging.pending)
      LLVM::StoreOp::create(b, vec, at, /*alignment=*/16);
    staging.pending.clear();
  }
  /// `acc` combined with the chunk's values `xs` (widened, in column
  /// order). A 16-bit row kernel (BodyEmitter::approxF32) folds a chunk's
  /// f32 terms of an f64 sum in f32 first: at most 8 terms, whose f32
  /// rounding stays far below the bf16 inputs' precision, and one
  /// f32-to-f64 conversion per chunk instead of one per element (the
  /// conversions bounded the classifier's rate). So does an f32 row kernel
  /// under fast-f32-math (BodyEmitter::fastF32): a chunk's 4 f32 terms
  /// round within 3 f32 ulp of the sum of their magnitudes.
  /// A max or min folds the chunk as a tree, then into `acc` (the same
  /// result in any order, a third of the chain's depth at 8 columns).
  Value foldChunk(const Combiner &comb, Value acc, ArrayRef<Value> xs) {
    bool inF32 = body.approximateF32Arithmetic() &&
                 comb.kind == nv::ReduceKind::sum && comb.accType.isF64() &&
                 xs.size() > 1;
    bool exact = comb.kind != nv::ReduceKind::sum;
    if (!inF32 && !(exact && xs.size() > 2)) {
      for (Value x : xs)
        acc = comb.combine(b, b.getLoc(), acc, body.convert(x, comb.accType));
      return acc;
    }
    Combiner part{comb.kind, inF32 ? b.getF32Type() : comb.accType};
    SmallVector<Value> level;
    for (Value x : xs)
      level.push_back(body.convert(x, part.accType));
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2)
        next.push_back(part.combine(b, b.getLoc(), level[i], level[i + 1]));
      if (level.size() % 2)
        next.push_back(level.back());
      level = std::move(next);
    }
    return comb.combine(b, b.getLoc(), acc,
                        body.convert(level.front(), comb.accType));
  }

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
};

ReductionEmitter::Chunking ReductionEmitter::chunking(ArrayRef<int64_t> full) {
  Chunking c;
  // The row stride of a full-shape buffer: its padded pitch, or its width.
  auto strideOf = [&](Value buffer) {
    int64_t pitch = rowPitchOf(buffer);
    return pitch ? pitch : full.back();
  };
  // The full-shape buffers that 16-byte chunks could serve.
  auto chunkableInput = [&](BlockArgument arg) {
    return !arg.use_empty() && shapeOf(arg) == full &&
           vectorizable(elementOf(arg));
  };
  auto chunkableOutput = [&](unsigned i) {
    Value v = k.outputs()[i];
    return shapeOf(v) == full && vectorizable(elementOf(v)) &&
           k.contract.results[i].kind == AccessKind::Elementwise;
  };
  // One stride for every chunked buffer: a padded one where any is (its
  // rows start on a chunk boundary), else the width.
  c.stride = full.back();
  for (BlockArgument arg : k.block().getArguments())
    if (chunkableInput(arg) && rowPitchOf(body.input(arg)))
      c.stride = rowPitchOf(body.input(arg));
  for (unsigned i = 0, e = k.outputs().size(); i < e; ++i)
    if (chunkableOutput(i) && rowPitchOf(k.outputBuffers[i]))
      c.stride = rowPitchOf(k.outputBuffers[i]);
  unsigned widest = 0;
  for (BlockArgument arg : k.block().getArguments())
    if (chunkableInput(arg) && strideOf(body.input(arg)) == c.stride) {
      c.inputs.push_back({arg, Value()});
      widest = std::max(widest, elementOf(arg).getIntOrFloatBitWidth());
    }
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    bool chunked =
        chunkableOutput(i) && strideOf(k.outputBuffers[i]) == c.stride;
    c.outputs.push_back(chunked ? Value(v) : Value());
    if (chunked)
      widest = std::max(widest, elementOf(v).getIntOrFloatBitWidth());
  }
  if (widest == 0 || full.back() < 2)
    return Chunking{};
  c.width = std::max<int64_t>(1, 128 / widest);
  for (auto &[arg, flat] : c.inputs)
    flat = flattenPadded(b, body.input(arg));
  for (auto [i, v] : llvm::enumerate(c.outputs))
    if (v)
      v = flattenPadded(b, k.outputBuffers[i]);
  return c;
}

SmallVector<Value> ReductionEmitter::loadChunk(const Chunking &chunks,
                                               ArrayRef<Value> lead,
                                               ArrayRef<int64_t> full,
                                               Value firstCol, Value first) {
  int64_t w = chunks.width;
  SmallVector<Value> colsOfChunk;
  for (int64_t l = 0; l < w; ++l)
    colsOfChunk.push_back(
        l ? arith::AddIOp::create(b, firstCol, body.index(l)).getResult()
          : firstCol);
  for (auto [i, input] : llvm::enumerate(chunks.inputs)) {
    auto [arg, flat] = input;
    Type element = elementOf(arg);
    auto type = VectorType::get({w}, element);
    int64_t bytes = w * element.getIntOrFloatBitWidth() / 8;
    Value at;
    if (staging.row)
      at = stagedAt(staging.row, i, firstCol, bytes / w);
    Value vec;
    if (staging.row && !staging.fill) {
      vec = LLVM::LoadOp::create(b, type, at, /*alignment=*/bytes);
    } else {
      vec = vector::LoadOp::create(b, type, flat, ValueRange{first},
                                   /*nontemporal=*/false,
                                   llvm::MaybeAlign(bytes));
      if (staging.row)
        staging.pending.push_back({vec, at});
    }
    for (auto [l, col] : llvm::enumerate(colsOfChunk))
      body.bind(arg, pointIndex(arg, full, lead, col),
                vector::ExtractOp::create(b, vec, int64_t(l)));
  }
  return colsOfChunk;
}

void ReductionEmitter::prefetchBatch(const Chunking &chunks, Value index,
                                     int64_t rowsPerBlock, Value rowInBlock,
                                     int64_t rows, int64_t cols, Value lane,
                                     int64_t group, int64_t perLane,
                                     ArrayRef<Value> globalBase, Value area) {
  int64_t w = chunks.width, count = cols / w;
  // Rows past the last copy the last one again, as batch() reads them.
  Value row = arith::MinUIOp::create(
      b,
      arith::AddIOp::create(
          b, arith::MulIOp::create(b, index, body.index(rowsPerBlock)),
          rowInBlock),
      body.index(rows - 1));
  Value rowStart = arith::MulIOp::create(b, row, body.index(chunks.stride));
  for (int64_t j = 0; j < perLane; ++j) {
    auto [chunk, active] = fixedChunk(lane, j, group, count);
    whereActive(active, [&, chunk = chunk] {
      Value firstCol = arith::MulIOp::create(b, chunk, body.index(w));
      Value first = arith::AddIOp::create(b, rowStart, firstCol);
      for (auto [i, input] : llvm::enumerate(chunks.inputs)) {
        int64_t element = elementOf(input.first).getIntOrFloatBitWidth() / 8;
        Value dst = stagedAt(area, i, firstCol, element);
        Value src = LLVM::GEPOp::create(
            b, globalBase[i].getType(), b.getI8Type(), globalBase[i],
            ArrayRef<LLVM::GEPArg>{
                arith::IndexCastOp::create(
                    b, b.getI64Type(),
                    arith::MulIOp::create(b, first, body.index(element)))
                    .getResult()});
        int64_t bytes = w * element;
        // .cg (L2 only) takes 16-byte copies; smaller ones go through L1.
        NVVM::CpAsyncOp::create(b, dst, src, bytes,
                                bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                            : NVVM::LoadCacheModifierKind::CA,
                                Value());
      }
      return success();
    });
  }
}

void ReductionEmitter::copyRowBytes(const Chunking &chunks, unsigned input,
                                    Value row, Value from, int64_t bytes,
                                    Value globalBase, Value block,
                                    int64_t areaOffset, Value barrier) {
  int64_t element =
      elementOf(chunks.inputs[input].first).getIntOrFloatBitWidth() / 8;
  Value at = arith::AddIOp::create(
      b, arith::MulIOp::create(b, row, body.index(chunks.stride * element)),
      from);
  Value src = LLVM::GEPOp::create(
      b, globalBase.getType(), b.getI8Type(), globalBase,
      ArrayRef<LLVM::GEPArg>{
          arith::IndexCastOp::create(b, b.getI64Type(), at).getResult()});
  Value dst = hopper::sharedAt(
      b, block,
      arith::IndexCastOp::create(
          b, b.getI32Type(),
          arith::AddIOp::create(
              b, body.index(areaOffset + staging.offsets[input]), from)));
  NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
      b, hopper::toCluster(b, dst), src, barrier, i32(bytes), Value(), Value());
}

void ReductionEmitter::bulkCopyBatch(const Chunking &chunks, Value index,
                                     int64_t rowsPerBlock, int64_t rows,
                                     int64_t cols, int64_t grid,
                                     Value isThread0,
                                     ArrayRef<Value> globalBase, Value block,
                                     int64_t area, Value barrier) {
  SmallVector<int64_t> bytesOf;
  int64_t total = 0;
  for (auto [arg, flat] : chunks.inputs) {
    int64_t element = elementOf(arg).getIntOrFloatBitWidth() / 8;
    bytesOf.push_back(element);
    total += rowsPerBlock * llvm::alignTo(cols * element, 16);
  }
  gpu::BarrierOp::create(b);
  (void)k.ifThen(
      isThread0, [&] {
        NVVM::MBarrierArriveExpectTxOp::create(b, Type(), barrier, i32(total),
                                               NVVM::MemScopeKind::CTA, false,
                                               Value());
        for (int64_t r = 0; r < rowsPerBlock; ++r) {
          Value row = arith::MinUIOp::create(
              b,
              arith::AddIOp::create(
                  b, arith::MulIOp::create(b, index, body.index(rowsPerBlock)),
                  body.index(r)),
              body.index(rows - 1));
          for (auto [i, element] : llvm::enumerate(bytesOf))
            copyRowBytes(chunks, i, row, body.index(0),
                         llvm::alignTo(cols * element, 16), globalBase[i],
                         block, r * area, barrier);
        }
        return success();
      });
  hopper::waitParity(
      b, barrier,
      arith::IndexCastOp::create(b, b.getI32Type(), batchParity(index, grid)));
}

SmallVector<ReductionEmitter::FixedChunk> ReductionEmitter::loadFixedChunks(
    const Chunking &chunks, int64_t cols, Value row, ArrayRef<Value> lead,
    ArrayRef<int64_t> full, Value lane, int64_t group, int64_t perLane) {
  int64_t w = chunks.width;
  assert(cols % w == 0 && chunks.stride % w == 0 &&
         "fixed chunks need chunk-aligned rows");
  int64_t count = cols / w;
  Value rowStart = arith::MulIOp::create(b, row, body.index(chunks.stride));
  SmallVector<FixedChunk> taken;
  for (int64_t j = 0; j < perLane; ++j) {
    auto [chunk, active] = fixedChunk(lane, j, group, count);
    if (active)
      chunk = arith::MinUIOp::create(b, chunk, body.index(count - 1));
    Value firstCol = arith::MulIOp::create(b, chunk, body.index(w));
    Value first = arith::AddIOp::create(b, rowStart, firstCol);
    taken.push_back(
        {loadChunk(chunks, lead, full, firstCol, first), first, active});
  }
  return taken;
}

LogicalResult
ReductionEmitter::overColumns(const Chunking &chunks, int64_t cols, Value row,
                              ArrayRef<Value> lead, ArrayRef<int64_t> full,
                              Value lane, int64_t group,
                              SmallVector<Value> &carried, ColumnsFn fn,
                              int64_t perLane, ArrayRef<FixedChunk> fixed) {
  if (perLane > 0) {
    bool own = fixed.empty();
    SmallVector<FixedChunk> loaded;
    if (own) {
      body.pushScope();
      loaded =
          loadFixedChunks(chunks, cols, row, lead, full, lane, group, perLane);
      fixed = loaded;
    }
    LogicalResult r = success();
    for (const FixedChunk &chunk : fixed)
      if (failed(r = fn(chunk.cols, chunk.first, chunk.active, carried)))
        break;
    if (own)
      body.popScope();
    return r;
  }
  int64_t w = chunks.width;
  // for (i = lb; i < ub; i += step) body(i) threading `carried`.
  auto loop = [&](Value lb, Value ub, Value step,
                  function_ref<LogicalResult(Value, SmallVector<Value> &)> item)
      -> LogicalResult {
    auto forOp = scf::ForOp::create(b, lb, ub, step, carried);
    OpBuilder::InsertionGuard guard(b);
    if (carried.empty())
      b.setInsertionPoint(forOp.getBody()->getTerminator());
    else
      b.setInsertionPointToStart(forOp.getBody());
    body.pushScope();
    SmallVector<Value> inner(forOp.getRegionIterArgs());
    LogicalResult r = item(forOp.getInductionVar(), inner);
    body.popScope();
    if (failed(r))
      return failure();
    if (!carried.empty())
      scf::YieldOp::create(b, inner);
    carried.assign(forOp.getResults().begin(), forOp.getResults().end());
    return success();
  };
  auto single = [&](Value col, SmallVector<Value> &inner) {
    return fn(col, Value(), Value(), inner);
  };
  Value step = body.index(group);
  if (w == 1)
    return loop(lane, body.index(cols), step, single);
  // Columns [0, head) precede the row's first chunk boundary; the chunks
  // end at `tail`.
  Value rowStart = arith::MulIOp::create(b, row, body.index(chunks.stride));
  Value head = body.index(0), count = body.index(cols / w);
  if (chunks.stride % w) {
    Value misaligned = arith::RemUIOp::create(b, rowStart, body.index(w));
    head = arith::MinUIOp::create(
        b,
        arith::RemUIOp::create(
            b, arith::SubIOp::create(b, body.index(w), misaligned),
            body.index(w)),
        body.index(cols));
    count = arith::DivUIOp::create(
        b, arith::SubIOp::create(b, body.index(cols), head), body.index(w));
    if (failed(loop(lane, head, step, single)))
      return failure();
  }
  auto chunkAt = [&](Value chunk) {
    Value firstCol = arith::AddIOp::create(
        b, head, arith::MulIOp::create(b, chunk, body.index(w)));
    Value first = arith::AddIOp::create(b, rowStart, firstCol);
    return std::make_pair(loadChunk(chunks, lead, full, firstCol, first),
                          first);
  };
  // While every lane has kChunksInFlight chunks left, it loads them all
  // before using any (the loads in flight together), in the same order.
  Value rest = lane;
  std::optional<int64_t> knownCount = getConstantIntValue(count);
  int64_t round = kChunksInFlight * group;
  if (!knownCount || *knownCount >= round) {
    Value rounds = arith::DivUIOp::create(b, count, body.index(round));
    LogicalResult ok =
        loop(body.index(0), rounds, body.index(1),
             [&](Value r, SmallVector<Value> &inner) -> LogicalResult {
               if (staging.waitFor)
                 staging.waitFor(r, false);
               Value base = arith::AddIOp::create(
                   b, arith::MulIOp::create(b, r, body.index(round)), lane);
               SmallVector<std::pair<SmallVector<Value>, Value>> taken;
               for (int64_t u = 0; u < kChunksInFlight; ++u)
                 taken.push_back(chunkAt(
                     u ? arith::AddIOp::create(b, base, body.index(u * group))
                             .getResult()
                       : base));
               flushStaged();
               for (auto &[colsOfChunk, first] : taken)
                 if (failed(fn(colsOfChunk, first, Value(), inner)))
                   return failure();
               if (staging.release)
                 staging.release(r, false);
               return success();
             });
    if (failed(ok))
      return failure();
    rest = arith::AddIOp::create(
        b, arith::MulIOp::create(b, rounds, body.index(round)), lane);
  }
  // The chunks after the whole rounds: the last segment of segmented rows
  // (whose count is known), if any.
  bool segmented = staging.waitFor || staging.release;
  assert((!segmented || knownCount) &&
         "segmented rows start on chunk boundaries");
  assert((!segmented ||
          llvm::divideCeil(*knownCount, round) == staging.segments) &&
         "the rounds here are the row's segments");
  Value lastSegment;
  if (segmented && *knownCount % round)
    lastSegment = body.index(*knownCount / round);
  if (lastSegment && staging.waitFor)
    staging.waitFor(lastSegment, true);
  LogicalResult ok =
      loop(rest, count, step,
           [&](Value chunk, SmallVector<Value> &inner) -> LogicalResult {
             auto [colsOfChunk, first] = chunkAt(chunk);
             flushStaged();
             return fn(colsOfChunk, first, Value(), inner);
           });
  if (succeeded(ok) && lastSegment && staging.release)
    staging.release(lastSegment, true);
  if (failed(ok) || (cols % w == 0 && chunks.stride % w == 0))
    return ok;
  Value tail = arith::AddIOp::create(
      b, head, arith::MulIOp::create(b, count, body.index(w)));
  return loop(arith::AddIOp::create(b, tail, lane), body.index(cols), step,
              single);
}

/// A row kernel with totals across its rows (no column sums) loops over its
/// rows on this many threads per SM, a whole number of blocks per SM: three
/// blocks of 256 keep 396 rows in flight, 40 MB of GPT-2's 100 KB logits
/// rows, so a row's second read still finds it in the 50 MB L2.
constexpr int64_t kRowThreadsPerSM = 768;
/// The workspace of a row kernel with sums across its rows (at most
/// kMaxAcrossBlocks blocks): the ticket counters at 0 (the final one, then
/// one per group of blocks), each sum's partials from kPartialsOffset on.
constexpr int64_t kPartialsOffset = 256, kPartialsAlign = 256;
/// Narrow rows with column sums: at most this many chunks per lane, and
/// this many 32-bit registers of column sums per thread; the block's rows
/// combine their sums through this many bytes of shared memory.
constexpr int64_t kMaxChunksPerLane = 8, kSumRegisters = 96,
                  kCombineBytes = 32 * 1024;
/// Rows without column sums: at most this many 32-bit registers of a
/// lane's fixed chunks (the row kept in registers across the passes).
constexpr int64_t kRowRegisters = 64;
/// Staged rows: at most stagedBlockBytes of shared memory a block, so two
/// blocks share an SM (half of its shared memory less 4 KB for the
/// driver's reserve and the block's static shared memory: 110 KB of the
/// H200's 228). A wider row, up to stagedAloneBytes (a block's opt-in
/// dynamic shared memory less kSharedPerBlockExtra for its static shared
/// memory: 224 KB of the H200's 227), is staged by a block alone on its
/// SM, of kStagedAloneThreads threads: the TF32 step's 201 KB classifier
/// rows ran 2729 us on 256 threads, 2134 on 512 (bench/RESULTS.md); 1024
/// would leave 64 registers a thread.
constexpr int64_t kSharedPerBlockExtra = 3 * 1024, kStagedAloneThreads = 512;
static int64_t stagedAloneBytes(const ::nova::DeviceDescriptor &target) {
  return int64_t(target.smemPerBlock) - kSharedPerBlockExtra;
}
static int64_t stagedBlockBytes(const ::nova::DeviceDescriptor &target) {
  return std::min<int64_t>(
      llvm::alignDown(int64_t(target.smemPerSM) / 2 - 4 * 1024, 1024),
      stagedAloneBytes(target));
}

/// A total over every dim of select(iota(last dim) == j, v, 0) with j one
/// integer a row (a label; either side of the eq): each row holds at most
/// one term, v at column j, none where j lies outside the row. The
/// cross-entropy loss is such a total; summing it over every column costs
/// a compare, a select and an add an element.
struct OneHot {
  Value value, column; // v, j
};
/// j where `cmp` is iota(last dim) == j (either side) with one integer j a
/// row: true at column j of each row alone. Null otherwise.
Value oneHotColumn(nv::CmpOp cmp, ArrayRef<int64_t> full) {
  if (!cmp || cmp.getPredicate() != nv::CmpPredicate::eq)
    return {};
  SmallVector<int64_t> perRow(full);
  perRow.back() = 1;
  for (auto [a, c] : {std::pair(cmp.getLhs(), cmp.getRhs()),
                      std::pair(cmp.getRhs(), cmp.getLhs())}) {
    // The iota's values are the column indices: an i32 iota (the narrowest
    // nova.iota admits) wraps only past 2^31 columns.
    auto iota = a.getDefiningOp<nv::IotaOp>();
    auto type = dyn_cast<IntegerType>(elementOf(a));
    if (iota && int64_t(iota.getDim()) == int64_t(full.size()) - 1 &&
        shapeOf(a) == full && type &&
        (type.getWidth() >= 64 ||
         uint64_t(full.back()) <= (uint64_t(1) << (type.getWidth() - 1))) &&
        shapeOf(c) == ArrayRef<int64_t>(perRow))
      return c;
  }
  return {};
}
std::optional<OneHot> oneHotTerm(nv::ReduceOp sum, ArrayRef<int64_t> full) {
  auto select = sum.getInput().getDefiningOp<nv::SelectOp>();
  auto cmp =
      select ? select.getCondition().getDefiningOp<nv::CmpOp>() : nv::CmpOp();
  if (sum.getKind() != nv::ReduceKind::sum || sum.getKeepDims() ||
      int64_t(sum.getDims().size()) != int64_t(full.size()) || !cmp ||
      shapeOf(select.getOnTrue()) != full)
    return std::nullopt;
  // The false value: a zero splat.
  auto zero = select.getOnFalse().getDefiningOp<nv::ConstantOp>();
  auto dense =
      zero ? dyn_cast<DenseElementsAttr>(zero.getValue()) : DenseElementsAttr();
  auto isZero = [](Attribute x) {
    if (auto f = dyn_cast<FloatAttr>(x))
      return f.getValue().isZero();
    auto i = dyn_cast<IntegerAttr>(x);
    return i && i.getValue().isZero();
  };
  if (!dense || !dense.isSplat() || !isZero(dense.getSplatValue<Attribute>()))
    return std::nullopt;
  if (Value column = oneHotColumn(cmp, full))
    return OneHot{select.getOnTrue(), column};
  return std::nullopt;
}

/// The row max that a row sum of exp(x - max) shifts by, where x is the
/// max's own input (softmax, log_softmax, the loss): both fold in one read
/// of the row, the sum rescaled by exp(old - new) when the running max
/// grows. Null for any other sum.
nv::ReduceOp shiftingMax(nv::ReduceOp sum) {
  if (sum.getKind() != nv::ReduceKind::sum)
    return {};
  auto exp = sum.getInput().getDefiningOp<nv::ExpOp>();
  auto shift = exp ? exp.getInput().getDefiningOp<nv::SubOp>() : nv::SubOp();
  auto max =
      shift ? shift.getRhs().getDefiningOp<nv::ReduceOp>() : nv::ReduceOp();
  if (!max || max.getKind() != nv::ReduceKind::max ||
      max.getInput() != shift.getLhs() || max.getDims() != sum.getDims())
    return {};
  return max;
}
} // namespace

FailureOr<Geometry> ReductionEmitter::row(gpu::GPUFuncOp func) {
  SmallVector<nv::ReduceOp> all;
  auto fullOr = reducedShape(all);
  if (failed(fullOr))
    return k.unsupported();
  SmallVector<int64_t> full = *fullOr;
  ArrayRef<int64_t> lead = ArrayRef<int64_t>(full).drop_back();
  int64_t rows = product(lead), cols = full.back();
  if (rows == 0 || cols == 0)
    return k.fail("empty rows are not lowered yet");
  // Reductions along each row, and across the rows (column sums over the
  // leading dims, totals over every dim): the latter are complete only once
  // every row is done, so the contract lets them only be yielded.
  SmallVector<nv::ReduceOp> reduces;
  SmallVector<Across> across;
  int64_t last = full.size() - 1;
  for (nv::ReduceOp reduce : all) {
    ArrayRef<int64_t> dims = reduce.getDims();
    if (dims == ArrayRef<int64_t>{last} &&
        shapeOf(reduce.getInput()) == ArrayRef<int64_t>(full)) {
      reduces.push_back(reduce);
      continue;
    }
    Across a{reduce, Combiner::of(reduce),
             int64_t(dims.size()) != int64_t(shapeOf(reduce.getInput()).size()),
             0, 0};
    for (auto [i, v] : llvm::enumerate(k.outputs()))
      if (v == reduce.getResult())
        a.output = i;
    across.push_back(a);
  }
  bool columnSums =
      llvm::any_of(across, [](const Across &a) { return a.perColumn; });

  // Full rows in 16-byte chunks where the shapes allow.
  Chunking chunks = chunking(full);
  int64_t threads = k.schedule.getThreads();
  // A power-of-two group of threads per row: a warp or less shuffles only,
  // more combines the warps through shared memory.
  int64_t rowsPerBlock = std::max<int64_t>(1, k.schedule.getTile().front());
  int64_t group =
      llvm::PowerOf2Ceil(std::max<int64_t>(1, threads / rowsPerBlock));
  // Column sums of narrow rows that start on chunk boundaries: a group of
  // a warp or a few per row, several rows per block, each lane taking
  // fixed chunks (perLane of them, loaded together) and keeping the column
  // sums of exactly those chunks' columns in registers, so every value it
  // sums is one it already read, and it never touches another lane's
  // columns. The group is the smallest whose lanes' sums fit the register
  // budget.
  int64_t perLane = 0, sumWords = 0, sumBytes = 0;
  for (const Across &a : across)
    if (a.perColumn) {
      int64_t bits = a.comb.accType.getIntOrFloatBitWidth();
      sumWords += std::max<int64_t>(1, bits / 32);
      sumBytes = std::max<int64_t>(sumBytes, std::max<int64_t>(1, bits / 8));
    }
  int64_t w = chunks.width;
  // Rows without column sums whose chunks fit take fixed chunks too, in the
  // schedule's group: the row is read once into registers and every pass
  // and output works from there.
  if (w > 1 && cols % w == 0 && chunks.stride % w == 0) {
    int64_t count = cols / w;
    // Of the groups whose sums fit, the smallest that still fills the
    // schedule's block with rows whose sums the block can combine (below):
    // the first layer's LayerNorm backward (two sums of 768 columns) took
    // 32-lane groups of six chunks, five rows, 160 threads, and ran 1.15-1.38x
    // slower than its three-sum siblings on 256 (bench/RESULTS.md).
    int64_t fitting = 0, fittingLanes = 0;
    for (int64_t g = 32; columnSums && g <= 1024 && !perLane; g *= 2) {
      int64_t n = (count + g - 1) / g;
      if (n > kMaxChunksPerLane || n * w * sumWords > kSumRegisters)
        continue;
      if (!fitting) {
        fitting = g;
        fittingLanes = n;
      }
      int64_t blockRows = std::max<int64_t>(1, threads / g);
      if (blockRows * cols * sumBytes <= kCombineBytes) {
        group = g;
        perLane = n;
      }
    }
    if (columnSums && !perLane && fitting) {
      group = fitting;
      perLane = fittingLanes;
    }
    int64_t chunkWords = 0; // 32-bit registers a chunk of the inputs holds
    for (auto [arg, flat] : chunks.inputs)
      chunkWords += llvm::divideCeil(
          w * int64_t(elementOf(arg).getIntOrFloatBitWidth()), 32);
    int64_t n = (count + group - 1) / group;
    if (!columnSums && n <= kMaxChunksPerLane &&
        n * chunkWords <= kRowRegisters)
      perLane = n;
  }
  if (perLane && columnSums) {
    // The block's rows combine their sums through shared memory, one sum
    // at a time.
    rowsPerBlock = std::max<int64_t>(1, threads / group);
    while (rowsPerBlock > 1 && rowsPerBlock * cols * sumBytes > kCombineBytes)
      --rowsPerBlock;
  } else if (columnSums) {
    // Otherwise one row at a time per block, each thread keeping the sums
    // of its columns (cols / group of them) in registers over the rows.
    group = std::max<int64_t>(32, llvm::PowerOf2Ceil(threads));
    while (group < 1024 && cols > 8 * group)
      group *= 2;
  }
  group = std::min<int64_t>(group, 1024);
  if (!perLane || !columnSums)
    rowsPerBlock = columnSums ? 1 : std::max<int64_t>(1, threads / group);
  threads = group * rowsPerBlock;
  int64_t warpsPerRow = std::max<int64_t>(1, group / 32);
  int64_t batches = (rows + rowsPerBlock - 1) / rowsPerBlock;
  Value partials;
  // The reductions along the rows in passes: each joins the first pass
  // after every reduction its input reads, so independent ones share one
  // read of the row (and one exchange between the warps).
  // A total across the rows of an element-wise value rides along too: its
  // thread's share of a row is folded in the same read.
  // A sum of exp(x - max) joins its max's pass (online) unless something
  // else it reads comes later.
  struct Pass {
    SmallVector<nv::ReduceOp> reduces;
    SmallVector<int> maxOf;       // per reduce: its online max's index, or -1
    SmallVector<unsigned> totals; // indices into `across`
  };
  SmallVector<Pass> passes;
  {
    DenseMap<Operation *, size_t> passOf;
    auto passFor = [&](Value input, Operation *skip) {
      size_t pass = 0;
      for (Operation *read : reducesRead(input))
        if (auto it = passOf.find(read); it != passOf.end() && read != skip)
          pass = std::max(pass, it->second + 1);
      if (passes.size() <= pass)
        passes.resize(pass + 1);
      return pass;
    };
    for (nv::ReduceOp reduce : reduces) {
      nv::ReduceOp max = shiftingMax(reduce);
      auto maxPass = max ? passOf.find(max) : passOf.end();
      size_t pass = passFor(reduce.getInput(), max);
      int maxIndex = -1;
      if (maxPass != passOf.end()) {
        if (pass <= maxPass->second) {
          pass = maxPass->second;
          maxIndex = llvm::find(passes[pass].reduces, max) -
                     passes[pass].reduces.begin();
        } else {
          pass = std::max(pass, maxPass->second + 1);
        }
      }
      passOf[reduce] = pass;
      passes[pass].reduces.push_back(reduce);
      passes[pass].maxOf.push_back(maxIndex);
    }
    for (auto [i, a] : llvm::enumerate(across)) {
      Value input = nv::ReduceOp(a.reduce).getInput();
      if (!a.perColumn && shapeOf(input) == ArrayRef<int64_t>(full) &&
          !oneHotTerm(a.reduce, full))
        passes[passFor(input, nullptr)].totals.push_back(unsigned(i));
    }
  }
  // Totals that read the last reductions along the rows ride with the
  // outputs' read of the row, not one of their own, where every lane reads
  // its whole row there (not with fixed chunks).
  bool rowOutputs =
      llvm::any_of(llvm::enumerate(k.outputs()), [&](const auto &indexed) {
        unsigned i = indexed.index();
        return k.contract.results[i].kind == AccessKind::Elementwise &&
               llvm::none_of(across,
                             [&](const Across &a) { return a.output == i; });
      });
  SmallVector<unsigned> withOutputs;
  if (!perLane && rowOutputs && passes.size() > 1 &&
      passes.back().reduces.empty()) {
    withOutputs = passes.back().totals;
    passes.pop_back();
  }
  // A 16-bit row kernel: approximate exp and division, chunk sums in f32.
  {
    auto narrow = [](Type t) { return t.isBF16() || t.isF16(); };
    bool anyFull = false, allNarrow = true;
    for (BlockArgument arg : k.block().getArguments())
      if (!arg.use_empty() && shapeOf(arg) == ArrayRef<int64_t>(full) &&
          isa<FloatType>(elementOf(arg))) {
        anyFull = true;
        allNarrow &= narrow(elementOf(arg));
      }
    for (auto [i, v] : llvm::enumerate(k.outputs()))
      if (k.contract.results[i].kind == AccessKind::Elementwise &&
          isa<FloatType>(elementOf(v)))
        allNarrow &= narrow(elementOf(v));
    body.approxF32 = anyFull && allNarrow;
  }
  // A row's area in shared memory: each chunked input's row at a
  // 16-byte-aligned offset.
  auto rowArea = [&](SmallVector<int64_t> &offsets) {
    int64_t area = 0;
    for (auto [arg, flat] : chunks.inputs) {
      offsets.push_back(area);
      area += llvm::alignTo(llvm::alignTo(cols, w) *
                                (elementOf(arg).getIntOrFloatBitWidth() / 8),
                            16);
    }
    return area;
  };
  // A wide row read more than once (a pass per reduction level, one for
  // the outputs) is staged in shared memory by its first read.
  int64_t stagedBytes = 0;
  if (k.options.stageRows && !columnSums && !perLane && w > 1 &&
      chunks.stride % w == 0 && passes.size() + (rowOutputs ? 1 : 0) >= 2) {
    SmallVector<int64_t> offsets;
    int64_t area = rowArea(offsets);
    if (area * rowsPerBlock <= stagedBlockBytes(k.target)) {
      stagedBytes = area * rowsPerBlock;
      staging.offsets = offsets;
    } else if (rowsPerBlock == 1 && area <= stagedAloneBytes(k.target)) {
      stagedBytes = area;
      staging.offsets = offsets;
      group = threads = std::max(group, kStagedAloneThreads);
      warpsPerRow = group / 32;
    }
  }
  // Rows with column sums in fixed chunks keep their sums in registers and
  // read the row once per pass: their next batch is prefetched by cp.async
  // into shared memory (two stages of the block's rows), so a block always
  // has a batch in flight while it works on the one before, and every pass
  // reads the landed copy. A lane copies and reads only its own chunks,
  // so its own cp.async.wait_group orders them: no barrier. (Three stages,
  // two batches ahead, measured slower: the bf16 LayerNorm backward 66.8 us
  // against 64.9 with two.)
  int64_t prefetchArea = 0;
  if (k.options.stageRows && perLane && columnSums) {
    SmallVector<int64_t> offsets;
    int64_t area = rowArea(offsets);
    bool copyable = llvm::all_of(chunks.inputs, [&](const auto &input) {
      int64_t bytes = w * elementOf(input.first).getIntOrFloatBitWidth() / 8;
      return bytes == 4 || bytes == 8 || bytes == 16;
    });
    if (copyable && !chunks.inputs.empty() &&
        2 * area * rowsPerBlock <= stagedBlockBytes(k.target)) {
      prefetchArea = area;
      staging.offsets = offsets;
    }
  }
  // With sums across the rows, a bounded grid loops over the rows, so at
  // most kMaxAcrossBlocks partials fold per column sum. Totals alone (a
  // word per block) fold cheaply: the grid fills every SM with the same
  // number of blocks, enough rows in flight to cover the memory latency,
  // as many as the staged rows let share an SM.
  int64_t blocksPerSM = std::max<int64_t>(1, kRowThreadsPerSM / threads);
  if (stagedBytes)
    blocksPerSM = std::max<int64_t>(
        1, std::min(blocksPerSM,
                    int64_t(k.target.smemPerSM) /
                        (stagedBytes + kSharedPerBlockExtra)));
  // Staged blocks share an SM by their shared memory: ptxas must leave
  // them registers for as many.
  if (stagedBytes)
    func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(int32_t(blocksPerSM)));
  int64_t acrossBlocks =
      columnSums ? kMaxAcrossBlocks : k.target.sms * blocksPerSM;
  int64_t grid =
      across.empty() ? batches : std::min<int64_t>(batches, acrossBlocks);
  if (batches <= grid)
    prefetchArea = 0; // one batch a block: nothing to overlap
  size_t widestPass = 1;
  for (const Pass &pass : passes)
    widestPass = std::max(widestPass, pass.reduces.size());
  if (warpsPerRow > 1) {
    partials = func.addWorkgroupAttribution(
        MemRefType::get({int64_t(widestPass) * (threads / 32)}, b.getF64Type(),
                        AffineMap(), shared()),
        b.getLoc());
  }
  // Workspace: the fold's counters, then each sum's partials per block.
  Value workspace;
  int64_t workspaceBytes = kPartialsOffset;
  for (Across &a : across) {
    int64_t rowBytes =
        (a.perColumn ? cols : 1) *
        std::max<int64_t>(1, a.comb.accType.getIntOrFloatBitWidth() / 8);
    a.offset = workspaceBytes;
    workspaceBytes += llvm::alignTo(grid * rowBytes, kPartialsAlign);
  }
  if (!across.empty())
    workspace = k.addWorkspace(workspaceBytes);

  Value tid = k.threadId();
  Value lane = arith::RemUIOp::create(b, tid, body.index(group));
  Value rowInBlock = arith::DivUIOp::create(b, tid, body.index(group));
  // Staged rows whose starts are 16-byte aligned arrive by bulk copies
  // (cp.async.bulk, one per input row, issued by thread 0 and completing on
  // an mbarrier after the staged rows): the block's whole rows in flight at
  // once, where the lanes' own loads kept a few chunks each.
  bool bulkRows = stagedBytes && k.options.bulkRows &&
                  llvm::all_of(chunks.inputs, [&](const auto &input) {
                    int64_t bytes =
                        elementOf(input.first).getIntOrFloatBitWidth() / 8;
                    return chunks.stride * bytes % 16 == 0;
                  });
  // One row a block with full-row outputs: the row arrives in segments,
  // each on an mbarrier of its own, and the first pass starts on a segment
  // as soon as it lands; the outputs pass hands each segment to the copy of
  // the block's next row once every thread has read it, so that row's copy
  // overlaps this row's outputs (a row of 201 KB leaves no room for a
  // second one). Segment s is a round of overColumns (kChunksInFlight
  // chunks a lane), the last the chunks after the whole rounds (the rest);
  // the columns after the last whole chunk are read from global memory.
  // Per input, the bytes of a round's segment and of the rest's (16-byte
  // multiples).
  SmallVector<int64_t> roundBytes, restBytes;
  int64_t segments = 0, roundTotal = 0, restTotal = 0;
  bool restSegment = false;
  if (bulkRows && rowsPerBlock == 1 && rowOutputs) {
    int64_t count = cols / w, round = kChunksInFlight * group;
    segments = staging.segments = llvm::divideCeil(count, round);
    restSegment = count % round != 0;
    for (auto [arg, flat] : chunks.inputs) {
      int64_t chunkBytes = w * elementOf(arg).getIntOrFloatBitWidth() / 8;
      roundBytes.push_back(round * chunkBytes);
      restBytes.push_back(
          llvm::alignTo((count - (segments - 1) * round) * chunkBytes, 16));
      roundTotal += roundBytes.back();
      restTotal += restBytes.back();
    }
  }
  int64_t barrierBytes =
      bulkRows ? llvm::alignTo(8 * std::max<int64_t>(1, segments), 16) : 0;
  assert(stagedBytes + barrierBytes <= int64_t(k.target.smemPerBlock) &&
         "within a block's dynamic shared memory");
  Value stagedBlock, bulkBarrier, isThread0;
  if (stagedBytes) {
    stagedBlock = hopper::dynamicSharedMemory(k, stagedBytes + barrierBytes);
    staging.row = hopper::sharedAt(
        b, stagedBlock,
        arith::IndexCastOp::create(
            b, b.getI32Type(),
            arith::MulIOp::create(b, rowInBlock,
                                  body.index(stagedBytes / rowsPerBlock))));
  }
  // Each chunked input's global address, where copied asynchronously.
  SmallVector<Value> globalBase;
  if (bulkRows || prefetchArea)
    for (auto [arg, flat] : chunks.inputs)
      globalBase.push_back(globalAddress(flat));
  // Segment `s`'s mbarrier (the only one of unsegmented rows).
  auto segmentBarrier = [&](Value s) {
    return hopper::sharedAt(
        b, stagedBlock,
        arith::IndexCastOp::create(
            b, b.getI32Type(),
            arith::AddIOp::create(b, body.index(stagedBytes),
                                  arith::MulIOp::create(b, s, body.index(8)))));
  };
  // Thread 0's copy of segment `s` (the rest's where `rest`) of row `row`
  // (one row a block).
  auto copySegment = [&](Value row, Value s, bool rest) {
    Value barrier = segmentBarrier(s);
    NVVM::MBarrierArriveExpectTxOp::create(
        b, Type(), barrier, i32(rest ? restTotal : roundTotal),
        NVVM::MemScopeKind::CTA, false, Value());
    for (auto [i, base] : llvm::enumerate(globalBase))
      copyRowBytes(chunks, i, row,
                   arith::MulIOp::create(b, s, body.index(roundBytes[i])),
                   rest ? restBytes[i] : roundBytes[i], base, stagedBlock, 0,
                   barrier);
  };
  if (bulkRows) {
    bulkBarrier = segmentBarrier(body.index(0));
    isThread0 =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, body.index(0));
    (void)k.ifThen(isThread0, [&] {
      for (int64_t s = 0; s < std::max<int64_t>(1, segments); ++s)
        NVVM::MBarrierInitOp::create(b, segmentBarrier(body.index(s)), i32(1),
                                     Value());
      NVVM::FenceMbarrierInitOp::create(b);
      // Segmented rows: the block's first row from the start.
      Value first =
          arith::MinUIOp::create(b, k.blockId(), body.index(rows - 1));
      for (int64_t s = 0; s < segments; ++s)
        copySegment(first, body.index(s), restSegment && s == segments - 1);
      return success();
    });
    gpu::BarrierOp::create(b);
  }
  // Prefetched rows: this thread's row area in stage 0 (stage 1 follows the
  // block's rows of stage 0).
  Value prefetchBlock, prefetchRow;
  int64_t stageBytes = prefetchArea * rowsPerBlock;
  if (prefetchArea) {
    prefetchBlock = hopper::dynamicSharedMemory(k, 2 * stageBytes);
    prefetchRow = hopper::sharedAt(
        b, prefetchBlock,
        arith::IndexCastOp::create(
            b, b.getI32Type(),
            arith::MulIOp::create(b, rowInBlock, body.index(prefetchArea))));
  }
  // Slots of a thread's column sums: columns lane, lane + group, ...; with
  // fixed chunks the columns of its chunks (chunk-major).
  int64_t slots = perLane ? perLane * w : (cols + group - 1) / group;
  auto slotColumn = [&](int64_t j) {
    return arith::AddIOp::create(b, lane, body.index(j * group));
  };
  auto below = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x,
                                 body.index(bound));
  };
  // An online sum of exp(x - from) rescaled to exp(x - to): times
  // exp(from - to), or 1 where the max did not move (also -inf to -inf,
  // whose difference is NaN). A select: a branch that skips the exp where
  // the max stays measured no faster on the TF32 classifier (1839 against
  // 1828 us).
  auto rescaled = [&](Value sum, Value from, Value to) -> Value {
    Value same = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, from, to);
    Value factor = arith::SelectOp::create(
        b, same,
        arith::ConstantOp::create(b, b.getFloatAttr(from.getType(), 1.0)),
        body.exponential(arith::SubFOp::create(b, from, to),
                         body.approximateF32Arithmetic() &&
                             from.getType().isF32()));
    return arith::MulFOp::create(b, sum, body.convert(factor, sum.getType()));
  };

  // One batch of rows (rowsPerBlock of them, one per group); folds the
  // batch's share of the sums across the rows into `acc`.
  auto batch = [&](Value index, SmallVector<Value> &acc) -> LogicalResult {
    Value row = arith::AddIOp::create(
        b, arith::MulIOp::create(b, index, body.index(rowsPerBlock)),
        rowInBlock);
    Value valid = below(row, rows);
    // Threads past the last row compute the last row again (every thread
    // must reach the barriers) and store nothing.
    Value clamped = arith::MinUIOp::create(b, row, body.index(rows - 1));
    SmallVector<Value> leadIdx = body.delinearize(clamped, lead);
    // Without column sums, fixed chunks hold the lane's whole share of the
    // row, read once before the first pass: every pass and output works
    // from registers. With column sums each pass reads them again (from
    // L1): the sums' registers leave no room to keep the row.
    SmallVector<FixedChunk> fixed;
    if (perLane && !columnSums)
      fixed = loadFixedChunks(chunks, cols, clamped, leadIdx, full, lane, group,
                              perLane);

    // Each pass of reductions once per row, in order: what follows may read
    // them. One read of the row folds the pass's reductions (each in its
    // own accumulator, columns in the same order as alone).
    DenseMap<unsigned, Value> rowShares; // of the totals across the rows
    // The first pass reads the row from global memory, unless prefetched
    // or copied in bulk.
    if (bulkRows && !segments)
      bulkCopyBatch(chunks, index, rowsPerBlock, rows, cols, grid, isThread0,
                    globalBase, stagedBlock, stagedBytes / rowsPerBlock,
                    bulkBarrier);
    staging.fill = !prefetchArea && !bulkRows;
    // Segmented rows: the first pass waits for each segment, in this
    // batch's phase (its ordinal's parity).
    Value phase;
    if (segments) {
      phase = arith::IndexCastOp::create(b, b.getI32Type(),
                                         batchParity(index, grid));
      staging.waitFor = [&](Value s, bool) {
        hopper::waitParity(b, segmentBarrier(s), phase);
      };
    }
    llvm::scope_exit resetHooks([&] {
      staging.waitFor = nullptr;
      staging.release = nullptr;
    });
    for (const Pass &passInfo : passes) {
      // The pass's reductions, then its totals across the rows.
      SmallVector<nv::ReduceOp> pass(passInfo.reduces);
      for (unsigned i : passInfo.totals)
        pass.push_back(across[i].reduce);
      SmallVector<Combiner> combs;
      SmallVector<Value> totals;
      for (nv::ReduceOp reduce : pass) {
        combs.push_back(Combiner::of(reduce));
        totals.push_back(combs.back().identity(b, b.getLoc()));
      }
      auto maxOf = [&](size_t j) {
        return j < passInfo.maxOf.size() ? passInfo.maxOf[j] : -1;
      };
      LogicalResult ok = overColumns(
          chunks, cols, clamped, leadIdx, full, lane, group, totals,
          [&](ArrayRef<Value> colsOf, Value, Value active,
              SmallVector<Value> &carried) -> LogicalResult {
            SmallVector<Value> before(carried);
            auto columnsOf = [&](Value input) {
              return widenedAt(input, full, leadIdx, colsOf);
            };
            for (auto [j, reduce] : llvm::enumerate(pass)) {
              if (maxOf(j) >= 0)
                continue;
              auto xs = columnsOf(nv::ReduceOp(reduce).getInput());
              if (failed(xs))
                return k.unsupported();
              carried[j] = foldChunk(combs[j], carried[j], *xs);
            }
            // Online sums: these columns' exp(x - max) against the max
            // with them, the sum so far rescaled to it.
            for (auto [j, reduce] : llvm::enumerate(pass)) {
              int m = maxOf(j);
              if (m < 0)
                continue;
              Value max = pass[m].getResult();
              body.setUniform(max, body.convert(carried[m], elementOf(max)));
              // What the running max gives serves this chunk's sum alone:
              // fixed chunks stay bound across the passes, and a later
              // pass must see the row's max.
              body.pushScope();
              auto xs = columnsOf(nv::ReduceOp(reduce).getInput());
              body.popScope();
              if (failed(xs))
                return k.unsupported();
              Value chunk =
                  foldChunk(combs[j], combs[j].identity(b, b.getLoc()), *xs);
              carried[j] = combs[j].combine(
                  b, b.getLoc(), rescaled(carried[j], before[m], carried[m]),
                  chunk);
            }
            if (active)
              for (auto [now, old] : llvm::zip(carried, before))
                now = arith::SelectOp::create(b, active, now, old);
            return success();
          },
          perLane, fixed);
      staging.waitFor = nullptr;
      if (failed(ok))
        return failure();
      staging.fill = false;
      for (auto [i, share] : llvm::zip(
               passInfo.totals,
               ArrayRef<Value>(totals).drop_front(passInfo.reduces.size())))
        rowShares[i] = share;
      combs.truncate(passInfo.reduces.size());
      totals.truncate(passInfo.reduces.size());
      pass.truncate(passInfo.reduces.size());
      // The row's threads combine `which` of the totals: shuffles within
      // a warp, then the warps through shared memory.
      auto exchange = [&](ArrayRef<size_t> which) -> LogicalResult {
        for (size_t j : which)
          totals[j] = shuffleReduce(b, combs[j], totals[j],
                                    std::min<int64_t>(group, 32));
        if (warpsPerRow == 1 || which.empty())
          return success();
        // Lane 0 of each warp publishes; every thread folds its row's warps
        // in order (deterministic), then the buffer is free again.
        int64_t warps = threads / 32;
        Value warp = arith::DivUIOp::create(b, tid, body.index(32));
        Value first = arith::CmpIOp::create(
            b, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(b, tid, body.index(32)), body.index(0));
        for (size_t j : which)
          if (!isa<FloatType>(combs[j].accType))
            return k.fail("integer reductions over more than a warp per row "
                          "are not lowered yet");
        (void)k.ifThen(first, [&] {
          for (auto [slot, j] : llvm::enumerate(which))
            memref::StoreOp::create(
                b, body.convert(totals[j], b.getF64Type()), partials,
                ValueRange{arith::AddIOp::create(
                    b, warp, body.index(int64_t(slot) * warps))});
          return success();
        });
        gpu::BarrierOp::create(b);
        Value rowWarp0 =
            arith::MulIOp::create(b, rowInBlock, body.index(warpsPerRow));
        for (auto [slot, j] : llvm::enumerate(which)) {
          Combiner wide{combs[j].kind, b.getF64Type()};
          Value acc =
              body.convert(combs[j].identity(b, b.getLoc()), b.getF64Type());
          for (int64_t w = 0; w < warpsPerRow; ++w) {
            Value x = memref::LoadOp::create(
                b, partials,
                ValueRange{arith::AddIOp::create(
                    b, rowWarp0, body.index(int64_t(slot) * warps + w))});
            acc = wide.combine(b, b.getLoc(), acc, x);
          }
          totals[j] = body.convert(acc, combs[j].accType);
        }
        gpu::BarrierOp::create(b);
        return success();
      };
      // The maxes first; each thread's online sum then rescaled from its
      // own max to the row's before they combine.
      SmallVector<size_t> plain, online;
      for (size_t j = 0; j < totals.size(); ++j)
        (maxOf(j) < 0 ? plain : online).push_back(j);
      SmallVector<Value> threadTotals(totals);
      if (failed(exchange(plain)))
        return failure();
      for (size_t j : online)
        totals[j] =
            rescaled(totals[j], threadTotals[maxOf(j)], totals[maxOf(j)]);
      if (failed(exchange(online)))
        return failure();
      for (auto [reduce, total] : llvm::zip(pass, totals)) {
        Value result = nv::ReduceOp(reduce).getResult();
        body.setUniform(result, body.convert(total, elementOf(result)));
      }
    }

    // This batch's share of the sums across the rows, before any output is
    // stored: an output may be planned in place over an input they read
    // (the logits' gradient over the logits).
    unsigned next = 0;
    auto foldAt = [&](unsigned slot, const Across &a, Value take, Value x) {
      Value wide = body.convert(body.widen(x), a.comb.accType);
      Value sum = a.comb.combine(b, b.getLoc(), acc[slot], wide);
      acc[slot] = arith::SelectOp::create(b, take, sum, acc[slot]);
    };
    auto fold = [&](const Across &a, Value take, Value x) {
      foldAt(next++, a, take, x);
    };
    SmallVector<unsigned> withOutputsSlots;
    for (const Across &a : across) {
      Value input = nv::ReduceOp(a.reduce).getInput();
      ArrayRef<int64_t> shape = shapeOf(input);
      if (a.perColumn || shape == ArrayRef<int64_t>(full)) {
        if (llvm::is_contained(withOutputs, unsigned(&a - across.data()))) {
          // Folded with the outputs (below).
          withOutputsSlots.push_back(next++);
          continue;
        }
        if (auto term = oneHotTerm(a.reduce, full); term && !a.perColumn) {
          // A one-hot total: the row's one term, v at column j (after
          // every reduction along the row it reads), from its lane 0.
          auto j = body.eval(term->column, pointIndex(term->column, full,
                                                      leadIdx, body.index(0)));
          if (failed(j))
            return k.unsupported();
          Type type = j->getType();
          Value inRow = arith::AndIOp::create(
              b,
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::sge, *j,
                  arith::ConstantOp::create(b, IntegerAttr::get(type, 0))),
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::slt, *j,
                  arith::ConstantOp::create(b, IntegerAttr::get(type, cols))));
          Value col = arith::SelectOp::create(
              b, inRow, arith::IndexCastOp::create(b, b.getIndexType(), *j),
              body.index(0));
          auto x = body.eval(term->value,
                             pointIndex(term->value, full, leadIdx, col));
          if (failed(x))
            return k.unsupported();
          Value take = arith::AndIOp::create(
              b, arith::AndIOp::create(b, valid, inRow),
              arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                    body.index(0)));
          fold(a, take, *x);
          continue;
        }
        if (!a.perColumn) {
          // A total of an element-wise value: the thread's columns first
          // (folded in a pass above).
          fold(a, valid, rowShares.lookup(unsigned(&a - across.data())));
          continue;
        }
        if (perLane) {
          // Summed with the outputs, chunk by chunk (below).
          next += slots;
          continue;
        }
        for (int64_t j = 0; j < slots; ++j) {
          Value col = slotColumn(j);
          Value safe = arith::MinUIOp::create(b, col, body.index(cols - 1));
          auto x = body.eval(input, pointIndex(input, full, leadIdx, safe));
          if (failed(x))
            return k.unsupported();
          fold(a, arith::AndIOp::create(b, valid, below(col, cols)), *x);
        }
        continue;
      }
      // A total of a per-row value counts each row once (lane 0), of a
      // single element once (row 0).
      Value once = product(shape) == 1
                       ? arith::CmpIOp::create(b, arith::CmpIPredicate::eq, row,
                                               body.index(0))
                       : valid;
      once = arith::AndIOp::create(
          b, once,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lane,
                                body.index(0)));
      auto x =
          body.eval(input, pointIndex(input, full, leadIdx, body.index(0)));
      if (failed(x))
        return k.unsupported();
      fold(a, once, *x);
    }

    // A thread's column sums read columns lane, lane + group, ... while
    // the chunked stores below write other threads' columns: with an
    // output planned in place over a summed input, every read must land
    // before any store (the block handles one row at a time here). Fixed
    // chunks need no barrier: every pass, every sum and every store of a
    // lane touches only its own chunks' columns, each chunk read before
    // it is stored, and no other lane reads or writes them.
    if (columnSums && chunks.width > 1 && !perLane)
      gpu::BarrierOp::create(b);

    // The row's own values that the full-row outputs read (a per-row
    // input, a scale, a function of the row's sums), each evaluated once
    // before the outputs' pass rather than at every chunk (the loads of
    // those the pass stores past could not be hoisted out of it).
    SetVector<Value> read; // what the full-row outputs read
    {
      SmallVector<Value> work;
      for (auto [i, v] : llvm::enumerate(k.outputs()))
        if (k.contract.results[i].kind == AccessKind::Elementwise)
          work.push_back(v);
      while (!work.empty()) {
        Value v = work.pop_back_val();
        if (!read.insert(v) || body.isUniform(v))
          continue;
        if (Operation *op = v.getDefiningOp())
          llvm::append_range(work, op->getOperands());
      }
    }
    SmallVector<Value> rowValues;
    for (Value v : read) {
      ArrayRef<int64_t> shape = shapeOf(v);
      bool perRow = shape.size() <= full.size() &&
                    (shape.empty() || shape.back() == 1 ||
                     shape == ArrayRef<int64_t>(full).drop_back()) &&
                    !body.isUniform(v) && !v.getDefiningOp<nv::ReduceOp>();
      if (!perRow || shape == ArrayRef<int64_t>(full))
        continue;
      auto x = body.eval(v, pointIndex(v, full, leadIdx, body.index(0)));
      if (failed(x))
        return k.unsupported();
      body.setUniform(v, *x);
      rowValues.push_back(v);
    }

    // Outputs: full rows by every lane in one pass, then per-row ones from
    // lane 0; sums across the rows after the last batch. An output may be
    // planned in place over an input that another output reads, so every
    // value at a point is evaluated before any store there: the per-row
    // values first (stored once every lane has read the row), each
    // column's outputs all together.
    SmallVector<unsigned> elementwise;
    SmallVector<std::pair<unsigned, Value>> perRow;
    for (auto [i, v] : llvm::enumerate(k.outputs())) {
      if (llvm::any_of(across, [&](const Across &a) { return a.output == i; }))
        continue;
      if (k.contract.results[i].kind == AccessKind::Elementwise) {
        elementwise.push_back(i);
        continue;
      }
      auto x = body.eval(v, pointIndex(v, full, leadIdx, body.index(0)));
      if (failed(x))
        return k.unsupported();
      perRow.push_back({unsigned(i), *x});
    }
    // The column sums' slots in `acc`, with fixed chunks.
    SmallVector<std::pair<const Across *, unsigned>> sumSlots;
    for (unsigned i = 0, at = 0; i < across.size(); ++i) {
      if (across[i].perColumn && perLane)
        sumSlots.push_back({&across[i], at});
      at += across[i].perColumn ? slots : 1;
    }
    // One-hot compares (iota == j, one j a row, such as the classifier's
    // labels against the columns) with their row's j as an index (a j
    // outside the row matches no chunk).
    SmallVector<std::pair<Value, Value>> oneHots;
    for (auto cmp : k.block().getOps<nv::CmpOp>()) {
      Value column = oneHotColumn(cmp, full);
      if (!column || !read.contains(cmp.getResult()) ||
          shapeOf(cmp.getResult()) != ArrayRef<int64_t>(full))
        continue;
      auto j =
          body.eval(column, pointIndex(column, full, leadIdx, body.index(0)));
      if (failed(j))
        return k.unsupported();
      oneHots.push_back({cmp.getResult(),
                         arith::IndexCastOp::create(b, b.getIndexType(), *j)});
    }
    // Fixed chunks come to `chunkOutputs` in order, once each per row: the
    // k-th call sums into the lane's k-th chunk's slots.
    int64_t ordinal = 0;
    auto chunkOutputs = [&](ArrayRef<Value> colsOf, Value first, Value active,
                            SmallVector<Value> &carried) -> LogicalResult {
      SmallVector<SmallVector<Value>> values(elementwise.size());
      auto evalOutputs = [&]() -> LogicalResult {
        for (auto [j, i] : llvm::enumerate(elementwise))
          for (Value col : colsOf) {
            Value v = k.outputs()[i];
            auto x = body.eval(v, pointIndex(v, full, leadIdx, col));
            if (failed(x))
              return k.unsupported();
            values[j].push_back(*x);
          }
        return success();
      };
      if (oneHots.empty() || elementwise.empty() || colsOf.size() < 2) {
        if (failed(evalOutputs()))
          return failure();
      } else {
        // A chunk without any one-hot column (all but one chunk a row)
        // takes the outputs with those compares false.
        Value hit;
        for (auto [cmp, column] : oneHots) {
          Value in = arith::CmpIOp::create(
              b, arith::CmpIPredicate::ult,
              arith::SubIOp::create(b, column, colsOf.front()),
              body.index(int64_t(colsOf.size())));
          hit = hit ? arith::OrIOp::create(b, hit, in).getResult() : in;
        }
        SmallVector<Type> types;
        for (unsigned i : elementwise)
          types.append(colsOf.size(), elementOf(k.outputs()[i]));
        auto ifOp = scf::IfOp::create(b, types, hit, /*withElseRegion=*/true);
        for (bool without : {false, true}) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(without ? ifOp.elseBlock()
                                             : ifOp.thenBlock());
          body.pushScope();
          if (without)
            for (auto [cmp, column] : oneHots)
              for (Value col : colsOf)
                body.bind(cmp, pointIndex(cmp, full, leadIdx, col),
                          arith::ConstantOp::create(b, b.getBoolAttr(false)));
          for (auto &vs : values)
            vs.clear();
          LogicalResult ok = evalOutputs();
          body.popScope();
          if (failed(ok))
            return failure();
          SmallVector<Value> yielded;
          for (auto &vs : values)
            yielded.append(vs);
          scf::YieldOp::create(b, yielded);
        }
        auto results = ifOp.getResults();
        for (auto [j, vs] : llvm::enumerate(values))
          for (auto [l, x] : llvm::enumerate(vs))
            x = results[j * colsOf.size() + l];
      }
      // The totals riding along, read before any store here.
      for (auto [q, i] : llvm::enumerate(withOutputs)) {
        const Across &a = across[i];
        auto xs =
            widenedAt(nv::ReduceOp(a.reduce).getInput(), full, leadIdx, colsOf);
        if (failed(xs))
          return k.unsupported();
        carried[q] = foldChunk(a.comb, carried[q], *xs);
      }
      // The chunk's share of the column sums (this lane's own columns).
      if (perLane) {
        Value take = active && !sumSlots.empty()
                         ? arith::AndIOp::create(b, valid, active)
                         : valid;
        for (auto [a, at] : sumSlots) {
          Value input = nv::ReduceOp(a->reduce).getInput();
          for (auto [l, col] : llvm::enumerate(colsOf)) {
            auto x = body.eval(input, pointIndex(input, full, leadIdx, col));
            if (failed(x))
              return k.unsupported();
            Value &slot = acc[at + ordinal * colsOf.size() + l];
            Value sum =
                a->comb.combine(b, b.getLoc(), slot,
                                body.convert(body.widen(*x), a->comb.accType));
            slot = arith::SelectOp::create(b, take, sum, slot);
          }
        }
        ++ordinal;
      }
      auto store = [&]() -> LogicalResult {
        for (auto [j, i] : llvm::enumerate(elementwise)) {
          for (Value x : values[j])
            k.checkFinite(i, x);
          Value v = k.outputs()[i];
          if (first && chunks.outputs[i]) {
            Type element = elementOf(v);
            int64_t w = int64_t(colsOf.size());
            Value vec = vector::FromElementsOp::create(
                b, VectorType::get({w}, element), values[j]);
            vector::StoreOp::create(
                b, vec, chunks.outputs[i], ValueRange{first},
                /*nontemporal=*/false,
                llvm::MaybeAlign(w * element.getIntOrFloatBitWidth() / 8));
            continue;
          }
          for (auto [col, x] : llvm::zip(colsOf, values[j]))
            memref::StoreOp::create(b, x, k.outputBuffers[i],
                                    pointIndex(v, full, leadIdx, col));
        }
        return success();
      };
      if (!perLane)
        return withOutputs.empty() ? store() : k.ifThen(valid, store);
      // Every lane reads its chunks (a clamped row or chunk again); only
      // real ones store.
      return k.ifThen(active ? arith::AndIOp::create(b, valid, active) : valid,
                      store);
    };
    // Segmented rows: once every thread has read a segment in the outputs
    // pass (the last to read the row), thread 0 copies the block's next
    // row's segment there. Blocks without a next row (a grid of every
    // batch) need no barrier. The barrier sits in the outputs pass, which
    // may run under `valid`: uniform here, as a block takes one row a
    // batch and every batch it takes holds a row.
    if (segments && grid < batches) {
      assert(rowsPerBlock == 1 && "one row a batch: `valid` is uniform");
      Value next = arith::AddIOp::create(b, index, body.index(grid));
      Value copies = arith::AndIOp::create(b, isThread0, below(next, batches));
      staging.release = [&, next, copies](Value s, bool rest) {
        gpu::BarrierOp::create(b);
        (void)k.ifThen(copies, [&] {
          copySegment(next, s, rest);
          return success();
        });
      };
    }
    if (perLane) {
      SmallVector<Value> none;
      if (failed(overColumns(chunks, cols, clamped, leadIdx, full, lane, group,
                             none, chunkOutputs, perLane, fixed)))
        return failure();
      assert(ordinal == perLane && "one call per fixed chunk, in order");
      if (!perRow.empty())
        gpu::BarrierOp::create(b);
    } else if (!elementwise.empty() && !withOutputs.empty()) {
      // Every thread reads its row (a clamped one again) for the totals;
      // only valid rows store.
      SmallVector<Value> shares;
      for (unsigned i : withOutputs)
        shares.push_back(across[i].comb.identity(b, b.getLoc()));
      if (failed(overColumns(chunks, cols, clamped, leadIdx, full, lane, group,
                             shares, chunkOutputs)))
        return failure();
      for (auto [slot, i, share] :
           llvm::zip(withOutputsSlots, withOutputs, shares))
        foldAt(slot, across[i], valid, share);
      if (!perRow.empty())
        gpu::BarrierOp::create(b);
    } else if (!elementwise.empty()) {
      LogicalResult ok = k.ifThen(valid, [&]() -> LogicalResult {
        SmallVector<Value> none;
        return overColumns(chunks, cols, clamped, leadIdx, full, lane, group,
                           none, chunkOutputs);
      });
      if (failed(ok))
        return failure();
      if (!perRow.empty())
        gpu::BarrierOp::create(b);
    }
    // Per-row outputs from each row's lane 0.
    storeFromLeaders(perRow, row, valid, lane, [&](Value v) {
      return pointIndex(v, full, leadIdx, body.index(0));
    });
    for (Value v : rowValues)
      body.clearUniform(v);
    return success();
  };

  SmallVector<Value> acc;
  for (const Across &a : across)
    for (int64_t j = 0, n = a.perColumn ? slots : 1; j < n; ++j)
      acc.push_back(a.comb.identity(b, b.getLoc()));
  if (across.empty()) {
    if (failed(batch(k.blockId(), acc)))
      return failure();
    return Geometry{grid, threads};
  }
  // The row area of prefetch stage `stage` (0 or 1, index).
  auto stageRow = [&](Value stage) {
    return hopper::sharedAt(
        b, prefetchRow,
        arith::IndexCastOp::create(
            b, b.getI32Type(),
            arith::MulIOp::create(b, stage, body.index(stageBytes))));
  };
  if (prefetchArea) {
    prefetchBatch(chunks, k.blockId(), rowsPerBlock, rowInBlock, rows, cols,
                  lane, group, perLane, globalBase, stageRow(body.index(0)));
    NVVM::CpAsyncCommitGroupOp::create(b);
  }
  // Batches blockId, blockId + grid, ...: a fixed set per block, so the
  // partials (and the result) do not depend on timing.
  auto forOp = scf::ForOp::create(b, k.blockId(), body.index(batches),
                                  body.index(grid), acc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body.pushScope();
    Value index = forOp.getInductionVar();
    if (prefetchArea) {
      // This batch landed in stage t % 2 (t its ordinal in the block's
      // batches); the next one goes to the other stage, its group committed
      // even when empty so that waiting for all but one is this batch's.
      Value stage = batchParity(index, grid);
      Value next = arith::AddIOp::create(b, index, body.index(grid));
      Value other = arith::SubIOp::create(b, body.index(1), stage);
      (void)k.ifThen(below(next, batches), [&] {
        prefetchBatch(chunks, next, rowsPerBlock, rowInBlock, rows, cols, lane,
                      group, perLane, globalBase, stageRow(other));
        return success();
      });
      NVVM::CpAsyncCommitGroupOp::create(b);
      NVVM::CpAsyncWaitGroupOp::create(b, 1);
      staging.row = stageRow(stage);
    }
    SmallVector<Value> carried(forOp.getRegionIterArgs());
    LogicalResult ok = batch(index, carried);
    body.popScope();
    if (failed(ok))
      return failure();
    scf::YieldOp::create(b, carried);
  }
  acc.assign(forOp.getResults().begin(), forOp.getResults().end());
  // The prefetch stages are free once every thread is past its last
  // batch: the block's rows combine their column sums there.
  Value scratch;
  int64_t scratchBytes = 0;
  if (prefetchArea) {
    NVVM::CpAsyncWaitGroupOp::create(b, 0);
    gpu::BarrierOp::create(b);
    scratch = prefetchBlock;
    scratchBytes = 2 * stageBytes;
  }
  if (failed(combineAcrossBlocks(func, across, acc, workspace, grid, threads,
                                 cols, slots, group, perLane, w, scratch,
                                 scratchBytes)))
    return failure();
  return Geometry{grid, threads};
}

LogicalResult ReductionEmitter::combineAcrossBlocks(
    gpu::GPUFuncOp func, ArrayRef<Across> across, ArrayRef<Value> acc,
    Value workspace, int64_t grid, int64_t threads, int64_t cols, int64_t slots,
    int64_t group, int64_t perLane, int64_t chunkWidth, Value scratch,
    int64_t scratchBytes) {
  Value tid = k.threadId();
  Value block = k.blockId();
  Value lane = arith::RemUIOp::create(b, tid, body.index(group));
  Value zero = body.index(0);
  Value isThread0 =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, zero);
  Value warp = arith::DivUIOp::create(b, tid, body.index(32));
  Value isLane0 = arith::CmpIOp::create(
      b, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, tid, body.index(32)), zero);

  // 1. Each block's partials: a thread's columns directly (one row per
  // block at a time, so every column has one owner) or, with fixed chunks
  // and several rows per block, each row's sums through shared memory
  // combined in row order; a total through a warp butterfly and the warps
  // in order.
  int64_t rowsPerBlock = threads / group;
  DenseMap<Type, Value> rowSums; // [rowsPerBlock x cols] per sum type
  unsigned next = 0;
  for (const Across &a : across) {
    Type accType = a.comb.accType;
    int64_t width = a.perColumn ? cols : 1;
    Value part = k.workspaceView(workspace, a.offset, {grid, width}, accType);
    auto storePart = [&](Value x, Value col) {
      memref::StoreOp::create(b, x, part, ValueRange{block, col});
    };
    if (a.perColumn && perLane) {
      int64_t bytes = rowsPerBlock * cols * accType.getIntOrFloatBitWidth() / 8;
      Value &buffer = rowSums[accType];
      bool inScratch = scratch && bytes <= scratchBytes;
      if (!buffer && !inScratch)
        buffer = func.addWorkgroupAttribution(
            MemRefType::get({rowsPerBlock * cols}, accType, AffineMap(),
                            shared()),
            b.getLoc());
      // The buffer's element `at` (index).
      auto storeAt = [&](Value x, Value at) {
        if (!inScratch) {
          memref::StoreOp::create(b, x, buffer, ValueRange{at});
          return;
        }
        LLVM::StoreOp::create(b, x, scratchAt(scratch, accType, at));
      };
      auto loadAt = [&](Value at) -> Value {
        if (!inScratch)
          return memref::LoadOp::create(b, buffer, ValueRange{at});
        return LLVM::LoadOp::create(b, accType,
                                    scratchAt(scratch, accType, at));
      };
      Value rowBase = arith::MulIOp::create(
          b, arith::DivUIOp::create(b, tid, body.index(group)),
          body.index(cols));
      int64_t count = cols / chunkWidth;
      for (int64_t j = 0; j < perLane; ++j) {
        auto [chunk, active] = fixedChunk(lane, j, group, count);
        Value firstCol =
            arith::MulIOp::create(b, chunk, body.index(chunkWidth));
        auto storeChunk = [&] {
          for (int64_t l = 0; l < chunkWidth; ++l)
            storeAt(acc[next + j * chunkWidth + l],
                    arith::AddIOp::create(
                        b, rowBase,
                        arith::AddIOp::create(b, firstCol, body.index(l))));
          return success();
        };
        whereActive(active, storeChunk);
      }
      next += slots;
      gpu::BarrierOp::create(b);
      (void)k.loop(tid, body.index(cols), body.index(threads), [&](Value col) {
        Value total = a.comb.identity(b, b.getLoc());
        for (int64_t r = 0; r < rowsPerBlock; ++r)
          total = a.comb.combine(
              b, b.getLoc(), total,
              loadAt(arith::AddIOp::create(b, col, body.index(r * cols))));
        storePart(total, col);
        return success();
      });
      // The buffer is free again for the next sum.
      gpu::BarrierOp::create(b);
      continue;
    }
    if (a.perColumn) {
      for (int64_t j = 0; j < slots; ++j, ++next) {
        Value col = arith::AddIOp::create(b, lane, body.index(j * group));
        (void)k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col,
                                             body.index(cols)),
                       [&] {
                         storePart(acc[next], col);
                         return success();
                       });
      }
      continue;
    }
    Value warpTotal = shuffleReduce(b, a.comb, acc[next++], 32);
    Value warps = func.addWorkgroupAttribution(
        MemRefType::get({threads / 32}, accType, AffineMap(), shared()),
        b.getLoc());
    (void)k.ifThen(isLane0, [&] {
      memref::StoreOp::create(b, warpTotal, warps, ValueRange{warp});
      return success();
    });
    gpu::BarrierOp::create(b);
    (void)k.ifThen(isThread0, [&] {
      Value total = a.comb.identity(b, b.getLoc());
      for (int64_t w = 0; w < threads / 32; ++w)
        total = a.comb.combine(
            b, b.getLoc(), total,
            memref::LoadOp::create(b, warps, ValueRange{body.index(w)}));
      storePart(total, zero);
      return success();
    });
  }

  return foldAcrossBlocks(func, across, workspace, grid, threads, cols);
}

LogicalResult ReductionEmitter::foldAcrossBlocks(gpu::GPUFuncOp func,
                                                 ArrayRef<Across> across,
                                                 Value workspace, int64_t grid,
                                                 int64_t threads,
                                                 int64_t cols) {
  // The items: each sum's columns in 16-byte vectors where its width
  // allows (a total: one word), numbered sum after sum.
  struct Share {
    const Across *a;
    int64_t width, v, firstItem;
  };
  SmallVector<Share> shares;
  int64_t items = 0;
  for (const Across &a : across) {
    int64_t width = a.perColumn ? cols : 1;
    int64_t v = ::nova::rowfold::itemColumns(
        width, a.comb.accType.getIntOrFloatBitWidth() / 8);
    shares.push_back({&a, width, v, items});
    items += width / v;
  }
  FoldPlan plan = foldPlan(grid, items, threads);
  // The folders must be resident together (they wait for the others): the
  // runtime checks the device holds this many blocks at once.
  func->setAttr(kCoResidentBlocksAttr, b.getI64IntegerAttr(plan.folders));

  Value tid = k.threadId();
  Value zero = body.index(0);
  Value isThread0 =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, zero);
  // 2. Every block draws a ticket once its partials are written; the last
  // plan.folders to draw fold. Counter 0 counts the blocks done, counter
  // 1 the folders past their wait (the last of them resets both).
  fenceDevice();
  gpu::BarrierOp::create(b);
  Value counters =
      k.workspaceView(workspace, 0, {kPartialsOffset / 4}, b.getI32Type());
  Value ticket = drawTicket(func, isThread0, counters, zero,
                            [](Value drawn) { return drawn; });
  Value isFolder = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, ticket,
                                         i32(grid - plan.folders));
  return k.ifThen(isFolder, [&]() -> LogicalResult {
    Value folder = arith::IndexCastOp::create(
        b, b.getIndexType(),
        arith::SubIOp::create(b, ticket, i32(grid - plan.folders)));
    // Thread 0 waits until every block has drawn its ticket, polling
    // counter 0 with acquire loads (then every partial is visible).
    (void)k.ifThen(isThread0, [&] {
      Value address = LLVM::IntToPtrOp::create(
          b, LLVM::LLVMPointerType::get(b.getContext(), 1),
          arith::IndexCastOp::create(
              b, b.getI64Type(),
              memref::ExtractAlignedPointerAsIndexOp::create(b, workspace))
              .getResult());
      scf::WhileOp::create(
          b, TypeRange{}, ValueRange{},
          [&](OpBuilder &nb, Location loc, ValueRange) {
            Value done =
                LLVM::InlineAsmOp::create(
                    nb, loc, nb.getI32Type(), ValueRange{address},
                    "ld.acquire.gpu.global.u32 $0, [$1];", "=r,l",
                    /*has_side_effects=*/true, /*is_align_stack=*/false,
                    LLVM::tailcallkind::TailCallKind::None,
                    LLVM::AsmDialectAttr(), ArrayAttr())
                    .getResult(0);
            Value waiting = arith::CmpIOp::create(
                nb, loc, arith::CmpIPredicate::slt, done,
                arith::ConstantOp::create(nb, loc,
                                          nb.getI32IntegerAttr(int32_t(grid))));
            scf::ConditionOp::create(nb, loc, waiting, ValueRange{});
          },
          [&](OpBuilder &nb, Location loc, ValueRange) {
            NVVM::NanosleepOp::create(
                nb, loc,
                arith::ConstantOp::create(nb, loc, nb.getI32IntegerAttr(100)));
            scf::YieldOp::create(nb, loc);
          });
      fenceDevice();
      Value left =
          memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::addi, i32(1),
                                      counters, ValueRange{body.index(1)});
      return k.ifThen(arith::CmpIOp::create(b, arith::CmpIPredicate::eq, left,
                                            i32(plan.folders - 1)),
                      [&] {
                        for (int64_t slot : {0, 1})
                          memref::StoreOp::create(b, i32(0), counters,
                                                  ValueRange{body.index(slot)});
                        return success();
                      });
    });
    gpu::BarrierOp::create(b);

    // 3. The folder's items [folder * perFolder, ...): thread t takes item
    // t % lanes and, with several slices, the rows of slice t / lanes.
    int64_t lanes = std::min(plan.perFolder, threads);
    Value lane = arith::RemUIOp::create(b, tid, body.index(lanes));
    Value slice = arith::DivUIOp::create(b, tid, body.index(lanes));
    Value firstItem =
        arith::MulIOp::create(b, folder, body.index(plan.perFolder));
    auto below = [&](Value x, int64_t bound) -> Value {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x,
                                   body.index(bound));
    };
    // Runs `fn` with the share whose items hold `item` and the item's
    // first column in it.
    auto forShare = [&](Value item,
                        function_ref<void(const Share &, Value col)> fn) {
      for (const Share &s : shares) {
        Value inShare = arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::uge, item,
                                  body.index(s.firstItem)),
            below(item, s.firstItem + s.width / s.v));
        (void)k.ifThen(inShare, [&] {
          fn(s, arith::MulIOp::create(
                    b, arith::SubIOp::create(b, item, body.index(s.firstItem)),
                    body.index(s.v)));
          return success();
        });
      }
    };
    // The rows [first, first + count) of item `item`'s share folded in
    // block order and zeroed (the workspace is left zeroed, as the
    // executable's contract says), kFoldLoads loads in flight; per share
    // whose items hold `item`, `use` takes the share and its totals.
    auto foldItem =
        [&](Value item, Value first, int64_t count,
            function_ref<void(const Share &, Value col, ArrayRef<Value> totals)>
                use) {
          forShare(item, [&](const Share &s, Value col) {
            const Combiner &comb = s.a->comb;
            Value part = k.workspaceView(workspace, s.a->offset,
                                         {grid, s.width}, comb.accType);
            int64_t bytes =
                std::max<int64_t>(1, comb.accType.getIntOrFloatBitWidth() / 8);
            VectorType vec = VectorType::get({s.v}, comb.accType);
            Value zeros = arith::ConstantOp::create(
                b, vec,
                DenseElementsAttr::get(vec, b.getZeroAttr(comb.accType)));
            SmallVector<Value> totals(s.v, comb.identity(b, b.getLoc()));
            for (int64_t r0 = 0; r0 < count; r0 += kFoldLoads) {
              SmallVector<std::pair<Value, Value>> loaded; // (row, valid)
              SmallVector<Value> values;
              for (int64_t r = r0; r < std::min(count, r0 + kFoldLoads); ++r) {
                Value row = arith::AddIOp::create(b, first, body.index(r));
                // Rows of the last slice past the grid's last block read
                // that one (not used, nor zeroed).
                Value valid = grid % count ? below(row, grid) : Value();
                if (valid)
                  row = arith::MinUIOp::create(b, row, body.index(grid - 1));
                loaded.push_back({row, valid});
                values.push_back(vector::LoadOp::create(
                    b, vec, part, ValueRange{row, col}, /*nontemporal=*/false,
                    llvm::MaybeAlign(s.v * bytes)));
              }
              for (auto [row, valid] : loaded)
                whereActive(valid, [&, row = row] {
                  vector::StoreOp::create(b, zeros, part, ValueRange{row, col},
                                          /*nontemporal=*/false,
                                          llvm::MaybeAlign(s.v * bytes));
                  return success();
                });
              for (auto [x, rv] : llvm::zip(values, loaded))
                for (int64_t l = 0; l < s.v; ++l) {
                  Value next = comb.combine(b, b.getLoc(), totals[l],
                                            vector::ExtractOp::create(b, x, l));
                  totals[l] = rv.second ? arith::SelectOp::create(
                                              b, rv.second, next, totals[l])
                                        : next;
                }
            }
            use(s, col, totals);
          });
        };
    // A share's column total into its result.
    auto emit = [&](const Share &s, Value col, ArrayRef<Value> totals) {
      Value result = nv::ReduceOp(s.a->reduce).getResult();
      for (auto [l, total] : llvm::enumerate(totals))
        memref::StoreOp::create(
            b, body.convert(total, elementOf(result)),
            k.outputBuffers[s.a->output],
            body.delinearize(
                l ? arith::AddIOp::create(b, col, body.index(l)).getResult()
                  : col,
                shapeOf(result)));
    };
    if (plan.slices == 1)
      return k.loop(lane, body.index(plan.perFolder), body.index(lanes),
                    [&](Value local) {
                      Value item = arith::AddIOp::create(b, firstItem, local);
                      return k.ifThen(below(item, items), [&] {
                        foldItem(item, zero, grid, emit);
                        return success();
                      });
                    });
    // Several slices: each slice's totals through shared memory (per
    // accumulator type, [slices][lanes][v]), then the slices in order.
    DenseMap<Type, Value> sliceTotals;
    int64_t widest = 1;
    for (const Share &s : shares) {
      widest = std::max(widest, s.v);
      sliceTotals.try_emplace(s.a->comb.accType, Value());
    }
    for (auto &[type, buffer] : sliceTotals) {
      buffer = func.addWorkgroupAttribution(
          MemRefType::get({plan.slices * lanes * widest}, type, AffineMap(),
                          shared()),
          b.getLoc());
      // 16-byte aligned: LLVM merges a thread's adjacent totals into one
      // 16-byte store.
      func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1,
                                       LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(16));
    }
    auto slot = [&](Value sl, int64_t l) {
      return arith::AddIOp::create(
          b,
          arith::MulIOp::create(
              b,
              arith::AddIOp::create(
                  b, arith::MulIOp::create(b, sl, body.index(lanes)), lane),
              body.index(widest)),
          body.index(l));
    };
    Value item = arith::AddIOp::create(b, firstItem, lane);
    Value mine =
        arith::AndIOp::create(b, below(slice, plan.slices), below(item, items));
    (void)k.ifThen(mine, [&] {
      foldItem(
          item, arith::MulIOp::create(b, slice, body.index(plan.rowsPerSlice)),
          plan.rowsPerSlice,
          [&](const Share &s, Value, ArrayRef<Value> totals) {
            for (auto [l, total] : llvm::enumerate(totals))
              memref::StoreOp::create(b, total, sliceTotals[s.a->comb.accType],
                                      ValueRange{slot(slice, l)});
          });
      return success();
    });
    gpu::BarrierOp::create(b);
    Value first = arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, slice, zero),
        below(item, items));
    return k.ifThen(first, [&] {
      forShare(item, [&](const Share &s, Value col) {
        const Combiner &comb = s.a->comb;
        SmallVector<Value> totals(s.v, comb.identity(b, b.getLoc()));
        for (int64_t sl = 0; sl < plan.slices; ++sl)
          for (int64_t l = 0; l < s.v; ++l)
            totals[l] = comb.combine(
                b, b.getLoc(), totals[l],
                memref::LoadOp::create(b, sliceTotals[comb.accType],
                                       ValueRange{slot(body.index(sl), l)}));
        emit(s, col, totals);
      });
      return success();
    });
  });
}

FailureOr<Geometry> ReductionEmitter::column(gpu::GPUFuncOp func) {
  SmallVector<nv::ReduceOp> reduces;
  auto fullOr = reducedShape(reduces);
  if (failed(fullOr))
    return k.unsupported();
  SmallVector<int64_t> full = *fullOr;
  // This emitter combines each column over the leading dims; a reduce that
  // also runs along the last dim (a total, e.g. the count of labels that a
  // mean divides by) spans the columns of every block, which the row
  // emitter's combine across blocks handles.
  int64_t last = int64_t(full.size()) - 1;
  if (llvm::any_of(reduces, [&](nv::ReduceOp reduce) {
        return int64_t(shapeOf(reduce.getInput()).size()) - 1 == last &&
               llvm::is_contained(reduce.getDims(), last);
      })) {
    // row() iterates over the first reduction's input and sums columns over
    // every leading dim: a reduction of another tensor, or a column sum over
    // only some leading dims, would be summed over the wrong space.
    SmallVector<int64_t> leading = llvm::to_vector(llvm::seq<int64_t>(0, last));
    for (nv::ReduceOp reduce : reduces) {
      if (shapeOf(reduce.getInput()) != ArrayRef<int64_t>(full))
        return k.fail("a column kernel with a total whose reductions read "
                      "tensors of different shapes is not lowered yet");
      if (!llvm::is_contained(reduce.getDims(), last) &&
          reduce.getDims() != ArrayRef<int64_t>(leading))
        return k.fail("a column kernel with a total and a column sum over "
                      "only some leading dims is not lowered yet");
    }
    return row(func);
  }
  // Rows run over the reduced leading dims, columns over the kept ones
  // (flattened): a sum over the batch of [B, T, C] keeps T x C columns.
  int64_t split = int64_t(reduces.front().getDims().size());
  for (nv::ReduceOp reduce : reduces) {
    ArrayRef<int64_t> dims = reduce.getDims();
    bool leading = shapeOf(reduce.getInput()) == ArrayRef<int64_t>(full) &&
                   int64_t(dims.size()) == split;
    for (int64_t d = 0; leading && d < split; ++d)
      leading = dims[d] == d;
    if (!leading)
      return k.fail("a column kernel whose reduces do not all run over the "
                    "same leading dims is not lowered yet");
  }
  ArrayRef<int64_t> lead = ArrayRef<int64_t>(full).take_front(split);
  ArrayRef<int64_t> kept = ArrayRef<int64_t>(full).drop_front(split);
  if (product(lead) == 0 || product(kept) == 0)
    return k.fail("empty columns are not lowered yet");
  for (nv::ReduceOp reduce : reduces)
    if (!isa<FloatType>(Combiner::of(reduce).accType))
      return k.fail("integer column reductions are not lowered yet");
  return columnStrips(func, reduces, lead, kept);
}

FailureOr<Geometry>
ReductionEmitter::columnStrips(gpu::GPUFuncOp func,
                               ArrayRef<nv::ReduceOp> reduces,
                               ArrayRef<int64_t> lead, ArrayRef<int64_t> kept) {
  SmallVector<int64_t> full(lead);
  llvm::append_range(full, kept);
  int64_t rows = product(lead), cols = product(kept);
  // A strip is `w` adjacent columns: one 16-byte vector of the widest
  // streamed element, halved until it divides the columns (so every row
  // starts on a strip boundary); 1 reads and writes element by element.
  Chunking chunks = chunking(full);
  int64_t w = chunks.width;
  while (w > 1 && cols % w)
    w /= 2;
  int64_t strips = cols / w;
  // Threads: column lanes (a warp reads 32 adjacent strips of a row) x row
  // lanes, at least a warp; few rows give the lanes to the columns.
  int64_t threads = std::max<int64_t>(32, k.schedule.getThreads() / 32 * 32);
  int64_t columnLanes = std::min<int64_t>(32, llvm::PowerOf2Ceil(strips));
  int64_t rowLanes = std::clamp<int64_t>(
      int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(1, rows / 4)))),
      32 / columnLanes, threads / columnLanes);
  columnLanes =
      std::min<int64_t>(threads / rowLanes, llvm::PowerOf2Ceil(strips));
  threads = columnLanes * rowLanes;
  int64_t colsPerBlock = columnLanes * w;
  int64_t colBlocks = (cols + colsPerBlock - 1) / colsPerBlock;
  // Row chunks: the schedule's split, none empty.
  int64_t chunksWanted =
      std::clamp<int64_t>(k.schedule.getSplitK(), 1, (rows + 1) / 2);
  int64_t rowsPerChunk = (rows + chunksWanted - 1) / chunksWanted;
  int64_t rowChunks = (rows + rowsPerChunk - 1) / rowsPerChunk;

  Value tid = k.threadId(), bid = k.blockId();
  Value lane = arith::RemUIOp::create(b, tid, body.index(columnLanes));
  Value rowLane = arith::DivUIOp::create(b, tid, body.index(columnLanes));
  Value colBlock = arith::RemUIOp::create(b, bid, body.index(colBlocks));
  Value chunk = arith::DivUIOp::create(b, bid, body.index(colBlocks));
  Value blockCol0 =
      arith::MulIOp::create(b, colBlock, body.index(colsPerBlock));
  Value col0 = arith::AddIOp::create(
      b, blockCol0, arith::MulIOp::create(b, lane, body.index(w)));
  auto below = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x,
                                 body.index(bound));
  };
  // Lanes past the last strip read the last one and keep nothing.
  Value validStrip = below(col0, cols);
  Value safeCol0 = arith::MinUIOp::create(b, col0, body.index(cols - w));
  SmallVector<SmallVector<Value>> colIdx;
  for (int64_t l = 0; l < w; ++l)
    colIdx.push_back(body.delinearize(
        l ? arith::AddIOp::create(b, safeCol0, body.index(l)).getResult()
          : safeCol0,
        kept));
  auto pointAt = [&](Value v, ArrayRef<Value> leadIdx, ArrayRef<Value> col) {
    SmallVector<Value> point(leadIdx);
    llvm::append_range(point, col);
    return body.project(point, shapeOf(v));
  };

  SmallVector<Combiner> combs;
  SmallVector<Value> acc;
  for (nv::ReduceOp reduce : reduces) {
    combs.push_back(Combiner::of(reduce));
    for (int64_t l = 0; l < w; ++l)
      acc.push_back(combs.back().identity(b, b.getLoc()));
  }
  SmallVector<unsigned> elementwise;
  for (auto [i, v] : llvm::enumerate(k.outputs()))
    if (k.contract.results[i].kind == AccessKind::Elementwise)
      elementwise.push_back(i);

  // 1. The thread's rows of its chunk: rowLane, rowLane + rowLanes, ...
  // Each row's strip is read once (a vector load per streamed input), folded
  // into the thread's column partials, and its element-wise outputs stored
  // (every value at a point evaluated before any store there: an output may
  // be planned in place over an input).
  Value chunkRow0 = arith::MulIOp::create(b, chunk, body.index(rowsPerChunk));
  Value firstRow = arith::AddIOp::create(b, chunkRow0, rowLane);
  Value rowEnd = arith::MinUIOp::create(
      b, arith::AddIOp::create(b, chunkRow0, body.index(rowsPerChunk)),
      body.index(rows));
  rowEnd = arith::SelectOp::create(b, validStrip, rowEnd, body.index(0));
  auto forOp =
      scf::ForOp::create(b, firstRow, rowEnd, body.index(rowLanes), acc);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    body.pushScope();
    Value r = forOp.getInductionVar();
    SmallVector<Value> leadIdx = body.delinearize(r, lead);
    Value first = arith::AddIOp::create(
        b, arith::MulIOp::create(b, r, body.index(cols)), safeCol0);
    if (w > 1)
      for (auto [arg, flat] : chunks.inputs) {
        Type element = elementOf(arg);
        Value vec = vector::LoadOp::create(
            b, VectorType::get({w}, element), flat, ValueRange{first},
            /*nontemporal=*/false,
            llvm::MaybeAlign(w * element.getIntOrFloatBitWidth() / 8));
        for (int64_t l = 0; l < w; ++l)
          body.bind(arg, pointAt(arg, leadIdx, colIdx[l]),
                    vector::ExtractOp::create(b, vec, l));
      }
    SmallVector<Value> next(forOp.getRegionIterArgs());
    for (auto [j, reduce] : llvm::enumerate(reduces)) {
      Value input = nv::ReduceOp(reduce).getInput();
      for (int64_t l = 0; l < w; ++l) {
        auto x = body.eval(input, pointAt(input, leadIdx, colIdx[l]));
        if (failed(x))
          return k.unsupported();
        Value &slot = next[j * w + l];
        slot = combs[j].combine(b, b.getLoc(), slot,
                                body.convert(body.widen(*x), combs[j].accType));
      }
    }
    SmallVector<SmallVector<Value>> values;
    for (unsigned i : elementwise) {
      Value v = k.outputs()[i];
      values.emplace_back();
      for (int64_t l = 0; l < w; ++l) {
        auto x = body.eval(v, pointAt(v, leadIdx, colIdx[l]));
        if (failed(x))
          return k.unsupported();
        k.checkFinite(i, *x);
        values.back().push_back(*x);
      }
    }
    for (auto [i, xs] : llvm::zip(elementwise, values)) {
      Value v = k.outputs()[i];
      if (w > 1 && chunks.outputs[i]) {
        Type element = elementOf(v);
        vector::StoreOp::create(
            b,
            vector::FromElementsOp::create(b, VectorType::get({w}, element),
                                           xs),
            chunks.outputs[i], ValueRange{first}, /*nontemporal=*/false,
            llvm::MaybeAlign(w * element.getIntOrFloatBitWidth() / 8));
        continue;
      }
      for (int64_t l = 0; l < w; ++l)
        memref::StoreOp::create(b, xs[l], k.outputBuffers[i],
                                pointAt(v, leadIdx, colIdx[l]));
    }
    body.popScope();
    scf::YieldOp::create(b, next);
  }

  // 2. The block's row lanes, in order, through shared memory (f64: the
  // sums' accumulator; max and min convert exactly), one reduce at a time:
  // lane (rl, lane)'s column c of the block is at c + rl * colsPerBlock.
  Type f64 = b.getF64Type();
  Value lanes = func.addWorkgroupAttribution(
      MemRefType::get({threads * w}, f64, AffineMap(), shared()), b.getLoc());
  // The fold of `n` values of reduce j in order (`load(i)` the i-th), f64.
  auto foldInOrder = [&](size_t j, int64_t n,
                         function_ref<Value(Value)> load) -> Value {
    Combiner wide{combs[j].kind, f64};
    Value init = body.convert(combs[j].identity(b, b.getLoc()), f64);
    auto loop = scf::ForOp::create(b, body.index(0), body.index(n),
                                   body.index(1), ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(b,
                         wide.combine(b, b.getLoc(), loop.getRegionIterArg(0),
                                      load(loop.getInductionVar())));
    return loop.getResult(0);
  };
  // The block's columns c = tid, tid + threads, ...: each reduce's result
  // there (`folded(j, c)`), then the per-column outputs, all evaluated
  // before any is stored.
  SmallVector<unsigned> perColumnOutputs;
  for (auto [i, v] : llvm::enumerate(k.outputs()))
    if (k.contract.results[i].kind != AccessKind::Elementwise)
      perColumnOutputs.push_back(i);
  auto finishColumns = [&](function_ref<Value(size_t, Value)> folded) {
    return k.loop(
        tid, body.index(colsPerBlock), body.index(threads),
        [&](Value c) -> LogicalResult {
          Value col = arith::AddIOp::create(b, blockCol0, c);
          Value safe = arith::MinUIOp::create(b, col, body.index(cols - 1));
          SmallVector<Value> row0(lead.size(), body.index(0));
          SmallVector<Value> colAt = body.delinearize(safe, kept);
          for (auto [j, reduce] : llvm::enumerate(reduces)) {
            Value result = nv::ReduceOp(reduce).getResult();
            body.setUniform(result,
                            body.convert(folded(j, c), elementOf(result)));
          }
          SmallVector<std::pair<unsigned, Value>> values;
          for (unsigned i : perColumnOutputs) {
            Value v = k.outputs()[i];
            auto x = body.eval(v, pointAt(v, row0, colAt));
            if (failed(x))
              return k.unsupported();
            values.push_back({i, *x});
          }
          storeFromLeaders(values, col, below(col, cols), body.index(0),
                           [&](Value v) { return pointAt(v, row0, colAt); });
          return success();
        });
  };

  // Each block's fold per column goes to shared memory when the block is
  // the column's only one, else to the workspace (f64 [rowChunks, cols]
  // per reduce, after a ticket counter per column block).
  int64_t numReduces = int64_t(reduces.size());
  Value totals, workspace;
  SmallVector<Value> partials;
  int64_t partialsOffset = llvm::alignTo(colBlocks * 4, kPartialsAlign);
  int64_t partialsBytes = llvm::alignTo(rowChunks * cols * 8, kPartialsAlign);
  if (rowChunks == 1) {
    totals = func.addWorkgroupAttribution(
        MemRefType::get({numReduces * colsPerBlock}, f64, AffineMap(),
                        shared()),
        b.getLoc());
  } else {
    workspace = k.addWorkspace(partialsOffset + numReduces * partialsBytes);
    for (int64_t j = 0; j < numReduces; ++j)
      partials.push_back(k.workspaceView(workspace,
                                         partialsOffset + j * partialsBytes,
                                         {rowChunks, cols}, f64));
  }
  for (int64_t j = 0; j < numReduces; ++j) {
    for (int64_t l = 0; l < w; ++l)
      memref::StoreOp::create(
          b, body.convert(forOp.getResult(j * w + l), f64), lanes,
          ValueRange{arith::AddIOp::create(
              b, arith::MulIOp::create(b, tid, body.index(w)), body.index(l))});
    gpu::BarrierOp::create(b);
    LogicalResult ok = k.loop(
        tid, body.index(colsPerBlock), body.index(threads),
        [&](Value c) -> LogicalResult {
          Value total = foldInOrder(j, rowLanes, [&](Value rl) -> Value {
            Value at = arith::AddIOp::create(
                b, c, arith::MulIOp::create(b, rl, body.index(colsPerBlock)));
            return memref::LoadOp::create(b, lanes, ValueRange{at});
          });
          if (totals) {
            memref::StoreOp::create(b, total, totals,
                                    ValueRange{arith::AddIOp::create(
                                        b, c, body.index(j * colsPerBlock))});
            return success();
          }
          Value col = arith::AddIOp::create(b, blockCol0, c);
          return k.ifThen(below(col, cols), [&] {
            memref::StoreOp::create(b, total, partials[j],
                                    ValueRange{chunk, col});
            return success();
          });
        });
    if (failed(ok))
      return failure();
    gpu::BarrierOp::create(b);
  }
  Geometry geometry{colBlocks * rowChunks, threads};
  if (totals) {
    if (failed(finishColumns([&](size_t j, Value c) -> Value {
          return memref::LoadOp::create(
              b, totals,
              ValueRange{arith::AddIOp::create(
                  b, c, body.index(int64_t(j) * colsPerBlock))});
        })))
      return failure();
    return geometry;
  }

  // 3. Several row chunks: the last block of a column block to draw its
  // ticket folds the chunks in order and resets the counter for the next
  // launch.
  fenceDevice();
  gpu::BarrierOp::create(b);
  Value zero = body.index(0);
  Value isThread0 =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, zero);
  Value counters = k.workspaceView(workspace, 0, {colBlocks}, b.getI32Type());
  Value isLast =
      drawLastTicket(func, isThread0, counters, colBlock, rowChunks - 1);
  LogicalResult ok = k.ifThen(isLast, [&]() -> LogicalResult {
    fenceDevice();
    if (failed(finishColumns([&](size_t j, Value c) {
          Value unclamped = arith::AddIOp::create(b, blockCol0, c);
          Value col =
              arith::MinUIOp::create(b, unclamped, body.index(cols - 1));
          Value owned = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                              unclamped, body.index(cols));
          return foldInOrder(j, rowChunks, [&](Value part) -> Value {
            SmallVector<Value, 2> at{part, col};
            Value x = memref::LoadOp::create(b, partials[j], at);
            // Left zeroed for the next kernel (the executable's contract),
            // by the one thread that owns the column.
            (void)k.ifThen(owned, [&] {
              memref::StoreOp::create(b, zeroOf(b, x.getType()), partials[j],
                                      at);
              return success();
            });
            return x;
          });
        })))
      return failure();
    return k.ifThen(isThread0, [&] {
      memref::StoreOp::create(
          b, arith::ConstantOp::create(b, b.getI32IntegerAttr(0)), counters,
          ValueRange{colBlock});
      return success();
    });
  });
  if (failed(ok))
    return failure();
  return geometry;
}

FailureOr<Geometry> emitRowReduction(KernelContext &k) {
  return ReductionEmitter(k).row(k.func);
}

FailureOr<Geometry> emitColumnReduction(KernelContext &k) {
  return ReductionEmitter(k).column(k.func);
}

} // namespace mlir::nova::tile_to_gpu
