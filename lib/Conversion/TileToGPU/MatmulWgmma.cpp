//===- MatmulWgmma.cpp - matmul family on Hopper's wgmma and TMA ---------===//
//
// A single GEMM whose operands are both K-major in memory (A = [M, K] rows,
// B stored [N, K]: the X W^T form), in bf16 or f32 (TF32), without a
// prologue: the Hopper path. A block computes BM x BN tiles:
//
//  - warpgroup 0 is the producer: it lowers its register budget
//    (setmaxnreg) and one thread issues TMA loads of BM x BK and BN x BK
//    tiles (128-byte rows, 128-byte swizzle, zero fill past the edges) into
//    a ring of stages in dynamic shared memory, each stage guarded by a
//    "full" mbarrier (transaction bytes) and an "empty" one (consumers
//    done);
//  - warpgroups 1..C are consumers with a raised register budget: each owns
//    64 rows of the tile and runs nvvm.wgmma.mma_async (m64 x BN x 32 bytes
//    of K per instruction) on shared-memory descriptors it builds, with f32
//    accumulators in registers, one wgmma group in flight;
//  - the epilogue evaluates each output at each accumulator element through
//    BodyEmitter (bias, GELU, residual, casts), guarded for ragged M and N,
//    and stores neighbouring columns in pairs where N is even.
//
// The grid is persistent (a block per SM, each walking the tiles in groups
// of tile rows for L2 reuse of B): the producer fills the stages of a
// block's next tile while the consumers run the epilogue of this one. TMA
// descriptors are kernel parameters (`nova_gpu.tma` argument attributes
// say which buffer they map and how; the runtime encodes them at load
// time) passed by value as __grid_constant__ (MarkKernelParams.cpp).
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nova-wgmma"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

/// The tile and pipeline of one kernel.
struct WgmmaTiling {
  int64_t elementBytes;
  int64_t bk() const { return 128 / elementBytes; } // one 128-byte row
  int64_t consumers = 2;                            // 64 rows each
  int64_t bm() const { return 64 * consumers; }
  int64_t bn = 128; // the wgmma N
  int64_t stages = 4;
  int64_t aBytes() const { return bm() * 128; }
  int64_t bBytes() const { return bn * 128; }
  int64_t stageBytes() const { return aBytes() + bBytes(); }
  /// The barriers follow the stages: full[stages], then empty[stages].
  int64_t barrierOffset() const { return stages * stageBytes(); }
  int64_t sharedBytes() const { return barrierOffset() + 16 * stages; }
  int64_t threads() const { return 128 * (1 + consumers); }
  /// K per wgmma instruction: 32 bytes.
  int64_t kStep() const { return 32 / elementBytes; }
};

/// A K-major operand as TMA sees it: `rows` rows of `k` elements,
/// `rowStride` elements apart, from element `offset` of the input.
struct KMajor {
  BlockArgument input;
  int64_t offset, rows, k, rowStride;
};

