//===- Program.cpp - buffers and live ranges of a nova_mem program --------===//

#include "nova/Dialect/NovaMem/IR/Program.h"

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::nova_mem;
namespace nt = mlir::nova_tile;

static Value rootOf(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewOp>())
    buffer = view.getSource();
  return buffer;
}

FailureOr<Program> mlir::nova_mem::analyzeProgram(func::FuncOp fn,
                                                  bool emitErrors) {
  auto fail = [&](Operation *at, const Twine &message) -> FailureOr<Program> {
    if (emitErrors)
      at->emitError(message);
    return failure();
  };
  if (!fn.getBody().hasOneBlock())
    return fail(fn, "a nova_mem program is a function body of one block");
  Program program;
  program.function = fn;
  Block &block = fn.getBody().front();
  // The slot of a buffer this program defined, or null.
  auto slotFor = [&](Value buffer) -> Slot * {
    auto it = program.slotOf.find(buffer);
    return it == program.slotOf.end() ? nullptr : &program.slots[it->second];
  };
  auto undefined = [&](Operation *at) {
    return fail(at, "reads or writes a buffer that is not a nova_mem.input, "
                    "nova_mem.alloc or nova_mem.view of this program");
  };
  for (Operation &op : block) {
    if (auto input = dyn_cast<InputOp>(op)) {
      auto arg = dyn_cast<BlockArgument>(input.getArg());
      if (!arg || arg.getOwner() != &block)
        return fail(&op, "nova_mem.input binds an argument of its function");
      Slot slot;
      slot.root = input.getBuffer();
      slot.bytes = input.getBuffer().getType().getSizeInBytes();
      slot.offset = input.getOffset();
      slot.argument = arg.getArgNumber();
      slot.writer = -1;
      if (!program.inputSlot
               .try_emplace(arg.getArgNumber(), program.slots.size())
               .second)
        return fail(&op, llvm::formatv("argument #{0} is bound twice",
                                       arg.getArgNumber())
                             .str());
      program.slotOf[slot.root] = program.slots.size();
      program.slots.push_back(slot);
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      Slot slot;
      slot.root = alloc.getBuffer();
      slot.bytes = alloc.getBuffer().getType().getSizeInBytes();
      slot.offset = alloc.getOffset();
      program.slotOf[slot.root] = program.slots.size();
      program.slots.push_back(slot);
    } else if (auto view = dyn_cast<ViewOp>(op)) {
      auto it = program.slotOf.find(rootOf(view.getSource()));
      if (it == program.slotOf.end())
        return undefined(&op);
      program.slotOf[view.getResult()] = it->second;
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      int64_t k = program.launches.size();
      program.launches.push_back(launch);
      for (Value in : launch.getInputs()) {
        Slot *found = slotFor(in);
        if (!found)
          return undefined(&op);
        Slot &slot = *found;
        if (slot.firstRead == -2)
          slot.firstRead = k;
        slot.lastRead = k;
      }
      for (Value out : launch.getOutputs()) {
        Slot *found = slotFor(out);
        if (!found)
          return undefined(&op);
        Slot &slot = *found;
        if (slot.writer != -2)
          return fail(&op, slot.writer == -1
                               ? std::string("writes an entry input's buffer")
                               : llvm::formatv("writes a buffer that launch "
                                               "#{0} already wrote",
                                               slot.writer)
                                     .str());
        slot.writer = k;
      }
    } else if (auto output = dyn_cast<OutputOp>(op)) {
      Slot *slot = slotFor(output.getBuffer());
      if (!slot)
        return undefined(&op);
      slot->returned = true;
    } else if (!isa<func::ReturnOp>(op)) {
      return fail(&op, "'" + op.getName().getStringRef() +
                           "' in a nova_mem program; its body holds "
                           "nova_mem ops and func.return only");
    }
  }
  // Which entry inputs an output replaces.
  DenseSet<unsigned> replaced;
  for (unsigned r = 0; r < fn.getNumResults(); ++r)
    if (auto alias = fn.getResultAttrOfType<IntegerAttr>(r, "nova.alias"))
      replaced.insert(alias.getInt());
  int64_t end = program.launches.size();
  for (Slot &slot : program.slots) {
    if (slot.argument) {
      slot.start = -1;
      slot.end = replaced.contains(*slot.argument)
                     ? std::max<int64_t>(slot.lastRead, -1)
                     : end;
      if (slot.returned)
        slot.end = end;
      continue;
    }
    slot.start = slot.writer;
    slot.end = slot.returned ? end : std::max(slot.writer, slot.lastRead);
  }
  return program;
}

