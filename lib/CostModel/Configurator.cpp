//===- Configurator.cpp - analytic kernel schedules -----------------------===//

#include "nova/CostModel/Configurator.h"
#include "nova/CostModel/RowFold.h"
#include "nova/CostModel/ScatterLayout.h"
#include "nova/CostModel/WgmmaTiling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace nova {

//===----------------------------------------------------------------------===//
// Device descriptors (datasheet values: SXM parts, boost clock, dense peaks)
//===----------------------------------------------------------------------===//

namespace {
constexpr uint64_t MiB = 1 << 20;

std::vector<std::pair<std::string, DeviceDescriptor>> table() {
  auto make = [](const char *name, int major, int minor, int sms, double clock,
                 uint32_t smemSM, uint32_t smemBlock, uint32_t threadsSM,
                 uint64_t l2, double bw, double f32, double tf32, double bf16) {
    DeviceDescriptor d;
    d.name = name;
    d.major = major;
    d.minor = minor;
    d.sms = sms;
    d.clockGHz = clock;
    d.smemPerSM = smemSM;
    d.smemPerBlock = smemBlock;
    d.maxThreadsPerSM = threadsSM;
    d.l2Bytes = l2;
    d.bandwidth = bw;
    d.peakF32 = f32;
    d.peakTF32 = tf32;
    d.peakBF16 = bf16;
    d.wgmma = major == 9;
    return d;
  };
  return {
      {"h200", make("NVIDIA H200 SXM", 9, 0, 132, 1.98, 233472, 232448, 2048,
                    50 * MiB, 4.8e12, 67e12, 494.7e12, 989.4e12)},
      {"h100", make("NVIDIA H100 SXM", 9, 0, 132, 1.98, 233472, 232448, 2048,
                    50 * MiB, 3.35e12, 67e12, 494.7e12, 989.4e12)},
      {"a100", make("NVIDIA A100 SXM4 80GB", 8, 0, 108, 1.41, 167936, 166912,
                    2048, 40 * MiB, 2.039e12, 19.5e12, 156e12, 312e12)},
      {"rtx3060",
       make("NVIDIA GeForce RTX 3060", 8, 6, 28, 1.777, 102400, 101376, 1536,
            3 * MiB, 360e9, 12.74e12, 12.74e12, 25.5e12)},
      {"rtx6000ada",
       make("NVIDIA RTX 6000 Ada Generation", 8, 9, 142, 2.505, 102400, 101376,
            1536, 96 * MiB, 960e9, 91.1e12, 182.1e12, 364.2e12)},
  };
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Calibration from nova-run --profile of a GPT-2 124M step on the H200
// (2026-11-30, bench/RESULTS.md), launch by launch with CUDA events:
// - the smallest kernels (a few bytes to 128 KB) take 3.0 to 4.4 us: a
//   launch costs ~3 us whatever it does;
// - a device-to-device copy moves 4.21 TB/s, 0.88 of the 4.8 TB/s
//   datasheet figure, and the best streaming kernels (AdamW over all
//   parameters: 83 % of the copy, the embedding gather: 79 %) reach 0.8 of
//   the copy: 0.7 of the datasheet bandwidth (0.76 since, below).
constexpr double kLaunchSeconds = 3e-6;
// Fitted on the 124M steps' streaming kernels of 50 MB and more
// (bench/RESULTS.md: the gather, LayerNorm, the classifier rows, AdamW,
// pointwise; 0.69-0.83 of the datasheet figure).
constexpr double kStreamingEfficiency = 0.76;
// A streaming kernel's first loads wait a memory round trip and its last
// stores drain after the last loads: time that no other work of the kernel
// hides, on top of its launch and its bytes at the streaming rate. 1.5 us
// from DRAM; a kernel of at most 64 KB (labels, an iota, a scalar), whose
// data the previous kernels just wrote, hits L2: 0.5 us. Fitted on the 124M
// steps' small kernels (bench/RESULTS.md: weight casts and TF32 roundings
// of 3.5-4.7 MB measured 1.3-1.9 us over the launch-plus-bytes model, the
// position gather of 6.3 MB 1.5-2.5 us, the labels check of 128 KB 1.5-1.8
// us; a kernel of a few bytes or 4 KB 0.3-0.9 us).
constexpr double kMemoryRoundTripSeconds = 1.5e-6;
constexpr double kL2RoundTripSeconds = 0.5e-6;
constexpr double kL2ResidentBytes = 64 * 1024;
// One latency-bound step of a block's scan over the indices in L2 (a load,
// then shared-memory work and barriers): ~0.45 us, from the tiled
// scatter_add's 346 us (5026 blocks of 128 threads, 7 a SM, 128 steps).
constexpr double kIndexStepSeconds = 0.45e-6;
// A row kernel's column sums fold after its rows (rowfold::foldPlan: the
// last blocks to finish each fold a share of the blocks' f64 partials). A
// round of loads is latency-bound: ~1.5 us, from the 124M LayerNorm
// backward (3 sums of 768 columns, 256 blocks of 256 threads, folded by the
// last 72 in one round of loads and one of their slices): 65.3 us with its
// fold, 62.4 us without it (bench/RESULTS.md).
constexpr double kFoldRoundSeconds = 1.5e-6;

std::string fmt(const char *f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

/// Largest power of two <= x (x >= 1).
int64_t floorPow2(int64_t x) {
  int64_t p = 1;
  while (p * 2 <= x)
    p *= 2;
  return p;
}

/// Widest vector (<= 16 bytes) whose element count divides `inner`.
int vectorWidth(int64_t inner, unsigned elemBytes) {
  int v = int(16 / elemBytes);
  while (v > 1 && inner % v)
    v /= 2;
  return v;
}
} // namespace

std::string DeviceDescriptor::arch() const {
  return "sm_" + std::to_string(major) + std::to_string(minor) +
         (major == 9 ? "a" : "");
}

double DeviceDescriptor::peak(DType dtype) const {
  switch (dtype) {
  case DType::BF16:
  case DType::F16:
    return peakBF16;
  case DType::F32:
    return peakTF32; // f32 matrix products run on TF32 tensor cores
  default:
    return peakF32 / 2;
  }
}

std::optional<DeviceDescriptor>
DeviceDescriptor::lookup(const std::string &name) {
  for (auto &[key, d] : table())
    if (key == name)
      return d;
  return std::nullopt;
}

std::vector<std::string> DeviceDescriptor::known() {
  std::vector<std::string> names;
  for (auto &[key, d] : table())
    names.push_back(key);
  return names;
}

bool DeviceDescriptor::override(const std::string &assignments,
                                std::string &error) {
  std::stringstream in(assignments);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty())
      continue;
    size_t eq = item.find('=');
    char *end = nullptr;
    double v =
        eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || !end || *end || v <= 0) {
      error = "bad device override '" + item + "' (want key=positive number)";
      return false;
    }
    std::string key = item.substr(0, eq);
    if (key == "sms")
      sms = int(v);
    else if (key == "clock_ghz")
      clockGHz = v;
    else if (key == "smem_per_sm")
      smemPerSM = uint32_t(v);
    else if (key == "smem_per_block")
      smemPerBlock = uint32_t(v);
    else if (key == "l2_bytes")
      l2Bytes = uint64_t(v);
    else if (key == "bandwidth_gbs")
      bandwidth = v * 1e9;
    else if (key == "peak_f32_tflops")
      peakF32 = v * 1e12;
    else if (key == "peak_tf32_tflops")
      peakTF32 = v * 1e12;
    else if (key == "peak_bf16_tflops")
      peakBF16 = v * 1e12;
    else {
      error = "unknown device override key '" + key + "'";
      return false;
    }
  }
  return true;
}

