//===- TestExecutables.h - small executables for runtime tests --*- C++ -*-===//

#ifndef NOVA_UNITTESTS_RUNTIME_TESTEXECUTABLES_H
#define NOVA_UNITTESTS_RUNTIME_TESTEXECUTABLES_H

#include "nova/Runtime/Executable.h"

#include <cstring>

namespace nova::test {

inline std::string scalarBytes(float v) {
  return std::string(reinterpret_cast<const char *>(&v), sizeof v);
}
inline std::string scalarBytes(int32_t v) {
  return std::string(reinterpret_cast<const char *>(&v), sizeof v);
}

/// `vadd(a, b, c, n)`: c = a + b over n floats, 256 threads per block.
inline KernelDesc vaddKernel(const std::string &ptx, const std::string &cubin,
                             const std::string &arch) {
  KernelDesc k;
  k.name = "vadd";
  k.hash = hashBytes("vadd(f32*, f32*, f32*, i32)");
  k.ptx = ptx;
  if (!cubin.empty())
    k.images.push_back({arch, cubin});
  k.block = {256, 1, 1};
  k.params = {{ParamKind::Buffer, 8},
              {ParamKind::Buffer, 8},
              {ParamKind::Buffer, 8},
              {ParamKind::Scalar, 4}};
  return k;
}

/// `scale(x, y, alpha, n)`: y = alpha * x.
inline KernelDesc scaleKernel(const std::string &ptx, const std::string &cubin,
                              const std::string &arch) {
  KernelDesc k;
  k.name = "scale";
  k.hash = hashBytes("scale(f32*, f32*, f32, i32)");
  k.ptx = ptx;
  if (!cubin.empty())
    k.images.push_back({arch, cubin});
  k.block = {128, 1, 1};
  k.params = {{ParamKind::Buffer, 8},
              {ParamKind::Buffer, 8},
              {ParamKind::Scalar, 4},
              {ParamKind::Scalar, 4}};
  return k;
}

inline ArgDesc buffer(uint64_t offset) {
  ArgDesc a;
  a.kind = ParamKind::Buffer;
  a.offset = offset;
  return a;
}

template <typename T> ArgDesc scalar(T v) {
  ArgDesc a;
  a.kind = ParamKind::Scalar;
  a.bytes = scalarBytes(v);
  return a;
}

/// Entry "add_scale": c = a + b; d = alpha * c, for n floats; kernels 0
/// (vadd) and 1 (scale) of `exe`.
inline EntryDesc addScaleEntry(int32_t n, float alpha) {
  uint64_t bytes = uint64_t(n) * 4;
  EntryDesc e;
  e.name = "add_scale";
  e.inputs = {{"a", DType::F32, {n}, 0}, {"b", DType::F32, {n}, bytes}};
  e.outputs = {{"c", DType::F32, {n}, 2 * bytes},
               {"d", DType::F32, {n}, 3 * bytes}};
  e.arenaSize = 4 * bytes;
  uint32_t blocks = uint32_t((n + 255) / 256);
  e.launches.push_back(
      {0,
       {blocks, 1, 1},
       {buffer(0), buffer(bytes), buffer(2 * bytes), scalar(n)}});
  e.launches.push_back(
      {1,
       {uint32_t((n + 127) / 128), 1, 1},
       {buffer(2 * bytes), buffer(3 * bytes), scalar(alpha), scalar(n)}});
  return e;
}

/// Entry "overrun" in guard-band mode: vadd told that c has `extra` more
/// elements than it has, so it writes past c's end into c's guard.
inline EntryDesc overrunEntry(int32_t n, int32_t extra) {
  uint64_t bytes = uint64_t(n) * 4;
  GuardLayout layout =
      layOutGuardBands({{"a", bytes}, {"b", bytes}, {"c", bytes}}, 256);
  EntryDesc e;
  e.name = "overrun";
  e.inputs = {{"a", DType::F32, {n}, layout.offsets[0]},
              {"b", DType::F32, {n}, layout.offsets[1]}};
  e.outputs = {{"c", DType::F32, {n}, layout.offsets[2]}};
  e.arenaSize = layout.arenaSize;
  e.guards = layout.guards;
  e.launches.push_back({0,
                        {uint32_t((n + extra + 255) / 256), 1, 1},
                        {buffer(layout.offsets[0]), buffer(layout.offsets[1]),
                         buffer(layout.offsets[2]), scalar(n + extra)}});
  return e;
}

/// Entry "decay": x <- alpha * x in place (the output aliases the input).
inline EntryDesc decayEntry(int32_t n, float alpha) {
  EntryDesc e;
  e.name = "decay";
  e.inputs = {{"x", DType::F32, {n}, 0}};
  TensorDesc out{"x", DType::F32, {n}, 0};
  out.alias = 0;
  e.outputs = {out};
  e.arenaSize = uint64_t(n) * 4;
  e.launches.push_back({1,
                        {uint32_t((n + 127) / 128), 1, 1},
                        {buffer(0), buffer(0), scalar(alpha), scalar(n)}});
  return e;
}

} // namespace nova::test

#endif // NOVA_UNITTESTS_RUNTIME_TESTEXECUTABLES_H
