//===- MatmulWgmma.cpp - matmul family on Hopper's wgmma and TMA ---------===//
//
// A single GEMM in bf16 or f32 (TF32), without a prologue: the Hopper path.
// Operands are K-major in memory (A = [M, K] rows, B stored [N, K]: the
// X W^T form) or M/N-major (W stored [K, N], dW's x^T and dy): bf16 ones
// through wgmma's transposed layouts. TF32: A goes to the wgmmas from
// registers, loaded as it landed and rounded by the consumers; B (wgmma
// reads 32-bit operands from shared memory K-major only) is rounded and,
// when N-major, transposed by them in shared memory. A block computes
// BM x BN tiles:
//
//  - warpgroup 0 is the producer: it lowers its register budget
//    (setmaxnreg) and one thread issues TMA loads of BM x BK and BN x BK
//    tiles (128-byte rows, 128-byte swizzle, zero fill past the edges) into
//    a ring of stages in dynamic shared memory, each stage guarded by a
//    "full" mbarrier (transaction bytes) and an "empty" one (consumers
//    done);
//  - warpgroups 1..C are consumers with a raised register budget: each owns
//    64 rows of the tile (TF32: 64 x groups) and runs wgmma.mma_async
//    (m64 x BN x 32 bytes of K per instruction) on shared-memory
//    descriptors it builds (TF32: A from registers), with f32 accumulators
//    in registers, one wgmma group in flight;
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

#include "Hopper.h"

#include "nova/CostModel/WgmmaTiling.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {
namespace {

/// The tile and pipeline of one kernel.
struct WgmmaTiling {
  int64_t elementBytes;
  int64_t bk() const { return 128 / elementBytes; } // one 128-byte row
  int64_t consumers = 2;
  /// m64 row groups per consumer: 64 * groups rows each.
  int64_t groups = 1;
  int64_t bm() const { return 64 * consumers * groups; }
  /// TF32: A's fragments go to the wgmmas from registers, loaded and
  /// rounded by the consumers (only B is rounded in shared memory).
  bool registerA() const { return elementBytes == 4; }
  int64_t bn = 128; // the wgmma N
  int64_t stages = 4;
  int64_t aBytes() const { return bm() * 128; }
  int64_t bBytes() const { return bn * 128; }
  int64_t stageBytes() const { return aBytes() + bBytes(); }
  /// The output tile staged for TMA stores (0 when stored directly): each
  /// consumer's 64 rows of stagedColumns in boxes of 128 bytes of columns,
  /// 128-byte swizzled (its m64 groups and column parts take turns).
  int64_t stagingBytes = 0;
  int64_t stagingOffset() const { return stages * stageBytes(); }
  /// The barriers follow: full[stages], then empty[stages].
  int64_t barrierOffset() const { return stagingOffset() + stagingBytes; }
  /// Then a word kept zero (registerA: see WgmmaEmitter::pin).
  int64_t zeroOffset() const { return barrierOffset() + 16 * stages; }
  int64_t sharedBytes() const { return zeroOffset() + (registerA() ? 16 : 0); }
  int64_t threads() const { return 128 * (1 + consumers); }
  /// K per wgmma instruction: 32 bytes.
  int64_t kStep() const { return 32 / elementBytes; }
  /// 64-row blocks of the tile: a consumer's m64 groups one after another.
  int64_t rowBlocks() const { return consumers * groups; }
};

/// An operand as TMA loads it: `rows` M (or N) indices by `k`, stored
/// K-major (a row of K elements per M/N index) or MN-major (a row of M/N
/// elements per K index), rows `rowStride` elements apart, from element
/// `offset` of the input.
struct TmaOperand {
  BlockArgument input;
  int64_t offset, rows, k, rowStride;
  bool mnMajor = false;
  /// TF32: its values are TF32 already (nova.rounded): nothing to round.
  bool rounded = false;
};

/// Why the wgmma path does not take `k`'s kernel, or nothing when it does;
/// fills the operands when it does.
std::optional<std::string> analyze(KernelContext &k, nv::MatmulOp &mm,
                                   TmaOperand &a, TmaOperand &b) {
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
  if (element.isF32() && !k.options.tf32Wgmma)
    return std::string("TF32 on wgmma is off (tf32-wgmma=false)");
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t batch = p.space[0], m = p.space[1], n = p.space[2],
          kExtent = p.space[3];
  // Products smaller than a consumer's 64 rows gain nothing from the
  // 128-row tiles (and vectors keep their own layouts).
  if (m * batch < 64 || n < 64 || kExtent == 0)
    return std::string("a product under 64 x 64 or with K = 0");
  auto operandOf = [&](Value v, unsigned input, const Access &access,
                       bool rhs, TmaOperand &out) -> std::optional<std::string> {
    // Reshapes are views: the contract's access already reads through them
    // (dW's [B, T, C] -> [B*T, C], the heads' [B, T, H, D] -> [B, T, C]).
    while (auto reshape = v.getDefiningOp<nv::ReshapeOp>())
      v = reshape.getOperand();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getArgNumber() != input || elementOf(arg) != element)
      return std::string("a prologue on an operand");
    // The oriented view: lhs [.., M, K], rhs [.., K, N].
    size_t r = access.strides.size();
    int64_t mnStride = access.strides[rhs ? r - 1 : r - 2];
    int64_t kStride = access.strides[rhs ? r - 2 : r - 1];
    // K contiguous (K-major), else M or N contiguous (MN-major: wgmma's
    // transpose for bf16; TF32, which wgmma reads only K-major, lands as
    // it lies and the consumers transpose each stage in shared memory).
    bool mnMajor = kStride != 1 && kExtent > 1;
    if (mnMajor && mnStride != 1)
      return std::string("an operand with neither K nor M/N contiguous");
    int64_t rowStride = mnMajor ? kStride : mnStride;
    int64_t rows = rhs ? n : m;
    // The batch folds into the rows when the lhs's batches follow one
    // another along M and the rhs is the same for every batch.
    ArrayRef<int64_t> batchStrides = ArrayRef(access.strides).drop_back(2);
    ArrayRef<int64_t> batchShape = shapeOf(mm.getResult()).drop_back(2);
    int64_t expected = m * mnStride;
    for (int64_t d = int64_t(batchShape.size()) - 1; d >= 0; --d) {
      int64_t want = rhs ? 0 : expected;
      if (batchShape[d] != 1 && batchStrides[d] != want)
        return std::string("a batch that does not fold into the rows");
      expected *= batchShape[d];
    }
    if (!rhs)
      rows *= batch;
    // Rows the planner padded (nova_mem.buffer's ld): TMA steps them by
    // the pitch, its global dims stay the logical sizes, so the pad is
    // never read (zero fill past K, M and N). The contiguous dim must be
    // the input's rows, whole or in part.
    int64_t offset = access.offset;
    if (int64_t pitch = rowPitchOf(k.body.input(arg))) {
      int64_t rowLength = shapeOf(arg).back();
      int64_t contiguous = mnMajor ? rows : kExtent;
      if (rowStride % rowLength || offset % rowLength || contiguous > rowLength)
        return std::string("a view that splits the padded rows of an operand");
      rowStride = rowStride / rowLength * pitch;
      offset = offset / rowLength * pitch;
    }
    // TMA's global strides are multiples of 16 bytes: an odd row length
    // (a vocabulary of 50257) cannot be loaded by TMA.
    if ((rowStride * bytes) % 16 != 0)
      return std::string("a row stride that is not a multiple of 16 bytes");
    if ((offset * bytes) % 16 != 0)
      return std::string("an operand that does not start 16-byte aligned");
    if (rows >= (int64_t(1) << 31) || kExtent >= (int64_t(1) << 31))
      return std::string("an operand too large for 32-bit TMA coordinates");
    out = {arg,
           offset,
           rows,
           kExtent,
           rowStride,
           mnMajor,
           mm.isRoundedOperand(rhs ? 1 : 0)};
    return std::nullopt;
  };
  for (auto [i, operand] : llvm::enumerate(p.operands))
    if (auto why = operandOf(i ? mm.getRhs() : mm.getLhs(), operand.first,
                             operand.second, i == 1, i ? b : a))
      return why;
  return std::nullopt;
}

