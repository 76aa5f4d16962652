//===- PlanMemory.cpp - nova-plan-memory ----------------------------------===//
//
// Static placement of every buffer of a nova_mem program in one arena, from
// the live ranges of Program.h: in-place updates first join buffers that
// may share bytes, then best fit, largest first, over the intervals.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaMem/Transforms/Passes.h"

#include "nova/Dialect/NovaMem/IR/Program.h"
#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "mlir/IR/Builders.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace mlir::nova_mem {
#define GEN_PASS_DEF_NOVAPLANMEMORY
#include "nova/Dialect/NovaMem/Transforms/Passes.h.inc"
} // namespace mlir::nova_mem

using namespace mlir;
using namespace mlir::nova_mem;

static int64_t alignUp(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

/// Whether `launch`'s kernel reads and writes its buffers at their row
/// pitch (nova_tile::honoursRowPitch).
static bool honoursPitch(LaunchOp launch) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<nova_tile::KernelOp>(
      launch, launch.getKernelAttr());
  return kernel && nova_tile::honoursRowPitch(kernel.getFamily());
}

namespace {
/// An alloc whose rows may be padded, with its views (they take its ld).
struct PaddableAlloc {
  SmallVector<Value> buffers;
  int64_t ld;
  bool padded = true;
};
} // namespace

/// Pads the rows of the internal buffers of `fns` to a multiple of 16 bytes
/// (rows of at least 16 bytes; narrower ones, such as keep_dims columns,
/// stay packed): an alloc that is not returned, whose views keep its rows
/// (reshapes of the leading dims) and whose every launch runs a kernel that
/// honours the pitch. A kernel's parameters take one layout, so where the
/// launches of a kernel (in any entry of the module: train_step and eval
/// share kernels) would pass a parameter at different pitches, the padded
/// buffers there stay packed, until no launch disagrees.
static void padLeadingDimensions(Operation *module,
                                 ArrayRef<func::FuncOp> fns) {
  SmallVector<PaddableAlloc> candidates;
  DenseMap<Value, unsigned> candidateOf;
  for (func::FuncOp fn : fns)
    for (auto alloc : fn.getBody().getOps<AllocOp>()) {
      BufferType type = alloc.getBuffer().getType();
      ArrayRef<int64_t> shape = type.getShape();
      int64_t bytes = type.getElementBytes();
      if (shape.size() < 2 || type.getLd() || shape.back() == 0 ||
          (shape.back() * bytes) % kAlignment == 0 || kAlignment % bytes ||
          shape.back() * bytes < kAlignment)
        continue;
      // The alloc and its views, transitively.
      SmallVector<Value> buffers{alloc.getBuffer()};
      bool paddable = true;
      for (size_t i = 0; i < buffers.size() && paddable; ++i)
        for (Operation *user : buffers[i].getUsers()) {
          if (auto view = dyn_cast<ViewOp>(user)) {
            ArrayRef<int64_t> viewed = view.getResult().getType().getShape();
            paddable &= viewed.size() >= 2 && viewed.back() == shape.back();
            buffers.push_back(view.getResult());
          } else if (auto launch = dyn_cast<LaunchOp>(user)) {
            paddable &= honoursPitch(launch);
          } else {
            paddable = false; // returned, or an op not known here
          }
        }
      if (!paddable)
        continue;
      for (Value buffer : buffers)
        candidateOf[buffer] = candidates.size();
      candidates.push_back(
          {buffers, alignUp(shape.back() * bytes, kAlignment) / bytes});
    }
  // Each kernel parameter (kernel, operand position) with the buffers its
  // launches pass there.
  DenseMap<std::pair<StringAttr, unsigned>, SmallVector<Value>> parameters;
  module->walk([&](LaunchOp launch) {
    for (auto [i, v] : llvm::enumerate(
             llvm::concat<Value>(launch.getInputs(), launch.getOutputs())))
      parameters[{launch.getKernelAttr().getAttr(), unsigned(i)}].push_back(v);
  });
  auto pitchOf = [&](Value buffer) -> int64_t {
    auto it = candidateOf.find(buffer);
    if (it != candidateOf.end() && candidates[it->second].padded)
      return candidates[it->second].ld;
    return cast<BufferType>(buffer.getType()).getLd();
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &entry : parameters) {
      ArrayRef<Value> passed = entry.second;
      int64_t first = pitchOf(passed.front());
      if (llvm::all_of(passed, [&](Value v) { return pitchOf(v) == first; }))
        continue;
      for (Value v : passed)
        if (auto it = candidateOf.find(v);
            it != candidateOf.end() && candidates[it->second].padded) {
          candidates[it->second].padded = false;
          changed = true;
        }
    }
  }
  for (const PaddableAlloc &alloc : candidates) {
    if (!alloc.padded)
      continue;
    for (Value buffer : alloc.buffers) {
      auto viewed = cast<BufferType>(buffer.getType());
      buffer.setType(BufferType::get(viewed.getTensorType(), alloc.ld));
    }
  }
}

