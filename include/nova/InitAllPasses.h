//===- InitAllPasses.h - every pass nova-opt can run -------------*- C++
//-*-===//

#ifndef NOVA_INITALLPASSES_H
#define NOVA_INITALLPASSES_H

#include "mlir/Transforms/Passes.h"
#include "nova/Conversion/Passes.h"
#include "nova/Dialect/Nova/Transforms/Passes.h"
#include "nova/Dialect/NovaMem/Transforms/Passes.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"
#include "nova/Transforms/Passes.h"
#include "nova/Transforms/Pipelines.h"

namespace mlir::nova {
/// Nova's own passes only: what the plugin registers inside mlir-opt.
inline void registerNovaPasses() {
  registerNovaDialectPasses();
  nova_tile::registerNovaTilePasses();
  nova_mem::registerNovaMemPasses();
  registerNovaConversionPasses();
  registerNovaTransformsPasses();
  registerNovaPipelines();
}

/// Nova's passes plus the upstream ones its pipelines use (canonicalize,
/// cse, symbol-dce, inline, ...).
inline void registerAllPasses() {
  registerNovaPasses();
  registerTransformsPasses();
}
} // namespace mlir::nova

#endif // NOVA_INITALLPASSES_H
