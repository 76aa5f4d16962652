//===- GpuTest.cpp - the runtime on a real GPU ----------------------------===//
//
// Runs executables made here from kernels that Debian's upstream mlir-opt
// compiled (gpu dialect -> PTX, and ptxas -> cubin where the CUDA toolkit
// exists; test/Runtime/Inputs/kernels.mlir, utils/make-test-kernels.sh) and
// checks every element against the CPU. Skipped, with the reason, where there
// is no CUDA driver or device, or where the kernels were not built.
//
// NOVA_TEST_KERNELS names the directory holding kernels.ptx and
// kernels.sm_90a.cubin. NOVA_TEST_OUT, if set, receives the .nvx files and
// safetensors used (for nova-run in the GPU round script).
//
//===----------------------------------------------------------------------===//

#include "TestExecutables.h"
#include "nova/Runtime/Runtime.h"
#include "nova/Support/Safetensors.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <random>

using namespace nova;
using namespace nova::test;

namespace {

std::string readFile(const std::string &path) {
  std::string bytes, error;
  readFileBytes(path, bytes, error); // a missing file reads as empty
  return bytes;
}

class Gpu : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    device = Device::open(0, error);
    if (!device)
      GTEST_SKIP() << "no GPU to run on: " << error;
    const char *dir = std::getenv("NOVA_TEST_KERNELS");
    std::string kernels = dir ? dir : NOVA_TEST_KERNELS_DEFAULT;
    ptx = readFile(kernels + "/kernels.ptx");
    cubin = readFile(kernels + "/kernels.sm_90a.cubin");
    if (ptx.empty())
      GTEST_SKIP() << "no test kernels in " << kernels
                   << " (build them with utils/make-test-kernels.sh)";
    KernelTable::global().clear();
  }

  ExecutableDesc executable(bool withCubin, int32_t n, float alpha) {
    ExecutableDesc exe;
    std::string c = withCubin ? cubin : "";
    exe.kernels = {vaddKernel(ptx, c, "sm_90a"), scaleKernel(ptx, c, "sm_90a")};
    exe.entries = {addScaleEntry(n, alpha), decayEntry(n, alpha)};
    return exe;
  }

  /// Through the file format, as a real program gets it.
  ExecutableDesc roundTrip(const ExecutableDesc &exe,
                           const std::string &save = "") {
    std::string bytes, error;
    EXPECT_TRUE(writeExecutable(exe, bytes, error)) << error;
    ExecutableDesc out;
    EXPECT_TRUE(readExecutable(bytes, out, error)) << error;
    if (const char *dir = std::getenv("NOVA_TEST_OUT"); dir && !save.empty())
      std::ofstream(std::string(dir) + "/" + save, std::ios::binary) << bytes;
    return out;
  }

  static HostTensor random(int32_t n, std::mt19937_64 &rng) {
    HostTensor t(DType::F32, {n});
    std::normal_distribution<double> d;
    for (double &v : t.f)
      v = roundTo(DType::F32, d(rng));
    return t;
  }

  std::unique_ptr<Device> device;
  std::string ptx, cubin;
};

void expectAddScale(Instance &inst, const HostTensor &a, const HostTensor &b,
                    float alpha) {
  std::string error;
  HostTensor c, d;
  ASSERT_TRUE(inst.getOutput(0, c, error)) << error;
  ASSERT_TRUE(inst.getOutput(1, d, error)) << error;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    float sum = float(a.f[i]) + float(b.f[i]);
    ASSERT_EQ(float(c.f[i]), sum) << "c[" << i << "]";
    ASSERT_EQ(float(d.f[i]), alpha * sum) << "d[" << i << "]";
  }
}