class WgmmaEmitter : hopper::EmitterBase {
public:
  WgmmaEmitter(KernelContext &k, nv::MatmulOp mm, TmaOperand a, TmaOperand bOp)
      : EmitterBase(k), mm(mm), a(a), bo(bOp) {}
  FailureOr<Geometry> emit();

private:
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value eq(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, y);
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
  }
  /// `byteOffset` (i64) bytes into the dynamic shared buffer.
  Value shared(Value byteOffset) {
    return hopper::sharedAt(b, smem, byteOffset);
  }
  Value shared(int64_t byteOffset) { return shared(i64(byteOffset)); }
  Value fullBarrier(Value stage) {
    return shared(add(i64(t.barrierOffset()), mul(stage, i64(8))));
  }
  Value emptyBarrier(Value stage) {
    return shared(
        add(i64(t.barrierOffset() + 8 * t.stages), mul(stage, i64(8))));
  }
  /// A TMA descriptor parameter for `op` in tiles of `tileRows` M (N)
  /// indices: one box of the whole tile when K-major, boxes of 128 bytes of
  /// M (N) by the K tile when MN-major.
  Value addDescriptor(const TmaOperand &op, int64_t tileRows);
  /// The producer's loads of `op`'s tile of `tileRows` from M (N) index
  /// `firstRow` (i32) and K index `kCoord` (i32) into the stage at shared
  /// byte `destination`, counted on barrier `full`.
  void load(const TmaOperand &op, Value desc, Value destination,
            int64_t tileRows, Value firstRow, Value kCoord, Value full);
  void waitParity(Value barrier, Value phase) {
    hopper::waitParity(b, barrier, phase);
  }
  /// The output tile `tile` as (tile row, tile column), in groups of 8
  /// tile rows that sweep the tile columns together (L2 reuse of B).
  std::pair<Value, Value> tileCoordinates(Value tile);
  /// for (unit = block; unit < tiles x splits; unit += grid) fn(tile,
  /// split, first pipeline step of the unit): the block's share of the
  /// persistent grid; a unit is one split of one tile's K tiles.
  template <typename Fn> LogicalResult forEachUnit(Fn fn);
  void producer();
  /// TF32: the consumers round B's tile of the landed stage `stage` to TF32
  /// in place (wgmma would drop the f32 operands' low mantissa bits),
  /// transposing an N-major one into the K-major layout wgmma reads, then
  /// make it visible to the wgmmas of both consumers. (A is rounded in
  /// registers.)
  void roundStage(Value consumerIndex, Value stage);
  /// roundStage's share of consumer thread `thread` (i64) in one operand's
  /// tile of `bytes` at shared byte `base` (i64): its 16-byte chunks
  /// rounded where they lie.
  void roundInPlace(Value thread, Value base, int64_t bytes);
  /// The same for an MN-major tile: rounded and transposed into K-major.
  void roundTransposed(Value thread, Value base, int64_t bytes);
  /// One f32 word (i32) prepared so that wgmma's truncation to TF32
  /// rounds it to nearest.
  Value roundWord(Value word);
  /// Whether the wgmmas read `op`'s tile MN-major: bf16 ones as they land;
  /// TF32's B is K-major once roundStage has transposed it (A comes from
  /// registers).
  bool readsMnMajor(const TmaOperand &op) const { return op.mnMajor && !tf32; }
  /// TF32: the consumers pass over each stage's B tile (to round it, or to
  /// transpose an N-major one), unless B is K-major and rounded already.
  bool passesOverB() const { return tf32 && (bo.mnMajor || !bo.rounded); }
  /// `bar.sync id, threads`: a named barrier of `threads` threads (0 is the
  /// block's, 1 and 2 each consumer's own in the epilogue, 3 both
  /// consumers'). As PTX: nvvm.barrier with a thread count does not
  /// survive printing with locations (its optional reduction parses the
  /// location).
  void namedBarrier(Value id, int64_t threads);
  void namedBarrier(int64_t id, int64_t threads);
  /// The inline PTX of either form (`ids`: the register id, if any).
  void barrierAsm(const std::string &text, ValueRange ids,
                  StringRef constraints);
  /// The accumulators (one struct per m64 group) of the unit whose K tiles
  /// are pipeline steps [first, first + kPerUnit).
  SmallVector<Value> consumer(Value consumerIndex, Value first);
  /// t.registerA: a use of `words`, the A registers of a wgmma group just
  /// waited for, that ptxas cannot remove: their OR masked by `zero` (a
  /// shared word kept zero, which ptxas cannot know), as an i64 to add to
  /// an address. ptxas (CUDA 13.0) treats a register-A wgmma's A operands
  /// as read when it issues, so without such a use later loads may land in
  /// them while the wgmma still runs (measured: wrong products).
  Value pin(ArrayRef<Value> words, Value zero);
  /// t.registerA: the shared byte offsets (i64) of this consumer thread's A
  /// fragment words in a stage, less the stage's base: for m64 group g, K
  /// step s, register r, `offset(g, s, r)`.
  std::function<Value(int64_t, int64_t, int64_t)>
  fragmentOffsets(Value consumerIndex);
  /// Split K: the tile's sum over its splits, then the epilogue, by the
  /// last of them to finish. `rowBlock`: which 64 rows of the tile `acc`
  /// holds (consumer index x groups + group).
  LogicalResult combineSplits(Value acc, Value consumerIndex, Value rowBlock,
                              Value tile, Value split, Value tm, Value tn);
  LogicalResult epilogue(Value acc, Value consumerIndex, Value rowBlock,
                         Value tm, Value tn);
  /// How the epilogue stores its outputs.
  enum class Staging {
    /// From the accumulators' registers.
    None,
    /// bf16 or f32 outputs one after the other through shared memory,
    /// then TMA stores: full 128-byte lines, asynchronous, so they drain
    /// while the next tile's wgmmas run (not with split K: its epilogue
    /// runs per warp).
    Tma,
    /// The same for rows TMA cannot address (a pitch that is not a
    /// multiple of 16 bytes, such as a 50257 vocabulary): the consumer's
    /// threads copy the staged block out row by row, consecutive threads
    /// on consecutive columns (coalesced, instead of the accumulator
    /// layout's 8 rows per warp store).
    CopyOut,
  };
  Staging chooseStaging();
  /// The output index of element (row, col) of the product's 2-D view (the
  /// batch dims folded into the rows).
  SmallVector<Value> outputIndex(Value row, Value col) {
    ArrayRef<int64_t> out = shapeOf(mm.getResult());
    ArrayRef<int64_t> batchShape = out.drop_back(2);
    int64_t m = out[out.size() - 2], n = out.back();
    SmallVector<Value> at;
    if (!batchShape.empty())
      at = body.delinearize(arith::DivUIOp::create(b, row, idx(m)),
                            batchShape);
    Value r = batchShape.empty() ? row : arith::RemUIOp::create(b, row, idx(m));
    // Dims of size 1 are indexed by the shared zero (as project() does).
    at.push_back(m == 1 ? idx(0) : r);
    at.push_back(n == 1 ? idx(0) : col);
    return at;
  }
  /// Staging::CopyOut: output `o`'s staged block of this consumer, whose
  /// first column is `firstColumn` of the output, to global memory, a row
  /// at a time, thread t on columns t, t + 128, ...
  LogicalResult copyOut(unsigned o, Value rowBlock, Value tm, Value firstColumn,
                        Value stagingBlock);
  /// Elements from one row of output `o` to the next.
  int64_t outputPitch(unsigned o) {
    int64_t pitch = rowPitchOf(k.outputBuffers[o]);
    return pitch ? pitch : shapeOf(mm.getResult()).back();
  }

  nv::MatmulOp mm;
  TmaOperand a, bo;
  WgmmaTiling t{};
  Value smem, descA, descB, tid, block, workspace;
  /// One TMA descriptor per output when the epilogue stages them.
  SmallVector<Value> descOuts;
  Staging staging = Staging::None;
  /// Bytes of a staged output element (bf16 or f32).
  int64_t stagedBytes = 2;
  /// Columns of a staged 128-byte box.
  int64_t boxColumns() const { return 128 / stagedBytes; }
  /// Columns of the tile staged at once: the whole tile, or for f32 128 x
  /// 256 tiles each 128-column half in turn (a whole one, 128 KB, would
  /// leave 2 pipeline stages).
  int64_t stagedColumns = 0;
  int64_t tilesM = 0, tilesN = 0, kTiles = 0, grid = 0;
  /// K tiles split over `splits` blocks of kPerUnit each.
  int64_t splits = 1, kPerUnit = 0;
  bool tf32 = false;
};

