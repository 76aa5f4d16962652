//===- Configurator.h - analytic kernel schedules ---------------*- C++ -*-===//
//
// Chooses each kernel's schedule from a device descriptor and the problem
// size alone: arithmetic intensity against the machine balance, wave
// quantization over the SMs, and the shared-memory and register limits. No
// timing runs and no search over measurements: a small, fixed candidate set
// is scored with the model and the best kept, deterministically, in
// microseconds. nova-configure (the pass) and nova-configure-explain use it.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_COSTMODEL_CONFIGURATOR_H
#define NOVA_COSTMODEL_CONFIGURATOR_H

#include "nova/Support/HostTensor.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nova {

/// What the model needs to know about a GPU (datasheet values; `override`
/// replaces any of them with measured ones).
struct DeviceDescriptor {
  std::string name;
  int major = 0, minor = 0; // compute capability
  int sms = 0;
  double clockGHz = 0;       // boost
  uint32_t smemPerSM = 0;    // bytes
  uint32_t smemPerBlock = 0; // bytes, opt-in maximum
  uint32_t registersPerSM = 65536;
  uint32_t maxThreadsPerSM = 2048;
  uint32_t maxRegistersPerThread = 255;
  uint64_t l2Bytes = 0;
  double bandwidth = 0; // DRAM bytes/s
  double peakF32 = 0;   // FLOP/s, CUDA cores
  double peakTF32 = 0;  // FLOP/s, tensor cores, dense
  double peakBF16 = 0;  // FLOP/s, tensor cores, dense (= F16)
  /// Products on wgmma (sm_90a); otherwise on mma.sync.
  bool wgmma = false;

  std::string arch() const; // "sm_90a" on Hopper, else "sm_XY"
  bool hasWgmma() const { return wgmma; }
  /// TMA and bulk copies (cp.async.bulk), completing on mbarriers: sm_90.
  bool hasBulkCopies() const { return major >= 9; }
  /// Dense tensor-core (or CUDA-core for F64/integers) peak for a dtype.
  double peak(DType dtype) const;

  /// The built-in descriptors: "h200", "h100", "a100", "rtx3060",
  /// "rtx6000ada".
  static std::optional<DeviceDescriptor> lookup(const std::string &name);
  static std::vector<std::string> known();
  /// Applies "key=value,..." (keys: sms, clock_ghz, smem_per_sm,
  /// smem_per_block, l2_bytes, bandwidth_gbs, peak_f32_tflops,
  /// peak_tf32_tflops, peak_bf16_tflops); false with `error` on a bad key.
  bool override(const std::string &assignments, std::string &error);
};

enum class KernelFamily {
  Pointwise,        // elements
  RowReduction,     // rows x cols, reduce along cols (softmax, layer_norm)
  ColumnReduction,  // rows x cols, reduce along rows (bias gradients)
  Matmul,           // batch x M x N x K
  AttentionForward, // batch*heads x T x D, causal or not
  AttentionBackward,
  Gather,     // rows gathered x width (embedding lookup)
  ScatterAdd, // rows scattered x width (embedding gradient)
};

const char *familyName(KernelFamily f);

struct Problem {
  KernelFamily family = KernelFamily::Pointwise;
  DType dtype = DType::F32;
  // Pointwise: m = elements. Reductions: m = rows, n = cols. Matmul:
  // batch, m, n, k. Attention: batch = batch*heads, m = T (queries), n = T
  // (keys), k = head dim. Gather/ScatterAdd: m = rows, n = width,
  // k = table rows.
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool causal = false;
  /// TF32 matmul: B is stored K-major and holds TF32 values already
  /// (`nova.rounded`), so the wgmma kernel does not round it in shared
  /// memory.
  bool roundedKMajorB = false;
  /// TF32 matmul: B is stored N-major (K x N, N contiguous: x W with W
  /// stored [in, out], a weight gradient's dy), which the wgmma kernel
  /// transposes in shared memory as it rounds it.
  bool nMajorB = false;
  /// Matmul: transcendental ops of the fused epilogue (GELU and its
  /// derivative): heavy ones narrow the wgmma kernel's tiles
  /// (nova::wgmma::heavyEpilogue).
  int64_t epilogueTranscendentals = 0;
  /// Matmul: bytes its outputs take (0: one output of the product's shape
  /// and element type).
  int64_t outputBytes = 0;
  /// Bytes each element of a pointwise kernel moves (reads + writes).
  int64_t bytesPerElement = 0;
  /// Bytes a reduction kernel moves, each input read once and each output
  /// written once (0: one read and one write of m x n elements).
  int64_t streamedBytes = 0;
  /// Row reductions: column sums across the rows (LayerNorm's scale and
  /// shift gradients), whose per-block partials fold after the rows.
  int64_t columnSums = 0;
  /// Reductions: sums across every dim (a loss, a count), whose per-block
  /// partials fold after the rows.
  int64_t totals = 0;
};

struct Schedule {
  KernelFamily family;
  int64_t tileM = 1, tileN = 1, tileK = 1;
  int threads = 128;
  int stages = 1;
  int vectorWidth = 1; // elements per vector memory access
  int splitK = 1;      // matmul K split / column-reduction row split
  std::array<int64_t, 3> grid{1, 1, 1};
  /// Tiles each block processes in turn. 1 unless the tile grid exceeds
  /// CUDA's grid limits (x < 2^31, y and z <= 65535): then `grid` is a
  /// persistent one-dimensional grid and block b handles the linear tiles
  /// b, b + grid[0], ... of the original x-fastest tile order.
  int64_t tilesPerBlock = 1;
  uint32_t sharedMemory = 0;
  int registersPerThread = 0;
  int blocksPerSM = 1;
  std::string
      instruction; // "wgmma.m64n128k16.bf16", "mma.sync.m16n8k8.tf32", ...
  double flops = 0, bytes = 0;
  double predictedSeconds = 0;
  double waveEfficiency = 1; // useful blocks / (waves * resident slots)
  std::string bound;         // "compute" or "memory"
  /// Why: one line per consideration and per rejected alternative.
  std::vector<std::string> explanation;
};

class Configurator {
public:
  explicit Configurator(DeviceDescriptor device) : dev(std::move(device)) {}
  const DeviceDescriptor &device() const { return dev; }

  /// The schedule for `p`; the same inputs always give the same answer.
  /// With `why`, the schedule's explanation lines are filled in too (slower:
  /// for dumps, not for compiling).
  Schedule choose(const Problem &p, bool why = false) const;
  /// Human-readable account of a choice.
  static std::string explain(const Problem &p, const Schedule &s);

private:
  Schedule matmul(const Problem &p, bool why) const;
  Schedule attention(const Problem &p, bool why) const;
  Schedule streaming(const Problem &p, bool why) const;
  DeviceDescriptor dev;
};

} // namespace nova

#endif // NOVA_COSTMODEL_CONFIGURATOR_H
