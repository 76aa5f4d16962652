//===- Target.cpp - #nova.target and the cost model's device --------------===//

#include "nova/Dialect/Nova/IR/Target.h"
// Header-only: the file:1:1 location module-wide errors use.
#include "../../../Transforms/ModuleLocation.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;

namespace {
int64_t rounded(double x) { return int64_t(std::llround(x)); }
} // namespace

TargetAttr mlir::nova::targetAttrOf(MLIRContext *context, StringRef name,
                                    const ::nova::DeviceDescriptor &d) {
  return TargetAttr::get(
      context, name, d.major * 10 + d.minor, d.sms, d.smemPerSM,
      d.smemPerBlock, d.registersPerSM, d.maxThreadsPerSM, int64_t(d.l2Bytes),
      rounded(d.bandwidth / 1e9), rounded(d.clockGHz * 1e3),
      rounded(d.peakF32 / 1e9), rounded(d.peakTF32 / 1e9),
      rounded(d.peakBF16 / 1e9),
      d.hasWgmma() ? TensorCores::wgmma : TensorCores::mma_sync);
}

TargetAttr mlir::nova::builtinTarget(Location loc, StringRef name,
                                     StringRef who) {
  std::optional<::nova::DeviceDescriptor> device =
      ::nova::DeviceDescriptor::lookup(name.str());
  if (!device) {
    emitError(loc) << who << ": unknown target '" << name
                   << "'; expected one of "
                   << llvm::join(::nova::DeviceDescriptor::known(), ", ");
    return {};
  }
  return targetAttrOf(loc.getContext(), name, *device);
}

TargetAttr mlir::nova::resolveTarget(ModuleOp module, StringRef name,
                                     StringRef who) {
  if (name.empty()) {
    if (TargetAttr target = lookupTarget(module))
      return target;
    name = kDefaultTarget;
  }
  return builtinTarget(moduleLocation(module), name, who);
}

::nova::DeviceDescriptor mlir::nova::deviceOf(TargetAttr t) {
  ::nova::DeviceDescriptor d;
  std::optional<::nova::DeviceDescriptor> builtin =
      ::nova::DeviceDescriptor::lookup(t.getName().str());
  d.name = builtin ? builtin->name : t.getName().str();
  d.major = int(t.getSm() / 10);
  d.minor = int(t.getSm() % 10);
  d.sms = int(t.getSms());
  d.clockGHz = double(t.getClockMhz()) / 1e3;
  d.smemPerSM = uint32_t(t.getSharedPerSm());
  d.smemPerBlock = uint32_t(t.getSharedPerBlock());
  d.registersPerSM = uint32_t(t.getRegistersPerSm());
  d.maxThreadsPerSM = uint32_t(t.getThreadsPerSm());
  d.l2Bytes = uint64_t(t.getL2Bytes());
  d.bandwidth = double(t.getBandwidthGbs()) * 1e9;
  d.peakF32 = double(t.getF32Gflops()) * 1e9;
  d.peakTF32 = double(t.getTf32Gflops()) * 1e9;
  d.peakBF16 = double(t.getBf16Gflops()) * 1e9;
  d.wgmma = t.getTensorCores() == TensorCores::wgmma;
  return d;
}

TargetAttr mlir::nova::lookupTarget(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  for (; module; module = module->getParentOfType<ModuleOp>())
    if (auto t = module->getAttrOfType<TargetAttr>(
            NovaDialect::getTargetAttrName()))
      return t;
  return {};
}

std::string mlir::nova::chipOf(TargetAttr target) {
  return "sm_" + std::to_string(target.getSm()) +
         (target.getSm() == 90 ? "a" : "");
}

std::optional<std::string> mlir::nova::chipMismatch(TargetAttr target,
                                                   StringRef chip) {
  StringRef digits = chip;
  unsigned sm = 0;
  bool named = digits.consume_front("sm_") && !digits.empty() &&
               !digits.take_while(llvm::isDigit).getAsInteger(10, sm);
  digits = digits.drop_while(llvm::isDigit);
  if (!named || !(digits.empty() || digits == "a"))
    return "'" + chip.str() + "' is not a chip name such as sm_80 or sm_90a";
  if (sm < 80)
    return chip.str() + " is not served: the kernels need sm_80 or newer "
                        "(bf16 mma.sync, cp.async)";
  if (target.getSm() == 90 && chip != "sm_90a")
    return "the kernels of target " + target.getName().str() +
           " use sm_90a's instructions (TMA bulk copies, wgmma), which " +
           chip.str() + " lacks";
  return std::nullopt;
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                   int64_t sm, int64_t sms, int64_t sharedPerSm,
                   int64_t sharedPerBlock, int64_t registersPerSm,
                   int64_t threadsPerSm, int64_t l2Bytes, int64_t bandwidthGbs,
                   int64_t clockMhz, int64_t f32Gflops, int64_t tf32Gflops,
                   int64_t bf16Gflops, TensorCores tensorCores) {
  if (name.empty())
    return emitError() << "#nova.target needs a name";
  // bf16 mma.sync, cp.async and ldmatrix, which every kernel family's
  // mma.sync path uses, start at sm_80.
  if (sm < 80)
    return emitError() << "#nova.target<\"" << name << "\">: sm = " << sm
                       << " is not served: the kernels need sm 80 or newer "
                          "(bf16 mma.sync, cp.async)";
  if (tensorCores == TensorCores::wgmma && sm != 90)
    return emitError() << "#nova.target<\"" << name
                       << "\">: tensor_cores = wgmma needs sm = 90 (sm_90a), "
                          "not sm = "
                       << sm;
  for (auto [field, value] :
       {std::pair<const char *, int64_t>{"sms", sms},
        {"shared_per_sm", sharedPerSm},
        {"shared_per_block", sharedPerBlock},
        {"registers_per_sm", registersPerSm},
        {"threads_per_sm", threadsPerSm},
        {"l2_bytes", l2Bytes},
        {"bandwidth_gbs", bandwidthGbs},
        {"clock_mhz", clockMhz},
        {"f32_gflops", f32Gflops},
        {"tf32_gflops", tf32Gflops},
        {"bf16_gflops", bf16Gflops}})
    if (value <= 0)
      return emitError() << "#nova.target<\"" << name << "\">: " << field
                         << " must be positive, got " << value;
  if (sharedPerBlock > sharedPerSm)
    return emitError() << "#nova.target<\"" << name
                       << "\">: shared_per_block (" << sharedPerBlock
                       << ") exceeds shared_per_sm (" << sharedPerSm << ")";
  if (sharedPerSm > (int64_t(1) << 32) || threadsPerSm < 1024)
    return emitError() << "#nova.target<\"" << name
                       << "\">: threads_per_sm must be at least 1024 and "
                          "shared_per_sm under 4 GiB";
  return success();
}