TEST_F(Gpu, RunsTwoKernelsFromCubinAndFromPtx) {
  std::mt19937_64 rng(11);
  const int32_t n = 100003; // not a multiple of the block size
  for (bool withCubin : {true, false}) {
    if (withCubin && cubin.empty())
      continue;
    KernelTable::global().clear();
    ExecutableDesc exe =
        roundTrip(executable(withCubin, n, 0.25f),
                  withCubin ? "add_scale.nvx" : "add_scale.ptx.nvx");
    std::string error;
    auto inst = Instance::create(*device, exe, "add_scale", {}, error);
    ASSERT_TRUE(inst) << error;
    HostTensor a = random(n, rng), b = random(n, rng);
    ASSERT_TRUE(inst->setInput(0, a, error)) << error;
    ASSERT_TRUE(inst->setInput(1, b, error)) << error;
    ASSERT_TRUE(inst->run(error)) << error;
    expectAddScale(*inst, a, b, 0.25f);
    if (withCubin) {
      if (const char *dir = std::getenv("NOVA_TEST_OUT")) {
        HostTensor c, d;
        ASSERT_TRUE(inst->getOutput(0, c, error));
        ASSERT_TRUE(inst->getOutput(1, d, error));
        ASSERT_TRUE(
            writeSafetensors(std::string(dir) + "/add_scale.in.safetensors",
                             {{"a", a}, {"b", b}}, error));
        ASSERT_TRUE(
            writeSafetensors(std::string(dir) + "/add_scale.out.safetensors",
                             {{"c", c}, {"d", d}}, error));
      }
    }
  }
}

// Two runs in flight, each with its own inputs copied in and outputs read
// back asynchronously: each sees exactly its own inputs (the second's
// copies wait for the first run on the stream), and a third waits its turn.
TEST_F(Gpu, RunsInFlightEachSeeTheirOwnInputs) {
  std::mt19937_64 rng(17);
  const int32_t n = 4099;
  ExecutableDesc exe = roundTrip(executable(!cubin.empty(), n, 0.5f));
  std::string error;
  auto inst = Instance::create(*device, exe, "add_scale", {}, error);
  ASSERT_TRUE(inst) << error;
  HostTensor a[3], b[3];
  for (int r = 0; r < 3; ++r) {
    a[r] = random(n, rng);
    b[r] = random(n, rng);
  }
  Instance::PendingRun runs[3];
  for (int r = 0; r < 2; ++r)
    ASSERT_TRUE(
        inst->enqueueRun({{0, &a[r]}, {1, &b[r]}}, {1, 0}, runs[r], error))
        << error;
  EXPECT_FALSE(inst->enqueueRun({{0, &a[2]}, {1, &b[2]}}, {0}, runs[2], error));
  EXPECT_NE(error.find("2 runs in flight already"), std::string::npos) << error;
  auto expectRun = [&](int r) {
    std::vector<HostTensor> out;
    StatusReport report;
    ASSERT_TRUE(inst->finishRun(runs[r], out, report, error)) << error;
    ASSERT_EQ(out.size(), 2u); // in the order asked: d, then c
    for (int64_t i = 0; i < n; ++i) {
      float sum = float(a[r].f[i]) + float(b[r].f[i]);
      ASSERT_EQ(float(out[0].f[i]), 0.5f * sum)
          << "run " << r << " d[" << i << "]";
      ASSERT_EQ(float(out[1].f[i]), sum) << "run " << r << " c[" << i << "]";
    }
    EXPECT_EQ(report.flags, 0u);
  };
  expectRun(0);
  ASSERT_TRUE(
      inst->enqueueRun({{0, &a[2]}, {1, &b[2]}}, {1, 0}, runs[2], error))
      << error;
  expectRun(1);
  expectRun(2);
  std::vector<HostTensor> out;
  StatusReport report;
  EXPECT_FALSE(inst->finishRun(runs[2], out, report, error));
  EXPECT_NE(error.find("no such run"), std::string::npos) << error;
  HostTensor wrong(DType::F32, {n + 1});
  EXPECT_FALSE(inst->enqueueRun({{0, &wrong}}, {}, runs[0], error));
  EXPECT_NE(error.find("'a' is"), std::string::npos) << error;
  expectAddScale(*inst, a[2], b[2], 0.5f);
}

