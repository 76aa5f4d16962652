//===- Target.h - #nova.target and the cost model's device ------*- C++ -*-===//
//
// The module's `nova.target` attribute is where the GPU's facts live once
// nova-configure has chosen them; these helpers move between it and the
// cost model's DeviceDescriptor (the configurator's and the emitters' view
// of the same facts).
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVA_IR_TARGET_H
#define NOVA_DIALECT_NOVA_IR_TARGET_H

#include "nova/CostModel/Configurator.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::nova {

/// The built-in target a module without nova.target is compiled for.
inline constexpr llvm::StringLiteral kDefaultTarget = "h200";

/// `device` (a built-in description called `name`) as a #nova.target.
TargetAttr targetAttrOf(MLIRContext *context, StringRef name,
                        const ::nova::DeviceDescriptor &device);

/// The built-in target `name`; null with a located error listing the known
/// names when there is none.
TargetAttr builtinTarget(Location loc, StringRef name, StringRef who);

/// The target `module` is compiled for: the built-in one called `name` when
/// given, else the module's nova.target, else kDefaultTarget. Null after a
/// located error (naming `who`) on an unknown name.
TargetAttr resolveTarget(ModuleOp module, StringRef name, StringRef who);

/// `target`'s facts as the cost model reads them.
::nova::DeviceDescriptor deviceOf(TargetAttr target);

/// The `nova.target` of the module holding `op` (or of `op` itself when it
/// is a module); null when there is none.
TargetAttr lookupTarget(Operation *op);

/// The PTX chip name of a target: "sm_90a" for sm 90 (its kernels use the
/// architecture-specific wgmma and TMA), "sm_XY" otherwise.
std::string chipOf(TargetAttr target);

/// Why `chip` ("sm_XY", "sm_XYa") cannot run the kernels emitted for
/// `target`, or nothing when it can: a name that is no chip, a chip below
/// sm_80 (the kernels' bf16 mma.sync and cp.async), or a chip other than
/// sm_90a for a target whose kernels use wgmma or TMA.
std::optional<std::string> chipMismatch(TargetAttr target, StringRef chip);

} // namespace mlir::nova

#endif // NOVA_DIALECT_NOVA_IR_TARGET_H