Value WgmmaEmitter::addDescriptor(const TmaOperand &op, int64_t tileRows) {
  // dims and box innermost first (K then M/N, or M/N then K when
  // MN-major); strides in bytes. A box row is 128 bytes either way.
  SmallVector<int64_t> dims{op.k, op.rows}, box{t.bk(), tileRows};
  if (op.mnMajor) {
    dims = {op.rows, op.k};
    box = {t.bk(), t.bk()};
  }
  return hopper::addTmaDescriptor(k, op.input, op.offset * t.elementBytes,
                                  dims, {op.rowStride * t.elementBytes}, box,
                                  128);
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

template <typename Fn> LogicalResult WgmmaEmitter::forEachUnit(Fn fn) {
  int64_t units = tilesM * tilesN * splits;
  return k.loop(block, idx(units), idx(grid), [&](Value unit) {
    // Every unit has kPerUnit steps; stages and phases run on across units.
    Value first = mul(arith::DivUIOp::create(
                          b, arith::SubIOp::create(b, unit, block), idx(grid)),
                      idx(kPerUnit));
    if (splits == 1)
      return fn(unit, idx(0), first);
    return fn(arith::DivUIOp::create(b, unit, idx(splits)),
              arith::RemUIOp::create(b, unit, idx(splits)), first);
  });
}

void WgmmaEmitter::load(const TmaOperand &op, Value desc, Value destination,
                        int64_t tileRows, Value firstRow, Value kCoord,
                        Value full) {
  auto copy = [&](Value to, Value inner, Value outer) {
    hopper::tmaLoad(b, shared(to), desc, ValueRange{inner, outer}, full);
  };
  if (!op.mnMajor)
    return copy(destination, kCoord, firstRow);
  // MN-major: 128-byte-wide column blocks of the tile, each the K tile's
  // rows, one after the other (the descriptor's leading byte offset).
  for (int64_t j = 0; j < tileRows / t.bk(); ++j)
    copy(add(destination, i64(j * 128 * t.bk())),
         arith::AddIOp::create(b, firstRow, i32(j * t.bk())), kCoord);
}

void WgmmaEmitter::producer() {
  // One thread issues every load; the others of the warpgroup are done.
  Value lead = eq(arith::RemUIOp::create(b, tid, idx(128)), idx(0));
  (void)k.ifThen(lead, [&] {
    return forEachUnit([&](Value tile, Value split, Value first) {
      auto [tm, tn] = tileCoordinates(tile);
      Value rowA = toI32(mul(tm, idx(t.bm()))),
            rowB = toI32(mul(tn, idx(t.bn)));
      Value firstK = mul(split, idx(kPerUnit));
      return k.loop(idx(0), idx(kPerUnit), idx(1), [&](Value kt) {
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
        Value kCoord = toI32(mul(add(firstK, kt), idx(t.bk())));
        load(a, descA, base, t.bm(), rowA, kCoord, full);
        load(bo, descB, add(base, i64(t.aBytes())), t.bn, rowB, kCoord, full);
        return success();
      });
    });
  });
}

/// The named barrier of both consumer warpgroups.
constexpr int64_t kConsumersBarrier = 3;

void WgmmaEmitter::barrierAsm(const std::string &text, ValueRange ids,
                              StringRef constraints) {
  LLVM::InlineAsmOp::create(b, Type(), ids, text, constraints,
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}
void WgmmaEmitter::namedBarrier(Value id, int64_t threads) {
  barrierAsm(("bar.sync $0, " + Twine(threads) + ";").str(),
             ValueRange{toI32(id)}, "r,~{memory}");
}
void WgmmaEmitter::namedBarrier(int64_t id, int64_t threads) {
  barrierAsm(("bar.sync " + Twine(id) + ", " + Twine(threads) + ";").str(),
             ValueRange{}, "~{memory}");
}

Value WgmmaEmitter::roundWord(Value word) {
  // Round to nearest, ties away from zero (cvt.rna's TF32, as PyTorch's),
  // as wgmma reads it: wgmma drops the 13 low mantissa bits, so adding
  // half of the TF32 unit in the last place (bit 12) to the bit pattern
  // makes that truncation the rounding: a carry out of the low bits rounds
  // the magnitude up, ties included. One integer add at the full ALU rate
  // instead of a conversion at a quarter of it. Inf stays Inf (the carry
  // stays in the dropped bits); only NaNs whose payload lies wholly in
  // those bits read as Inf, as they would unrounded.
  return arith::AddIOp::create(b, word, i32(1 << 12));
}

void WgmmaEmitter::roundInPlace(Value thread, Value base, int64_t bytes) {
  // Every 16-byte chunk of the tile (128-byte swizzled: the permutation
  // does not matter to an element-wise rounding), consecutive threads on
  // consecutive chunks.
  int64_t consumerThreads = 128 * t.consumers;
  int64_t chunks = bytes / 16;
  assert(chunks % consumerThreads == 0 && "a tile in whole rounds of chunks");
  Value first = add(base, mul(thread, i64(16)));
  auto words = VectorType::get({4}, b.getI32Type());
  for (int64_t j = 0; j < chunks / consumerThreads; ++j) {
    Value at = shared(add(first, i64(j * consumerThreads * 16)));
    Value chunk = LLVM::LoadOp::create(b, words, at, /*alignment=*/16);
    SmallVector<Value> rounded;
    for (int64_t e = 0; e < 4; ++e)
      rounded.push_back(
          roundWord(LLVM::ExtractElementOp::create(b, chunk, i32(e))));
    LLVM::StoreOp::create(b, vector::FromElementsOp::create(b, words, rounded),
                          at, /*alignment=*/16);
  }
}

void WgmmaEmitter::roundTransposed(Value thread, Value base, int64_t bytes) {
  // The MN-major tile landed as column blocks of 32 M (N) indices (128
  // bytes) by the K tile's 32 rows: 4 KB each, 128-byte swizzled (16-byte
  // chunk c of row r at chunk c ^ (r % 8)). K-major, the same 32 M (N)
  // indices are 32 rows of 32 K: the same 4 KB, so each block transposes
  // within itself. In 4 x 4 blocks of words: block (p, q) of M (N) indices
  // 4p..4p+3 and K indices 4q..4q+3 is one chunk in each of the rows
  // 4q..4q+3 as it lies, and becomes one chunk in each of the rows
  // 4p..4p+3, where block (q, p) lay: a thread reads its 4 chunks, rounds
  // and transposes them in registers and writes them there.
  //
  // The 64 blocks of a column block go to 8 groups of 8 consecutive
  // threads (a quarter warp, which shares one pass through the shared
  // memory banks for 16-byte accesses): group s takes (p, q) = (i, i ^ s)
  // for its threads i = 0..7. The chunks the group reads from row 4q + r,
  // p ^ (4q + r) % 8 = p ^ 4(q & 1) ^ r, are 8 distinct chunks of 128
  // bytes, and so are those it writes, q ^ 4(p & 1) ^ r: no bank
  // conflicts. Block (q, p) is the same group's (thread i ^ s), so a warp
  // synchronisation between the reads and the writes orders them.
  // A 192-wide B tile has 384 blocks, a 160-wide one 320: the last round
  // is the first 128 or 64 threads' (whole warps, so the warp
  // synchronisation stays uniform).
  int64_t consumerThreads = 128 * t.consumers;
  int64_t blocks = bytes / 64; // 16 words each
  // Whole 32-column boxes (64 blocks each): whole warps in the last round.
  assert(blocks % 64 == 0 && "a tile in whole 32-column boxes");
  auto words = VectorType::get({4}, b.getI32Type());
  auto chunkAt = [&](Value blockBase, Value row, Value chunk) {
    Value swizzled =
        arith::XOrIOp::create(b, chunk, arith::AndIOp::create(b, row, i64(7)));
    return shared(
        add(blockBase, add(mul(row, i64(128)), mul(swizzled, i64(16)))));
  };
  auto transposeBlock = [&](Value g) {
    Value blockBase =
        add(base, mul(arith::DivUIOp::create(b, g, i64(64)), i64(4096)));
    Value w = arith::RemUIOp::create(b, g, i64(64));
    Value p = arith::RemUIOp::create(b, w, i64(8));
    Value q = arith::XOrIOp::create(b, p, arith::DivUIOp::create(b, w, i64(8)));
    SmallVector<Value> in;
    for (int64_t r = 0; r < 4; ++r) {
      Value row = add(mul(q, i64(4)), i64(r));
      in.push_back(LLVM::LoadOp::create(b, words, chunkAt(blockBase, row, p),
                                        /*alignment=*/16));
    }
    barrierAsm("bar.warp.sync -1;", ValueRange{}, "~{memory}");
    // Row 4p + c of the K-major tile: word c of each chunk read (K indices
    // 4q..4q+3).
    for (int64_t c = 0; c < 4; ++c) {
      SmallVector<Value> out;
      for (int64_t r = 0; r < 4; ++r)
        out.push_back(
            roundWord(LLVM::ExtractElementOp::create(b, in[r], i32(c))));
      Value row = add(mul(p, i64(4)), i64(c));
      LLVM::StoreOp::create(b, vector::FromElementsOp::create(b, words, out),
                            chunkAt(blockBase, row, q), /*alignment=*/16);
    }
  };
  for (int64_t j = 0; j * consumerThreads < blocks; ++j) {
    Value g = add(thread, i64(j * consumerThreads));
    if ((j + 1) * consumerThreads <= blocks) {
      transposeBlock(g);
      continue;
    }
    (void)k.ifThen(lt(g, i64(blocks)), [&] {
      transposeBlock(g);
      return success();
    });
  }
}

void WgmmaEmitter::roundStage(Value consumerIndex, Value stage) {
  // Both consumers share B's tile, one thread each per chunk (or 4 x 4
  // block); the previous step's wgmmas still run meanwhile.
  int64_t consumerThreads = 128 * t.consumers;
  Value thread = add(mul(toI64(consumerIndex), i64(128)),
                     toI64(arith::RemUIOp::create(b, tid, idx(128))));
  Value base = add(mul(stage, i64(t.stageBytes())), i64(t.aBytes()));
  if (bo.mnMajor)
    roundTransposed(thread, base, t.bBytes());
  else
    roundInPlace(thread, base, t.bBytes());
  // The generic-proxy stores made visible to the wgmmas (the async proxy),
  // then both consumers' shares done: B is read by both.
  NVVM::FenceProxyOp::create(
      b, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  namedBarrier(kConsumersBarrier, consumerThreads);
}


/// The constant bits of the wgmma shared-memory descriptor of a
/// 128-byte-swizzled tile whose K tile is `bk` elements (the start address
/// >> 4 goes in bits 0-13): 128-byte swizzle (bits 62-63), the stride byte
/// offset (bits 32-45) between groups of 8 rows of 128 bytes (1024), and
/// the leading byte offset (bits 16-29): unused by K-major layouts (16),
/// between the 128-byte-wide column blocks of an MN-major one (a block
/// holds the K tile's rows: 128 x bk bytes).
static int64_t descriptorBits(bool mnMajor, int64_t bk) {
  int64_t leading = mnMajor ? 128 * bk : 16;
  return ((leading >> 4) << 16) | (int64_t(1024 >> 4) << 32) |
         (int64_t(1) << 62);
}

std::function<Value(int64_t, int64_t, int64_t)>
WgmmaEmitter::fragmentOffsets(Value consumerIndex) {
  // Register r of lane l in warp w of group g, K step s: row m = 64 (this
  // consumer's first group + g) + 16 w + l / 4 + 8 (r % 2) of the tile, K
  // index k = 8 s + l % 4 + 4 (r / 2). The thread's parts are computed
  // once, outside the pipeline loop.
  Value thread = toI64(arith::RemUIOp::create(b, tid, idx(128)));
  Value warp = arith::DivUIOp::create(b, thread, i64(32));
  Value lane = arith::RemUIOp::create(b, thread, i64(32));
  Value quad = arith::DivUIOp::create(b, lane, i64(4));   // l / 4
  Value within = arith::RemUIOp::create(b, lane, i64(4)); // l % 4
  Value firstBlock = mul(toI64(consumerIndex), i64(t.groups));
  auto xorTimes16 = [&](Value x, Value y) {
    return mul(arith::XOrIOp::create(b, x, y), i64(16));
  };
  if (!a.mnMajor) {
    // K-major, 128-byte swizzled: (m, k) at m * 128 + 16 ((k / 4) ^ (m % 8))
    // + 4 (k % 4), and m % 8 = l / 4. k / 4 = 2 s + r / 2.
    Value base =
        add(mul(add(add(mul(firstBlock, i64(64)), mul(warp, i64(16))), quad),
                i64(128)),
            mul(within, i64(4)));
    SmallVector<Value> swizzled;
    for (int64_t c = 0; c < 8; ++c)
      swizzled.push_back(xorTimes16(i64(c), quad));
    return [=, this](int64_t g, int64_t s, int64_t r) {
      return add(add(base, swizzled[2 * s + r / 2]),
                 i64((g * 64 + 8 * (r % 2)) * 128));
    };
  }
  // M-major: 4 KB column blocks of 32 M indices by the K tile's 32 rows of
  // 128 bytes, (m, k) at 4096 (m / 32) + 128 k + 16 (((m % 32) / 4) ^ (k %
  // 8)) + 4 (m % 4): m / 32 = 2 (first group + g) + w / 2, (m % 32) / 4 =
  // 4 (w % 2) + (l / 4) / 4 + 2 (r % 2), k % 8 = l % 4 + 4 (r / 2).
  Value base = add(add(mul(add(mul(firstBlock, i64(2)),
                               arith::DivUIOp::create(b, warp, i64(2))),
                           i64(4096)),
                       mul(within, i64(128))),
                   mul(arith::RemUIOp::create(b, quad, i64(4)), i64(4)));
  Value chunk = add(mul(arith::RemUIOp::create(b, warp, i64(2)), i64(4)),
                    arith::DivUIOp::create(b, quad, i64(4)));
  SmallVector<Value> swizzled;
  for (int64_t r = 0; r < 4; ++r)
    swizzled.push_back(xorTimes16(add(chunk, i64(2 * (r % 2))),
                                  add(within, i64(4 * (r / 2)))));
  return [=, this](int64_t g, int64_t s, int64_t r) {
    return add(add(base, swizzled[r]),
               i64(2 * g * 4096 + (8 * s + 4 * (r / 2)) * 128));
  };
}

Value WgmmaEmitter::pin(ArrayRef<Value> words, Value zero) {
  Value any = words.front();
  for (Value w : words.drop_front())
    any = arith::OrIOp::create(b, any, w);
  return arith::ExtUIOp::create(b, b.getI64Type(),
                                arith::AndIOp::create(b, any, zero));
}

SmallVector<Value> WgmmaEmitter::consumer(Value consumerIndex, Value first) {
  MLIRContext *ctx = b.getContext();
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(t.bn / 2, b.getF32Type()));
  Value smemAddress = LLVM::PtrToIntOp::create(b, b.getI64Type(), smem);
  Value start = arith::ShRUIOp::create(b, smemAddress, i64(4));
  bool aMn = readsMnMajor(a), bMn = readsMnMajor(bo);
  Value bBase =
      arith::OrIOp::create(b, start, i64(descriptorBits(bMn, t.bk())));
  // Shared A: this consumer's 64 rows of A, 64 rows of 128 bytes (K-major)
  // or one column block of 64 M indices by the K tile (MN-major).
  Value aBase, aRows;
  if (!t.registerA()) {
    aBase = arith::OrIOp::create(b, start, i64(descriptorBits(aMn, t.bk())));
    int64_t consumerBytes = aMn ? 128 * t.bk() : 64 * 128;
    aRows = mul(toI64(consumerIndex), i64(consumerBytes >> 4));
  }
  // The descriptors' start addresses advance by a wgmma's K (32 bytes)
  // along the swizzled 128-byte rows when K-major, by as many rows of 128
  // bytes when MN-major.
  auto kStepBytes = [&](bool mn) { return mn ? 128 * t.kStep() : 32; };
  NVVM::WGMMATypes type =
      tf32 ? NVVM::WGMMATypes::tf32 : NVVM::WGMMATypes::bf16;
  int64_t kSteps = t.bk() / t.kStep();
  std::function<Value(int64_t, int64_t, int64_t)> fragment;
  Value zero;
  if (t.registerA()) {
    fragment = fragmentOffsets(consumerIndex);
    zero = LLVM::LoadOp::create(b, b.getI32Type(), shared(t.zeroOffset()),
                                /*alignment=*/4);
  }

  // Releases `step`'s stage, its wgmmas done (`words`: their A registers).
  auto release = [&](Value step, ArrayRef<Value> words) {
    Value stage = toI64(arith::RemUIOp::create(b, step, idx(t.stages)));
    Value barrier = emptyBarrier(stage);
    if (!words.empty())
      barrier = LLVM::GEPOp::create(b, barrier.getType(), b.getI8Type(),
                                    barrier, ValueRange{pin(words, zero)});
    NVVM::MBarrierArriveOp::create(b, Type(), barrier, Value());
  };
  // One pipeline step: wait for its stage, then BK / kStep wgmmas per group
  // into `accs` as one group. The tile's first wgmma ignores the
  // accumulators (scale-d 0): no zeroing instructions inside the pipeline.
  // With shared-memory operands the previous step's group still runs when
  // this one's is issued; then the previous one is waited for and its stage
  // released. With register A, B is rounded (unless nova-fuse rounded it
  // ahead) while the previous group runs,
  // then that group is waited for, its A registers pinned past the wait
  // (see pin), and this step's A words loaded: ptxas serializes every
  // wgmma (C7513) when A words are loaded while a group runs and its
  // registers stay live. The other consumer's group keeps the tensor
  // cores busy meanwhile.
  // Returns the accumulators, then (register A) the step's A words: what
  // the pipeline loop carries.
  auto kTile = [&](Value step, SmallVector<Value> accs, bool firstStep,
                   ArrayRef<Value> previousWords) {
    Value stage = toI64(arith::RemUIOp::create(b, step, idx(t.stages)));
    Value phase = toI32(arith::AndIOp::create(
        b, arith::DivUIOp::create(b, step, idx(t.stages)), idx(1)));
    waitParity(fullBarrier(stage), phase);
    Value stageBase = mul(stage, i64(t.stageBytes()));
    if (passesOverB())
      roundStage(consumerIndex, stage);
    Value stageOffset = mul(stage, i64(t.stageBytes() >> 4));
    Value bDesc = add(add(bBase, stageOffset), i64(t.aBytes() >> 4));
    SmallVector<Value> words;
    if (t.registerA()) {
      if (!firstStep) {
        NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
        release(arith::SubIOp::create(b, step, idx(1)), previousWords);
      }
      // The thread's words of A as TMA landed them, rounded where they
      // are loaded.
      for (int64_t g = 0; g < t.groups; ++g)
        for (int64_t s = 0; s < kSteps; ++s)
          for (int64_t r = 0; r < 4; ++r) {
            Value word = LLVM::LoadOp::create(
                b, b.getI32Type(), shared(add(stageBase, fragment(g, s, r))),
                /*alignment=*/4);
            words.push_back(a.rounded ? word : roundWord(word));
          }
    }
    NVVM::WgmmaFenceAlignedOp::create(b);
    if (t.registerA()) {
      for (int64_t g = 0; g < t.groups; ++g) {
        SmallVector<Value> acc;
        for (int64_t i = 0; i < t.bn / 2; ++i)
          acc.push_back(
              LLVM::ExtractValueOp::create(b, accs[g], ArrayRef<int64_t>{i}));
        for (int64_t s = 0; s < kSteps; ++s)
          acc = hopper::wgmmaRegisterA(
              b, acc, ArrayRef(words).slice((g * kSteps + s) * 4, 4),
              add(bDesc, i64(s * kStepBytes(bMn) >> 4)),
              i32(firstStep && s == 0 ? 0 : 1), hopper::RegisterA::TF32);
        Value packed = LLVM::UndefOp::create(b, accType);
        for (auto [i, v] : llvm::enumerate(acc))
          packed = LLVM::InsertValueOp::create(b, packed, v,
                                               ArrayRef<int64_t>{int64_t(i)});
        accs[g] = packed;
      }
    } else {
      Value aDesc = add(add(aBase, stageOffset), aRows);
      for (int64_t s = 0; s < kSteps; ++s) {
        accs[0] = NVVM::WgmmaMmaAsyncOp::create(
            b, accType, accs[0], add(aDesc, i64(s * kStepBytes(aMn) >> 4)),
            add(bDesc, i64(s * kStepBytes(bMn) >> 4)),
            NVVM::MMAShapeAttr::get(ctx, 64, t.bn, t.kStep()), type, type,
            NVVM::WGMMATypes::f32,
            firstStep && s == 0 ? NVVM::WGMMAScaleOut::zero
                                : NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            // K-major is A row-major and B column-major.
            aMn ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            bMn ? NVVM::MMALayout::row : NVVM::MMALayout::col,
            NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    accs.append(words);
    return accs;
  };
  int64_t groups = t.groups;
  SmallVector<Value> carried = kTile(
      first, SmallVector<Value>(groups, LLVM::UndefOp::create(b, accType)),
      true, {});
  auto forOp = scf::ForOp::create(b, idx(1), idx(kPerUnit), idx(1), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value step = add(first, forOp.getInductionVar());
    auto args = llvm::to_vector_of<Value>(forOp.getRegionIterArgs());
    SmallVector<Value> c =
        kTile(step, SmallVector<Value>(ArrayRef(args).take_front(groups)),
              false, ArrayRef(args).drop_front(groups));
    if (!t.registerA()) {
      // The previous step's group is done: release its stage.
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1);
      release(arith::SubIOp::create(b, step, idx(1)), {});
    }
    scf::YieldOp::create(b, c);
  }
  // The last stage goes back too: the producer fills it for the next tile
  // while this one's epilogue runs.
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  auto results = llvm::to_vector_of<Value>(forOp.getResults());
  release(add(first, idx(kPerUnit - 1)), ArrayRef(results).drop_front(groups));
  results.resize(groups);
  return results;
}

LogicalResult WgmmaEmitter::combineSplits(Value acc, Value consumerIndex,
                                          Value rowBlock, Value tile,
                                          Value split, Value tm, Value tn) {
  // Per warp of the tile (8: no barrier wider than a warp), a slot of its
  // accumulators per split, [accumulator][lane] (coalesced), and a ticket;
  // the tickets after every slot. The last warp to draw its ticket adds
  // the slots in split order (the same sum whichever finishes last), zeroes
  // them and its ticket (the workspace is left as it was found: zero).
  int64_t perThread = t.bn / 2, warps = 4 * t.rowBlocks(),
          tiles = tilesM * tilesN;
  Type f32 = b.getF32Type();
  Value thread = arith::RemUIOp::create(b, tid, idx(128));
  Value lane = arith::RemUIOp::create(b, tid, idx(32));
  Value warp =
      add(mul(rowBlock, idx(4)), arith::DivUIOp::create(b, thread, idx(32)));
  Value slots = k.workspaceView(workspace, 0,
                                {tiles * splits * warps, perThread, 32}, f32);
  Value tickets =
      k.workspaceView(workspace, tiles * splits * warps * perThread * 32 * 4,
                      {tiles * warps}, b.getI32Type());
  auto slot = [&](Value s) {
    return add(mul(add(mul(tile, idx(splits)), s), idx(warps)), warp);
  };
  Value mine = slot(split);
  for (int64_t i = 0; i < perThread; ++i)
    memref::StoreOp::create(
        b, LLVM::ExtractValueOp::create(b, acc, ArrayRef<int64_t>{i}), slots,
        ValueRange{mine, idx(i), lane});
  NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
  NVVM::SyncWarpOp::create(b, i32(-1));
  Value ticketIndex = add(mul(tile, idx(warps)), warp);
  auto draw = scf::IfOp::create(b, TypeRange{b.getI32Type()}, eq(lane, idx(0)),
                                /*else=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(draw.thenBlock());
    scf::YieldOp::create(b, ValueRange{memref::AtomicRMWOp::create(
                                b, arith::AtomicRMWKind::addi, i32(1), tickets,
                                ValueRange{ticketIndex})});
    b.setInsertionPointToStart(draw.elseBlock());
    scf::YieldOp::create(b, ValueRange{i32(0)});
  }
  Value ticket = gpu::ShuffleOp::create(b, draw.getResult(0), int32_t(0),
                                        int32_t(32), gpu::ShuffleMode::IDX)
                     .getShuffleResult();
  Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, ticket,
                                     i32(splits - 1));
  return k.ifThen(last, [&]() -> LogicalResult {
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0));
    auto sum =
        scf::ForOp::create(b, idx(0), idx(splits), idx(1),
                           ValueRange{LLVM::ZeroOp::create(b, acc.getType())});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(sum.getBody());
      Value from = slot(sum.getInductionVar());
      Value total = sum.getRegionIterArg(0);
      for (int64_t i = 0; i < perThread; ++i) {
        ValueRange at{from, idx(i), lane};
        Value x = memref::LoadOp::create(b, slots, at);
        memref::StoreOp::create(b, zero, slots, at);
        Value partial =
            LLVM::ExtractValueOp::create(b, total, ArrayRef<int64_t>{i});
        total = LLVM::InsertValueOp::create(
            b, total, arith::AddFOp::create(b, partial, x),
            ArrayRef<int64_t>{i});
      }
      scf::YieldOp::create(b, total);
    }
    (void)k.ifThen(eq(lane, idx(0)), [&] {
      memref::StoreOp::create(b, i32(0), tickets, ValueRange{ticketIndex});
      return success();
    });
    return epilogue(sum.getResult(0), consumerIndex, rowBlock, tm, tn);
  });
}

LogicalResult WgmmaEmitter::epilogue(Value acc, Value consumerIndex,
                                     Value rowBlock, Value tm, Value tn) {
  // Accumulator i of thread (warp w, lane l): row 16 w + l / 4 (+ 8 when
  // bit 1 of i is set), column 8 (i / 4) + 2 (l % 4) + i % 2.
  Value thread = arith::RemUIOp::create(b, tid, idx(128));
  Value warp = arith::DivUIOp::create(b, thread, idx(32));
  Value lane = arith::RemUIOp::create(b, thread, idx(32));
  Value rowBase =
      add(add(mul(tm, idx(t.bm())), mul(rowBlock, idx(64))),
          add(mul(warp, idx(16)), arith::DivUIOp::create(b, lane, idx(4))));
  Value colBase = add(mul(tn, idx(t.bn)),
                      mul(arith::RemUIOp::create(b, lane, idx(4)), idx(2)));
  ArrayRef<int64_t> out = shapeOf(mm.getResult());
  int64_t n = out.back();
  int64_t rows = a.rows; // M times the folded batches
  Type resultElement = elementOf(mm.getResult());
  // Accumulators i and i + 1 are neighbours in a row: with N even, both
  // or neither are inside, and each output (of the product's shape, no
  // checks) takes them in one 2-element store.
  bool pairs = n % 2 == 0 && n > 1 && k.finiteChecks.empty() &&
               llvm::all_of(k.outputs(), [&](Value v) {
                 return shapeOf(v) == out && vectorizable(elementOf(v));
               });
  // Staged outputs: this consumer's 64 x stagedColumns block of the
  // staging area (its m64 groups, outputs and column parts take turns in
  // it), in boxes of 64 rows of 128 bytes (64 bf16 or 32 f32 columns): the
  // pair of accumulator i, at column c = 8 (i / 4) + 2 (lane % 4) less the
  // part's first, in box c / boxColumns, row r, 16-byte chunk swizzled by
  // r % 8 (= lane / 4).
  bool staged = staging != Staging::None;
  Value consumerThread0 = eq(thread, idx(0));
  // This consumer's own named barrier (128 threads).
  auto consumerBarrier = [&] {
    namedBarrier(add(consumerIndex, idx(1)), 128);
  };

  Value stagingBlock, laneQuad, rowInConsumer;
  if (staged) {
    stagingBlock =
        add(i64(t.stagingOffset()),
            mul(toI64(consumerIndex), i64(64 * stagedColumns * stagedBytes)));
    laneQuad = toI64(arith::DivUIOp::create(b, lane, idx(4)));
    rowInConsumer = add(mul(toI64(warp), i64(16)), laneQuad);
  }
  auto stagedAddress = [&](int64_t i) {
    Value row = add(rowInConsumer, i64((i & 2) ? 8 : 0));
    // The byte of column c in its box row: the constant part from i, the
    // lane's 2 (lane % 4) columns added.
    int64_t firstColumn = 8 * (i / 4) % stagedColumns;
    Value byte = add(i64(firstColumn % boxColumns() * stagedBytes),
                     mul(toI64(arith::RemUIOp::create(b, lane, idx(4))),
                         i64(2 * stagedBytes)));
    Value chunk = arith::XOrIOp::create(
        b, arith::DivUIOp::create(b, byte, i64(16)), laneQuad);
    Value within = arith::RemUIOp::create(b, byte, i64(16));
    return shared(
        add(add(stagingBlock, i64(firstColumn / boxColumns() * 64 * 128)),
            add(add(mul(row, i64(128)), mul(chunk, i64(16))), within)));
  };
  // When the tiles cover the output exactly no element needs a guard, and
  // the elements' code stays in one block that ptxas can interleave.
  bool exact = rows % t.bm() == 0 && n % t.bn == 0;
  // Stores outputs `which` at the thread's accumulator elements in
  // columns [first, last) of the tile.
  auto storeElements = [&](ArrayRef<unsigned> which, int64_t first,
                           int64_t last) -> LogicalResult {
    if (exact)
      body.pushScope();
    for (int64_t i = first / 2; i < last / 2; i += pairs ? 2 : 1) {
      Value row = add(rowBase, idx((i & 2) ? 8 : 0));
      Value col = add(colBase, idx((i / 4) * 8 + (i % 2)));
      auto element = [&] {
        SmallVector<Value> at = outputIndex(row, col);
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
        for (unsigned o : which) {
          if (!pairs && staged) {
            // Element i alone: its half of pair i / 2's slot.
            FailureOr<Value> v = body.eval(k.outputs()[o], at);
            if (failed(v))
              return k.unsupported();
            Value slot = stagedAddress(i & ~int64_t(1));
            if (i % 2)
              slot = LLVM::GEPOp::create(
                  b, slot.getType(), b.getI8Type(), slot,
                  ArrayRef<LLVM::GEPArg>{int32_t(stagedBytes)});
            LLVM::StoreOp::create(b, *v, slot, /*alignment=*/stagedBytes);
            continue;
          }
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
          if (staged) {
            LLVM::StoreOp::create(b, pair, stagedAddress(i),
                                  /*alignment=*/2 * stagedBytes);
            continue;
          }
          vector::StoreOp::create(
              b, pair, k.outputBuffers[o], at, /*nontemporal=*/false,
              llvm::MaybeAlign(2 * element.getIntOrFloatBitWidth() / 8));
        }
        return success();
      };
      LogicalResult ok =
          exact ? element()
                : k.ifThen(arith::AndIOp::create(b, lt(row, idx(rows)),
                                                 lt(col, idx(n))),
                           element);
      if (failed(ok))
        return failure();
    }
    if (exact)
      body.popScope();
    return success();
  };
  if (!staged) {
    SmallVector<unsigned> all =
        llvm::to_vector(llvm::seq<unsigned>(0, k.outputs().size()));
    return storeElements(all, 0, t.bn);
  }
  for (unsigned o = 0; o < k.outputs().size(); ++o)
    for (int64_t part = 0; part < t.bn; part += stagedColumns) {
      // The previous TMA stores (of this tile's previous output or part, or
      // of the previous tile) have read the staging block.
      (void)k.ifThen(consumerThread0, [&] {
        NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, b.getUnitAttr());
        return success();
      });
      consumerBarrier();
      if (failed(storeElements({o}, part, part + stagedColumns)))
        return failure();
      Value firstColumn = add(mul(tn, idx(t.bn)), idx(part));
      if (staging == Staging::CopyOut) {
        consumerBarrier();
        if (failed(copyOut(o, rowBlock, tm, firstColumn, stagingBlock)))
          return failure();
        continue;
      }
      // The generic-proxy writes made visible to TMA (the async proxy), then
      // one thread stores the block's 128-byte-wide boxes (TMA clips the rows
      // and columns past the edges, which the guards left unwritten).
      NVVM::FenceProxyOp::create(
          b, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      consumerBarrier();
      if (failed(k.ifThen(consumerThread0, [&] {
            Value firstRow =
                toI32(add(mul(tm, idx(t.bm())), mul(rowBlock, idx(64))));
            for (int64_t j = 0; j < stagedColumns / boxColumns(); ++j)
              NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
                  b, descOuts[o], shared(add(stagingBlock, i64(j * 64 * 128))),
                  ValueRange{toI32(add(firstColumn, idx(boxColumns() * j))),
                             firstRow},
                  Value(), NVVM::TMAStoreMode::TILE, Value());
            NVVM::CpAsyncBulkCommitGroupOp::create(b);
            return success();
          })))
        return failure();
    }
  return success();
}

