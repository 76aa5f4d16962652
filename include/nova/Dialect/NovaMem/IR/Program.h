//===- Program.h - buffers and live ranges of a nova_mem program -*- C++
//-*-===//
//
// The one liveness model of a nova_mem function, shared by the planner, the
// plan verifier and the interpreter (which poisons a buffer when its live
// range ends), so the three cannot disagree on when bytes are free.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVAMEM_IR_PROGRAM_H
#define NOVA_DIALECT_NOVAMEM_IR_PROGRAM_H

#include "nova/Dialect/NovaMem/IR/NovaMem.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::nova_mem {

/// Bytes a planned buffer's offset is a multiple of.
constexpr int64_t kAlignment = 16;

/// The storage of one buffer value and of every view of it. Launch `k` is
/// the k-th nova_mem.launch; the program's start is -1 and its end is the
/// number of launches.
struct Slot {
  Value root;        // the nova_mem.input or nova_mem.alloc result
  int64_t bytes = 0; // the root's size
  std::optional<int64_t> offset;
  std::optional<unsigned> argument; // entry argument bound by nova_mem.input
  int64_t writer = -2; // the launch that writes it, -1 for an entry input
  int64_t firstRead = -2, lastRead = -2; // launches and views' readers
  bool returned = false;
  /// Live range, both ends included: an entry input that an output replaces
  /// lives until its last read, any other entry input for the whole
  /// program, a computed value from its writer to its last read (the end
  /// when returned).
  int64_t start = 0, end = 0;
};

struct Program {
  func::FuncOp function;
  SmallVector<LaunchOp> launches;
  SmallVector<Slot> slots;
  DenseMap<Value, unsigned> slotOf; // every buffer value, views included
  /// Entry argument index -> its slot.
  DenseMap<unsigned, unsigned> inputSlot;

  const Slot &slot(Value buffer) const { return slots[slotOf.lookup(buffer)]; }
};

/// The buffers, writers, readers and live ranges of `fn`'s nova_mem body.
/// Errors (a buffer written twice, an op of another dialect, ...) are
/// reported at the op when `emitErrors`.
FailureOr<Program> analyzeProgram(func::FuncOp fn, bool emitErrors = true);

/// Whether `launch` may write its output `output` over the bytes of its input
/// `input`: the kernel reads that input element for element where it writes
/// the output (pointwise and optimizer contracts), through no other
/// argument, and the two buffers have the same type.
bool mayWriteInPlace(LaunchOp launch, unsigned input, unsigned output);

/// The checks of a planned program (see the dialect description), reported
/// at the offending op.
LogicalResult verifyPlan(func::FuncOp fn);

/// Name of the function attributes of a planned program.
inline constexpr llvm::StringLiteral kPeakBytesAttr = "nova_mem.peak_bytes";
inline constexpr llvm::StringLiteral kNaiveBytesAttr = "nova_mem.naive_bytes";

} // namespace mlir::nova_mem

#endif // NOVA_DIALECT_NOVAMEM_IR_PROGRAM_H
