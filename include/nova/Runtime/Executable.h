//===- Executable.h - the .nvx executable in memory -------------*- C++ -*-===//
//
// Plain C++ mirror of Executable.fbs. The writer serializes it with
// FlatBuffers; the reader accepts bytes only after the FlatBuffers verifier
// and the semantic checks of checkExecutable have passed, so nothing that
// uses an ExecutableDesc can read out of bounds. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_EXECUTABLE_H
#define NOVA_RUNTIME_EXECUTABLE_H

#include "nova/Support/HostTensor.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nova {

/// Version of the format this build reads and writes.
constexpr uint32_t kFormatVersion = 1;

struct Hash128 {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Hash128 &o) const { return lo == o.lo && hi == o.hi; }
  bool operator<(const Hash128 &o) const {
    return hi != o.hi ? hi < o.hi : lo < o.lo;
  }
  std::string str() const; // 32 hex digits
};

/// A 128-bit hash of `bytes` (two independent 64-bit FNV-1a variants mixed
/// with splitmix64); deterministic across runs and machines.
Hash128 hashBytes(const std::string &bytes);

struct TensorDesc {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;
  int32_t alias = -1;
  /// Size in bytes; only for a tensor of an executable that passed
  /// checkExecutable, which checks that it fits the arena.
  uint64_t bytes() const;
};

struct KernelImage {
  std::string arch;
  std::string cubin;
};

enum class ParamKind : uint8_t {
  Buffer = 0,
  Scalar = 1,
  TmaDescriptor = 2,
  /// The instance's workspace: zeroed scratch shared by the entry's launches
  /// (they run in order), of the largest size its kernels declare.
  Workspace = 3
};

struct ParamDesc {
  ParamKind kind = ParamKind::Buffer;
  uint32_t size = 8;
};

struct KernelDesc {
  std::string name;
  Hash128 hash;
  std::vector<KernelImage> images;
  std::string ptx;
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedMemory = 0;
  std::vector<ParamDesc> params;
  /// Bytes of workspace the kernel needs (zero at launch, left zero); a
  /// kernel with a Workspace parameter declares a non-zero size.
  uint64_t workspaceBytes = 0;
};

struct TmaDesc {
  uint64_t offset = 0;
  DType dtype = DType::F32;
  std::vector<uint64_t> dims, strides;
  std::vector<uint32_t> box, elementStrides;
  int32_t swizzle = 0;
};

struct ArgDesc {
  ParamKind kind = ParamKind::Buffer;
  uint64_t offset = 0; // Buffer
  std::string bytes;   // Scalar
  TmaDesc tma;         // TmaDescriptor
};

struct LaunchDesc {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<ArgDesc> args;
};

struct EntryDesc {
  std::string name;
  std::vector<TensorDesc> inputs, outputs;
  uint64_t arenaSize = 0;
  std::vector<LaunchDesc> launches;
};

struct ExecutableDesc {
  uint32_t version = kFormatVersion;
  std::vector<EntryDesc> entries;
  std::vector<KernelDesc> kernels;

  const EntryDesc *findEntry(const std::string &name) const;
};

/// The workspace an instance of `entry` allocates: the largest of its
/// launched kernels' (checked executables only).
uint64_t workspaceBytes(const ExecutableDesc &exe, const EntryDesc &entry);

/// Semantic checks: names present and unique, tensors inside the arena,
/// aliases valid, kernels referenced exist, arguments match parameters,
/// geometry non-zero and within CUDA's limits, some code for every kernel.
bool checkExecutable(const ExecutableDesc &exe, std::string &error);

/// Serializes a checked executable (checkExecutable must pass).
bool writeExecutable(const ExecutableDesc &exe, std::string &bytes,
                     std::string &error);
/// Verifies (FlatBuffers verifier, version, checkExecutable) and decodes.
bool readExecutable(const std::string &bytes, ExecutableDesc &exe,
                    std::string &error);
bool readExecutableFile(const std::string &path, ExecutableDesc &exe,
                        std::string &error);

/// A readable listing of an executable (entries with their tensors, arena
/// and launches; kernels with geometry and code), for tests and users; the
/// kernels' code is summarized by size and hash.
std::string describeExecutable(const ExecutableDesc &exe);

} // namespace nova

#endif // NOVA_RUNTIME_EXECUTABLE_H
