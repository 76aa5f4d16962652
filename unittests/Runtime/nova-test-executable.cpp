//===- nova-test-executable.cpp - write a small .nvx for tests ------------===//
//
//   nova-test-executable KERNEL_DIR OUT.nvx [--ptx-only]
//
// Packs the upstream-compiled test kernels (utils/make-test-kernels.sh) into
// an executable with the entries of TestExecutables.h, through the same
// writer (and checks) the compiler will use.
//
//===----------------------------------------------------------------------===//

#include "TestExecutables.h"

#include <cstdio>
#include <cstring>
#include <fstream>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: nova-test-executable KERNEL_DIR OUT.nvx [--ptx-only]\n");
    return 1;
  }
  auto read = [](const std::string &path) {
    std::string bytes, error;
    nova::readFileBytes(path, bytes, error); // missing files read as empty
    return bytes;
  };
  std::string dir = argv[1];
  std::string ptx = read(dir + "/kernels.ptx");
  std::string cubin = argc > 3 && std::strcmp(argv[3], "--ptx-only") == 0
                          ? ""
                          : read(dir + "/kernels.sm_90a.cubin");
  if (ptx.empty()) {
    std::fprintf(stderr, "error: no %s/kernels.ptx\n", dir.c_str());
    return 1;
  }
  nova::ExecutableDesc exe;
  exe.kernels = {nova::test::vaddKernel(ptx, cubin, "sm_90a"),
                 nova::test::scaleKernel(ptx, cubin, "sm_90a")};
  exe.entries = {nova::test::addScaleEntry(1000, 0.5f),
                 nova::test::decayEntry(1000, 0.5f)};
  std::string bytes, error;
  if (!nova::writeExecutable(exe, bytes, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary) << bytes;
  return 0;
}