/// A reduction across the rows (its dims include a leading dim: a column
/// sum or a total), which a row kernel accumulates in its last pass.
static bool reducesAcrossRows(Operation *op) {
  auto reduce = dyn_cast<mlir::nova::ReduceOp>(op);
  if (!reduce)
    return false;
  int64_t last = cast<ShapedType>(reduce.getInput().getType()).getRank() - 1;
  return llvm::any_of(reduce.getDims(), [&](int64_t d) { return d != last; });
}

/// Whether `value`, computed in `body`, depends on every reduction along the
/// rows (every op that is neither elementwise, a view, nor a reduction
/// across the rows).
static bool dependsOnEveryReduction(Block &body, Value value) {
  llvm::SetVector<Operation *> slice;
  if (Operation *def = value.getDefiningOp()) {
    BackwardSliceOptions options;
    options.inclusive = true;
    options.omitBlockArguments = true;
    if (failed(getBackwardSlice(def, &slice, options)))
      return false;
  }
  for (Operation &op : body.without_terminator())
    if (!nt::isElementwiseOp(&op) &&
        !isa<mlir::nova::ReshapeOp, mlir::nova::TransposeOp,
             mlir::nova::BroadcastOp, mlir::nova::SliceOp>(op) &&
        !reducesAcrossRows(&op) && !slice.contains(&op))
      return false;
  return true;
}

bool mlir::nova_mem::mayWriteInPlace(LaunchOp launch, unsigned input,
                                     unsigned output) {
  if (input >= launch.getInputs().size() ||
      output >= launch.getOutputs().size())
    return false;
  Value in = launch.getInputs()[input], out = launch.getOutputs()[output];
  if (in.getType() != out.getType())
    return false;
  // Read through one argument only.
  for (auto [i, v] : llvm::enumerate(launch.getInputs()))
    if (i != input && rootOf(v) == rootOf(in))
      return false;
  auto kernel = SymbolTable::lookupNearestSymbolFrom<nt::KernelOp>(
      launch, launch.getKernelAttr());
  if (!kernel)
    return false;
  Block &body = kernel.getBody().front();
  if (input >= body.getNumArguments() ||
      output >= body.getTerminator()->getNumOperands())
    return false;
  FailureOr<nt::Contract> contract = nt::computeContract(
      cast<nt::FusionGroupOpInterface>(kernel.getOperation()),
      /*emitErrors=*/false);
  if (failed(contract))
    return false;
  switch (kernel.getFamily()) {
  case nt::Family::pointwise:
    return contract->inputs[input].kind == nt::AccessKind::Elementwise &&
           contract->results[output].kind == nt::AccessKind::Elementwise;
  case nt::Family::optimizer: {
    // The optimizer's space is every update's elements one after another:
    // only an update's own operands and results share a thread's element.
    Value arg = body.getArgument(input);
    Value yielded = body.getTerminator()->getOperand(output);
    auto adamw = yielded.getDefiningOp<nova::AdamWOp>();
    if (!adamw || !arg.hasOneUse())
      return false;
    OpOperand &use = *arg.getUses().begin();
    return use.getOwner() == adamw && use.getOperandNumber() < 4;
  }
  case nt::Family::row_reduction:
    // A block owns whole rows. An output computed after every reduction
    // along the row (it depends on all of them) is written in the kernel's
    // last pass over the row, after every earlier pass has read it; in that
    // pass (which also accumulates the sums across the rows) each thread
    // reads its element before writing it. So a per-element
    // output may overwrite a per-element input then: the cross-entropy
    // kernel writes the logits' gradient over the logits.
    return contract->inputs[input].kind == nt::AccessKind::Elementwise &&
           contract->results[output].kind == nt::AccessKind::Elementwise &&
           dependsOnEveryReduction(body,
                                   body.getTerminator()->getOperand(output));
  default:
    return false;
  }
}