/// Why the wgmma path does not take `k`'s kernel, or nothing when it does;
/// fills the operands when it does.
std::optional<std::string> analyze(KernelContext &k, nv::MatmulOp &mm,
                                   KMajor &a, KMajor &b) {
  const auto &problems = k.contract.problems;
  if (problems.size() != 1 || problems[0].columnSum)
    return std::string("not a single GEMM");
  const MainProblem &p = problems[0];
  Operation *main = nullptr;
  for (Operation &op : k.block().without_terminator())
    if (isa<nv::MatmulOp>(op))
      main = &op;
  mm = dyn_cast_or_null<nv::MatmulOp>(main);
  if (!mm)
    return std::string("no matmul");
  Type element = k.contract.computeType;
  if (!element.isBF16() && !element.isF32())
    return std::string("operands neither bf16 nor f32");
  // wgmma has no split-precision form: f32 products not marked TF32 keep
  // f32 accuracy on mma.sync (3xTF32).
  auto precision = main->getAttrOfType<StringAttr>("nova.precision");
  if (element.isF32() && (!precision || precision.getValue() != "tf32"))
    return std::string("f32 operands without nova.precision = \"tf32\"");
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t batch = p.space[0], m = p.space[1], n = p.space[2],
          kExtent = p.space[3];
  // Products smaller than a consumer's 64 rows gain nothing from the
  // 128-row tiles (and vectors keep their own layouts).
  if (m * batch < 64 || n < 64 || kExtent == 0)
    return std::string("a product under 64 x 64 or with K = 0");
  auto operandOf = [&](Value v, const Access &access, bool rhs,
                       KMajor &out) -> std::optional<std::string> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || elementOf(arg) != element)
      return std::string("a prologue on an operand");
    // K-major: the lhs as stored, the rhs stored transposed.
    if (access.transposed != rhs)
      return std::string("an operand that is not K-major");
    size_t r = access.strides.size();
    int64_t kStride = rhs ? access.strides[r - 2] : access.strides[r - 1];
    int64_t rowStride = rhs ? access.strides[r - 1] : access.strides[r - 2];
    int64_t rows = rhs ? n : m;
    if (kStride != 1 && kExtent > 1)
      return std::string("an operand whose K is not contiguous");
    // The batch folds into the rows when the lhs's batches follow one
    // another row after row and the rhs is the same for every batch.
    ArrayRef<int64_t> batchStrides = ArrayRef(access.strides).drop_back(2);
    ArrayRef<int64_t> batchShape = shapeOf(mm.getResult()).drop_back(2);
    int64_t expected = m * rowStride;
    for (int64_t d = int64_t(batchShape.size()) - 1; d >= 0; --d) {
      int64_t want = rhs ? 0 : expected;
      if (batchShape[d] != 1 && batchStrides[d] != want)
        return std::string("a batch that does not fold into the rows");
      expected *= batchShape[d];
    }
    if (!rhs)
      rows *= batch;
    if ((rowStride * bytes) % 16 != 0)
      return std::string("a row stride that is not a multiple of 16 bytes");
    if ((access.offset * bytes) % 16 != 0)
      return std::string("an operand that does not start 16-byte aligned");
    if (rows >= (int64_t(1) << 31) || kExtent >= (int64_t(1) << 31))
      return std::string("an operand too large for 32-bit TMA coordinates");
    out = {arg, access.offset, rows, kExtent, rowStride};
    return std::nullopt;
  };
  if (auto why = operandOf(mm.getLhs(), p.operands[0].second, false, a))
    return why;
  if (auto why = operandOf(mm.getRhs(), p.operands[1].second, true, b))
    return why;
  return std::nullopt;
}

class WgmmaEmitter {
public:
  WgmmaEmitter(KernelContext &k, nv::MatmulOp mm, KMajor a, KMajor bOp)
      : k(k), b(k.b), body(k.body), mm(mm), a(a), bo(bOp) {}
  FailureOr<Geometry> emit();

private:
  Value idx(int64_t v) { return body.index(v); }
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(int32_t(v)));
  }
  Value i64(int64_t v) {
    return arith::ConstantOp::create(b, b.getI64IntegerAttr(v));
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, b.getI64Type(), index);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
  }
  /// `byteOffset` (i64) bytes into the dynamic shared buffer.
  Value shared(Value byteOffset) {
    auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
    return LLVM::GEPOp::create(b, ptr, b.getI8Type(), smem,
                               ArrayRef<LLVM::GEPArg>{byteOffset});
  }
  Value shared(int64_t byteOffset) { return shared(i64(byteOffset)); }
  /// A shared::cta address as the shared::cluster one TMA writes (this
  /// block's own, no cluster).
  Value toCluster(Value ptr) {
    return LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), 7), ptr);
  }
  Value fullBarrier(Value stage) {
    return shared(add(i64(t.barrierOffset()), mul(stage, i64(8))));
  }
  Value emptyBarrier(Value stage) {
    return shared(
        add(i64(t.barrierOffset() + 8 * t.stages), mul(stage, i64(8))));
  }
  /// A TMA descriptor parameter for `op`, boxes of `boxRows` rows.
  Value addDescriptor(const KMajor &op, int64_t boxRows);
  void waitParity(Value barrier, Value phase) {
    NVVM::MBarrierTryWaitParityOp::create(b, barrier, phase, i32(0x989680));
  }
  /// The output tile `tile` as (tile row, tile column), in groups of 8
  /// tile rows that sweep the tile columns together (L2 reuse of B).
  std::pair<Value, Value> tileCoordinates(Value tile);
  /// for (tile = block; tile < tiles; tile += grid) fn(tile, first
  /// pipeline step of the tile): the block's share of the persistent grid.
  template <typename Fn> LogicalResult forEachTile(Fn fn);
  void producer();
  /// The accumulators of the tile whose K tiles are pipeline steps
  /// [first, first + kTiles).
  Value consumer(Value consumerIndex, Value first);
  LogicalResult epilogue(Value acc, Value consumerIndex, Value tm, Value tn);

  KernelContext &k;
  ImplicitLocOpBuilder &b;
  BodyEmitter &body;
  nv::MatmulOp mm;
  KMajor a, bo;
  WgmmaTiling t{};
  Value smem, descA, descB, tid, block;
  int64_t tilesM = 0, tilesN = 0, kTiles = 0, grid = 0;
  bool tf32 = false;
};