TEST_F(Gpu, GraphReplayMatchesDirectLaunchesAndStateStaysResident) {
  std::mt19937_64 rng(12);
  const int32_t n = 4096;
  ExecutableDesc exe = roundTrip(executable(!cubin.empty(), n, 0.5f));
  std::string error;
  for (bool graphs : {true, false}) {
    InstanceOptions options;
    options.useGraphs = graphs;
    auto inst = Instance::create(*device, exe, "decay", options, error);
    ASSERT_TRUE(inst) << error;
    HostTensor x = random(n, rng);
    ASSERT_TRUE(inst->setInput(0, x, error)) << error;
    // Three runs without touching the host: the aliased output is updated
    // in place, so x ends as x / 8.
    for (int r = 0; r < 3; ++r)
      ASSERT_TRUE(inst->run(error)) << error;
    HostTensor out;
    ASSERT_TRUE(inst->getOutput(0, out, error)) << error;
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(float(out.f[i]), float(x.f[i]) * 0.125f)
          << i << " graphs " << graphs;
  }
}

TEST_F(Gpu, KernelsLoadOncePerProcess) {
  ExecutableDesc one = roundTrip(executable(!cubin.empty(), 1024, 1.0f));
  ExecutableDesc two = roundTrip(executable(!cubin.empty(), 2048, 2.0f));
  std::string error;
  auto a = Instance::create(*device, one, "add_scale", {}, error);
  ASSERT_TRUE(a) << error;
  auto b = Instance::create(*device, two, "add_scale", {}, error);
  ASSERT_TRUE(b) << error;
  auto c = Instance::create(*device, two, "decay", {}, error);
  ASSERT_TRUE(c) << error;
  // vadd and scale: two loads; the other four launch sites hit the table.
  EXPECT_EQ(KernelTable::global().misses(), 2u);
  EXPECT_EQ(KernelTable::global().hits(), 3u);
}

TEST_F(Gpu, ManyLaunchesInOneGraph) {
  // 256 chained launches, to exercise capture of a long launch list (and
  // for the host-overhead benchmark in scripts/gpu/round.sh).
  const int32_t n = 1024;
  ExecutableDesc exe = executable(!cubin.empty(), n, 1.0f);
  EntryDesc chain = decayEntry(n, 1.0f);
  chain.name = "chain";
  chain.launches.assign(256, chain.launches.front());
  exe.entries.push_back(chain);
  exe = roundTrip(exe, "chain.nvx");
  std::string error;
  auto inst = Instance::create(*device, exe, "chain", {}, error);
  ASSERT_TRUE(inst) << error;
  HostTensor x(DType::F32, {n});
  for (int i = 0; i < n; ++i)
    x.f[i] = i;
  ASSERT_TRUE(inst->setInput(0, x, error));
  ASSERT_TRUE(inst->run(error)) << error;
  HostTensor out;
  ASSERT_TRUE(inst->getOutput(0, out, error));
  EXPECT_EQ(out.f, x.f);
}