const char *familyName(KernelFamily f) {
  switch (f) {
  case KernelFamily::Pointwise:
    return "pointwise";
  case KernelFamily::RowReduction:
    return "row-reduction";
  case KernelFamily::ColumnReduction:
    return "column-reduction";
  case KernelFamily::Matmul:
    return "matmul";
  case KernelFamily::AttentionForward:
    return "attention-forward";
  case KernelFamily::AttentionBackward:
    return "attention-backward";
  case KernelFamily::Gather:
    return "gather";
  case KernelFamily::ScatterAdd:
    return "scatter-add";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Shared pieces of the model
//===----------------------------------------------------------------------===//

namespace {
/// How many blocks of a shape fit on one SM at once (0: none fits).
int residentBlocks(const DeviceDescriptor &d, int threads, int regs,
                   uint32_t smem) {
  int bySmem = smem ? int(d.smemPerSM / (smem + 1024)) : 32;
  int byRegs = int(d.registersPerSM / uint32_t(std::max(1, regs * threads)));
  int byThreads = int(d.maxThreadsPerSM / uint32_t(threads));
  return std::max(0, std::min({bySmem, byRegs, byThreads, 32}));
}

/// The tensor-core instruction for `dtype` operands: wgmma (m64 per
/// warpgroup, n = the tile width, k = 32 bytes) on Hopper, mma.sync
/// (m16n8k16 for 16-bit types, m16n8k8 for tf32) before.
std::string tensorInstruction(const DeviceDescriptor &d, DType dtype,
                              int64_t tileN) {
  bool wide = byteWidth(dtype) == 2;
  const char *type = dtype == DType::BF16  ? "bf16"
                     : dtype == DType::F16 ? "f16"
                                           : "tf32";
  return d.hasWgmma() ? "wgmma.mma_async.m64n" + std::to_string(tileN) + "k" +
                            (wide ? "16" : "8") + ".f32." + type
                      : std::string("mma.sync.aligned.m16n8k") +
                            (wide ? "16" : "8") + ".f32." + type;
}

/// Time of `units` equal blocks, each doing `flops`, with `perSM` resident
/// per SM; sets the wave efficiency.
double computeTime(const DeviceDescriptor &d, double peak, int64_t units,
                   double flopsPerUnit, int perSM, double efficiency,
                   double &waveEfficiency) {
  int64_t slots = int64_t(d.sms) * perSM;
  int64_t waves = ceilDiv(units, slots);
  waveEfficiency = double(units) / double(waves * slots);
  double perSMRate = peak * efficiency / d.sms;
  return double(waves) * perSM * flopsPerUnit / perSMRate;
}
} // namespace

//===----------------------------------------------------------------------===//
// Matmul: tiles x stages x split-K, scored by the roofline with waves
//===----------------------------------------------------------------------===//

Schedule Configurator::matmul(const Problem &p, bool why) const {
  const unsigned elem = byteWidth(p.dtype);
  const bool wide = elem == 2; // bf16/f16 operands; else tf32
  const int64_t tileK = wide ? 64 : 32;
  const double peak = dev.peak(p.dtype);
  const double flops = 2.0 * p.batch * p.m * p.n * p.k;
  Schedule best;
  best.family = KernelFamily::Matmul;
  best.predictedSeconds = INFINITY;
  std::vector<std::string> rejected;
  for (int64_t tm : {64, 128, 256})
    for (int64_t tn : {64, 128, 256}) {
      int threads = int(std::clamp<int64_t>(tm * tn / 64, 128, 256));
      int regs = int(tm * tn / threads) + 40; // fp32 accumulators + addressing
      if (regs > int(dev.maxRegistersPerThread)) {
        if (why)
          rejected.push_back(
              fmt("%gx%g: %g registers per thread", tm, tn, regs));
        continue;
      }
      // Deepest pipeline that fits, two to five stages.
      int stages = 0;
      uint32_t smem = 0;
      for (int s = 5; s >= 2 && !stages; --s) {
        uint32_t need = uint32_t(s * (tm + tn) * tileK * elem);
        if (need <= dev.smemPerBlock)
          stages = s, smem = need;
      }
      if (!stages) {
        if (why)
          rejected.push_back(fmt("%gx%g: two stages need more than %g bytes of "
                                 "shared memory",
                                 tm, tn, dev.smemPerBlock));
        continue;
      }
      int perSM = residentBlocks(dev, threads, regs, smem);
      if (perSM == 0)
        continue;
      int64_t tiles = p.batch * ceilDiv(p.m, tm) * ceilDiv(p.n, tn);
      // Operand reuse: a tile reads (tm + tn) k elements for 2 tm tn k
      // FLOPs; below ~64 FLOP/byte of shared-memory traffic the tensor cores
      // starve.
      double tileIntensity = double(tm * tn) / double(tm + tn);
      double efficiency = 0.85 * std::min(1.0, tileIntensity / 64.0);
      for (int split : {1, 2, 4, 8, 16}) {
        if (split > 1 &&
            (p.k / split < 4 * tileK || tiles >= int64_t(dev.sms) * perSM))
          break;
        int64_t units = tiles * split;
        double wave = 1;
        double kPer = double(ceilDiv(p.k, split));
        double tc = computeTime(dev, peak, units, 2.0 * tm * tn * kPer, perSM,
                                efficiency, wave);
        // DRAM traffic: operands once when both fit in L2 (re-reads hit L2),
        // else re-read per tile row/column; the output once, plus fp32
        // partials written and read back when K is split.
        double a = double(p.batch) * p.m * p.k * elem,
               b = double(p.batch) * p.k * p.n * elem;
        bool fits = a + b <= 0.5 * double(dev.l2Bytes);
        double bytes =
            (fits ? a + b
                  : a * std::max<int64_t>(1, ceilDiv(p.n, tn) / 8) +
                        b * std::max<int64_t>(1, ceilDiv(p.m, tm) / 8)) +
            double(p.batch) * p.m * p.n *
                (split > 1 ? 4.0 * 2 * split + elem : elem);
        double tm_ = bytes / dev.bandwidth;
        double t = std::max(tc, tm_);
        bool better = t < best.predictedSeconds * (1 - 1e-9) ||
                      (t <= best.predictedSeconds * (1 + 1e-9) &&
                       tm * tn > best.tileM * best.tileN);
        if (!better)
          continue;
        best.tileM = tm;
        best.tileN = tn;
        best.tileK = tileK;
        best.threads = threads;
        best.stages = stages;
        best.splitK = split;
        best.sharedMemory = smem;
        best.registersPerThread = regs;
        best.blocksPerSM = perSM;
        best.grid = {ceilDiv(p.n, tn), ceilDiv(p.m, tm), p.batch * split};
        best.flops = flops;
        best.bytes = bytes;
        best.predictedSeconds = t;
        best.waveEfficiency = wave;
        best.bound = tc >= tm_ ? "compute" : "memory";
      }
    }
  best.predictedSeconds += kLaunchSeconds;
  best.vectorWidth = int(16 / elem);
  best.instruction = tensorInstruction(dev, p.dtype, best.tileN);
  if (dev.hasWgmma() && (wide || p.dtype == DType::F32)) {
    // On Hopper a 16-bit or TF32 GEMM runs as the wgmma kernel, whose tiling
    // is its own (the schedule above is the mma.sync fallback's): 128 x 256
    // (or narrower, wgmma::tiling) tiles on a persistent grid of one block per
    // SM, K split only within one wave. Its rate: 0.78 of the bf16 peak
    // (765-800 TFLOP/s measured at 4096^3 and 8192^3, 700-736 on GPT-2's
    // K = 768 shapes, epilogue apart). TF32 (f32 products are priced as
    // TF32: the configurator does not see an unmarked product, which keeps
    // 3xTF32 on mma.sync; a heavy epilogue's narrower tiles are priced)
    // takes A from registers, rounded as the consumers load
    // it, and rounds B's tile in shared memory before its wgmmas (a 128 x
    // 256 tile runs as 256 x 128, so B's tile is 128 x 32), priced below. A B
    // rounded ahead (nova.rounded) and stored K-major takes no pass and
    // keeps 128 x 256 tiles, or 256 x 128 where those take fewer waves
    // (measured on the H200: 0.71-0.76 of
    // the TF32 peak at 4096^3, 8192^3 and 16384 x 3072 x 768; 0.65 at K =
    // 768, whose f32 output the model leaves out).
    constexpr double kWgmmaEfficiency = 0.78;
    int64_t rowTiles = ceilDiv(p.batch * p.m, wgmma::kTileM);
    int64_t kTiles = ceilDiv(p.k, tileK);
    bool heavy = wgmma::heavyEpilogue(p.epilogueTranscendentals);
    wgmma::Tiling tiling =
        wgmma::tiling(rowTiles, p.n, kTiles, dev.sms, heavy, elem);
    int64_t tn = tiling.tileN, split = tiling.splits;
    double efficiency = kWgmmaEfficiency;
    // TF32's tiles as the kernel runs them (128 x 256 as 256 x 128).
    int64_t groups = wide ? 1
                          : wgmma::registerAGroups(p.batch * p.m, p.n, tiling,
                                                   p.roundedKMajorB, dev.sms);
    int64_t tiles = ceilDiv(p.batch * p.m, wgmma::kTileM * groups) *
                    ceilDiv(p.n, tn / groups);
    if (!wide && !p.roundedKMajorB) {
      // B's pass: the consumers load each stage's B tile, round it (and
      // transpose an N-major one in 4 x 4 blocks between a warp's reads
      // and its writes), store it, fence it for the wgmmas and wait for
      // each other: a chain the tensor work does not hide, a fixed cost a
      // stage rather than a rate. Measured on the H200: in place 620
      // clocks (256 x 128 tiles at 0.61-0.67 of the TF32 peak),
      // transposing 800 (weight gradients 3072 x 16384 x 768 on
      // 128 x 160 and 128 x 192 tiles: 1504 and 1609 clocks a stage, 692
      // and 830 of tensor work; x W 16384 x 768 x 2304 on 256 x 128: 1861
      // with its epilogue, 1107 of tensor work).
      double stageFlops = 2.0 * wgmma::kTileM * tn * tileK;
      double tensorClocks =
          stageFlops / (peak / dev.sms / (dev.clockGHz * 1e9));
      double passClocks = p.nMajorB ? 800 : 620;
      efficiency = tensorClocks / (tensorClocks + passClocks);
    }
    double wave = 1;
    double tc = computeTime(dev, peak, tiles * split,
                            2.0 * wgmma::kTileM * tn * tileK *
                                wgmma::unitKTiles(kTiles, split),
                            1, efficiency, wave);
    double a = double(p.batch) * p.m * p.k * elem,
           b = double(p.batch) * p.k * p.n * elem;
    // Operands once (the grouped tile order keeps B's columns in L2), the
    // output once, the f32 partials of a split written and read back.
    double bytes = a + b +
                   double(p.batch) * p.m * p.n *
                       (split > 1 ? 4.0 * 2 * split + elem : elem);
    double tmem = bytes / dev.bandwidth;
    best.predictedSeconds = std::max(tc, tmem) + kLaunchSeconds;
    if (heavy) {
      // A heavy epilogue's outputs (GELU's and the pre-activation kept for
      // the backward) leave through the staging block one after the other,
      // each waiting for the previous one's TMA store to read it out, and
      // the tile's next main loop waits for them: not overlapped with the
      // tensor work. Measured on the H200's 124M fc GEMMs (12 launches,
      // bench/RESULTS.md): TF32 620 us a launch against 397 of main loop
      // (402 MB of f32 outputs, 1.8 TB/s), bf16 203 against 106 (201 MB,
      // 2.1 TB/s).
      constexpr double kHeavyEpilogueBytesPerSecond = 1.95e12;
      double written = p.outputBytes ? double(p.outputBytes)
                                     : double(p.batch) * p.m * p.n * elem;
      best.predictedSeconds += written / kHeavyEpilogueBytesPerSecond;
      best.explanation.push_back(
          fmt("heavy epilogue (%g transcendentals): %g-column tiles, ",
              double(p.epilogueTranscendentals), double(tn / groups)) +
          fmt("%.0f MB of outputs written after the main loop", written / 1e6));
    }
    best.bytes = bytes;
    best.waveEfficiency = wave;
    best.bound = tc >= tmem ? "compute" : "memory";
    best.explanation.push_back(
        fmt("predicted for the wgmma kernel: %gx%g tiles",
            double(wgmma::kTileM * groups), double(tn / groups)) +
        fmt(", %g split(s), %g units on one block per SM", double(split),
            double(tiles * split)) +
        fmt(", %.2f of the tensor peak", efficiency) +
        (p.roundedKMajorB && !wide ? ", B rounded ahead" : ""));
  }
  for (auto &r : rejected)
    best.explanation.push_back("rejected " + r);
  return best;
}

//===----------------------------------------------------------------------===//
// Attention (flash-style: one block per query tile, or per key tile for the
// backward pass)
//===----------------------------------------------------------------------===//

namespace {
/// Scores (query, key pairs) an attention pass evaluates when its blocks
/// walk tiles of `bq` queries by `bk` keys: every tile, or with a causal
/// mask those up to the diagonal's, each computed whole.
double visitedScores(const Problem &p, int64_t bq, int64_t bk) {
  if (!p.causal)
    return double(p.batch) * double(p.m) * double(p.n);
  int64_t nq = ceilDiv(p.m, bq), nk = ceilDiv(p.n, bk);
  // Query tile i sees min(nk, ceil((i + 1) bq / bk)) key tiles: summed
  // up to the first row that sees them all, the rest counted at once.
  double tiles = 0;
  int64_t full = std::min(nq, ceilDiv(nk * bk, bq)); // rows not yet capped
  for (int64_t i = 0; i < full; ++i)
    tiles += double(std::min(nk, ceilDiv((i + 1) * bq, bk)));
  tiles += double(nq - full) * double(nk);
  return double(p.batch) * tiles * double(bq) * double(bk);
}

/// What the attention kernels are measured to sustain (bench/RESULTS.md,
/// fitted at D64 T1024 on the wgmma kernels and on the mma.sync TF32 ones,
/// 391 and 1256 us forward and backward with P and dS kept in registers):
/// their matrix products at a fraction of the tensor-core peak,
/// and the softmax's per-score work (one exp2 on the SFUs, a few FP32
/// operations) at a third of those units' throughput: row reductions,
/// dependent exp2/FMA chains and barriers between phases. mma.sync's
/// fraction is low because every warp of 16 rows reads the whole B tile
/// from shared memory and the blocks stage each tile before multiplying.
constexpr double kWgmmaAttentionEfficiency = 0.65;
constexpr double kMmaSyncAttentionEfficiency = 0.2;
constexpr double kSoftmaxIssueFactor = 3.0;
constexpr double kSfuPerSMPerClock = 16, kFp32PerSMPerClock = 128;
} // namespace

Schedule Configurator::attention(const Problem &p, bool why) const {
  const bool backward = p.family == KernelFamily::AttentionBackward;
  const unsigned elem = byteWidth(p.dtype);
  const int64_t d = p.k;
  const double causalFraction = p.causal ? 0.5 : 1.0;
  // Forward: QK^T and PV, 4 T T D per head; backward: 2.5x that.
  const double flops =
      (backward ? 2.5 : 1.0) * 4.0 * p.batch * p.m * p.n * d * causalFraction;
  Schedule best;
  best.family = p.family;
  best.predictedSeconds = INFINITY;
  for (int64_t bq : {32, 64, 128})
    for (int64_t bk : {32, 64, 128}) {
      int threads = int(bq / 16 * 32); // one warp per 16 query rows
      if (backward)
        threads = int(bk / 16 * 32);
      threads = std::clamp(threads, 128, 256);
      int regs = int((bq * d + bq * bk) / threads) + 48;
      // Double-buffer the streamed tiles when they fit, else single-buffer.
      int stages = 0;
      uint32_t smem = 0;
      for (int st = 2; st >= 1 && !stages; --st) {
        uint32_t need = backward
                            ? uint32_t((2 * bk * d + st * 3 * bq * d) * elem)
                            : uint32_t((bq * d + st * 2 * bk * d) * elem);
        if (need <= dev.smemPerBlock)
          stages = st, smem = need;
      }
      if (!stages || regs > int(dev.maxRegistersPerThread)) {
        if (why)
          best.explanation.push_back(
              fmt("rejected %gx%g tiles: shared memory or registers", bq, bk));
        continue;
      }
      int perSM = residentBlocks(dev, threads, regs, smem);
      if (perSM == 0)
        continue;
      int64_t units =
          p.batch * ceilDiv(backward ? p.n : p.m, backward ? bk : bq);
      double wave = 1;
      double tileI = double(bq * bk) / double(bq + bk);
      double tc = computeTime(dev, dev.peak(p.dtype), units, flops / units,
                              perSM, 0.6 * std::min(1.0, tileI / 64.0), wave);
      double bytes =
          double(p.batch) * elem * (backward ? 8.0 * p.m * d : 4.0 * p.m * d) +
          4.0 * p.batch * p.m;
      double t = std::max(tc, bytes / dev.bandwidth);
      if (t >= best.predictedSeconds * (1 - 1e-9))
        continue;
      best.tileM = bq;
      best.tileN = bk;
      best.tileK = d;
      best.threads = threads;
      best.stages = stages;
      best.sharedMemory = smem;
      best.registersPerThread = regs;
      best.blocksPerSM = perSM;
      best.grid = {ceilDiv(backward ? p.n : p.m, backward ? bk : bq), p.batch,
                   1};
      best.flops = flops;
      best.bytes = bytes;
      best.predictedSeconds = t;
      best.waveEfficiency = wave;
      best.bound = tc >= bytes / dev.bandwidth ? "compute" : "memory";
    }
  // The time: the kernels' own structure, not the tile search's roofline
  // (which prices attention as a GEMM and missed the softmax and the
  // backward's recomputation by 3-16x). bf16 with head dim 64 or 128 runs
  // the wgmma kernels: the forward 128 x 128 tiles (S = Q K^T, O += P V:
  // 4d FLOPs a score), its softmax overlapped with the products (FA3's
  // pipelining: the longer of the two); the backward K/V-stationary blocks
  // (128 keys, 64-query tiles: S^T, dP^T, dV, dK, 8d) and Q-stationary ones
  // (128 queries, 64-key tiles: S, dP, dQ, 6d), each recomputing P (one
  // exp2 and 5 FP32 operations a score), products and softmax in turn.
  // Everything else runs mma.sync (64 x 64 tiles, products and softmax in
  // turn, the backward's two block kinds as the wgmma one's).
  const bool wgmma =
      dev.hasWgmma() && p.dtype == DType::BF16 && (d == 64 || d == 128);
  const double efficiency =
      wgmma ? kWgmmaAttentionEfficiency : kMmaSyncAttentionEfficiency;
  const double clock = dev.clockGHz * 1e9;
  const double sfuRate = kSfuPerSMPerClock * dev.sms * clock,
               fp32Rate = kFp32PerSMPerClock * dev.sms * clock;
  auto softmax = [&](double scores, double fp32Ops) {
    return kSoftmaxIssueFactor * scores * (1 / sfuRate + fp32Ops / fp32Rate);
  };
  const double tensorRate = dev.peak(p.dtype) * efficiency;
  double seconds, modelFlops;
  if (!backward) {
    double scores =
        wgmma ? visitedScores(p, 128, 128) : visitedScores(p, 64, 64);
    modelFlops = 4.0 * d * scores;
    double products = modelFlops / tensorRate, rows = softmax(scores, 4);
    seconds = wgmma ? std::max(products, rows) : products + rows;
  } else {
    double keyMajor =
        wgmma ? visitedScores(p, 64, 128) : visitedScores(p, 64, 64);
    double queryMajor = wgmma ? visitedScores(p, 128, 64) : keyMajor;
    modelFlops = 8.0 * d * keyMajor + 6.0 * d * queryMajor;
    seconds = modelFlops / tensorRate + softmax(keyMajor + queryMajor, 5);
  }
  if (why)
    best.explanation.push_back(
        std::string("predicted for the ") + (wgmma ? "wgmma" : "mma.sync") +
        fmt(" kernel: %.3g GFLOP of products at %.3g of the tensor peak, "
            "softmax at 1/%g of the SFU and FP32 rates",
            modelFlops * 1e-9, efficiency, kSoftmaxIssueFactor));
  // No tile fits (head dims beyond shared memory): no kernel to time.
  if (std::isfinite(best.predictedSeconds)) {
    best.flops = modelFlops;
    best.bound = seconds >= best.bytes / dev.bandwidth ? "compute" : "memory";
    best.predictedSeconds = std::max(seconds, best.bytes / dev.bandwidth);
  }
  best.predictedSeconds += kLaunchSeconds;
  best.vectorWidth = int(16 / elem);
  best.instruction = tensorInstruction(dev, p.dtype, best.tileN);

  return best;
}

//===----------------------------------------------------------------------===//
// Memory-bound families: pointwise, reductions, gather, scatter
//===----------------------------------------------------------------------===//

Schedule Configurator::streaming(const Problem &p, bool why) const {
  const unsigned elem = byteWidth(p.dtype);
  Schedule s;
  s.family = p.family;
  s.bound = "memory";
  s.registersPerThread = 32;
  auto finish = [&](double bytes, int64_t blocks) {
    s.bytes = bytes;
    s.blocksPerSM =
        residentBlocks(dev, s.threads, s.registersPerThread, s.sharedMemory);
    int64_t slots = int64_t(dev.sms) * s.blocksPerSM;
    s.waveEfficiency = double(blocks) / double(ceilDiv(blocks, slots) * slots);
    // A grid smaller than the machine cannot use all of its bandwidth.
    double used = std::min(1.0, double(blocks) / double(dev.sms));
    double roundTrip = bytes <= kL2ResidentBytes ? kL2RoundTripSeconds
                                                 : kMemoryRoundTripSeconds;
    s.predictedSeconds = kLaunchSeconds + roundTrip +
                         bytes / (dev.bandwidth * kStreamingEfficiency * used);
  };
  switch (p.family) {
  case KernelFamily::Pointwise: {
    // 16-byte vectors once there is one for every thread of a block,
    // whether or not the width divides the length: the kernel takes a
    // ragged last chunk element by element. (Scalar chunks leave each
    // thread's loads one after another: a padded TF32 copy of 4095 x 1023
    // ran at 2.15 TB/s, half the copy bandwidth.) Shorter lengths take the
    // widest vector that divides them.
    s.threads = 256;
    s.vectorWidth = p.m >= s.threads * int64_t(16 / elem)
                        ? int(16 / elem)
                        : vectorWidth(p.m, elem);
    int64_t perThread = s.vectorWidth;
    // Unroll by 4 once there are enough elements for four full waves.
    int unroll = p.m >= int64_t(dev.sms) * 2048 * s.vectorWidth * 4 ? 4 : 1;
    perThread *= unroll;
    s.tileM = perThread * s.threads;
    int64_t blocks = ceilDiv(p.m, s.tileM);
    s.grid = {blocks, 1, 1};
    double perElem = p.bytesPerElement ? double(p.bytesPerElement) : 3.0 * elem;
    finish(perElem * p.m, blocks);
    if (why)
      s.explanation.push_back(fmt("%g-wide vectors (16 B / element size), "
                                  "unroll %g",
                                  s.vectorWidth, unroll));
    break;
  }
  case KernelFamily::RowReduction: {
    s.vectorWidth = vectorWidth(p.n, elem);
    int64_t rowBytes = p.n * elem;
    if (rowBytes <= 4096) {
      // A warp per row, eight rows per block: no shared memory needed.
      s.threads = 256;
      s.tileM = 8;
      s.tileN = p.n;
      s.grid = {ceilDiv(p.m, 8), 1, 1};
      if (why)
        s.explanation.push_back("rows of <= 4 KiB: one warp per row, shuffles "
                                "only");
    } else {
      // A block per row, enough threads that each does ~4 vectors per pass,
      // but at most 256: the fused classifier's body (loss, gradient and
      // the max's gradient) needs more than the 64 registers a thread of a
      // 1024-thread block may have (ptxas spilled 672 bytes there), and its
      // 50257-wide rows ran 6.28 ms at 1024 threads, 5.14 at 512 and 5.06
      // at 256 on the H200 (bench/RESULTS.md).
      s.threads = int(std::clamp<int64_t>(
          floorPow2(std::max<int64_t>(1, p.n / (s.vectorWidth * 4))), 128,
          256));
      s.tileM = 1;
      s.tileN = p.n;
      s.sharedMemory = uint32_t(s.threads / 32 * 8);
      s.grid = {p.m, 1, 1};
      if (why)
        s.explanation.push_back(
            fmt("rows of %g KiB: one block of %g threads per "
                "row, warp partials through shared memory",
                double(rowBytes) / 1024, s.threads));
    }
    finish(p.streamedBytes ? double(p.streamedBytes) : 2.0 * p.m * p.n * elem,
           s.grid[0]);
    if (p.columnSums == 0 && p.totals > 0 && s.grid[0] > 1) {
      // The last block to finish adds the blocks' partials of the totals:
      // one latency-bound round of loads.
      s.predictedSeconds += kFoldRoundSeconds;
      if (why)
        s.explanation.push_back(fmt("%g total(s) folded across %g blocks by "
                                    "the last in one latency-bound round",
                                    double(p.totals), double(s.grid[0])));
    }
    if (p.columnSums > 0) {
      int64_t blocks = std::min(s.grid[0], rowfold::kMaxAcrossBlocks);
      rowfold::FoldPlan plan = rowfold::foldPlan(
          blocks, rowfold::columnSumItems(p.columnSums, p.n), s.threads);
      // The folders' rounds of loads, then their slices' totals combined.
      int64_t rounds =
          rowfold::foldRounds(plan, s.threads) + (plan.slices > 1 ? 1 : 0);
      s.predictedSeconds += double(rounds) * kFoldRoundSeconds;
      if (why)
        s.explanation.push_back(
            fmt("%g column sums folded across %g blocks by the last %g",
                double(p.columnSums), double(blocks), double(plan.folders)) +
            fmt(" to finish in %g latency-bound rounds", double(rounds)));
    }
    break;
  }
  case KernelFamily::ColumnReduction: {
    // As convert-tile-to-gpu lays it out: strips of one 16-byte vector of
    // columns, column lanes (a warp over 32 adjacent strips) x row lanes
    // (fewer for few rows), blocks of 256 threads over the column strips x
    // chunks of the rows; each block folds its rows into per-column
    // partials, the last block of a column strip folds the chunks.
    s.vectorWidth = vectorWidth(p.n, elem);
    int64_t strips = std::max<int64_t>(1, p.n / s.vectorWidth);
    int64_t pow2Strips = floorPow2(strips);
    if (pow2Strips < strips)
      pow2Strips *= 2;
    int64_t columnLanes = std::min<int64_t>(32, pow2Strips);
    // At least a warp in all.
    int64_t rowLanes =
        std::clamp<int64_t>(floorPow2(std::max<int64_t>(1, p.m / 4)),
                            32 / columnLanes, 256 / columnLanes);
    columnLanes = std::min<int64_t>(256 / rowLanes, pow2Strips);
    s.threads = int(columnLanes * rowLanes);
    s.tileN = columnLanes * s.vectorWidth;
    int64_t colBlocks = ceilDiv(p.n, s.tileN);
    // Split the rows until the grid fills the SMs eight times over (the
    // blocks are small and many resident ones keep the loads in flight),
    // keeping >= 8 rows per thread.
    int64_t split = 1;
    while (colBlocks * split < 8 * dev.sms && p.m / (split * 2) >= 8 * rowLanes)
      split *= 2;
    s.splitK = int(split);
    s.tileM = ceilDiv(p.m, split);
    s.sharedMemory = uint32_t(8 * s.threads * s.vectorWidth);
    s.grid = {colBlocks * split, 1, 1};
    // With a split, each chunk's f64 partials go out and come back once.
    double partials = split > 1 ? 16.0 * double(p.n) * double(split) : 0.0;
    finish(
        (p.streamedBytes ? double(p.streamedBytes) : double(p.m) * p.n * elem) +
            partials,
        colBlocks * split);
    if (why)
      s.explanation.push_back(fmt("%g column blocks of %g x %g row chunks "
                                  "(one pass; chunks folded in order)",
                                  colBlocks, s.tileN, split));
    break;
  }
  case KernelFamily::Gather: {
    s.vectorWidth = vectorWidth(p.n, elem);
    s.threads = 128;
    int64_t perBlock = s.threads * s.vectorWidth;
    s.tileN = std::min<int64_t>(p.n, perBlock);
    s.tileM = std::max<int64_t>(1, perBlock / s.tileN);
    s.grid = {ceilDiv(p.m, s.tileM), ceilDiv(p.n, s.tileN), 1};
    finish(2.0 * p.m * p.n * elem + 8.0 * p.m, s.grid[0] * s.grid[1]);
    break;
  }
  case KernelFamily::ScatterAdd: {
    // As convert-tile-to-gpu lays it out (Gather.cpp). The bytes: the
    // updates read once, every table row written once, the indices read.
    // On top, each block reads the indices itself, latency-bound steps
    // from L2 (kIndexStepSeconds each, measured: the tiled kernel's 346 us
    // for 16384 indices over 50257 x 768 f32 rows, 5026 blocks).
    s.vectorWidth = vectorWidth(p.n, elem);
    double bytes =
        double(p.m) * p.n * elem + double(p.k) * p.n * elem + 8.0 * double(p.m);
    if (auto buckets = scatter::Buckets::of(p.k, p.m, dev)) {
      // Buckets: each block sorts the indices naming its rows (two passes
      // of 256 indices a warp a step over a 16th of them), then a warp
      // per row sums its update rows in index order.
      s.threads = int(32 * scatter::kWarps);
      s.tileM = buckets->rows;
      s.tileN = p.n;
      s.sharedMemory = uint32_t(buckets->sharedBytes(p.m));
      s.grid = {buckets->blocks, 1, 1};
      finish(bytes, s.grid[0]);
      // The scans run before any row is written, so they add to the
      // streaming time; a grid filling fewer of the SMs' block slots hides
      // less of their latency (the position gradient's 256 blocks, 48 %:
      // 7.5 us measured, 6.7 predicted).
      int64_t steps = scatter::Buckets::scanSteps(p.m);
      s.predictedSeconds += double(steps) * kIndexStepSeconds *
                            std::max(1.0, 1.0 / s.waveEfficiency);
      if (why)
        s.explanation.push_back(
            fmt("buckets: %g rows a block, the indices sorted per block in "
                "shared memory (%g steps of L2 reads), a warp per row",
                buckets->rows, steps));
    } else {
      // Tiles of 32 KiB of sums: every block scans every index, 128 a
      // step.
      s.threads = 128;
      s.tileN = std::min<int64_t>(p.n, 8192);
      s.tileM =
          std::clamp<int64_t>(8192 / s.tileN, 1, std::min<int64_t>(p.k, 64));
      s.sharedMemory = 32 * 1024;
      s.grid = {ceilDiv(p.k, s.tileM) * ceilDiv(p.n, s.tileN), 1, 1};
      finish(bytes, s.grid[0]);
      double waves =
          double(s.grid[0]) /
          double(std::max<int64_t>(1, int64_t(dev.sms) * s.blocksPerSM));
      s.predictedSeconds += std::ceil(waves) * double(ceilDiv(p.m, s.threads)) *
                            kIndexStepSeconds;
      if (why)
        s.explanation.push_back(fmt("tiles of %g x %g sums, each block "
                                    "scanning all %g indices",
                                    s.tileM, s.tileN, p.m));
    }
    break;
  }
  default:
    break;
  }
  return s;
}

/// CUDA's grid limits; the executable reader checks the same ones.
static constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1, kMaxGridYZ = 65535;

/// A tile grid beyond CUDA's limits becomes a persistent grid of resident
/// blocks, each looping over its share of the tiles, so no schedule names a
/// launch the driver would refuse.
static void fitGridToLimits(Schedule &s, const DeviceDescriptor &dev,
                            bool why) {
  if (s.grid[0] <= kMaxGridX && s.grid[1] <= kMaxGridYZ &&
      s.grid[2] <= kMaxGridYZ)
    return;
  // The tile count itself may not fit in int64 (2^31 x 2^31 x 2^31 tiles).
  double tiles = double(s.grid[0]) * double(s.grid[1]) * double(s.grid[2]);
  int64_t resident = int64_t(dev.sms) * std::max(1, s.blocksPerSM);
  int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(resident, kMaxGridX));
  double perBlock = std::ceil(tiles / double(blocks));
  if (why) {
    std::ostringstream line;
    line << "tile grid [" << s.grid[0] << ", " << s.grid[1] << ", " << s.grid[2]
         << "] exceeds CUDA's limits: persistent grid of " << blocks
         << " blocks, ~" << perBlock << " tiles each";
    s.explanation.push_back(line.str());
  }
  s.grid = {blocks, 1, 1};
  s.tilesPerBlock = perBlock >= 9.2e18 ? std::numeric_limits<int64_t>::max()
                                       : int64_t(perBlock);
}

Schedule Configurator::choose(const Problem &p, bool why) const {
  Schedule s;
  switch (p.family) {
  case KernelFamily::Matmul:
    s = matmul(p, why);
    break;
  case KernelFamily::AttentionForward:
  case KernelFamily::AttentionBackward:
    s = attention(p, why);
    break;
  default:
    s = streaming(p, why);
    break;
  }
  fitGridToLimits(s, dev, why);
  if (!why)
    return s;
  double intensity = s.bytes > 0 ? s.flops / s.bytes : 0;
  double balance = (p.family == KernelFamily::Matmul ||
                            p.family == KernelFamily::AttentionForward ||
                            p.family == KernelFamily::AttentionBackward
                        ? dev.peak(p.dtype)
                        : dev.peakF32) /
                   dev.bandwidth;
  s.explanation.insert(
      s.explanation.begin(),
      fmt("arithmetic intensity %.1f FLOP/B against a machine balance of "
          "%.0f FLOP/B",
          intensity, balance));
  return s;
}

std::string Configurator::explain(const Problem &p, const Schedule &s) {
  std::ostringstream o;
  o << familyName(p.family) << " " << dtypeName(p.dtype) << " batch " << p.batch
    << " m " << p.m << " n " << p.n << " k " << p.k
    << (p.causal ? " causal" : "") << (p.roundedKMajorB ? " rounded-b" : "")
    << (p.nMajorB ? " n-major-b" : "");
  if (p.columnSums > 0)
    o << " column-sums " << p.columnSums;
  if (p.totals > 0)
    o << " totals " << p.totals;
  o << "\n";
  o << "  tile " << s.tileM << "x" << s.tileN << "x" << s.tileK << ", "
    << s.threads << " threads, " << s.stages << " stages, vector "
    << s.vectorWidth << ", split " << s.splitK << ", grid [" << s.grid[0]
    << ", " << s.grid[1] << ", " << s.grid[2] << "]";
  if (s.tilesPerBlock > 1)
    o << " x " << s.tilesPerBlock << " tiles per block";
  o << ", " << s.sharedMemory << " B shared, ~" << s.registersPerThread
    << " regs, " << s.blocksPerSM << " blocks/SM";
  if (!s.instruction.empty())
    o << ", " << s.instruction;
  o << "\n";
  char line[160];
  std::snprintf(line, sizeof line,
                "  predicted %.2f us, %s-bound, wave efficiency %.0f%%\n",
                s.predictedSeconds * 1e6, s.bound.c_str(),
                s.waveEfficiency * 100);
  o << line;
  for (const std::string &e : s.explanation)
    o << "  - " << e << "\n";
  return o.str();
}

} // namespace nova
