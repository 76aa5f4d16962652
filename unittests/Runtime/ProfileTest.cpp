//===- ProfileTest.cpp - nova-run --profile's table from fake timings -----===//

#include "TestExecutables.h"

#include "nova/Runtime/Profile.h"

#include "gtest/gtest.h"

using namespace nova;
using namespace nova::test;

namespace {

/// add_scale with a second vadd launch; every launch with its profile.
ExecutableDesc profiled() {
  ExecutableDesc exe;
  exe.target = "h200";
  exe.kernels.push_back(vaddKernel("ptx", "", ""));
  exe.kernels.push_back(scaleKernel("ptx", "", ""));
  EntryDesc e = addScaleEntry(1000, 0.5f);
  e.launches.push_back(e.launches[0]);
  // Predictions: vadd 8 us a launch, scale 20 us.
  e.launches[0].profile = {1e6, 3e6, {"m.py:10", "m.py:3"}, DType::F32, 8e-6};
  e.launches[1].profile = {0, 2e6, {"m.py:5"}, DType::F32, 20e-6};
  e.launches[2].profile = {1e6, 3e6, {"m.py:9", "m.py:3"}, DType::F32, 8e-6};
  exe.entries.push_back(e);
  return exe;
}

TEST(Profile, RoundTripsThroughTheExecutable) {
  ExecutableDesc in = profiled();
  std::string bytes, error;
  ASSERT_TRUE(writeExecutable(in, bytes, error)) << error;
  ExecutableDesc out;
  ASSERT_TRUE(readExecutable(bytes, out, error)) << error;
  EXPECT_EQ(out.target, "h200");
  const LaunchProfile &p = out.entries[0].launches[0].profile;
  EXPECT_EQ(p.flops, 1e6);
  EXPECT_EQ(p.bytes, 3e6);
  EXPECT_EQ(p.predictedSeconds, 8e-6);
  EXPECT_EQ(p.sources, (std::vector<std::string>{"m.py:10", "m.py:3"}));
  EXPECT_TRUE(out.entries[0].launches[1].profile.sources ==
              std::vector<std::string>{"m.py:5"});

  in.entries[0].launches[1].profile.bytes = -1;
  EXPECT_FALSE(writeExecutable(in, bytes, error));
  EXPECT_NE(
      error.find(
          "profile FLOPs, bytes or predicted time negative or not finite"),
      std::string::npos)
      << error;
  in.entries[0].launches[1].profile.bytes = 2e6;
  in.entries[0].launches[1].profile.predictedSeconds = HUGE_VAL;
  EXPECT_FALSE(writeExecutable(in, bytes, error));
  EXPECT_NE(error.find("predicted time negative or not finite"),
            std::string::npos)
      << error;
}

TEST(Profile, KernelsSumTheirLaunchesSlowestFirst) {
  ExecutableDesc exe = profiled();
  // vadd twice, 10 us each; scale once, 30 us.
  std::vector<KernelProfile> rows =
      profileKernels(exe, exe.entries[0], {0.010, 0.030, 0.010});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "scale");
  EXPECT_EQ(rows[0].launches, 1);
  EXPECT_DOUBLE_EQ(rows[0].milliseconds, 0.030);
  EXPECT_EQ(rows[1].kernel, "vadd");
  EXPECT_EQ(rows[1].launches, 2);
  EXPECT_DOUBLE_EQ(rows[1].milliseconds, 0.020);
  EXPECT_DOUBLE_EQ(rows[1].flops, 2e6);
  EXPECT_DOUBLE_EQ(rows[1].bytes, 6e6);
  EXPECT_DOUBLE_EQ(rows[1].predictedMilliseconds, 0.016);
  // Union of the launches' lines, by line number.
  EXPECT_EQ(rows[1].sources,
            (std::vector<std::string>{"m.py:3", "m.py:9", "m.py:10"}));
}

