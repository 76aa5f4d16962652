//===- ConfiguratorTest.cpp - properties of the analytic schedules --------===//

#include "GPT2Workload.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Runtime/Profile.h"
#include "nova/CostModel/RowFold.h"
#include "nova/CostModel/WgmmaTiling.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string_view>

using namespace nova;

namespace {

std::vector<Problem> sweep() {
  std::vector<Problem> out;
  auto add = [&](KernelFamily f, int64_t b, int64_t m, int64_t n, int64_t k,
                 DType t, bool causal = false) {
    Problem p;
    p.family = f, p.batch = b, p.m = m, p.n = n, p.k = k, p.dtype = t;
    p.causal = causal;
    out.push_back(p);
  };
  for (DType t : {DType::F32, DType::BF16, DType::F16}) {
    for (int64_t s : {1, 7, 64, 257, 1024, 4096, 16384})
      add(KernelFamily::Matmul, 1, s, 768, s < 64 ? 64 : s, t);
    add(KernelFamily::Matmul, 1, 16384, 50304, 768, t);
    add(KernelFamily::Matmul, 48, 1024, 64, 1024, t);
    add(KernelFamily::Matmul, 1, 768, 3072, 16384, t);
    add(KernelFamily::Matmul, 1, 128, 128, 65536, t); // wants split-K
    for (int64_t n : {1, 100, 1 << 20, 12582912})
      add(KernelFamily::Pointwise, 1, n, 1, 1, t);
    for (int64_t c : {7, 768, 3072, 50304})
      add(KernelFamily::RowReduction, 1, 16384, c, 1, t);
    for (int64_t c : {768, 2304, 3})
      add(KernelFamily::ColumnReduction, 1, 16384, c, 1, t);
    add(KernelFamily::AttentionForward, 192, 1024, 1024, 64, t, true);
    add(KernelFamily::AttentionBackward, 192, 1024, 1024, 64, t, true);
    add(KernelFamily::AttentionForward, 8, 128, 128, 128, t, false);
    add(KernelFamily::Gather, 1, 16384, 768, 50304, t);
    add(KernelFamily::ScatterAdd, 1, 16384, 768, 50304, t);
  }
  return out;
}

class ConfiguratorOnEveryDevice : public ::testing::TestWithParam<std::string> {
};

TEST_P(ConfiguratorOnEveryDevice, SchedulesFitTheMachine) {
  DeviceDescriptor d = *DeviceDescriptor::lookup(GetParam());
  Configurator conf(d);
  for (const Problem &p : sweep()) {
    Schedule s = conf.choose(p, true);
    std::string what = Configurator::explain(p, s);
    EXPECT_LE(s.sharedMemory, d.smemPerBlock) << what;
    EXPECT_LE(s.registersPerThread, int(d.maxRegistersPerThread)) << what;
    EXPECT_LE(uint64_t(s.registersPerThread) * s.threads, d.registersPerSM)
        << what;
    EXPECT_GE(s.threads, 32) << what;
    EXPECT_LE(s.threads, 1024) << what;
    EXPECT_EQ(s.threads % 32, 0) << what;
    EXPECT_GE(s.blocksPerSM, 1) << what;
    EXPECT_GT(s.predictedSeconds, 0) << what;
    EXPECT_TRUE(std::isfinite(s.predictedSeconds)) << what;
    EXPECT_GE(s.grid[0], 1) << what;
    EXPECT_LE(s.grid[1], 65535) << what;
    EXPECT_LE(s.grid[2], 65535) << what;
    EXPECT_GE(s.vectorWidth, 1) << what;
    EXPECT_LE(s.vectorWidth * int(byteWidth(p.dtype)), 16) << what;
    if (p.family == KernelFamily::Matmul) {
      // The grid covers the output, with split-K along z.
      EXPECT_GE(s.grid[0] * s.tileN, p.n) << what;
      EXPECT_GE(s.grid[1] * s.tileM, p.m) << what;
      EXPECT_EQ(s.grid[2], p.batch * s.splitK) << what;
      // Tensor-core shapes the instruction supports.
      if (d.hasWgmma()) {
        EXPECT_EQ(s.tileM % 64, 0) << what; // m64 per warpgroup
        EXPECT_TRUE(s.tileN % 8 == 0 && s.tileN >= 8 && s.tileN <= 256) << what;
        EXPECT_NE(s.instruction.find("wgmma"), std::string::npos) << what;
      } else {
        EXPECT_EQ(s.tileM % 16, 0) << what; // m16n8 fragments
        EXPECT_EQ(s.tileN % 8, 0) << what;
        EXPECT_NE(s.instruction.find("mma.sync"), std::string::npos) << what;
      }
      EXPECT_EQ(s.tileK * int(byteWidth(p.dtype)) % 32, 0) << what;
    }
    // Same answer every time.
    Schedule again = conf.choose(p, true);
    EXPECT_EQ(Configurator::explain(p, again), what);
  }
}

TEST_P(ConfiguratorOnEveryDevice, LargeProblemsFillTheMachine) {
  DeviceDescriptor d = *DeviceDescriptor::lookup(GetParam());
  Configurator conf(d);
  Problem mm;
  mm.family = KernelFamily::Matmul;
  mm.dtype = DType::BF16;
  mm.m = 16384, mm.n = 3072, mm.k = 768;
  Schedule s = conf.choose(mm);
  EXPECT_GE(s.grid[0] * s.grid[1] * s.grid[2], d.sms)
      << Configurator::explain(mm, s);
  EXPECT_GT(s.waveEfficiency, 0.75) << Configurator::explain(mm, s);
  EXPECT_EQ(s.bound, "compute");
  // A thin output with a long K is split to use every SM.
  Problem thin = mm;
  thin.m = 128, thin.n = 128, thin.k = 65536;
  Schedule t = conf.choose(thin);
  EXPECT_GT(t.splitK, 1) << Configurator::explain(thin, t);
  // Pointwise work is memory-bound and spans the machine.
  Problem pw;
  pw.family = KernelFamily::Pointwise;
  pw.m = 16 << 20;
  Schedule p = conf.choose(pw);
  EXPECT_EQ(p.bound, "memory");
  EXPECT_GE(p.grid[0], d.sms);
  EXPECT_EQ(p.vectorWidth, 4); // 16-byte accesses of f32
  // Whether or not 4 divides the length (4095 x 1023: a padded copy), once
  // there is a vector for each thread of a block; shorter lengths take the
  // widest vector that divides them.
  pw.m = 4095 * 1023;
  EXPECT_EQ(conf.choose(pw).vectorWidth, 4);
  pw.m = 35;
  EXPECT_EQ(conf.choose(pw).vectorWidth, 1);
  pw.m = 1022;
  EXPECT_EQ(conf.choose(pw).vectorWidth, 2);
  // Column reductions split the rows until there are two blocks per SM.
  Problem col;
  col.family = KernelFamily::ColumnReduction;
  col.m = 16384, col.n = 768;
  Schedule c = conf.choose(col);
  EXPECT_GE(c.grid[0] * c.grid[1], 2 * d.sms) << Configurator::explain(col, c);
}

// Problems whose tile grid exceeds CUDA's limits get a persistent grid that
// still covers every tile, never a launch the driver refuses.
TEST_P(ConfiguratorOnEveryDevice, HugeProblemsStayWithinGridLimits) {
  DeviceDescriptor d = *DeviceDescriptor::lookup(GetParam());
  Configurator conf(d);
  const int64_t big = 2147483647;
  for (KernelFamily f :
       {KernelFamily::Matmul, KernelFamily::AttentionForward,
        KernelFamily::AttentionBackward, KernelFamily::RowReduction,
        KernelFamily::ColumnReduction, KernelFamily::Pointwise,
        KernelFamily::Gather, KernelFamily::ScatterAdd}) {
    Problem p;
    p.family = f;
    p.batch = 65536, p.m = big, p.n = big, p.k = 64;
    Schedule s = conf.choose(p, true);
    std::string what = Configurator::explain(p, s);
    EXPECT_GE(s.grid[0], 1) << what;
    EXPECT_LE(s.grid[0], 2147483647) << what;
    EXPECT_LE(s.grid[1], 65535) << what;
    EXPECT_LE(s.grid[2], 65535) << what;
    EXPECT_GE(s.tilesPerBlock, 1) << what;
  }
  // The matmul's tile grid (2^31/tileN x 2^31/tileM x batch) is far past the
  // y and z limits, so it must be persistent and loop over its tiles.
  Problem mm;
  mm.family = KernelFamily::Matmul;
  mm.m = big, mm.n = big, mm.k = 1;
  Schedule s = conf.choose(mm, true);
  EXPECT_GT(s.tilesPerBlock, 1) << Configurator::explain(mm, s);
  EXPECT_GE(double(s.grid[0]) * double(s.tilesPerBlock),
            double((big + s.tileN - 1) / s.tileN) *
                double((big + s.tileM - 1) / s.tileM))
      << Configurator::explain(mm, s);
}

INSTANTIATE_TEST_SUITE_P(Devices, ConfiguratorOnEveryDevice,
                         ::testing::Values("h200", "h100", "a100", "rtx3060",
                                           "rtx6000ada"));

TEST(Configurator, FasterMachinesPredictShorterTimes) {
  Problem mm;
  mm.family = KernelFamily::Matmul;
  mm.dtype = DType::BF16;
  mm.m = 8192, mm.n = 8192, mm.k = 8192;
  double h200 = Configurator(*DeviceDescriptor::lookup("h200"))
                    .choose(mm)
                    .predictedSeconds;
  double a100 = Configurator(*DeviceDescriptor::lookup("a100"))
                    .choose(mm)
                    .predictedSeconds;
  double rtx = Configurator(*DeviceDescriptor::lookup("rtx3060"))
                   .choose(mm)
                   .predictedSeconds;
  EXPECT_LT(h200, a100);
  EXPECT_LT(a100, rtx);
  // The prediction never beats the roofline.
  EXPECT_GE(h200, 2.0 * 8192 * 8192 * 8192 / 989.4e12);
}

// The streaming model as calibrated on the H200 (bench/RESULTS.md,
// 2026-11-30 and the nineteenth session): 3 us per launch, a memory round
// trip (0.5 us in L2 up to 64 KB, 1.5 us from DRAM beyond) and the bytes at
// 0.76 of the datasheet bandwidth; reductions count the contract's bytes
// when it gives them.
TEST(Configurator, StreamingKernelsPayALaunchAndMoveBytesAtTheMeasuredRate) {
  Configurator conf(*DeviceDescriptor::lookup("h200"));
  Problem tiny;
  tiny.family = KernelFamily::Pointwise;
  tiny.m = 1;
  tiny.bytesPerElement = 8;
  EXPECT_NEAR(conf.choose(tiny).predictedSeconds, 3.5e-6, 1e-8);
  // 64 KB still hits L2; 80 KB pays the DRAM round trip.
  Problem labels = tiny;
  labels.m = 16384;
  labels.bytesPerElement = 4;
  Schedule inL2 = conf.choose(labels);
  labels.bytesPerElement = 5;
  EXPECT_NEAR(conf.choose(labels).predictedSeconds - inL2.predictedSeconds,
              1e-6 + 16384 / (4.8e12 * 0.76 * 16 / 132), 1e-9);

  Problem adamw = tiny; // GPT-2 124M's AdamW: 4 reads, 3 writes of f32
  adamw.m = 124'000'000;
  adamw.bytesPerElement = 28;
  EXPECT_NEAR(conf.choose(adamw).predictedSeconds,
              4.5e-6 + 124e6 * 28 / (4.8e12 * 0.76), 1e-9);

  Problem rows;
  rows.family = KernelFamily::RowReduction;
  rows.m = 16384;
  rows.n = 768;
  EXPECT_DOUBLE_EQ(conf.choose(rows).bytes, 2.0 * 16384 * 768 * 4);
  rows.streamedBytes = 5 * 16384 * 768 * 4;
  Schedule s = conf.choose(rows);
  EXPECT_DOUBLE_EQ(s.bytes, 5.0 * 16384 * 768 * 4);
  EXPECT_NEAR(s.predictedSeconds, 4.5e-6 + s.bytes / (4.8e12 * 0.76), 1e-9);
}

// On Hopper a bf16 GEMM is predicted as the wgmma kernel runs it (128 x 256
// or 192 tiles on one block per SM, K split within one wave): within 25 % of
// the times `nova-run --profile` measured for the GPT-2 124M step's GEMMs on
// the H200 (bench/RESULTS.md, 2026-11-30, fourth session; the dW products
// on 128 x 192 tiles timed alone, 2026-12-01), where the mma.sync
// schedule's prediction was 0.61x for the weight gradients.
TEST(Configurator, HopperGemmsArePredictedAsTheWgmmaKernelRunsThem) {
  Configurator conf(*DeviceDescriptor::lookup("h200"));
  struct Case {
    int64_t m, n, k;
    double measuredUs;
    const char *units;
  } cases[] = {
      // dW, MLP: 128 x 192 tiles (bench/RESULTS.md, 2026-12-01).
      {768, 3072, 16384, 120.0, "128x192 tiles, 1 split(s), 96 units"},
      {3072, 768, 16384, 119.0, "128x192 tiles, 1 split(s), 96 units"},
      {768, 768, 16384, 64.5, "4 split(s), 72 units"},    // dW, projection
      {16384, 768, 3072, 110.7, "1 split(s), 384 units"}, // MLP down
      {16384, 2304, 768, 88.6, "1 split(s), 1152 units"}, // qkv
      {16384, 768, 768, 33.1, "1 split(s), 384 units"},   // projection
  };
  for (const Case &c : cases) {
    Problem p;
    p.family = KernelFamily::Matmul, p.batch = 1, p.m = c.m, p.n = c.n,
    p.k = c.k, p.dtype = DType::BF16;
    Schedule s = conf.choose(p, true);
    std::string what = Configurator::explain(p, s);
    EXPECT_NEAR(c.measuredUs / (s.predictedSeconds * 1e6), 1.0, 0.25) << what;
    EXPECT_NE(what.find(c.units), std::string::npos) << what;
  }
}

// The wgmma kernel's tile width: 192 columns only where the 256-wide tiles
// leave SMs of the one wave idle and the narrower ones fill more of them
// (the weight gradients with K = 16384: 72 tiles of 128 x 256 on 132 SMs,
// 96 of 128 x 192); 256 on the many-wave products, where the narrower
// tiles only add waves; 128 where N fits.
TEST(WgmmaTiling, NarrowTilesOnlyWhereTheyFillIdleSMs) {
  using nova::wgmma::tiling;
  auto is = [](nova::wgmma::Tiling t, int64_t tileN, int64_t splits) {
    return t.tileN == tileN && t.splits == splits;
  };
  // 768 x 3072 and 3072 x 768 with K 16384 (256 K tiles of 64).
  EXPECT_TRUE(is(tiling(6, 3072, 256, 132), 192, 1));
  EXPECT_TRUE(is(tiling(24, 768, 256, 132), 192, 1));
  // 768 x 768: 192-wide tiles would need splits too (24 tiles in 4): 18
  // tiles of 256 in 4 splits stay.
  EXPECT_TRUE(is(tiling(6, 768, 256, 132), 256, 4));
  // 768 x 2304: 54 tiles of 256 in 2 splits (108 units) stay.
  EXPECT_TRUE(is(tiling(6, 2304, 256, 132), 256, 2));
  // GPT-2's forward products (M 16384, K 768) and the squares: many waves.
  for (int64_t n : {768, 2304, 3072, 50304})
    EXPECT_TRUE(is(tiling(128, n, 12, 132), 256, 1)) << n;
  EXPECT_TRUE(is(tiling(32, 4096, 64, 132), 256, 1));
  EXPECT_TRUE(is(tiling(64, 8192, 128, 132), 256, 1));
  EXPECT_TRUE(is(tiling(1, 100, 4, 132), 128, 1));
  // Short K: the block's fixed costs weigh; one wave of 32 wide tiles stays.
  EXPECT_TRUE(is(tiling(8, 1024, 12, 132), 256, 1));
  // A heavy epilogue (GPT-2's fc GEMM with GELU and its derivative) halves
  // the 256-wide tiles; 192 and split tilings stay as they were.
  EXPECT_TRUE(is(tiling(128, 3072, 12, 132, true), 128, 1));
  EXPECT_TRUE(is(tiling(6, 3072, 256, 132, true), 192, 1));
  EXPECT_TRUE(is(tiling(6, 2304, 256, 132, true), 256, 2));
  // TF32 (4-byte elements, 32-column steps): the weight gradients with K =
  // 16384 (512 K tiles of 32) take 120 tiles of 160; 5760 x 384 takes 90
  // of 192 (160 would be 135, two waves); 896 x 3584 takes 112 of 224,
  // where bf16 keeps 256 (its 32 K tiles of 64 are too few for narrow
  // tiles).
  EXPECT_TRUE(is(tiling(24, 768, 512, 132, false, 4), 160, 1));
  EXPECT_TRUE(is(tiling(6, 3072, 512, 132, false, 4), 160, 1));
  EXPECT_TRUE(is(tiling(45, 384, 64, 132, false, 4), 192, 1));
  EXPECT_TRUE(is(tiling(7, 3584, 64, 132, false, 4), 224, 1));
  EXPECT_TRUE(is(tiling(7, 3584, 32, 132, false, 2), 256, 1));
  // Splits stay where they were (768 x 2304).
  EXPECT_TRUE(is(tiling(6, 2304, 512, 132, false, 4), 256, 2));
}

// TF32 register-A groups: B rounded in shared memory runs 128 x 256 tiles
// as 256 x 128; a B rounded ahead keeps 128 x 256 unless 256 x 128 fills
// the persistent grid in 10 % fewer waves (ragged 4095 x 4097: 544 tiles,
// five waves, against 528, four); GPT-2's shapes and the squares tile the
// same both ways and keep one group.
TEST(WgmmaTiling, RoundedBTakesTallTilesOnlyForFewerWaves) {
  using nova::wgmma::registerAGroups;
  using nova::wgmma::Tiling;
  Tiling wide{256, 1};
  EXPECT_EQ(registerAGroups(4095, 4097, wide, /*bRoundedAhead=*/false, 132), 2);
  EXPECT_EQ(registerAGroups(4095, 4097, wide, true, 132), 2);
  for (int64_t n : {768, 2304, 3072, 50304, 50257})
    EXPECT_EQ(registerAGroups(16384, n, wide, true, 132), 1) << n;
  EXPECT_EQ(registerAGroups(4096, 4096, wide, true, 132), 1);
  EXPECT_EQ(registerAGroups(8192, 8192, wide, true, 132), 1);
  // Split K and narrower tiles keep one group.
  EXPECT_EQ(registerAGroups(4095, 4097, Tiling{256, 2}, true, 132), 1);
  EXPECT_EQ(registerAGroups(4095, 4097, Tiling{192, 1}, false, 132), 1);
}

// A GEMM with a heavy epilogue (GELU and the pre-activation kept for the
// backward: two transcendentals, two outputs) is priced as the wgmma kernel
// runs it: 128-column tiles, and its outputs written after each tile's main
// loop at about 2 TB/s. GPT-2 124M's fc GEMM on the H200 (eighteenth
// session): TF32 (x W, W N-major) 620 us a launch, bf16 203 us.
TEST(Configurator, HeavyEpiloguePricesNarrowTilesAndItsOutputs) {
  Configurator conf(*DeviceDescriptor::lookup("h200"));
  for (DType dtype : {DType::F32, DType::BF16}) {
    Problem p;
    p.family = KernelFamily::Matmul;
    p.dtype = dtype;
    p.m = 16384, p.n = 3072, p.k = 768;
    p.nMajorB = dtype == DType::F32;
    double measured = dtype == DType::F32 ? 620e-6 : 203e-6;
    double plain = conf.choose(p).predictedSeconds;
    p.epilogueTranscendentals = 2;
    p.outputBytes = 2 * p.m * p.n * (dtype == DType::F32 ? 4 : 2);
    Schedule heavy = conf.choose(p, true);
    EXPECT_GT(heavy.predictedSeconds, 1.5 * plain);
    EXPECT_NEAR(heavy.predictedSeconds / measured, 1.0, 0.1)
        << Configurator::explain(p, heavy);
    // One transcendental is not heavy: priced as the plain product.
    p.epilogueTranscendentals = 1;
    EXPECT_DOUBLE_EQ(conf.choose(p).predictedSeconds, plain);
  }
}

// scatter_add as convert-tile-to-gpu lays it out: the embedding gradient
// of GPT-2 124M (16384 indices into 50257 rows of 768) takes buckets (264
// blocks of 512 threads, the sorted indices in shared memory): the updates
// read and every row written once, plus 8 latency-bound index steps
// (measured on the H200: 66.1 us, 0.93 of the prediction with 16 steps). With
// more indices than a block sorts, tiles: every block scans every index, as
// the 346 us the tiled kernel took on that gradient.
TEST(Configurator, ScatterAddPaysForItsIndexScans) {
  Configurator conf(*DeviceDescriptor::lookup("h200"));
  Problem p;
  p.family = KernelFamily::ScatterAdd;
  p.dtype = DType::BF16;
  p.m = 16384, p.n = 768, p.k = 50257;
  Schedule buckets = conf.choose(p);
  EXPECT_EQ(buckets.threads, 512);
  EXPECT_EQ(buckets.grid[0], 264);
  EXPECT_DOUBLE_EQ(buckets.bytes, 2.0 * (16384 + 50257) * 768 + 8.0 * 16384);
  EXPECT_NEAR(buckets.predictedSeconds,
              4.5e-6 + buckets.bytes / (4.8e12 * 0.76) + 8 * 0.45e-6, 1e-9);

  p.dtype = DType::F32;
  p.m = 40000, p.n = 8, p.k = 1000;
  Schedule tiles = conf.choose(p);
  EXPECT_EQ(tiles.threads, 128);
  EXPECT_EQ(tiles.grid[0], 16); // 1000 rows in tiles of 64 x 8
  // One wave of blocks, each scanning 40000 indices 128 at a time.
  EXPECT_NEAR(tiles.predictedSeconds - 313 * 0.45e-6,
              4.5e-6 + tiles.bytes / (4.8e12 * 0.76 * 16 / 132), 1e-9);
}

TEST(Configurator, OverridesReplaceDatasheetValues) {
  DeviceDescriptor d = *DeviceDescriptor::lookup("h200");
  std::string error;
  ASSERT_TRUE(d.override("bandwidth_gbs=4190,sms=114", error)) << error;
  EXPECT_DOUBLE_EQ(d.bandwidth, 4.19e12);
  EXPECT_EQ(d.sms, 114);
  EXPECT_FALSE(d.override("warp_size=64", error));
  EXPECT_NE(error.find("unknown device override key 'warp_size'"),
            std::string::npos);
  EXPECT_FALSE(d.override("sms=-3", error));
  EXPECT_FALSE(DeviceDescriptor::lookup("tpu"));
}

// The attention time follows the kernels' structure: the causal tiles they
// visit (GPT-2's T = 1024: 36 of the 64 128 x 128 tiles in the wgmma
// forward, 72 of the 128 64 x 128 ones for each backward block kind), 4d
// FLOPs a score forward and 8d + 6d backward (P and dP recomputed by both
// kinds), on wgmma for bf16 on Hopper and mma.sync elsewhere.
TEST(Configurator, AttentionFollowsTheKernels) {
  Problem p;
  p.family = KernelFamily::AttentionForward, p.dtype = DType::BF16;
  p.batch = 192, p.m = 1024, p.n = 1024, p.k = 64, p.causal = true;
  Configurator h200(*DeviceDescriptor::lookup("h200"));
  Schedule forward = h200.choose(p, true);
  EXPECT_DOUBLE_EQ(forward.flops, 4.0 * 64 * 192 * 36 * 128 * 128);
  auto mentions = [](const Schedule &s, const std::string &what) {
    for (const std::string &line : s.explanation)
      if (line.find(what) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(mentions(forward, "the wgmma kernel"));
  p.family = KernelFamily::AttentionBackward;
  Schedule backward = h200.choose(p, true);
  EXPECT_DOUBLE_EQ(backward.flops, 14.0 * 64 * 192 * 72 * 64 * 128);
  // The backward runs 3.5x the forward's products plus two softmaxes, in
  // turn: at least 3x its time.
  EXPECT_GT(backward.predictedSeconds, 3 * forward.predictedSeconds);
  // Without wgmma: 64 x 64 tiles (136 of 256 causal) at mma.sync's rate.
  p.family = KernelFamily::AttentionForward;
  Schedule a100 =
      Configurator(*DeviceDescriptor::lookup("a100")).choose(p, true);
  EXPECT_DOUBLE_EQ(a100.flops, 4.0 * 64 * 192 * 136 * 64 * 64);
  EXPECT_TRUE(mentions(a100, "the mma.sync kernel"));
  p.dtype = DType::F32;
  EXPECT_TRUE(mentions(h200.choose(p, true), "the mma.sync kernel"));
  // Not causal: every score.
  p.causal = false;
  EXPECT_DOUBLE_EQ(h200.choose(p).flops, 4.0 * 64 * 192 * 1024 * 1024);
}

// TF32 GEMMs on Hopper are priced as the wgmma kernel with its rounding
// pass: half bf16's peak, and a read and a write of B's tile in shared
// memory on top of the products (about 0.65 of the TF32 peak on GPT-2's
// shapes, as measured in the eleventh session).
/// GPT-2's fc product, 16384 x 3072 x 768, in `dtype` (f32: priced as TF32).
static Problem fcProduct(DType dtype) {
  Problem p;
  p.family = KernelFamily::Matmul, p.m = 16384, p.n = 3072, p.k = 768;
  p.dtype = dtype;
  return p;
}

/// The share of the TF32 peak the schedule's prediction comes to.
static double tf32PeakShare(const Schedule &s) {
  return s.flops / (s.predictedSeconds * 495e12);
}

/// Whether one line of the explanation holds every one of `parts`.
static bool explains(const Schedule &s,
                     std::initializer_list<std::string_view> parts) {
  return std::any_of(
      s.explanation.begin(), s.explanation.end(), [&](const std::string &line) {
        return std::all_of(parts.begin(), parts.end(),
                           [&](std::string_view part) {
                             return line.find(part) != std::string::npos;
                           });
      });
}

TEST(Configurator, Tf32GemmPaysForItsRounding) {
  Configurator h200(*DeviceDescriptor::lookup("h200"));
  Schedule bf16 = h200.choose(fcProduct(DType::BF16), true);
  Schedule tf32 = h200.choose(fcProduct(DType::F32), true);
  EXPECT_GT(tf32PeakShare(tf32), 0.6);
  EXPECT_LT(tf32PeakShare(tf32), 0.7);
  EXPECT_GT(tf32.predictedSeconds, 2.2 * bf16.predictedSeconds);
  EXPECT_TRUE(explains(tf32, {"the wgmma kernel: 256x128 tiles"}));
}

// A weight rounded ahead (nova.rounded, K-major) takes no pass in the
// kernel: 128 x 256 tiles at the wgmma kernel's rate, as bf16 gets at half
// the peak, and a GPT-2 TF32 step prices the copies that round its weights.
TEST(Configurator, Tf32GemmWithBRoundedAheadTakesNoPass) {
  Configurator h200(*DeviceDescriptor::lookup("h200"));
  Problem p = fcProduct(DType::F32);
  Schedule inKernel = h200.choose(p, true);
  p.roundedKMajorB = true;
  Schedule ahead = h200.choose(p, true);
  EXPECT_GT(tf32PeakShare(ahead), 0.72);
  EXPECT_LT(tf32PeakShare(ahead), 0.8);
  EXPECT_LT(ahead.predictedSeconds, 0.9 * inKernel.predictedSeconds);
  EXPECT_TRUE(
      explains(ahead, {"the wgmma kernel: 128x256 tiles", "B rounded ahead"}));
  auto rounded = [](DType dtype) {
    int copies = 0, products = 0;
    for (const Problem &q :
         gpt2TrainingProblems(12, 768, 12, 50304, 1024, 16, dtype)) {
      products += q.roundedKMajorB;
      copies += q.family == KernelFamily::Pointwise && q.bytesPerElement == 8;
    }
    return std::make_pair(products, copies);
  };
  // Four weights a layer and the tied head.
  EXPECT_EQ(rounded(DType::F32), std::make_pair(49, 49));
  EXPECT_EQ(rounded(DType::BF16), std::make_pair(0, 0));
}

// A row kernel's column sums fold across its blocks after the rows, a
// latency-bound cost the bytes do not show: the 124M step's per-layer
// LayerNorm backward (16384 rows of 768; dy bf16, x - mean and the residual
// gradient f32 in, f32 and bf16 out; three column sums) measured 65.3 us on
// the H200 with its fold by the last 72 blocks (fourteenth session) and
// 62.4 us without its folds (thirteenth, bench/RESULTS.md).
TEST(Configurator, RowKernelColumnSumsPriceTheirFold) {
  Configurator h200(*DeviceDescriptor::lookup("h200"));
  Problem p;
  p.family = KernelFamily::RowReduction;
  p.m = 16384;
  p.n = 768;
  p.streamedBytes = p.m * p.n * (2 + 4 + 4 + 4 + 2);
  Schedule bare = h200.choose(p);
  p.columnSums = 3;
  Schedule folded = h200.choose(p, true);
  EXPECT_NEAR(folded.predictedSeconds - bare.predictedSeconds, 3e-6, 0.5e-6);
  EXPECT_NEAR(folded.predictedSeconds / 65.3e-6, 1.0, 0.05);
  EXPECT_TRUE(explains(folded, {"3 column sums folded across 256 blocks by "
                                "the last 72 to finish in 2 latency-bound "
                                "rounds"}));
}

// The fold's plan: enough folders that a thread loads one round of rows,
// its items split over the folder's threads in row slices.
TEST(RowFold, PlansOneRoundOfLoadsPerThread) {
  using namespace nova::rowfold;
  auto same = [](FoldPlan a, FoldPlan b) {
    return a.folders == b.folders && a.perFolder == b.perFolder &&
           a.slices == b.slices && a.rowsPerSlice == b.rowsPerSlice;
  };
  // LayerNorm backward: 3 x 384 items of 2 f64 columns over 256 blocks.
  FoldPlan ln = foldPlan(256, columnSumItems(3, 768), 256);
  EXPECT_TRUE(same(ln, {72, 16, 16, 16}));
  EXPECT_EQ(foldRounds(ln, 256), 1);
  // A total (the loss): one folder, its rows in 32 slices at most.
  EXPECT_TRUE(same(foldPlan(396, 1, 256), {1, 1, 31, 13}));
  // Wide column sums: the folders capped, their threads loop over items.
  FoldPlan wide = foldPlan(256, columnSumItems(3, 50257), 256);
  EXPECT_EQ(wide.folders, kMaxFolders);
  EXPECT_EQ(wide.slices, 1);
  EXPECT_GT(foldRounds(wide, 256), 1);
  // A grid that is not a multiple of the slices: the last slice is short,
  // and every block's row lies in exactly one slice.
  FoldPlan odd = foldPlan(203, 40, 256);
  EXPECT_GE(odd.slices * odd.rowsPerSlice, 203);
  EXPECT_LT((odd.slices - 1) * odd.rowsPerSlice, 203);
}

// The bar: every kernel of a GPT-2 124M training step configured in well
// under a millisecond; the figure comes from nova-configure-explain --gpt2,
// this only guards against gross regressions.
TEST(Configurator, Gpt2StepIsConfiguredQuickly) {
  Configurator conf(*DeviceDescriptor::lookup("h200"));
  std::vector<Problem> problems =
      gpt2TrainingProblems(12, 768, 12, 50304, 1024, 16, DType::BF16);
  EXPECT_GT(problems.size(), 300u);
  auto t0 = std::chrono::steady_clock::now();
  double total = 0;
  for (const Problem &p : problems)
    total += conf.choose(p).predictedSeconds;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
  EXPECT_LT(ms, 10.0); // a loose guard against regressions; ~0.4 ms measured
  EXPECT_GT(total, 0);
}

} // namespace