Value WgmmaEmitter::addDescriptor(const KMajor &op, int64_t boxRows) {
  MLIRContext *ctx = b.getContext();
  unsigned index = k.func.getNumArguments();
  (void)k.func.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                              DictionaryAttr(), b.getLoc());
  // dims and box innermost first (K, then rows); strides in bytes.
  SmallVector<NamedAttribute> map{
      b.getNamedAttr("buffer", b.getI32IntegerAttr(op.input.getArgNumber())),
      b.getNamedAttr("offset", b.getI64IntegerAttr(op.offset * t.elementBytes)),
      b.getNamedAttr("dims", b.getDenseI64ArrayAttr({op.k, op.rows})),
      b.getNamedAttr("strides",
                     b.getDenseI64ArrayAttr({op.rowStride * t.elementBytes})),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr({t.bk(), boxRows})),
      b.getNamedAttr("swizzle", b.getI32IntegerAttr(128))};
  k.func.setArgAttr(index, kTmaAttr, DictionaryAttr::get(ctx, map));
  SmallVector<int32_t> params;
  if (auto known = k.func->getAttrOfType<DenseI32ArrayAttr>(kTmaParamsAttr))
    llvm::append_range(params, known.asArrayRef());
  params.push_back(int32_t(index));
  k.func->setAttr(kTmaParamsAttr, b.getDenseI32ArrayAttr(params));
  return k.func.getArgument(index);
}

std::pair<Value, Value> WgmmaEmitter::tileCoordinates(Value tile) {
  int64_t group = 8;
  Value perGroup = idx(group * tilesN);
  Value firstRow = mul(arith::DivUIOp::create(b, tile, perGroup), idx(group));
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, idx(tilesM), firstRow), idx(group));
  Value inGroup = arith::RemUIOp::create(b, tile, perGroup);
  return {add(firstRow, arith::RemUIOp::create(b, inGroup, groupRows)),
          arith::DivUIOp::create(b, inGroup, groupRows)};
}

template <typename Fn> LogicalResult WgmmaEmitter::forEachTile(Fn fn) {
  return k.loop(block, idx(tilesM * tilesN), idx(grid), [&](Value tile) {
    // Every tile has kTiles steps; stages and phases run on across tiles.
    Value first = mul(arith::DivUIOp::create(
                          b, arith::SubIOp::create(b, tile, block), idx(grid)),
                      idx(kTiles));
    return fn(tile, first);
  });
}