LogicalResult WgmmaEmitter::copyOut(unsigned o, Value rowBlock, Value tm,
                                    Value firstColumn, Value stagingBlock) {
  int64_t n = shapeOf(mm.getResult()).back();
  Value thread = arith::RemUIOp::create(b, tid, idx(128));
  Value firstRow = add(mul(tm, idx(t.bm())), mul(rowBlock, idx(64)));
  Type element = elementOf(k.outputs()[o]);
  int64_t chunkColumns = 16 / stagedBytes;
  return k.loop(idx(0), idx(64), idx(1), [&](Value r) -> LogicalResult {
    Value row = add(firstRow, r);
    for (int64_t j = 0, rounds = llvm::divideCeil(stagedColumns, 128);
         j < rounds; ++j) {
      Value col = add(thread, idx(128 * j));
      Value outCol = add(firstColumn, col);
      Value inside =
          arith::AndIOp::create(b, lt(row, idx(a.rows)), lt(outCol, idx(n)));
      // A 192-column tile's second round: its first 64 threads only.
      if (128 * (j + 1) > stagedColumns)
        inside = arith::AndIOp::create(b, inside, lt(col, idx(stagedColumns)));
      if (failed(k.ifThen(inside, [&] {
            // The staged layout (see epilogue): 128-byte box, row, 16-byte
            // chunk swizzled by the row, stagedBytes per column.
            Value r64 = toI64(r), c64 = toI64(col);
            Value chunk = arith::XOrIOp::create(
                b,
                arith::DivUIOp::create(
                    b, arith::RemUIOp::create(b, c64, i64(boxColumns())),
                    i64(chunkColumns)),
                arith::RemUIOp::create(b, r64, i64(8)));
            Value byte =
                add(add(mul(arith::DivUIOp::create(b, c64, i64(boxColumns())),
                            i64(64 * 128)),
                        mul(r64, i64(128))),
                    add(mul(chunk, i64(16)),
                        mul(arith::RemUIOp::create(b, c64, i64(chunkColumns)),
                            i64(stagedBytes))));
            Value v = LLVM::LoadOp::create(b, element,
                                           shared(add(stagingBlock, byte)),
                                           /*alignment=*/stagedBytes);
            memref::StoreOp::create(b, v, k.outputBuffers[o],
                                    outputIndex(row, outCol));
            return success();
          })))
        return failure();
    }
    return success();
  });
}

