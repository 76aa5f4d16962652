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

namespace {
nova::KernelDesc codeFor(std::vector<std::string> cubins, std::string ptx) {
  nova::KernelDesc k;
  k.name = "pointwise_1";
  for (const std::string &arch : cubins)
    k.images.push_back({arch, "cubin for " + arch});
  k.ptx = std::move(ptx);
  return k;
}
} // namespace

TEST(KernelCode, ArchSpecificCodeRunsOnlyOnItsArchitecture) {
  using nova::chooseKernelCode;
  const std::string ptx90a = ".version 8.7\n.target sm_90a\n.address_size 64\n";
  nova::KernelDesc k = codeFor({"sm_90a"}, ptx90a);
  // The H200 (sm_90) runs the sm_90a cubin.
  nova::KernelCode code = chooseKernelCode(k, "sm_90");
  ASSERT_TRUE(code.error.empty()) << code.error;
  ASSERT_NE(code.image, nullptr);
  EXPECT_EQ(code.image->arch, "sm_90a");
  // Neither an older nor a newer device can: a clear error, no load.
  for (const char *device : {"sm_80", "sm_100", "sm_89"}) {
    code = chooseKernelCode(k, device);
    EXPECT_EQ(code.image, nullptr) << device;
    EXPECT_FALSE(code.ptx) << device;
    EXPECT_EQ(code.error,
              std::string("kernel 'pointwise_1' needs cubin "
                          "sm_90a, PTX for sm_90a; the device is ") +
                  device +
                  ", which can run none of it (recompile for the "
                  "device, e.g. --chip " +
                  device + ")");
  }
}

TEST(KernelCode, PlainCodeRunsForward) {
  using nova::chooseKernelCode;
  // A plain sm_80 cubin runs on sm_86 (same major), not on sm_90; its PTX
  // is JIT-compiled for any newer device, never for an older one.
  nova::KernelDesc k = codeFor({"sm_80"}, ".target sm_80\n");
  nova::KernelCode code = chooseKernelCode(k, "sm_86");
  ASSERT_NE(code.image, nullptr);
  EXPECT_EQ(code.image->arch, "sm_80");
  code = chooseKernelCode(k, "sm_90");
  EXPECT_EQ(code.image, nullptr);
  EXPECT_TRUE(code.ptx);
  code = chooseKernelCode(k, "sm_75");
  EXPECT_NE(code.error.find("needs cubin sm_80, PTX for sm_80; the device is "
                            "sm_75"),
            std::string::npos)
      << code.error;
  // The closest image wins; PTX-only executables JIT.
  k = codeFor({"sm_80", "sm_86", "sm_90a"}, "");
  EXPECT_EQ(chooseKernelCode(k, "sm_89").image->arch, "sm_86");
  EXPECT_EQ(chooseKernelCode(k, "sm_90").image->arch, "sm_90a");
  k = codeFor({}, ".version 8.0\n.target sm_90\n");
  EXPECT_TRUE(chooseKernelCode(k, "sm_120").ptx);
  EXPECT_FALSE(chooseKernelCode(k, "sm_80").ptx);
  // An architecture name that is not one is an error, never a guess.
  EXPECT_NE(chooseKernelCode(k, "gfx90a")
                .error.find("unknown device "
                            "architecture 'gfx90a'"),
            std::string::npos);
}