void WgmmaEmitter::producer() {
  // One thread issues every load; the others of the warpgroup are done.
  Value lead = eq(arith::RemUIOp::create(b, tid, idx(128)), idx(0));
  (void)k.ifThen(lead, [&] {
    return forEachTile([&](Value tile, Value first) {
      auto [tm, tn] = tileCoordinates(tile);
      Value rowA = toI32(mul(tm, idx(t.bm()))),
            rowB = toI32(mul(tn, idx(t.bn)));
      return k.loop(idx(0), idx(kTiles), idx(1), [&](Value kt) {
        Value step = add(first, kt);
        Value stage = toI64(arith::RemUIOp::create(b, step, idx(t.stages)));
        Value round = arith::DivUIOp::create(b, step, idx(t.stages));
        Value phase = toI32(arith::AndIOp::create(b, round, idx(1)));
        // Stage free: the consumers released its previous round (a fresh
        // barrier passes the wait on parity 1).
        waitParity(emptyBarrier(stage),
                   arith::XOrIOp::create(b, phase, i32(1)));
        Value full = fullBarrier(stage);
        NVVM::MBarrierArriveExpectTxOp::create(
            b, Type(), full, i32(t.stageBytes()), NVVM::MemScopeKind::CTA,
            false, Value());
        Value base = mul(stage, i64(t.stageBytes()));
        Value kCoord = toI32(mul(kt, idx(t.bk())));
        for (auto [desc, offset, row] : {std::tuple{descA, int64_t(0), rowA},
                                         std::tuple{descB, t.aBytes(), rowB}})
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, toCluster(shared(add(base, i64(offset)))), desc,
              ValueRange{kCoord, row}, full, ValueRange{}, Value(), Value(),
              NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(),
              Value());
        return success();
      });
    });
  });
}

/// The wgmma shared-memory descriptor of a K-major, 128-byte-swizzled tile
/// at shared address `address`: start address >> 4 (bits 0-13), leading
/// byte offset 16 (unused by swizzled K-major layouts), stride byte offset
/// 1024 between groups of 8 rows (bits 32-45), 128-byte swizzle (bits
/// 62-63).
static constexpr int64_t kSMs = 132;

static constexpr int64_t kDescriptorBits =
    (int64_t(1) << 16) | (int64_t(1024 >> 4) << 32) | (int64_t(1) << 62);

Value WgmmaEmitter::consumer(Value consumerIndex, Value first) {
  MLIRContext *ctx = b.getContext();
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(t.bn / 2, b.getF32Type()));
  Value smemAddress = LLVM::PtrToIntOp::create(b, b.getI64Type(), smem);
  Value baseDesc = arith::OrIOp::create(
      b, arith::ShRUIOp::create(b, smemAddress, i64(4)), i64(kDescriptorBits));
  // This consumer's 64 rows of A.
  Value aRows = mul(toI64(consumerIndex), i64(64 * 128 >> 4));
  NVVM::WGMMATypes type =
      tf32 ? NVVM::WGMMATypes::tf32 : NVVM::WGMMATypes::bf16;

  // One pipeline step: wait for its stage, then BK / kStep wgmmas into
  // `acc` as one group. The tile's first wgmma ignores the accumulators
  // (scale-d 0): no zeroing instructions inside the pipeline.
  auto kTile = [&](Value step, Value acc, bool firstStep) {
    Value stage = toI64(arith::RemUIOp::create(b, step, idx(t.stages)));
    Value phase = toI32(arith::AndIOp::create(
        b, arith::DivUIOp::create(b, step, idx(t.stages)), idx(1)));
    waitParity(fullBarrier(stage), phase);
    Value stageDesc = add(baseDesc, mul(stage, i64(t.stageBytes() >> 4)));
    Value aDesc = add(stageDesc, aRows);
    Value bDesc = add(stageDesc, i64(t.aBytes() >> 4));
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t s = 0; s < t.bk() / t.kStep(); ++s) {
      // 32 bytes of K further along the (swizzled) 128-byte rows.
      Value along = i64(s * 32 >> 4);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, accType, acc, add(aDesc, along), add(bDesc, along),
          NVVM::MMAShapeAttr::get(ctx, 64, t.bn, t.kStep()), type, type,
          NVVM::WGMMATypes::f32,
          firstStep && s == 0 ? NVVM::WGMMAScaleOut::zero
                              : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, NVVM::MMALayout::col,
          NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    return acc;
  };
  auto release = [&](Value step) {
    Value stage = toI64(arith::RemUIOp::create(b, step, idx(t.stages)));
    NVVM::MBarrierArriveOp::create(b, Type(), emptyBarrier(stage), Value());
  };
  Value acc = kTile(first, LLVM::UndefOp::create(b, accType), true);
  auto forOp =
      scf::ForOp::create(b, idx(1), idx(kTiles), idx(1), ValueRange{acc});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value step = add(first, forOp.getInductionVar());
    Value c = kTile(step, forOp.getRegionIterArg(0), false);
    // The previous step's group is done: release its stage.
    NVVM::WgmmaWaitGroupSyncOp::create(b, 1);
    release(arith::SubIOp::create(b, step, idx(1)));
    scf::YieldOp::create(b, c);
  }
  // The last stage goes back too: the producer fills it for the next tile
  // while this one's epilogue runs.
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  release(add(first, idx(kTiles - 1)));
  return forOp.getResult(0);
}