WgmmaEmitter::Staging WgmmaEmitter::chooseStaging() {
  ArrayRef<int64_t> out = shapeOf(mm.getResult());
  int64_t n = out.back();
  if (splits != 1 || !k.finiteChecks.empty() || n < 2)
    return Staging::None;
  // All outputs of the product's shape and one element type: bf16, or f32
  // from TF32 tiles of 128 or 256 columns, staged 128 at a time (two
  // consumers' 64 x 128 f32 blocks, 64 KB, leave 3 stages; measured on the
  // TF32 GEMMs against stores from registers: the K = 768 shapes 3-4 %
  // faster, the vocabulary's 9 %). TF32's narrower tiles (160, 192, 224 columns: 192
  // staged in 96 KB left 2 stages, measured slower) and bf16 products' f32
  // outputs stay in registers.
  Type element = elementOf(k.outputs().front());
  if (!element.isBF16() && !(element.isF32() && tf32 && t.bn % 128 == 0))
    return Staging::None;
  if (!llvm::all_of(llvm::zip(k.outputs(), k.outputBuffers), [&](auto o) {
        auto [value, buffer] = o;
        return shapeOf(value) == out && elementOf(value) == element &&
               isa<BlockArgument>(buffer);
      }))
    return Staging::None;
  stagedBytes = element.getIntOrFloatBitWidth() / 8;
  stagedColumns = element.isF32() ? 128 : t.bn;
  // Rows of the 2-D view (batch folded) 16-byte multiples for TMA.
  if (llvm::all_of(llvm::seq<unsigned>(0, k.outputs().size()), [&](unsigned o) {
        return (outputPitch(o) * stagedBytes) % 16 == 0;
      }))
    return Staging::Tma;
  return Staging::CopyOut;
}

