//===- StructuralHash.h - kernel identity for dedup and caching -*- C++ -*-===//

#ifndef NOVA_DIALECT_NOVATILE_IR_STRUCTURALHASH_H
#define NOVA_DIALECT_NOVATILE_IR_STRUCTURALHASH_H

#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include <cstdint>
#include <string>

namespace mlir::nova_tile {

/// 128 bits, like the runtime's `Hash128` (Executable.fbs) it becomes.
struct KernelHash {
  uint64_t lo = 0, hi = 0;
  bool operator==(const KernelHash &o) const {
    return lo == o.lo && hi == o.hi;
  }
  bool operator<(const KernelHash &o) const {
    return hi != o.hi ? hi < o.hi : lo < o.lo;
  }
  /// 32 lowercase hex digits, high half first.
  std::string str() const;
};

/// A hash of what decides a kernel's code: the family, the schedule, the
/// input and output types and the body's ops in order with their operand
/// wiring, result types and attributes. SSA names, locations and the
/// kernel's symbol name do not take part, so the hash is the same for
/// identical kernels in any module, run or process.
KernelHash structuralHash(FusionGroupOpInterface group);

} // namespace mlir::nova_tile

#endif // NOVA_DIALECT_NOVATILE_IR_STRUCTURALHASH_H
