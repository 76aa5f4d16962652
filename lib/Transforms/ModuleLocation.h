//===- ModuleLocation.h - where to report module-wide pass errors -*- C++
//-*-===//

#ifndef NOVA_LIB_TRANSFORMS_MODULELOCATION_H
#define NOVA_LIB_TRANSFORMS_MODULELOCATION_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::nova {

/// The location for a diagnostic about the module as a whole. The implicit
/// module of a parsed file sits at `file:0:0`, which no editor can show; use
/// the file's first line instead.
inline Location moduleLocation(ModuleOp module) {
  Location loc = module.getLoc();
  if (auto file = dyn_cast<FileLineColLoc>(loc); file && file.getLine() == 0)
    return FileLineColLoc::get(file.getFilename(), 1, 1);
  return loc;
}

} // namespace mlir::nova

#endif // NOVA_LIB_TRANSFORMS_MODULELOCATION_H