FailureOr<Geometry> WgmmaEmitter::emit() {
  Type element = k.contract.computeType;
  tf32 = element.isF32();
  t.elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t n = bo.rows;
  tilesM = llvm::divideCeil(a.rows, t.bm());
  kTiles = llvm::divideCeil(a.k, t.bk());
  ::nova::wgmma::Tiling tiling = ::nova::wgmma::tiling(
      tilesM, n, kTiles, k.target.sms,
      ::nova::wgmma::heavyEpilogue(k.contract.transcendentals), t.elementBytes);
  t.bn = tiling.tileN;
  if (t.registerA()) {
    // TF32: A to the wgmmas from registers, rounded where the consumers
    // load it, so only B takes the shared-memory rounding pass; then a 128
    // x 256 tile runs as 256 x 128 (two m64 groups a consumer), whose B is
    // half as large. Per 32-K stage: A's loads 32 KB, B's pass 32 KB, the
    // wgmmas' reads of B 64 KB, against 176 KB with both operands rounded
    // in shared memory. A B rounded ahead keeps 128 x 256 (A's loads 16
    // KB, B's reads 64 KB) unless 256 x 128 takes fewer waves.
    t.groups =
        ::nova::wgmma::registerAGroups(a.rows, n, tiling, !passesOverB(),
                                       k.target.sms);
    t.bn /= t.groups;
    tilesM = llvm::divideCeil(a.rows, t.bm());
  }
  tilesN = llvm::divideCeil(n, t.bn);
  splits = tiling.splits;
  kPerUnit = kTiles / splits;
  staging = chooseStaging();
  if (staging != Staging::None)
    t.stagingBytes = t.consumers * 64 * stagedColumns * stagedBytes;
  // As many stages as fit next to the staging area and the barriers in a
  // block's shared memory (227 KB on Hopper).
  t.stages = std::min<int64_t>(
      8, (int64_t(k.target.smemPerBlock) - 256 - t.stagingBytes) /
             t.stageBytes());

  smem = hopper::dynamicSharedMemory(k, t.sharedBytes());
  // One block per SM (its shared memory): without it register A's 256 x
  // 128 tiles (128 accumulators and two stages' fragments) spilled at 168.
  hopper::declareOneBlockPerSM(k);
  descA = addDescriptor(a, t.bm());
  descB = addDescriptor(bo, t.bn);

  tid = k.threadId();
  block = k.blockId();
  if (staging == Staging::Tma)
    for (auto [o, buffer] : llvm::enumerate(k.outputBuffers))
      descOuts.push_back(hopper::addTmaDescriptor(
          k, cast<BlockArgument>(buffer), 0, {n, a.rows},
          {outputPitch(o) * stagedBytes}, {boxColumns(), 64}, 128));
  if (splits > 1)
    workspace = k.addWorkspace(tilesM * tilesN * 4 * t.rowBlocks() *
                               (splits * t.bn / 2 * 32 + 1) * 4);
  // A persistent grid: one block per SM of the target, each walking units
  // grid apart.
  grid = std::min<int64_t>(tilesM * tilesN * splits, k.target.sms);

  // Barriers: full ones wait for the producer's arrival and the bytes,
  // empty ones for every consumer thread.
  (void)k.ifThen(eq(tid, idx(0)), [&] {
    for (int64_t s = 0; s < t.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, fullBarrier(i64(s)), i32(1), Value());
      NVVM::MBarrierInitOp::create(b, emptyBarrier(i64(s)),
                                   i32(128 * t.consumers), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b);
    if (t.registerA())
      LLVM::StoreOp::create(b, i32(0), shared(t.zeroOffset()),
                            /*alignment=*/4);
    return success();
  });
  gpu::BarrierOp::create(b);

  LogicalResult ok = specialize(
      tid, [&] { producer(); },
      [&](Value consumerIndex) -> LogicalResult {
        if (failed(forEachUnit([&](Value tile, Value split, Value first) {
              SmallVector<Value> accs = consumer(consumerIndex, first);
              auto [tm, tn] = tileCoordinates(tile);
              for (auto [g, acc] : llvm::enumerate(accs)) {
                Value rowBlock =
                    add(mul(consumerIndex, idx(t.groups)), idx(int64_t(g)));
                if (failed(
                        splits > 1
                            ? combineSplits(acc, consumerIndex, rowBlock, tile,
                                            split, tm, tn)
                            : epilogue(acc, consumerIndex, rowBlock, tm, tn)))
                  return failure();
              }
              return success();
            })))
          return failure();
        // The last TMA stores complete before the block exits.
        if (!descOuts.empty())
          (void)k.ifThen(
              eq(arith::RemUIOp::create(b, tid, idx(128)), idx(0)), [&] {
                NVVM::CpAsyncBulkWaitGroupOp::create(b, 0, UnitAttr());
                return success();
              });
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{grid, t.threads()};
}

} // namespace

std::optional<FailureOr<Geometry>> emitMatmulWgmma(KernelContext &k,
                                                   std::string &whyNot) {
  nv::MatmulOp mm;
  TmaOperand a, bOp;
  if (auto why = analyze(k, mm, a, bOp)) {
    hopper::remarkPath(k, why, "");
    whyNot = std::move(*why);
    return std::nullopt;
  }
  // TF32: A goes to the wgmmas from registers, B stored N-major is
  // transposed to K-major in shared memory (wgmma reads 32-bit operands
  // from shared memory K-major only).
  bool tf32 = k.contract.computeType.isF32();
  auto major = [&](const TmaOperand &op, StringRef mn) {
    std::string how = op.mnMajor ? (mn + "-major").str() : "K-major";
    SmallVector<StringRef> notes;
    if (tf32 && &op == &a)
      notes.push_back("from registers");
    else if (tf32 && op.mnMajor)
      notes.push_back("transposed in shared memory");
    if (tf32 && op.rounded)
      notes.push_back("rounded ahead");
    if (!notes.empty())
      how += " (" + llvm::join(notes, ", ") + ")";
    return how;
  };
  hopper::remarkPath(k, std::nullopt,
                     "wgmma, A " + major(a, "M") + ", B " + major(bOp, "N"));
  return WgmmaEmitter(k, mm, a, bOp).emit();
}

} // namespace mlir::nova::tile_to_gpu