TEST(Profile, TableAgainstTheCeilings) {
  ExecutableDesc exe = profiled();
  DeviceDescriptor device;
  device.name = "Test GPU";
  device.major = 8;
  device.bandwidth = 1e12; // 1000 GB/s
  device.peakF32 = 5e12;
  device.peakTF32 = 1e13; // 10 TFLOP/s: f32 products run on tensor cores
  device.peakBF16 = 4e13;
  std::string table =
      formatProfile(profileKernels(exe, exe.entries[0], {0.010, 0.030, 0.010}),
                    "add_scale", "GPU 0", &device, 7);
  // scale: 2 MB in 30 us = 66.7 GB/s, 7% of 1000; no FLOPs; 20 us
  // predicted: 1.5 x, flagged. vadd: 6 MB in 20 us = 300 GB/s (30%), 2 MFLOP
  // in 20 us = 0.1 TFLOP/s (1% of the tf32 peak, 10); 16 us predicted:
  // 1.25 x, not flagged (the bound is > 25 %).
  EXPECT_EQ(table,
            "profile of entry 'add_scale' on GPU 0: 3 launches of 2 kernels, "
            "0.050 ms per step (launch by launch, CUDA events, median of 7 "
            "runs)\n"
            "ceilings (Test GPU): 1000 GB/s DRAM, 40 TFLOP/s bf16, 10 "
            "TFLOP/s tf32, 5 TFLOP/s f32\n"
            " time (us)  pred (us) meas/pr   share launches  GB/s (peak)   "
            "TFLOP/s (pk)  bound    kernel: source lines\n"
            "      30.0       20.0   1.50!   60.0%        1  66.7 (7%)     -  "
            "           memory   scale: m.py:5\n"
            "      20.0       16.0   1.25    40.0%        2  300.0 (30%)   0.1 "
            "(1%)      memory   vadd: m.py:3, m.py:9, m.py:10\n"
            "predicted 0.036 ms for the 2 kernels with a prediction; 1 differ "
            "from their measured time by more than 25 % (marked !)\n");

  // Without ceilings: rates only.
  std::string bare =
      formatProfile(profileKernels(exe, exe.entries[0], {0.010, 0.030, 0.010}),
                    "add_scale", "GPU 0", nullptr, 7);
  EXPECT_NE(bare.find("ceilings: unknown"), std::string::npos) << bare;
  EXPECT_NE(bare.find("  300.0         0.1           -        vadd"),
            std::string::npos)
      << bare;
}

TEST(Profile, ComputeBoundWhenTheFlopShareIsLarger) {
  ExecutableDesc exe = profiled();
  exe.entries[0].launches[1].profile = {6e8, 2e6, {}, DType::BF16};
  DeviceDescriptor device;
  device.name = "Test GPU";
  device.bandwidth = 1e12;
  device.peakBF16 = 4e13;
  device.major = 9;
  // 600 MFLOP in 30 us = 20 TFLOP/s, 50% of the bf16 peak; 7% of DRAM.
  std::string table =
      formatProfile(profileKernels(exe, exe.entries[0], {0.010, 0.030, 0.010}),
                    "add_scale", "GPU 0", &device, 1);
  EXPECT_NE(table.find("66.7 (7%)     20.0 (50%)    compute  scale\n"),
            std::string::npos)
      << table;
}

TEST(Profile, FlagsPredictionsOffByMoreThanAQuarter) {
  KernelProfile row;
  row.milliseconds = 1.0;
  EXPECT_FALSE(mispredicted(row)); // no prediction
  row.predictedMilliseconds = 0.8; // measured 1.25 x
  EXPECT_FALSE(mispredicted(row));
  row.predictedMilliseconds = 0.79; // 1.27 x
  EXPECT_TRUE(mispredicted(row));
  row.predictedMilliseconds = 1.3; // 0.77 x
  EXPECT_FALSE(mispredicted(row));
  row.predictedMilliseconds = 1.4; // 0.71 x: faster than predicted
  EXPECT_TRUE(mispredicted(row));

  // An executable without predictions says so instead of a footer.
  ExecutableDesc exe = profiled();
  for (LaunchDesc &l : exe.entries[0].launches)
    l.profile.predictedSeconds = 0;
  std::string table =
      formatProfile(profileKernels(exe, exe.entries[0], {0.010, 0.030, 0.010}),
                    "add_scale", "GPU 0", nullptr, 1);
  EXPECT_NE(table.find("no predicted times (the executable carries none)"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find('!'), std::string::npos) << table;
}

} // namespace