LogicalResult mlir::nova_mem::verifyPlan(func::FuncOp fn) {
  FailureOr<Program> program = analyzeProgram(fn);
  if (failed(program))
    return failure();
  auto peakAttr = fn->getAttrOfType<IntegerAttr>(kPeakBytesAttr);
  int64_t peak = peakAttr.getInt();
  auto defOf = [&](const Slot &s) { return s.root.getDefiningOp(); };
  for (const Slot &slot : program->slots) {
    Operation *def = defOf(slot);
    if (!slot.offset)
      return def->emitError("a planned program places every buffer; this one "
                            "has no offset");
    if (*slot.offset + slot.bytes > peak)
      return def->emitError(
          llvm::formatv("buffer [{0}, {1}) ends past the arena of {2} bytes "
                        "(nova_mem.peak_bytes)",
                        *slot.offset, *slot.offset + slot.bytes, peak));
    if (!slot.argument && slot.writer < 0 &&
        (slot.lastRead >= 0 || slot.returned))
      return def->emitError("buffer is read but no launch writes it");
    if (!slot.argument && slot.firstRead >= 0 && slot.firstRead <= slot.writer)
      return def->emitError(llvm::formatv(
          "buffer is read by launch #{0} before launch #{1} writes it",
          slot.firstRead, slot.writer));
  }
  // Aliased outputs replace their input in place.
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (unsigned r = 0; r < fn.getNumResults(); ++r) {
    auto alias = fn.getResultAttrOfType<IntegerAttr>(r, "nova.alias");
    if (!alias)
      continue;
    auto output = ret.getOperand(r).getDefiningOp<OutputOp>();
    auto in = program->inputSlot.find(alias.getInt());
    if (!output || in == program->inputSlot.end())
      return ret.emitError(llvm::formatv(
          "result #{0} replaces argument #{1}, which is not a bound "
          "nova_mem.input, or the result is not a nova_mem.output",
          r, alias.getInt()));
    const Slot &from = program->slots[in->second];
    const Slot &to = program->slot(output.getBuffer());
    if (from.offset != to.offset ||
        output.getBuffer().getType() != from.root.getType())
      return output.emitError(llvm::formatv(
          "result #{0} replaces argument #{1} in place, but its buffer is "
          "not at the argument's offset with its type",
          r, alias.getInt()));
  }
  // No two live buffers share a byte, but for in-place updates.
  auto inPlace = [&](const Slot &dying, const Slot &born) {
    if (born.argument || dying.end != born.start || born.start < 0 ||
        dying.offset != born.offset || dying.bytes != born.bytes)
      return false;
    LaunchOp launch = program->launches[born.start];
    for (auto [i, in] : llvm::enumerate(launch.getInputs()))
      for (auto [o, out] : llvm::enumerate(launch.getOutputs()))
        if (program->slot(in).root == dying.root &&
            program->slot(out).root == born.root &&
            mayWriteInPlace(launch, i, o))
          return true;
    return false;
  };
  SmallVector<const Slot *> byOffset;
  for (const Slot &slot : program->slots)
    if (slot.bytes > 0)
      byOffset.push_back(&slot);
  llvm::sort(byOffset, [](const Slot *a, const Slot *b) {
    return *a->offset < *b->offset;
  });
  for (size_t a = 0; a < byOffset.size(); ++a) {
    const Slot &x = *byOffset[a];
    for (size_t b = a + 1;
         b < byOffset.size() && *byOffset[b]->offset < *x.offset + x.bytes;
         ++b) {
      const Slot &y = *byOffset[b];
      if (x.end < y.start || y.end < x.start)
        continue;
      if (inPlace(x, y) || inPlace(y, x))
        continue;
      const Slot &later = x.start > y.start ? x : y;
      const Slot &other = &later == &x ? y : x;
      InFlightDiagnostic diag = defOf(later)->emitError(llvm::formatv(
          "buffer [{0}, {1}) live over launches [{2}, {3}] shares bytes with "
          "buffer [{4}, {5}) live over [{6}, {7}]",
          *later.offset, *later.offset + later.bytes, later.start, later.end,
          *other.offset, *other.offset + other.bytes, other.start, other.end));
      diag.attachNote(defOf(other)->getLoc()) << "the other buffer";
      return diag;
    }
  }
  return success();
}
