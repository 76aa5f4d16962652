//===- KernelTableTest.cpp - one load per (hash, arch) --------------------===//

#include "nova/Runtime/KernelTable.h"
#include "TestExecutables.h"

#include "gtest/gtest.h"

using namespace nova;

namespace {

struct CountingLoader : KernelLoader {
  int loads = 0;
  bool failNext = false;
  void *load(const KernelDesc &k, const std::string &arch,
             std::string &error) override {
    if (failNext) {
      error = "cannot load " + k.name;
      return nullptr;
    }
    ++loads;
    return reinterpret_cast<void *>(uintptr_t(0x1000 + loads));
  }
};

TEST(KernelTable, LoadsEachKernelOncePerArchitecture) {
  KernelTable table;
  CountingLoader loader;
  std::string error;
  KernelDesc a = test::vaddKernel("ptx", "", ""),
             b = test::scaleKernel("ptx", "", "");
  // Twelve launch sites of one kernel (twelve identical blocks) and one of
  // another, across two executables: two loads.
  void *first = table.get(a, "sm_90", loader, error);
  for (int i = 0; i < 11; ++i)
    EXPECT_EQ(table.get(a, "sm_90", loader, error), first);
  KernelDesc copy = a; // the same kernel in a second executable
  EXPECT_EQ(table.get(copy, "sm_90", loader, error), first);
  EXPECT_NE(table.get(b, "sm_90", loader, error), nullptr);
  EXPECT_EQ(loader.loads, 2);
  EXPECT_EQ(table.misses(), 2u);
  EXPECT_EQ(table.hits(), 12u);
  // Another architecture is another entry.
  EXPECT_NE(table.get(a, "sm_80", loader, error), first);
  EXPECT_EQ(table.size(), 3u);
}

TEST(KernelTable, ReportsCollisionsAndLoadFailures) {
  KernelTable table;
  CountingLoader loader;
  std::string error;
  KernelDesc a = test::vaddKernel("ptx", "", "");
  ASSERT_TRUE(table.get(a, "sm_90", loader, error));
  KernelDesc impostor = a;
  impostor.name = "other";
  EXPECT_EQ(table.get(impostor, "sm_90", loader, error), nullptr);
  EXPECT_NE(error.find("names both 'vadd' and 'other'"), std::string::npos)
      << error;
  loader.failNext = true;
  KernelDesc b = test::scaleKernel("ptx", "", "");
  EXPECT_EQ(table.get(b, "sm_90", loader, error), nullptr);
  EXPECT_EQ(error, "cannot load scale");
  EXPECT_EQ(table.size(), 1u); // failures are not cached
}

} // namespace