LogicalResult WgmmaEmitter::epilogue(Value acc, Value consumerIndex, Value tm,
                                     Value tn) {
  // Accumulator i of thread (warp w, lane l): row 16 w + l / 4 (+ 8 when
  // bit 1 of i is set), column 8 (i / 4) + 2 (l % 4) + i % 2.
  Value thread = arith::RemUIOp::create(b, tid, idx(128));
  Value warp = arith::DivUIOp::create(b, thread, idx(32));
  Value lane = arith::RemUIOp::create(b, thread, idx(32));
  Value rowBase =
      add(add(mul(tm, idx(t.bm())), mul(consumerIndex, idx(64))),
          add(mul(warp, idx(16)), arith::DivUIOp::create(b, lane, idx(4))));
  Value colBase = add(mul(tn, idx(t.bn)),
                      mul(arith::RemUIOp::create(b, lane, idx(4)), idx(2)));
  ArrayRef<int64_t> out = shapeOf(mm.getResult());
  ArrayRef<int64_t> batchShape = out.drop_back(2);
  int64_t m = out[out.size() - 2], n = out.back();
  int64_t rows = a.rows; // M times the folded batches
  Type resultElement = elementOf(mm.getResult());
  // Accumulators i and i + 1 are neighbours in a row: with N even, both
  // or neither are inside, and each output (of the product's shape, no
  // checks) takes them in one 2-element store.
  bool pairs = n % 2 == 0 && n > 1 && k.finiteChecks.empty() &&
               llvm::all_of(k.outputs(), [&](Value v) {
                 return shapeOf(v) == out && vectorizable(elementOf(v));
               });
  for (int64_t i = 0; i < t.bn / 2; i += pairs ? 2 : 1) {
    Value row = add(rowBase, idx((i & 2) ? 8 : 0));
    Value col = add(colBase, idx((i / 4) * 8 + (i % 2)));
    Value inside =
        arith::AndIOp::create(b, lt(row, idx(rows)), lt(col, idx(n)));
    LogicalResult ok = k.ifThen(inside, [&] {
      SmallVector<Value> at;
      if (!batchShape.empty())
        at = body.delinearize(arith::DivUIOp::create(b, row, idx(m)),
                              batchShape);
      Value r =
          batchShape.empty() ? row : arith::RemUIOp::create(b, row, idx(m));
      // Dims of size 1 are indexed by the shared zero (as project() does).
      at.push_back(m == 1 ? idx(0) : r);
      at.push_back(n == 1 ? idx(0) : col);
      SmallVector<SmallVector<Value>> points{at};
      if (pairs) {
        points.push_back(at);
        points.back().back() = add(col, idx(1));
      }
      for (auto [e, point] : llvm::enumerate(points)) {
        Value x = LLVM::ExtractValueOp::create(
            b, acc, ArrayRef<int64_t>{i + int64_t(e)});
        body.bind(mm.getResult(), point, body.convert(x, resultElement));
      }
      for (unsigned o = 0; o < k.outputs().size(); ++o) {
        if (!pairs) {
          if (failed(k.store(o, at)))
            return failure();
          continue;
        }
        SmallVector<Value> values;
        for (ArrayRef<Value> point : points) {
          FailureOr<Value> v = body.eval(k.outputs()[o], point);
          if (failed(v))
            return k.unsupported();
          values.push_back(*v);
        }
        Type element = elementOf(k.outputs()[o]);
        Value pair = vector::FromElementsOp::create(
            b, VectorType::get({2}, element), values);
        vector::StoreOp::create(
            b, pair, k.outputBuffers[o], at, /*nontemporal=*/false,
            llvm::MaybeAlign(2 * element.getIntOrFloatBitWidth() / 8));
      }
      return success();
    });
    if (failed(ok))
      return failure();
  }
  return success();
}