namespace {
/// Slots that share bytes: one live interval, one offset.
struct Group {
  int64_t bytes = 0, start = 0, end = 0, offset = -1;
  SmallVector<unsigned> slots;
};
} // namespace

/// `bytes` in the largest binary unit that keeps it at least 1.
static std::string humanBytes(int64_t bytes) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return unit ? llvm::formatv("{0:F2} {1}", value, units[unit]).str()
              : llvm::formatv("{0} bytes", bytes).str();
}

/// The role of argument `i` for the report, from its attributes.
static StringRef argumentRole(func::FuncOp fn, unsigned i) {
  if (fn.getArgAttr(i, "nova.param"))
    return "parameters";
  auto name = fn.getArgAttrOfType<StringAttr>(i, "nova.name");
  if (name && (name.getValue().ends_with(".adam_m") ||
               name.getValue().ends_with(".adam_v")))
    return "optimizer state";
  if (name && name.getValue().ends_with(".bf16"))
    return "working copies";
  return "other inputs";
}

/// Prints what is live at the launch where the live bytes peak.
static void printReport(func::FuncOp fn, const Program &program,
                        ArrayRef<Group> groups, int64_t peak, int64_t naive) {
  int64_t launches = program.launches.size();
  int64_t bestK = -1, best = -1;
  for (int64_t k = -1; k <= launches; ++k) {
    int64_t live = 0;
    for (const Group &g : groups)
      if (g.start <= k && k <= g.end)
        live += g.bytes;
    if (live > best) {
      best = live;
      bestK = k;
    }
  }
  llvm::outs() << "@" << fn.getSymName() << ": planned peak "
               << humanBytes(peak) << " (" << peak << " bytes), naive "
               << humanBytes(naive) << ", live at most " << humanBytes(best)
               << " (at launch #" << bestK << " of " << launches << ")\n";
  std::map<std::string, std::pair<int64_t, int64_t>> byRole; // bytes, count
  std::map<std::pair<int64_t, std::string>, int64_t> computed;
  // What is live there: each group once, named by its slot written last.
  for (const Group &g : groups) {
    if (!(g.start <= bestK && bestK <= g.end))
      continue;
    const Slot *live = nullptr;
    for (unsigned s : g.slots) {
      const Slot &candidate = program.slots[s];
      if (candidate.start <= bestK && bestK <= candidate.end &&
          (!live || candidate.start > live->start))
        live = &candidate;
    }
    if (!live)
      continue;
    const Slot &slot = *live;
    int64_t bytes = alignUp(slot.bytes, kAlignment);
    std::string role = slot.argument ? argumentRole(fn, *slot.argument).str()
                                     : std::string("computed");
    byRole[role].first += bytes;
    byRole[role].second += 1;
    if (!slot.argument) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << slot.root.getType();
      computed[{bytes, type}] += 1;
    }
  }
  for (auto &[role, total] : byRole)
    llvm::outs() << "  " << role << ": " << total.second << " buffers, "
                 << humanBytes(total.first) << "\n";
  int shown = 0;
  for (auto it = computed.rbegin(); it != computed.rend() && shown < 12;
       ++it, ++shown)
    llvm::outs() << "    " << it->second << " x " << it->first.second << " ("
                 << humanBytes(it->first.first * it->second) << ")\n";
}

