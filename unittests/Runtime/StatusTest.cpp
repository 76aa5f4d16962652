//===- StatusTest.cpp - status word and guard bands, decided on the host --===//
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
  exe.kernels.push_back(
      kernel("pointwise_loss", {{ParamKind::Buffer, 8},
                                {ParamKind::StatusWord, 8, NonFiniteLoss}}));
  exe.kernels.push_back(kernel(
      "optimizer", {{ParamKind::Buffer, 8}, {ParamKind::StatusWord, 8}}));
  exe.kernels.push_back(kernel(
      "pointwise_norm", {{ParamKind::Buffer, 8},
                         {ParamKind::StatusWord, 8, NonFiniteGradients}}));
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
  uint64_t words[kStatusWords] = {
      LabelsOutOfRange, ((0xFFFFFFFFull - 3) << 32) | uint32_t(int32_t(-7)), 96,
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
  uint64_t clear[kStatusWords] = {};
  EXPECT_FALSE(StatusReport::decode(clear).hasLabel);
}

TEST(Status, NamesTheCheckTheKernelAndTheSkip) {
  ExecutableDesc exe = step();
  uint64_t words[kStatusWords] = {LabelsOutOfRange | NonFiniteGradients,
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
  uint64_t loss[kStatusWords] = {NonFiniteLoss};
  lines = describeStatus(exe, exe.entries[0], StatusReport::decode(loss));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "non-finite loss (loss in kernel @pointwise_loss); the "
                      "optimizer skipped the update");
  uint64_t clear[kStatusWords] = {};
  EXPECT_TRUE(
      describeStatus(exe, exe.entries[0], StatusReport::decode(clear)).empty());
}

TEST(Status, NamesTheFirstGatherIndexOutsideItsTable) {
  ExecutableDesc exe = step();
  exe.kernels[0] =
      kernel("gather_wte", {{ParamKind::Buffer, 8},
                            {ParamKind::StatusWord, 8, IndicesOutOfRange}});
  // Position 17, value -2, a table of 50257 rows; no label recorded.
  uint64_t words[kStatusWords] = {IndicesOutOfRange,
                                  0,
                                  0,
                                  0,
                                  ((0xFFFFFFFFull - 17) << 32) |
                                      uint32_t(int32_t(-2)),
                                  50257};
  StatusReport r = StatusReport::decode(words);
  EXPECT_FALSE(r.hasLabel);
  ASSERT_TRUE(r.hasIndex);
  EXPECT_EQ(r.indexPosition, 17u);
  EXPECT_EQ(r.indexValue, -2);
  EXPECT_EQ(r.tableRows, 50257);
  std::vector<std::string> lines = describeStatus(exe, exe.entries[0], r);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "gather indices out of range (gather in kernel "
                      "@gather_wte): index -2 at position 17 is out of range "
                      "for axis 0 of size 50257; the optimizer skipped the "
                      "update");
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

namespace {

TEST(GuardBands, EveryBufferFencedOnBothSides) {
  // 10 bytes (padding to 16 belongs to its guard), 32 bytes, 0 bytes.
  GuardLayout l = layOutGuardBands({{"x", 10}, {"y", 32}, {"z", 0}}, 64);
  ASSERT_EQ(l.offsets.size(), 3u);
  EXPECT_EQ(l.offsets, (std::vector<uint64_t>{64, 144, 240}));
  ASSERT_EQ(l.guards.size(), 4u);
  EXPECT_EQ(l.guards[0].offset, 0u);
  EXPECT_EQ(l.guards[0].size, 64u);
  EXPECT_EQ(l.guards[1].buffer, "x");
  EXPECT_EQ(l.guards[1].offset, 74u); // right at x's end
  EXPECT_EQ(l.guards[1].size, 70u);   // 64 and the padding to 144
  EXPECT_EQ(l.guards[2].offset, 176u);
  EXPECT_EQ(l.guards[2].size, 64u);
  EXPECT_EQ(l.guards[3].offset, 240u);
  EXPECT_EQ(l.arenaSize, 304u);
  // Buffers and guards tile the arena without overlap, buffers aligned.
  uint64_t covered = 0;
  for (const GuardDesc &g : l.guards)
    covered += g.size;
  EXPECT_EQ(covered + 10 + 32 + 0, l.arenaSize);
  for (uint64_t o : l.offsets)
    EXPECT_EQ(o % 16, 0u);
}

TEST(GuardBands, NamesTheBufferAndTheKernels) {
  ExecutableDesc exe;
  exe.kernels.push_back(vaddKernel("// ptx", "", ""));
  exe.entries.push_back(overrunEntry(1000, 8));
  std::string bytes, error;
  ASSERT_TRUE(writeExecutable(exe, bytes, error)) << error;
  ExecutableDesc read;
  ASSERT_TRUE(readExecutable(bytes, read, error)) << error;
  const EntryDesc &e = read.entries[0];
  ASSERT_EQ(e.guards.size(), 4u);
  EXPECT_EQ(e.guards[3].buffer, "c");

  std::string arena(e.arenaSize, '\0');
  for (const GuardDesc &g : e.guards)
    std::fill_n(arena.begin() + g.offset, g.size, char(kGuardByte));
  EXPECT_TRUE(checkGuardBands(read, e, arena).empty());
  // 8 floats written past c's end.
  std::fill_n(arena.begin() + e.guards[3].offset, 32, '\0');
  std::vector<std::string> lines = checkGuardBands(read, e, arena);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "guard band after buffer 'c' overwritten: 32 of its 256 "
                      "bytes changed, the first 0 bytes past the buffer's end "
                      "(kernels that take it or the next buffer: @vadd)");
  // A guard outside the arena is refused.
  read.entries[0].guards[3].size = e.arenaSize;
  EXPECT_FALSE(checkExecutable(read, error));
  EXPECT_NE(error.find("a guard band outside the arena"), std::string::npos);
}

} // namespace
