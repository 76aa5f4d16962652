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
  StatusWord = 3,
  /// The instance's workspace: zeroed scratch shared by the entry's launches
  /// (they run in order), of the largest size its kernels declare.
  Workspace = 4
};

struct ParamDesc {
  ParamKind kind = ParamKind::Buffer;
  uint32_t size = 8;
  /// StatusWord: the StatusBit values the kernel may set (0: it only reads
  /// the record, as the optimizer does to skip its update).
  uint32_t statusBits = 0;
};

/// The device status record of an instance (kStatusBytes, zeroed before
/// every run), six 64-bit words: 0 holds the StatusBit of every check that
/// failed; 1 the first label check_labels refused, as (0xFFFFFFFF -
/// position) << 32 | uint32(value saturated to 32 bits), so the largest
/// word is the lowest position (0: none); 2 and 3 the classes and
/// ignore_index of the check that refused it (of the last one to write
/// them when several check_labels kernels fail in one run); 4 the first
/// index outside its table that a gather met, encoded as word 1, and 5 that
/// table's rows (of the last gather to write them).
enum StatusBit : uint32_t {
  LabelsOutOfRange = 1,   // check_labels: a label outside [0, classes)
  NonFiniteLoss = 2,      // the entry's 'loss' result is NaN or infinite
  NonFiniteGradients = 4, // 'grad_norm' (global norm of every gradient) too
  IndicesOutOfRange = 8,  // gather: an index outside [0, table rows)
};
constexpr uint32_t kStatusWords = 6;
constexpr uint32_t kStatusBytes = kStatusWords * 8;
constexpr uint32_t kAllStatusBits = 15;

/// What a status record says, decoded on the host.
struct StatusReport {
  uint64_t flags = 0;
  bool hasLabel = false;
  uint64_t labelPosition = 0;
  int64_t labelValue = 0, classes = 0, ignoreIndex = 0;
  bool hasIndex = false;
  uint64_t indexPosition = 0;
  int64_t indexValue = 0, tableRows = 0;
  static StatusReport decode(const uint64_t words[kStatusWords]);
};
/// "labels out of range", "non-finite loss", "non-finite gradients",
/// "gather indices out of range".
const char *describeStatusBit(uint32_t bit);
/// The check a bit belongs to: "check_labels", "loss", "grad_norm",
/// "gather".
const char *statusCheckName(uint32_t bit);

struct ExecutableDesc;
struct EntryDesc;
/// One line per failed check of `report` after a run of `entry`: what
/// failed, in which kernels (those that may raise it), and whether an
/// optimizer launched after them skipped its update.
std::vector<std::string> describeStatus(const ExecutableDesc &exe,
                                        const EntryDesc &entry,
                                        const StatusReport &report);

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
  /// Blocks that must be resident at once (some wait for the others'
  /// results); the runtime checks the device holds them. 0: no such need.
  uint32_t coResident = 0;
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

/// Profile metadata of a launch (zero / empty when unknown).
struct LaunchProfile {
  double flops = 0, bytes = 0;
  std::vector<std::string> sources; // "file:line" of the ops it fused
  DType dtype = DType::F32;         // of the main computation
  double predictedSeconds = 0;      // the configurator's time (0: none)
};

struct LaunchDesc {
  uint32_t kernel = 0;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::vector<ArgDesc> args;
  LaunchProfile profile;
};

struct ExecutableDesc;

/// Guard-band mode: `size` bytes of kGuardByte at `offset`, right after
/// the buffer `buffer` (at bufferOffset, bufferSize bytes; "" for the
/// guard at the start of the arena).
struct GuardDesc {
  uint64_t offset = 0, size = 0;
  std::string buffer;
  uint64_t bufferOffset = 0, bufferSize = 0;
};
constexpr unsigned char kGuardByte = 0xA5;

struct EntryDesc {
  std::string name;
  std::vector<TensorDesc> inputs, outputs;
  uint64_t arenaSize = 0;
  std::vector<LaunchDesc> launches;
  std::vector<GuardDesc> guards;
};

/// The guard-band layout of named buffers: no two share memory, the arena
/// starts with a guard of `guard` bytes (a multiple of 16) and every buffer
/// (16-byte aligned) is followed by one that covers its alignment padding
/// too, so a write one byte past its end lands in a guard.
struct GuardLayout {
  std::vector<uint64_t> offsets; // one per buffer
  std::vector<GuardDesc> guards;
  uint64_t arenaSize = 0;
};
GuardLayout
layOutGuardBands(const std::vector<std::pair<std::string, uint64_t>> &buffers,
                 uint64_t guard);

/// One line per overwritten guard of `entry` given the arena's bytes after
/// a run: the buffer it follows, how many bytes changed and where, and the
/// kernels that take that buffer or the next one.
std::vector<std::string> checkGuardBands(const ExecutableDesc &exe,
                                         const EntryDesc &entry,
                                         const std::string &arena);

struct ExecutableDesc {
  uint32_t version = kFormatVersion;
  std::vector<EntryDesc> entries;
  std::vector<KernelDesc> kernels;
  /// The device descriptor the kernels were scheduled for ("h200"); empty
  /// when unknown.
  std::string target;

  const EntryDesc *findEntry(const std::string &name) const;
};

/// The workspace an instance of `entry` allocates: the largest of its
/// launched kernels' (checked executables only).
uint64_t workspaceBytes(const ExecutableDesc &exe, const EntryDesc &entry);

/// Whether an instance of `entry` allocates the status record (a launch
/// takes the status word).
bool usesStatusRecord(const ExecutableDesc &exe, const EntryDesc &entry);

/// cuMemAlloc hands out device memory in pages of this size (2 MiB on the
/// GPUs Nova targets), so an allocation of n bytes takes n rounded up to it
/// (a small one may share a page with another, never take more).
constexpr uint64_t kDeviceAllocationGranularity = uint64_t(2) << 20;

/// The device memory an instance of `entry` takes by its plan: the arena
/// (parameters, optimizer state, activations, inputs and outputs), the
/// workspace and the status record, one allocation each, each rounded up to
/// kDeviceAllocationGranularity. Excludes the CUDA context and the kernels'
/// code (loaded once per process).
struct DeviceMemoryPlan {
  uint64_t arena = 0, workspace = 0, status = 0;
  /// The sum of the three, each rounded up to the granularity.
  uint64_t total = 0;
};
DeviceMemoryPlan planDeviceMemory(const ExecutableDesc &exe,
                                  const EntryDesc &entry);

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