static LogicalResult plan(func::FuncOp fn, bool report) {
  FailureOr<Program> analyzed = analyzeProgram(fn);
  if (failed(analyzed))
    return failure();
  Program &program = *analyzed;
  unsigned n = program.slots.size();
  // Union-find over slots.
  SmallVector<unsigned> leader(n);
  for (unsigned i = 0; i < n; ++i)
    leader[i] = i;
  auto find = [&](unsigned i) {
    while (leader[i] != i)
      i = leader[i] = leader[leader[i]];
    return i;
  };
  // The latest end of each group, to chain in-place updates.
  SmallVector<int64_t> groupEnd(n);
  for (unsigned i = 0; i < n; ++i)
    groupEnd[i] = program.slots[i].end;
  auto join = [&](unsigned dying, unsigned born) {
    unsigned a = find(dying), b = find(born);
    leader[b] = a;
    groupEnd[a] = std::max(groupEnd[a], groupEnd[b]);
  };

  // Outputs that replace an argument take its bytes.
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  DenseSet<unsigned> taken;
  for (unsigned r = 0; r < fn.getNumResults(); ++r) {
    auto alias = fn.getResultAttrOfType<IntegerAttr>(r, "nova.alias");
    if (!alias)
      continue;
    auto output = ret.getOperand(r).getDefiningOp<OutputOp>();
    auto in = program.inputSlot.find(alias.getInt());
    if (!output || in == program.inputSlot.end())
      return ret.emitError(llvm::formatv(
          "nova-plan-memory: result #{0} replaces argument #{1}, which is "
          "not a bound nova_mem.input",
          r, alias.getInt()));
    unsigned from = in->second, to = program.slotOf.lookup(output.getBuffer());
    if (from == to)
      continue; // the argument itself is returned
    const Slot &a = program.slots[from], &b = program.slots[to];
    bool ordered = a.end < b.start;
    if (!ordered && a.end == b.start && b.start >= 0) {
      LaunchOp launch = program.launches[b.start];
      for (auto [i, v] : llvm::enumerate(launch.getInputs()))
        for (auto [o, w] : llvm::enumerate(launch.getOutputs()))
          if (program.slotOf.lookup(v) == from &&
              program.slotOf.lookup(w) == to && mayWriteInPlace(launch, i, o))
            ordered = true;
    }
    if (!ordered || a.bytes != b.bytes ||
        b.root.getType() != a.root.getType() || !taken.insert(from).second)
      return output.emitError(llvm::formatv(
          "nova-plan-memory: result #{0} replaces argument #{1}, but the "
          "argument is still read after the launch that writes the result "
          "(or the result is written with another layout)",
          r, alias.getInt()));
    join(from, to);
  }

  // In place: an output over an input whose live range ends at its launch.
  for (auto [k, launch] : llvm::enumerate(program.launches))
    for (auto [o, out] : llvm::enumerate(launch.getOutputs())) {
      unsigned born = program.slotOf.lookup(out);
      if (find(born) != born || program.slots[born].root != out)
        continue;
      for (auto [i, in] : llvm::enumerate(launch.getInputs())) {
        unsigned dying = program.slotOf.lookup(in);
        const Slot &d = program.slots[dying];
        if (d.argument || d.root != in || groupEnd[find(dying)] != int64_t(k) ||
            taken.contains(find(dying)) ||
            d.bytes != program.slots[born].bytes ||
            !mayWriteInPlace(launch, i, o))
          continue;
        taken.insert(find(dying));
        join(dying, born);
        break;
      }
    }

  // Groups, placed largest first, each in the smallest gap that fits among
  // placed groups live at the same time.
  DenseMap<unsigned, unsigned> groupOf;
  SmallVector<Group> groups;
  for (unsigned i = 0; i < n; ++i) {
    unsigned l = find(i);
    auto [it, isNew] = groupOf.try_emplace(l, groups.size());
    if (isNew) {
      groups.emplace_back();
      groups.back().start = program.slots[i].start;
      groups.back().end = program.slots[i].end;
    }
    Group &g = groups[it->second];
    g.bytes = std::max(g.bytes, alignUp(program.slots[i].bytes, kAlignment));
    g.start = std::min(g.start, program.slots[i].start);
    g.end = std::max(g.end, program.slots[i].end);
    g.slots.push_back(i);
  }
  SmallVector<unsigned> order(groups.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    if (groups[a].bytes != groups[b].bytes)
      return groups[a].bytes > groups[b].bytes;
    return groups[a].start < groups[b].start;
  });
  SmallVector<unsigned> placed;
  int64_t peak = 0, naive = 0;
  SmallVector<std::pair<int64_t, int64_t>> busy;
  for (unsigned gi : order) {
    Group &g = groups[gi];
    busy.clear();
    for (unsigned pi : placed) {
      const Group &p = groups[pi];
      if (p.end >= g.start && g.end >= p.start)
        busy.push_back({p.offset, p.offset + p.bytes});
    }
    llvm::sort(busy);
    int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
    for (auto [from, to] : busy) {
      if (from - cursor >= g.bytes && from - cursor < bestGap) {
        best = cursor;
        bestGap = from - cursor;
      }
      cursor = std::max(cursor, to);
    }
    g.offset = best >= 0 ? best : cursor;
    peak = std::max(peak, g.offset + g.bytes);
    placed.push_back(gi);
  }
  Builder builder(fn.getContext());
  for (const Group &g : groups)
    for (unsigned s : g.slots) {
      Operation *def = program.slots[s].root.getDefiningOp();
      def->setAttr("offset", builder.getI64IntegerAttr(g.offset));
      naive += alignUp(program.slots[s].bytes, kAlignment);
    }
  fn->setAttr(kPeakBytesAttr, builder.getI64IntegerAttr(peak));
  fn->setAttr(kNaiveBytesAttr, builder.getI64IntegerAttr(naive));
  if (report)
    printReport(fn, program, groups, peak, naive);
  return success();
}

namespace {
struct PlanMemoryPass
    : public nova_mem::impl::NovaPlanMemoryBase<PlanMemoryPass> {
  using NovaPlanMemoryBase::NovaPlanMemoryBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> programs;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      bool isProgram = llvm::any_of(fn.getOps(), [](Operation &op) {
        return isa<NovaMemDialect>(op.getDialect());
      });
      if (!fn.isExternal() && isProgram && !fn->hasAttr(kPeakBytesAttr))
        programs.push_back(fn);
    }
    padLeadingDimensions(getOperation(), programs);
    for (func::FuncOp fn : programs)
      if (failed(plan(fn, report)))
        return signalPassFailure();
  }
};
} // namespace
