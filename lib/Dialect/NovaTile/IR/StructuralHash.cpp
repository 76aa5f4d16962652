//===- StructuralHash.cpp - kernel identity for dedup and caching ---------===//
//
// The hash runs over a canonical text of the kernel: values are numbered in
// definition order (never their SSA names), attributes and types are printed
// with fixed flags (never pointers, which differ between processes) and
// locations are left out.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaTile/IR/StructuralHash.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <limits>

using namespace mlir;
using namespace mlir::nova_tile;

std::string KernelHash::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex_no_prefix(hi, 16)
     << llvm::format_hex_no_prefix(lo, 16);
  return s;
}

namespace {
class CanonicalText {
public:
  CanonicalText(MLIRContext *ctx, llvm::raw_ostream &os)
      : state(ctx, fixedFlags()), os(os) {}

  void block(Block &b) {
    os << "{(";
    for (BlockArgument arg : b.getArguments()) {
      define(arg);
      type(arg.getType());
      os << ',';
    }
    os << ')';
    for (Operation &op : b)
      operation(op);
    os << '}';
  }

  void attribute(Attribute a) {
    if (a)
      a.print(os, state);
    else
      os << "<null>";
  }

private:
  // Overrides the command line's printing options that change how an
  // attribute prints: every constant in full, in decimal.
  static OpPrintingFlags fixedFlags() {
    OpPrintingFlags flags;
    flags.elideLargeElementsAttrs(std::numeric_limits<int64_t>::max());
    flags.printLargeElementsAttrWithHex(-1);
    return flags;
  }
  // A resource prints as its key, which names data per context; the bytes
  // are what the kernel computes with.
  void resourceContents(DenseResourceElementsAttr resource) {
    os << "resource<";
    type(resource.getType());
    if (const AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      ArrayRef<char> data = blob->getData();
      os << ',' << data.size() << ':';
      os.write(data.data(), data.size());
    } else {
      os << ",missing";
    }
    os << '>';
  }
  void define(Value v) { ids.try_emplace(v, ids.size()); }
  void type(Type t) { t.print(os, state); }

  void operation(Operation &op) {
    os << op.getName().getStringRef() << '(';
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      // Bodies are isolated: every operand is defined inside.
      os << (it == ids.end() ? -1 : int64_t(it->second)) << ',';
    }
    os << ')';
    os << '{';
    for (NamedAttribute named : op.getAttrDictionary()) {
      os << named.getName().getValue() << '=';
      if (auto resource = dyn_cast<DenseResourceElementsAttr>(named.getValue()))
        resourceContents(resource);
      else
        attribute(named.getValue());
      os << ',';
    }
    os << '}';
    os << "->(";
    for (Value r : op.getResults()) {
      define(r);
      type(r.getType());
      os << ',';
    }
    os << ')';
    for (Region &region : op.getRegions()) {
      os << '[';
      for (Block &b : region)
        block(b);
      os << ']';
    }
    os << ';';
  }

  AsmState state;
  llvm::raw_ostream &os;
  llvm::DenseMap<Value, unsigned> ids;
};
} // namespace

KernelHash mlir::nova_tile::structuralHash(FusionGroupOpInterface group) {
  std::string text;
  llvm::raw_string_ostream os(text);
  CanonicalText canonical(group->getContext(), os);
  // A version tag, so a change of this encoding changes every hash.
  os << "nova_tile.v1;" << stringifyFamily(group.getFamily()) << ';';
  canonical.attribute(group.getScheduleAttr());
  os << ';';
  canonical.block(group.getBodyBlock());
  llvm::XXH128_hash_t h = llvm::xxh3_128bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  return {h.low64, h.high64};
}
