//===- RowSums.h - nova-fuse's row-sum distribution -------------*- C++ -*-===//
//
// Internal to nova-fuse: rewrites a row_reduction kernel's sums so that
// none waits on another reduction along the rows.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_LIB_TRANSFORMS_ROWSUMS_H
#define NOVA_LIB_TRANSFORMS_ROWSUMS_H

#include "nova/Dialect/NovaTile/IR/NovaTile.h"

namespace mlir::nova {

/// In the body of `fusion` (a row_reduction kernel), each sum along the
/// rows whose input depends on another reduction along the rows only
/// through factors that are the same along a row (per-row values, scalars)
/// is rewritten by linearity, sum(a + s b) = sum(a) + s sum(b), into sums of
/// terms that depend on none: those join the kernel's first read of the
/// rows instead of waiting a pass for the reduction they depended on.
/// `alongRows` says which ops reduce along the rows (nova-fuse's own
/// classification, so both agree on what a row kernel waits for). Returns
/// how many sums were rewritten.
unsigned distributeRowSums(nova_tile::FusionOp fusion,
                           function_ref<bool(Operation *)> alongRows);

} // namespace mlir::nova

#endif // NOVA_LIB_TRANSFORMS_ROWSUMS_H
