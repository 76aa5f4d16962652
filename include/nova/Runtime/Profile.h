//===- Profile.h - nova-run --profile's report ------------------*- C++ -*-===//
//
// Where a step's time goes: each kernel's measured time (its launches
// summed) next to the configurator's prediction, its share of the step,
// the bytes and FLOPs the compiler counted for it against the device's
// ceilings, and the model source lines whose ops it fused. Formatting only: the
// times come from Instance::profileLaunches, or from a test.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_RUNTIME_PROFILE_H
#define NOVA_RUNTIME_PROFILE_H

#include "nova/CostModel/Configurator.h"
#include "nova/Runtime/Executable.h"

#include <string>
#include <vector>

namespace nova {

/// One kernel's row: its launches in the entry taken together.
struct KernelProfile {
  std::string kernel;
  int launches = 0;
  double milliseconds = 0, flops = 0, bytes = 0;
  double predictedMilliseconds = 0; // the configurator's (0: unknown)
  DType dtype = DType::F32;
  std::vector<std::string> sources; // sorted, unique
};

/// The rows of `entry` for per-launch times `milliseconds` (launch order),
/// slowest first (ties by name).
std::vector<KernelProfile>
profileKernels(const ExecutableDesc &exe, const EntryDesc &entry,
               const std::vector<double> &milliseconds);

/// Measured over predicted time beyond which a row is flagged: the model
/// is off by more than 25 % there.
constexpr double kPredictionTolerance = 0.25;

/// Whether `row`'s measured time is off its prediction by more than
/// kPredictionTolerance (false without a prediction).
bool mispredicted(const KernelProfile &row);

/// The report: a header (device, ceilings, step time), one line per kernel
/// (measured and predicted time, '!' where they differ by more than 25 %),
/// and a footer with the predicted step and the count of flagged kernels.
/// Without `ceilings`, rates are printed without their share of the peak.
std::string formatProfile(const std::vector<KernelProfile> &rows,
                          const std::string &entry,
                          const std::string &deviceName,
                          const DeviceDescriptor *ceilings, int runs);

} // namespace nova

#endif // NOVA_RUNTIME_PROFILE_H