// A stand-in for a training step, to drive nova-run --train's cuda path
// before the compiler emits real ones: the parameter w decays by 0.9 per
// step in place (w aliases its output) and the "loss" is 2 w[0].
TEST_F(Gpu, ToyTrainingStepKeepsStateResident) {
  const int32_t n = 64, batch = 2, seq = 8;
  ExecutableDesc exe = executable(!cubin.empty(), n, 0.9f);
  EntryDesc e;
  e.name = "train_step";
  uint64_t w = 0, step = 256, lr = 264, tokens = 512, targets = 576,
           loss = 640;
  // `lr` is fed by nova-run --train like a real step's; the stand-in
  // ignores it.
  e.inputs = {{"w", DType::F32, {n}, w},
              {"step", DType::I64, {}, step},
              {"lr", DType::F32, {}, lr},
              {"tokens", DType::I32, {batch, seq}, tokens},
              {"targets", DType::I32, {batch, seq}, targets}};
  TensorDesc wOut{"w", DType::F32, {n}, w};
  wOut.alias = 0;
  e.outputs = {{"loss", DType::F32, {}, loss}, wOut};
  e.arenaSize = 1024;
  e.launches = {
      {1, {1, 1, 1}, {buffer(w), buffer(w), scalar(0.9f), scalar(n)}},
      {0, {1, 1, 1}, {buffer(w), buffer(w), buffer(loss), scalar(int32_t(1))}}};
  exe.entries.push_back(e);
  exe = roundTrip(exe, "toy_train.nvx");
  std::string error;
  auto inst = Instance::create(*device, exe, "train_step", {}, error);
  ASSERT_TRUE(inst) << error;
  HostTensor w0(DType::F32, {n});
  for (int i = 0; i < n; ++i)
    w0.f[i] = 1.0 + i;
  ASSERT_TRUE(inst->setInput(0, w0, error));
  float expect = 1.0f;
  for (int s = 1; s <= 5; ++s) {
    ASSERT_TRUE(inst->run(error)) << error;
    expect *= 0.9f;
    HostTensor l;
    ASSERT_TRUE(inst->getOutput(0, l, error));
    EXPECT_EQ(float(l.f[0]), 2 * expect);
  }
  if (const char *dir = std::getenv("NOVA_TEST_OUT")) {
    ASSERT_TRUE(
        writeSafetensors(std::string(dir) + "/toy_train.params.safetensors",
                         {{"w", w0}}, error));
  }
}

