//===- StatusTest.cpp - the device status word, decided on the host -------===//
//
// What the runtime reads back after a run: the record's encoding, the lines
// nova-run prints (which kernel, which label, whether the optimizer
// skipped its update), and the format's rules for status parameters.
//
//===----------------------------------------------------------------------===//

#include "TestExecutables.h"

#include "gtest/gtest.h"

using namespace nova;
using namespace nova::test;

namespace {

KernelDesc kernel(const std::string &name, std::vector<ParamDesc> params) {
  KernelDesc k;
  k.name = name;
  k.hash = hashBytes(name);
  k.ptx = "// ptx";
  k.block = {256, 1, 1};
  k.params = std::move(params);
  return k;
}

ArgDesc statusArg() {
  ArgDesc a;
  a.kind = ParamKind::StatusWord;
  return a;
}

/// check_labels, then the loss, then AdamW, then a late loss check.
ExecutableDesc step() {
  ExecutableDesc exe;
  exe.kernels.push_back(kernel(
      "pointwise_labels",
      {{ParamKind::Buffer, 8}, {ParamKind::StatusWord, 8, LabelsOutOfRange}}));
  exe.kernels.push_back(kernel(
      "pointwise_loss",
      {{ParamKind::Buffer, 8}, {ParamKind::StatusWord, 8, NonFiniteLoss}}));
  exe.kernels.push_back(
      kernel("optimizer", {{ParamKind::Buffer, 8}, {ParamKind::StatusWord, 8}}));
  exe.kernels.push_back(kernel(
      "pointwise_norm",
      {{ParamKind::Buffer, 8}, {ParamKind::StatusWord, 8, NonFiniteGradients}}));
  EntryDesc e;
  e.name = "train_step";
  e.arenaSize = 1024;
  for (uint32_t k = 0; k < 4; ++k)
    e.launches.push_back({k, {1, 1, 1}, {buffer(0), statusArg()}});
  exe.entries.push_back(e);
  return exe;
}

TEST(Status, DecodesTheFirstBadLabel) {
  // Position 3, value -7 (two's complement in the low word), 96 classes.
  uint64_t words[4] = {LabelsOutOfRange,
                       ((0xFFFFFFFFull - 3) << 32) | uint32_t(int32_t(-7)), 96,
                       uint64_t(int64_t(-100))};
  StatusReport r = StatusReport::decode(words);
  EXPECT_EQ(r.flags, uint64_t(LabelsOutOfRange));
  ASSERT_TRUE(r.hasLabel);
  EXPECT_EQ(r.labelPosition, 3u);
  EXPECT_EQ(r.labelValue, -7);
  EXPECT_EQ(r.classes, 96);
  EXPECT_EQ(r.ignoreIndex, -100);
  // A lower position encodes to a larger word, so atomic max keeps it.
  EXPECT_GT((0xFFFFFFFFull - 2) << 32, (0xFFFFFFFFull - 3) << 32);
  uint64_t clear[4] = {0, 0, 0, 0};
  EXPECT_FALSE(StatusReport::decode(clear).hasLabel);
}

TEST(Status, NamesTheCheckTheKernelAndTheSkip) {
  ExecutableDesc exe = step();
  uint64_t words[4] = {LabelsOutOfRange | NonFiniteGradients,
                       ((0xFFFFFFFFull - 5) << 32) | 99u, 96,
                       uint64_t(int64_t(-100))};
  std::vector<std::string> lines =
      describeStatus(exe, exe.entries[0], StatusReport::decode(words));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "labels out of range (check_labels in kernel "
                      "@pointwise_labels): label 99 at position 5 is outside "
                      "[0, 96) and is not the ignore_index -100; the optimizer "
                      "skipped the update");
  // Raised after the optimizer ran: said so, not claimed as skipped.
  EXPECT_EQ(lines[1], "non-finite gradients (grad_norm in kernel "
                      "@pointwise_norm); the optimizer ran before this check "
                      "and updated");
  uint64_t loss[4] = {NonFiniteLoss, 0, 0, 0};
  lines = describeStatus(exe, exe.entries[0], StatusReport::decode(loss));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "non-finite loss (loss in kernel @pointwise_loss); the "
                      "optimizer skipped the update");
  uint64_t clear[4] = {0, 0, 0, 0};
  EXPECT_TRUE(
      describeStatus(exe, exe.entries[0], StatusReport::decode(clear)).empty());
}

TEST(Status, ParametersRoundTripAndAreChecked) {
  ExecutableDesc in = step();
  std::string bytes, error;
  ASSERT_TRUE(writeExecutable(in, bytes, error)) << error;
  ExecutableDesc out;
  ASSERT_TRUE(readExecutable(bytes, out, error)) << error;
  EXPECT_EQ(out.kernels[0].params[1].kind, ParamKind::StatusWord);
  EXPECT_EQ(out.kernels[0].params[1].statusBits, uint32_t(LabelsOutOfRange));
  EXPECT_EQ(out.kernels[2].params[1].statusBits, 0u);
  EXPECT_EQ(out.entries[0].launches[0].args[1].kind, ParamKind::StatusWord);
  EXPECT_NE(describeExecutable(out).find("status check_labels"),
            std::string::npos);

  ExecutableDesc bad = step();
  bad.kernels[0].params[0].statusBits = NonFiniteLoss; // on a buffer
  EXPECT_FALSE(checkExecutable(bad, error));
  EXPECT_NE(error.find("check bits on a parameter that is not the status "
                       "word"),
            std::string::npos)
      << error;
  bad = step();
  bad.kernels[1].params[1].statusBits = 64; // no such check
  EXPECT_FALSE(checkExecutable(bad, error));
  bad = step();
  bad.entries[0].launches[0].args[1] = buffer(0); // a buffer for the status
  EXPECT_FALSE(checkExecutable(bad, error));
  EXPECT_NE(error.find("kind differs"), std::string::npos) << error;
}

} // namespace