FailureOr<Geometry> WgmmaEmitter::emit() {
  Type element = k.contract.computeType;
  tf32 = element.isF32();
  t.elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t n = bo.rows;
  t.bn = n > 128 ? 256 : 128;
  // As many stages as fit next to the barriers in 227 KB.
  t.stages = std::min<int64_t>(8, (227 * 1024 - 256) / t.stageBytes());

  // The dynamic shared buffer: an external, 1024-byte aligned array (the
  // alignment 128-byte swizzle needs), whose size the launch gives.
  auto module = k.func->getParentOfType<gpu::GPUModuleOp>();
  {
    OpBuilder top(module.getBodyRegion());
    LLVM::GlobalOp::create(top, b.getLoc(),
                           LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           "nova_dynamic_shared", Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
  }
  k.func->setAttr(kDynamicSharedBytesAttr,
                  b.getI64IntegerAttr(t.sharedBytes()));
  smem = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), "nova_dynamic_shared");
  descA = addDescriptor(a, t.bm());
  descB = addDescriptor(bo, t.bn);

  tid = k.threadId();
  block = k.blockId();
  tilesM = llvm::divideCeil(a.rows, t.bm());
  tilesN = llvm::divideCeil(n, t.bn);
  kTiles = llvm::divideCeil(a.k, t.bk());
  // A persistent grid: one block per SM of the H200 (the configured
  // target), each walking tiles grid apart.
  grid = std::min<int64_t>(tilesM * tilesN, kSMs);

  // Barriers: full ones wait for the producer's arrival and the bytes,
  // empty ones for every consumer thread.
  (void)k.ifThen(eq(tid, idx(0)), [&] {
    for (int64_t s = 0; s < t.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, fullBarrier(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, emptyBarrier(i64(s)),
                                   i32(128 * t.consumers), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b);
    return success();
  });
  gpu::BarrierOp::create(b);

  Value warpgroup = arith::DivUIOp::create(b, tid, idx(128));
  auto ifOp = scf::IfOp::create(b, eq(warpgroup, idx(0)), /*else=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    NVVM::SetMaxRegisterOp::create(b, 40, NVVM::SetMaxRegisterAction::decrease);
    body.pushScope();
    producer();
    body.popScope();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.elseBlock());
  NVVM::SetMaxRegisterOp::create(b, 232, NVVM::SetMaxRegisterAction::increase);
  body.pushScope();
  Value consumerIndex = arith::SubIOp::create(b, warpgroup, idx(1));
  LogicalResult ok = forEachTile([&](Value tile, Value first) {
    Value acc = consumer(consumerIndex, first);
    auto [tm, tn] = tileCoordinates(tile);
    return epilogue(acc, consumerIndex, tm, tn);
  });
  if (failed(ok))
    return failure();
  body.popScope();
  return Geometry{grid, t.threads()};
}

} // namespace

std::optional<FailureOr<Geometry>> emitMatmulWgmma(KernelContext &k,
                                                   std::string &whyNot) {
  nv::MatmulOp mm;
  KMajor a, bOp;
  if (auto why = analyze(k, mm, a, bOp)) {
    whyNot = std::move(*why);
    return std::nullopt;
  }
  return WgmmaEmitter(k, mm, a, bOp).emit();
}

} // namespace mlir::nova::tile_to_gpu