TEST_F(Gpu, ErrorsNameTheCallAndTheKernel) {
  std::string error;
  ExecutableDesc exe = executable(false, 1024, 1.0f);
  exe.entries[0].arenaSize = uint64_t(1) << 46; // 64 TiB
  auto inst = Instance::create(*device, exe, "add_scale", {}, error);
  EXPECT_FALSE(inst);
  EXPECT_NE(error.find("out of device memory"), std::string::npos) << error;
  EXPECT_NE(error.find("70368744177664 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("free"), std::string::npos) << error;

  exe = executable(false, 1024, 1.0f);
  exe.kernels[0].name = "no_such_kernel";
  exe.kernels[0].hash = hashBytes("no_such_kernel");
  inst = Instance::create(*device, exe, "add_scale", {}, error);
  EXPECT_FALSE(inst);
  EXPECT_NE(error.find("cuModuleGetFunction('no_such_kernel')"),
            std::string::npos)
      << error;

  exe = executable(false, 1024, 1.0f);
  exe.kernels[1].ptx = ".version 8.0\n.target sm_90\nthis is not ptx";
  exe.kernels[1].hash = hashBytes("broken");
  inst = Instance::create(*device, exe, "add_scale", {}, error);
  EXPECT_FALSE(inst);
  EXPECT_NE(error.find("PTX JIT of kernel 'scale'"), std::string::npos)
      << error;
  EXPECT_NE(error.find("JIT log"), std::string::npos) << error;

  // Blocks that wait for each other must fit on the device at once.
  exe = executable(false, 1024, 1.0f);
  exe.kernels[0].coResident = 1u << 20;
  exe.kernels[0].hash = hashBytes("vadd, a million co-resident blocks");
  inst = Instance::create(*device, exe, "add_scale", {}, error);
  EXPECT_FALSE(inst);
  EXPECT_NE(error.find("kernel 'vadd' needs 1048576 blocks resident at once"),
            std::string::npos)
      << error;
  exe.kernels[0].coResident = uint32_t(device->multiprocessors());
  exe.kernels[0].hash = hashBytes("vadd, a block an SM co-resident");
  inst = Instance::create(*device, exe, "add_scale", {}, error);
  EXPECT_TRUE(inst) << error;

  inst = Instance::create(*device, executable(false, 8, 1.0f), "nothing", {},
                          error);
  EXPECT_FALSE(inst);
  EXPECT_EQ(error, "the executable has no entry 'nothing'");
}

TEST_F(Gpu, GuardBandsCatchAWritePastTheEnd) {
  std::string error;
  ExecutableDesc exe;
  exe.kernels = {vaddKernel(ptx, cubin, "sm_90a")};
  exe.entries = {overrunEntry(1000, 0), overrunEntry(1000, 8)};
  exe.entries[1].name = "overrun_by_8";
  exe = roundTrip(exe, "overrun.nvx");
  for (const char *entry : {"overrun", "overrun_by_8"}) {
    auto inst = Instance::create(*device, exe, entry, {}, error);
    ASSERT_TRUE(inst) << error;
    std::mt19937_64 rng(5);
    ASSERT_TRUE(inst->setInput(0, random(1000, rng), error)) << error;
    ASSERT_TRUE(inst->setInput(1, random(1000, rng), error)) << error;
    ASSERT_TRUE(inst->run(error)) << error;
    std::vector<std::string> lines;
    ASSERT_TRUE(inst->checkGuardBands(lines, error)) << error;
    if (std::string(entry) == "overrun") {
      EXPECT_TRUE(lines.empty()) << lines.front();
      continue;
    }
    // The 8 floats past c are a + b read from a's and b's guards:
    // 0xA5A5A5A5 doubled only changes the two high bytes of each.
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "guard band after buffer 'c' overwritten: 16 of its "
                        "256 bytes changed, the first 2 bytes past the "
                        "buffer's end (kernels that take it or the next "
                        "buffer: @vadd)");
  }
}

/// NOVA_TEST_STATUS: a kernel-tests.sh folder holding the status_labels
/// case (a check_labels kernel, then AdamW). Bad labels raise the bit and
/// leave the state as it was; the next run (a graph replay) starts clear.
TEST_F(Gpu, StatusWordIsClearedBeforeEveryRunAndSkipsTheUpdate) {
  const char *dir = std::getenv("NOVA_TEST_STATUS");
  if (!dir)
    GTEST_SKIP() << "NOVA_TEST_STATUS names no kernel-tests folder";
  std::string error;
  ExecutableDesc exe;
  ASSERT_TRUE(
      readExecutableFile(std::string(dir) + "/status_labels.nvx", exe, error))
      << error;
  NamedTensors inputs;
  ASSERT_TRUE(readSafetensors(
      std::string(dir) + "/status_labels.in.safetensors", inputs, error))
      << error;
  auto inst = Instance::create(*device, exe, "step", {}, error);
  ASSERT_TRUE(inst) << error;
  const EntryDesc &e = inst->entry();
  HostTensor p, labels;
  size_t labelsInput = 0;
  for (size_t i = 0; i < e.inputs.size(); ++i)
    for (auto &[name, value] : inputs)
      if (name == e.inputs[i].name) {
        ASSERT_TRUE(inst->setInput(i, value, error)) << error;
        if (name == "p")
          p = value;
        if (name == "labels") {
          labels = value;
          labelsInput = i;
        }
      }
  ASSERT_EQ(labels.numElements(), 40);
  auto runOnce = [&](StatusReport &report, HostTensor &newP) {
    ASSERT_TRUE(inst->run(error)) << error;
    ASSERT_TRUE(inst->readStatus(report, error)) << error;
    ASSERT_TRUE(inst->getOutput(0, newP, error)) << error;
  };
  StatusReport report;
  HostTensor newP;
  runOnce(report, newP);
  EXPECT_EQ(report.flags, uint64_t(LabelsOutOfRange));
  EXPECT_TRUE(report.hasLabel);
  EXPECT_EQ(report.classes, 10);
  EXPECT_EQ(newP.f, p.f); // skipped: exactly the old parameters

  HostTensor good = labels;
  for (int64_t &x : good.i)
    x = ((x % 10) + 10) % 10;
  ASSERT_TRUE(inst->setInput(labelsInput, good, error)) << error;
  runOnce(report, newP);
  EXPECT_EQ(report.flags, 0u);
  EXPECT_NE(newP.f, p.f); // updated

  ASSERT_TRUE(inst->setInput(labelsInput, labels, error)) << error;
  runOnce(report, newP);
  EXPECT_EQ(report.flags, uint64_t(LabelsOutOfRange));
}

} // namespace
