//===- Executable.cpp - read, check and write .nvx executables ------------===//

#include "nova/Runtime/Executable.h"
#include "nova/Runtime/Executable_generated.h"

#include <cmath>
#include <algorithm>
#include <set>
#include <sstream>

namespace nova {

std::string Hash128::str() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)hi,
                (unsigned long long)lo);
  return buf;
}

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

Hash128 hashBytes(const std::string &bytes) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : bytes) {
    a = (a ^ c) * 0x100000001b3ull;
    b = (b ^ (c + 0x9b)) * 0x100000001b3ull;
  }
  Hash128 h;
  h.lo = splitmix(a ^ bytes.size());
  h.hi = splitmix(b + h.lo);
  return h;
}

uint64_t TensorDesc::bytes() const {
  return uint64_t(numElements(shape)) * byteWidth(dtype);
}

uint64_t workspaceBytes(const ExecutableDesc &exe, const EntryDesc &entry) {
  uint64_t bytes = 0;
  for (const LaunchDesc &l : entry.launches)
    bytes = std::max(bytes, exe.kernels[l.kernel].workspaceBytes);
  return bytes;
}

bool usesStatusRecord(const ExecutableDesc &exe, const EntryDesc &entry) {
  for (const LaunchDesc &l : entry.launches)
    for (const ArgDesc &a : l.args)
      if (a.kind == ParamKind::StatusWord)
        return true;
  return false;
}

DeviceMemoryPlan planDeviceMemory(const ExecutableDesc &exe,
                                  const EntryDesc &entry) {
  DeviceMemoryPlan plan;
  plan.arena = entry.arenaSize;
  plan.workspace = workspaceBytes(exe, entry);
  plan.status = usesStatusRecord(exe, entry) ? kStatusBytes : 0;
  auto pages = [](uint64_t bytes) {
    return (bytes + kDeviceAllocationGranularity - 1) /
           kDeviceAllocationGranularity * kDeviceAllocationGranularity;
  };
  plan.total = pages(plan.arena) + pages(plan.workspace) + pages(plan.status);
  return plan;
}

const EntryDesc *ExecutableDesc::findEntry(const std::string &name) const {
  for (const EntryDesc &e : entries)
    if (e.name == name)
      return &e;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Semantic checks
//===----------------------------------------------------------------------===//

namespace {
/// Collects the first failure with its context.
struct Checker {
  std::string &error;
  bool fail(const std::string &where, const std::string &what) {
    if (error.empty())
      error = where + ": " + what;
    return false;
  }
};

bool checkTensor(Checker &c, const std::string &where, const TensorDesc &t,
                 uint64_t arena) {
  if (t.name.empty())
    return c.fail(where, "tensor without a name");
  std::optional<int64_t> count = checkedNumElements(t.shape);
  std::optional<uint64_t> bytes =
      count ? checkedBytes(*count, byteWidth(t.dtype)) : std::nullopt;
  if (!bytes)
    return c.fail(where + " '" + t.name + "'",
                  "bad shape (a negative dimension or more than 2^64 bytes)");
  uint64_t size = *bytes;
  if (t.offset > arena || size > arena - t.offset)
    return c.fail(where + " '" + t.name + "'",
                  "bytes [" + std::to_string(t.offset) + ", " +
                      std::to_string(t.offset + size) +
                      ") lie outside the arena of " + std::to_string(arena) +
                      " bytes");
  return true;
}
} // namespace

bool checkExecutable(const ExecutableDesc &exe, std::string &error) {
  error.clear();
  Checker c{error};
  if (exe.version != kFormatVersion)
    return c.fail("executable", "format version " +
                                    std::to_string(exe.version) +
                                    ", this runtime reads version " +
                                    std::to_string(kFormatVersion));
  std::set<std::pair<Hash128, std::string>> seenKernels;
  for (size_t k = 0; k < exe.kernels.size(); ++k) {
    const KernelDesc &kd = exe.kernels[k];
    std::string where = "kernel #" + std::to_string(k) + " '" + kd.name + "'";
    if (kd.name.empty())
      return c.fail(where, "kernel without a name");
    if (kd.images.empty() && kd.ptx.empty())
      return c.fail(where, "has neither a cubin nor PTX");
    for (const KernelImage &img : kd.images)
      if (img.arch.empty() || img.cubin.empty())
        return c.fail(where, "has an empty image or architecture name");
    uint64_t threads = uint64_t(kd.block[0]) * kd.block[1] * kd.block[2];
    if (threads == 0 || threads > 1024)
      return c.fail(where, "block of " + std::to_string(threads) +
                               " threads (1 to 1024)");
    if (kd.sharedMemory > 228 * 1024)
      return c.fail(where, "asks for " + std::to_string(kd.sharedMemory) +
                               " bytes of shared memory (at most 232448)");
    for (const ParamDesc &p : kd.params) {
      if (p.kind == ParamKind::Buffer && p.size != 8)
        return c.fail(where, "a buffer parameter is a pointer of 8 bytes");
      if (p.kind == ParamKind::TmaDescriptor && p.size != 128)
        return c.fail(where, "a TMA descriptor parameter has 128 bytes");
      if (p.kind == ParamKind::Scalar && (p.size == 0 || p.size > 256))
        return c.fail(where, "scalar parameter of " + std::to_string(p.size) +
                                 " bytes");
      if (p.kind == ParamKind::StatusWord &&
          (p.size != 8 || (p.statusBits & ~kAllStatusBits)))
        return c.fail(where, "a status word parameter is a pointer of 8 "
                             "bytes with known check bits");
      if (p.kind != ParamKind::StatusWord && p.statusBits)
        return c.fail(where, "check bits on a parameter that is not the "
                             "status word");
      if (p.kind == ParamKind::Workspace && p.size != 8)
        return c.fail(where, "a workspace parameter is a pointer of 8 bytes");
    }
    size_t workspaces =
        std::count_if(kd.params.begin(), kd.params.end(), [](const auto &p) {
          return p.kind == ParamKind::Workspace;
        });
    if (workspaces > 1)
      return c.fail(where, "takes " + std::to_string(workspaces) +
                               " workspace parameters (at most 1)");
    if ((workspaces == 1) != (kd.workspaceBytes > 0))
      return c.fail(where, workspaces ? "takes a workspace of 0 bytes"
                                      : "declares " +
                                            std::to_string(kd.workspaceBytes) +
                                            " bytes of workspace but takes "
                                            "no workspace parameter");
    if (kd.workspaceBytes > (uint64_t(1) << 40))
      return c.fail(where, "declares a workspace of " +
                               std::to_string(kd.workspaceBytes) +
                               " bytes (at most 2^40)");
  }
  std::set<std::string> entryNames;
  for (const EntryDesc &e : exe.entries) {
    std::string where = "entry '" + e.name + "'";
    if (e.name.empty() || !entryNames.insert(e.name).second)
      return c.fail(where, "entry names must be present and unique");
    std::set<std::string> names;
    for (const TensorDesc &t : e.inputs)
      if (!checkTensor(c, where + " input", t, e.arenaSize) ||
          !names.insert("in:" + t.name).second)
        return c.fail(where, "duplicate input '" + t.name + "'");
    for (const TensorDesc &t : e.outputs) {
      if (!checkTensor(c, where + " output", t, e.arenaSize) ||
          !names.insert("out:" + t.name).second)
        return c.fail(where, "duplicate output '" + t.name + "'");
      if (t.alias >= 0) {
        if (size_t(t.alias) >= e.inputs.size())
          return c.fail(where + " output '" + t.name + "'",
                        "aliases input #" + std::to_string(t.alias) + " of " +
                            std::to_string(e.inputs.size()));
        const TensorDesc &in = e.inputs[t.alias];
        if (in.dtype != t.dtype || in.shape != t.shape || in.offset != t.offset)
          return c.fail(where + " output '" + t.name + "'",
                        "aliases input '" + in.name +
                            "' but differs in dtype, shape or offset");
      } else if (t.alias != -1) {
        return c.fail(where + " output '" + t.name + "'", "bad alias");
      }
    }
    for (const GuardDesc &g : e.guards)
      if (g.size == 0 || g.offset > e.arenaSize ||
          g.size > e.arenaSize - g.offset)
        return c.fail(where, "a guard band outside the arena");
    for (size_t l = 0; l < e.launches.size(); ++l) {
      const LaunchDesc &ld = e.launches[l];
      std::string lw = where + " launch #" + std::to_string(l);
      if (ld.kernel >= exe.kernels.size())
        return c.fail(lw, "names kernel #" + std::to_string(ld.kernel) +
                              " of " + std::to_string(exe.kernels.size()));
      const KernelDesc &kd = exe.kernels[ld.kernel];
      if (ld.grid[0] == 0 || ld.grid[1] == 0 || ld.grid[2] == 0 ||
          ld.grid[1] > 65535 || ld.grid[2] > 65535)
        return c.fail(lw, "grid outside CUDA's limits");
      // The profile's counts divide and are printed: finite, not negative.
      if (!(ld.profile.flops >= 0 && ld.profile.flops < HUGE_VAL &&
            ld.profile.bytes >= 0 && ld.profile.bytes < HUGE_VAL &&
            ld.profile.predictedSeconds >= 0 &&
            ld.profile.predictedSeconds < HUGE_VAL))
        return c.fail(lw, "profile FLOPs, bytes or predicted time negative "
                          "or not finite");
      if (ld.args.size() != kd.params.size())
        return c.fail(lw, "passes " + std::to_string(ld.args.size()) +
                              " arguments to '" + kd.name + "', which takes " +
                              std::to_string(kd.params.size()));
      for (size_t a = 0; a < ld.args.size(); ++a) {
        const ArgDesc &arg = ld.args[a];
        const ParamDesc &p = kd.params[a];
        std::string aw = lw + " argument #" + std::to_string(a);
        if (arg.kind != p.kind)
          return c.fail(aw, "kind differs from the kernel's parameter");
        if (arg.kind == ParamKind::Buffer && arg.offset >= e.arenaSize)
          return c.fail(aw, "buffer offset " + std::to_string(arg.offset) +
                                " is outside the arena of " +
                                std::to_string(e.arenaSize) + " bytes");
        if (arg.kind == ParamKind::Scalar && arg.bytes.size() != p.size)
          return c.fail(aw, "scalar of " + std::to_string(arg.bytes.size()) +
                                " bytes for a parameter of " +
                                std::to_string(p.size));
        if (arg.kind == ParamKind::TmaDescriptor) {
          const TmaDesc &t = arg.tma;
          size_t rank = t.dims.size();
          if (rank == 0 || rank > 5 || t.strides.size() + 1 != rank ||
              t.box.size() != rank || t.elementStrides.size() != rank ||
              t.offset >= e.arenaSize)
            return c.fail(aw, "malformed TMA descriptor");
        }
      }
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

bool writeExecutable(const ExecutableDesc &exe, std::string &bytes,
                     std::string &error) {
  if (!checkExecutable(exe, error))
    return false;
  flatbuffers::FlatBufferBuilder b(1 << 16);
  auto tensors = [&](const std::vector<TensorDesc> &ts) {
    std::vector<flatbuffers::Offset<fb::Tensor>> out;
    for (const TensorDesc &t : ts)
      out.push_back(fb::CreateTensorDirect(
          b, t.name.c_str(), fb::DType(t.dtype), &t.shape, t.offset, t.alias));
    return b.CreateVector(out);
  };
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc &k : exe.kernels) {
    std::vector<flatbuffers::Offset<fb::Image>> images;
    for (const KernelImage &img : k.images)
      images.push_back(fb::CreateImage(
          b, b.CreateString(img.arch),
          b.CreateVector(reinterpret_cast<const uint8_t *>(img.cubin.data()),
                         img.cubin.size())));
    std::vector<flatbuffers::Offset<fb::Param>> params;
    for (const ParamDesc &p : k.params)
      params.push_back(
          fb::CreateParam(b, fb::ParamKind(p.kind), p.size, p.statusBits));
    std::vector<uint32_t> block(k.block.begin(), k.block.end());
    fb::Hash128 hash(k.hash.lo, k.hash.hi);
    kernels.push_back(fb::CreateKernelDirect(
        b, k.name.c_str(), &hash, &images,
        k.ptx.empty() ? nullptr : k.ptx.c_str(), &block, k.sharedMemory,
        &params, k.workspaceBytes, k.coResident));
  }
  std::vector<flatbuffers::Offset<fb::Entry>> entries;
  for (const EntryDesc &e : exe.entries) {
    std::vector<flatbuffers::Offset<fb::Launch>> launches;
    for (const LaunchDesc &l : e.launches) {
      std::vector<flatbuffers::Offset<fb::Arg>> args;
      for (const ArgDesc &a : l.args) {
        flatbuffers::Offset<fb::Tma> tma = 0;
        if (a.kind == ParamKind::TmaDescriptor)
          tma = fb::CreateTmaDirect(b, a.tma.offset, fb::DType(a.tma.dtype),
                                    &a.tma.dims, &a.tma.strides, &a.tma.box,
                                    &a.tma.elementStrides, a.tma.swizzle);
        auto argBytes = b.CreateVector(
            reinterpret_cast<const uint8_t *>(a.bytes.data()), a.bytes.size());
        args.push_back(
            fb::CreateArg(b, fb::ParamKind(a.kind), a.offset, argBytes, tma));
      }
      std::vector<uint32_t> grid(l.grid.begin(), l.grid.end());
      flatbuffers::Offset<fb::Profile> profile = 0;
      const LaunchProfile &p = l.profile;
      if (p.flops != 0 || p.bytes != 0 || !p.sources.empty() ||
          p.predictedSeconds != 0)
        profile = fb::CreateProfile(b, p.flops, p.bytes,
                                    b.CreateVectorOfStrings(p.sources),
                                    fb::DType(p.dtype), p.predictedSeconds);
      launches.push_back(
          fb::CreateLaunchDirect(b, l.kernel, &grid, &args, profile));
    }
    std::vector<flatbuffers::Offset<fb::Guard>> guards;
    for (const GuardDesc &g : e.guards)
      guards.push_back(fb::CreateGuardDirect(
          b, g.offset, g.size, g.buffer.c_str(), g.bufferOffset, g.bufferSize));
    auto in = tensors(e.inputs), out = tensors(e.outputs);
    entries.push_back(fb::CreateEntry(
        b, b.CreateString(e.name), in, out, e.arenaSize,
        b.CreateVector(launches), guards.empty() ? 0 : b.CreateVector(guards)));
  }
  auto root = fb::CreateExecutable(
      b, exe.version, b.CreateVector(entries), b.CreateVector(kernels),
      exe.target.empty() ? 0 : b.CreateString(exe.target));
  fb::FinishExecutableBuffer(b, root);
  bytes.assign(reinterpret_cast<const char *>(b.GetBufferPointer()),
               b.GetSize());
  return true;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
template <typename T, typename V> std::vector<T> vec(const V *v) {
  std::vector<T> out;
  if (v)
    for (auto x : *v)
      out.push_back(T(x));
  return out;
}

std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

std::string blob(const flatbuffers::Vector<uint8_t> *v) {
  return v ? std::string(reinterpret_cast<const char *>(v->data()), v->size())
           : std::string();
}

bool validDType(fb::DType t) {
  return t >= fb::DType::MIN && t <= fb::DType::MAX;
}

bool validKind(fb::ParamKind k) {
  return k >= fb::ParamKind::MIN && k <= fb::ParamKind::MAX;
}

bool dims3(const flatbuffers::Vector<uint32_t> *v,
           std::array<uint32_t, 3> &out) {
  if (!v || v->size() != 3)
    return false;
  for (int i = 0; i < 3; ++i)
    out[i] = v->Get(i);
  return true;
}
} // namespace

bool readExecutable(const std::string &bytes, ExecutableDesc &exe,
                    std::string &error) {
  exe = ExecutableDesc();
  const auto *data = reinterpret_cast<const uint8_t *>(bytes.data());
  if (bytes.size() < 8 || !fb::ExecutableBufferHasIdentifier(data)) {
    error = "not a Nova executable (no 'NVX1' identifier)";
    return false;
  }
  flatbuffers::Verifier verifier(data, bytes.size());
  if (!fb::VerifyExecutableBuffer(verifier)) {
    error = "corrupt or truncated executable (FlatBuffers verifier failed)";
    return false;
  }
  const fb::Executable *root = fb::GetExecutable(data);
  exe.version = root->version();
  exe.target = str(root->target());
  if (exe.version != kFormatVersion) {
    error = "executable has format version " + std::to_string(exe.version) +
            ", this runtime reads version " + std::to_string(kFormatVersion);
    return false;
  }
  auto bad = [&](const std::string &what) {
    error = "corrupt executable: " + what;
    return false;
  };
  if (root->kernels())
    for (const fb::Kernel *k : *root->kernels()) {
      KernelDesc kd;
      kd.name = str(k->name());
      kd.hash = {k->hash()->lo(), k->hash()->hi()};
      if (k->images())
        for (const fb::Image *img : *k->images())
          kd.images.push_back({str(img->arch()), blob(img->cubin())});
      kd.ptx = str(k->ptx());
      if (!dims3(k->block(), kd.block))
        return bad("kernel '" + kd.name + "' block is not [x, y, z]");
      kd.sharedMemory = k->shared_memory();
      if (k->params())
        for (const fb::Param *p : *k->params()) {
          if (!validKind(p->kind()))
            return bad("unknown parameter kind");
          kd.params.push_back(
              {ParamKind(p->kind()), p->size(), p->status_bits()});
        }
      kd.workspaceBytes = k->workspace_bytes();
      kd.coResident = k->co_resident();
      exe.kernels.push_back(std::move(kd));
    }
  auto tensors =
      [&](const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>> *v,
          std::vector<TensorDesc> &out) {
        if (v)
          for (const fb::Tensor *t : *v) {
            if (!validDType(t->dtype()))
              return bad("unknown dtype");
            out.push_back({str(t->name()), DType(t->dtype()),
                           vec<int64_t>(t->shape()), t->offset(), t->alias()});
          }
        return true;
      };
  if (root->entries())
    for (const fb::Entry *e : *root->entries()) {
      EntryDesc ed;
      ed.name = str(e->name());
      ed.arenaSize = e->arena_size();
      if (!tensors(e->inputs(), ed.inputs) ||
          !tensors(e->outputs(), ed.outputs))
        return false;
      if (e->launches())
        for (const fb::Launch *l : *e->launches()) {
          LaunchDesc ld;
          ld.kernel = l->kernel();
          if (!dims3(l->grid(), ld.grid))
            return bad("launch grid is not [x, y, z]");
          if (l->args())
            for (const fb::Arg *a : *l->args()) {
              if (!validKind(a->kind()))
                return bad("unknown argument kind");
              ArgDesc ad;
              ad.kind = ParamKind(a->kind());
              ad.offset = a->offset();
              ad.bytes = blob(a->bytes());
              if (const fb::Tma *t = a->tma()) {
                if (!validDType(t->dtype()))
                  return bad("unknown TMA dtype");
                ad.tma = {t->offset(),
                          DType(t->dtype()),
                          vec<uint64_t>(t->dims()),
                          vec<uint64_t>(t->strides()),
                          vec<uint32_t>(t->box()),
                          vec<uint32_t>(t->element_strides()),
                          t->swizzle()};
              }
              ld.args.push_back(std::move(ad));
            }
          if (const fb::Profile *p = l->profile()) {
            if (!validDType(p->dtype()))
              return bad("unknown profile dtype");
            ld.profile.dtype = DType(p->dtype());
            ld.profile.flops = p->flops();
            ld.profile.bytes = p->bytes();
            ld.profile.predictedSeconds = p->predicted_seconds();
            if (p->sources())
              for (const flatbuffers::String *source : *p->sources())
                ld.profile.sources.push_back(source->str());
          }
          ed.launches.push_back(std::move(ld));
        }
      if (e->guards())
        for (const fb::Guard *g : *e->guards())
          ed.guards.push_back({g->offset(), g->size(), str(g->buffer()),
                               g->buffer_offset(), g->buffer_size()});
      exe.entries.push_back(std::move(ed));
    }
  std::string why;
  if (!checkExecutable(exe, why))
    return bad(why);
  return true;
}

bool readExecutableFile(const std::string &path, ExecutableDesc &exe,
                        std::string &error) {
  std::string bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  if (!readExecutable(bytes, exe, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace nova

std::string nova::describeExecutable(const ExecutableDesc &exe) {
  std::ostringstream os;
  auto dims = [&](const auto &values) {
    os << "[";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? "," : "") << values[i];
    os << "]";
  };
  os << "executable version " << exe.version;
  if (!exe.target.empty())
    os << " target " << exe.target;
  os << "\n";
  for (const KernelDesc &k : exe.kernels) {
    os << "kernel " << k.name << " hash " << k.hash.str() << " block ";
    dims(k.block);
    os << " shared " << k.sharedMemory << " params " << k.params.size();
    if (k.workspaceBytes)
      os << " workspace " << k.workspaceBytes;
    if (k.coResident)
      os << " co-resident " << k.coResident;
    os << " ptx " << k.ptx.size() << " bytes";
    for (const ParamDesc &p : k.params)
      if (p.kind == ParamKind::StatusWord) {
        os << " status";
        for (uint32_t bit = 1; bit <= kAllStatusBits; bit <<= 1)
          if (p.statusBits & bit)
            os << " " << statusCheckName(bit);
        if (!p.statusBits)
          os << " read";
      }
    for (const KernelImage &image : k.images)
      os << " cubin " << image.arch << " " << image.cubin.size() << " bytes";
    os << "\n";
  }
  auto tensor = [&](const char *kind, const TensorDesc &t) {
    os << "  " << kind << " " << t.name << " " << typeString(t.dtype, t.shape)
       << " at " << t.offset;
    if (t.alias >= 0)
      os << " alias " << t.alias;
    os << "\n";
  };
  for (const EntryDesc &e : exe.entries) {
    os << "entry " << e.name << " arena " << e.arenaSize << "\n";
    for (const TensorDesc &t : e.inputs)
      tensor("input", t);
    for (const TensorDesc &t : e.outputs)
      tensor("output", t);
    for (const GuardDesc &g : e.guards)
      os << "  guard " << g.size << " bytes at " << g.offset << " after "
         << (g.buffer.empty() ? "the arena start" : "'" + g.buffer + "'")
         << "\n";
    for (const LaunchDesc &l : e.launches) {
      os << "  launch " << exe.kernels[l.kernel].name << " grid ";
      dims(l.grid);
      os << " args";
      for (const ArgDesc &a : l.args) {
        if (a.kind == ParamKind::Buffer)
          os << " @" << a.offset;
        else if (a.kind == ParamKind::Scalar)
          os << " scalar(" << a.bytes.size() << " bytes)";
        else if (a.kind == ParamKind::StatusWord)
          os << " status";
        else if (a.kind == ParamKind::Workspace)
          os << " workspace";
        else
          os << " tma@" << a.tma.offset;
      }
      const LaunchProfile &p = l.profile;
      if (p.flops != 0 || p.bytes != 0)
        os << " flops " << p.flops << " bytes " << p.bytes;
      if (p.predictedSeconds > 0)
        os << " predicted " << p.predictedSeconds * 1e6 << " us";
      for (size_t i = 0; i < p.sources.size(); ++i)
        os << (i ? "," : " from ") << p.sources[i];
      os << "\n";
    }
  }
  return os.str();
}

nova::StatusReport
nova::StatusReport::decode(const uint64_t words[kStatusWords]) {
  StatusReport r;
  r.flags = words[0];
  // A first-bad word: the lowest position and its value, see StatusBit.
  auto position = [](uint64_t word) { return 0xFFFFFFFFull - (word >> 32); };
  auto value = [](uint64_t word) { return int64_t(int32_t(uint32_t(word))); };
  if (words[1]) {
    r.hasLabel = true;
    r.labelPosition = position(words[1]);
    r.labelValue = value(words[1]);
    r.classes = int64_t(words[2]);
    r.ignoreIndex = int64_t(words[3]);
  }
  if (words[4]) {
    r.hasIndex = true;
    r.indexPosition = position(words[4]);
    r.indexValue = value(words[4]);
    r.tableRows = int64_t(words[5]);
  }
  return r;
}

const char *nova::describeStatusBit(uint32_t bit) {
  switch (bit) {
  case LabelsOutOfRange:
    return "labels out of range";
  case NonFiniteLoss:
    return "non-finite loss";
  case NonFiniteGradients:
    return "non-finite gradients";
  case IndicesOutOfRange:
    return "gather indices out of range";
  }
  return "unknown check";
}

const char *nova::statusCheckName(uint32_t bit) {
  switch (bit) {
  case LabelsOutOfRange:
    return "check_labels";
  case NonFiniteLoss:
    return "loss";
  case NonFiniteGradients:
    return "grad_norm";
  case IndicesOutOfRange:
    return "gather";
  }
  return "unknown";
}

std::vector<std::string> nova::describeStatus(const ExecutableDesc &exe,
                                              const EntryDesc &entry,
                                              const StatusReport &report) {
  std::vector<std::string> lines;
  for (uint32_t bit = 1; bit <= kAllStatusBits; bit <<= 1) {
    if (!(report.flags & bit))
      continue;
    std::string kernels;
    size_t firstRaiser = entry.launches.size();
    bool skipped = false, appliedBefore = false;
    for (size_t l = 0; l < entry.launches.size(); ++l)
      for (const ParamDesc &p : exe.kernels[entry.launches[l].kernel].params) {
        if (p.kind != ParamKind::StatusWord)
          continue;
        if (p.statusBits & bit) {
          std::string name = "@" + exe.kernels[entry.launches[l].kernel].name;
          if (kernels.find(name) == std::string::npos)
            kernels += (kernels.empty() ? "" : ", ") + name;
          firstRaiser = std::min(firstRaiser, l);
        } else if (!p.statusBits) { // an optimizer that reads the record
          skipped |= l > firstRaiser;
          appliedBefore |= l < firstRaiser;
        }
      }
    std::string line = std::string(describeStatusBit(bit)) + " (" +
                       statusCheckName(bit) + " in kernel " +
                       (kernels.empty() ? "?" : kernels) + ")";
    if (bit == LabelsOutOfRange && report.hasLabel)
      // The interpreter's words (its check_labels error).
      line += ": label " + std::to_string(report.labelValue) + " at position " +
              std::to_string(report.labelPosition) + " is outside [0, " +
              std::to_string(report.classes) +
              ") and is not the ignore_index " +
              std::to_string(report.ignoreIndex);
    if (bit == IndicesOutOfRange && report.hasIndex)
      // The interpreter's words (its gather error; the GPU's tables are
      // gathered along axis 0).
      line += ": index " + std::to_string(report.indexValue) + " at position " +
              std::to_string(report.indexPosition) +
              " is out of range for axis 0 of size " +
              std::to_string(report.tableRows);
    if (skipped)
      line += "; the optimizer skipped the update";
    else if (appliedBefore)
      line += "; the optimizer ran before this check and updated";
    lines.push_back(std::move(line));
  }
  if (report.flags & ~uint64_t(kAllStatusBits))
    lines.push_back("unknown status bits " +
                    std::to_string(report.flags & ~uint64_t(kAllStatusBits)));
  return lines;
}

nova::GuardLayout nova::layOutGuardBands(
    const std::vector<std::pair<std::string, uint64_t>> &buffers,
    uint64_t guard) {
  auto align = [](uint64_t x) { return (x + 15) / 16 * 16; };
  GuardLayout layout;
  layout.guards.push_back({0, guard, "", 0, 0});
  uint64_t cursor = guard;
  for (const auto &[name, bytes] : buffers) {
    uint64_t end = cursor + bytes, next = align(end + guard);
    layout.offsets.push_back(cursor);
    layout.guards.push_back({end, next - end, name, cursor, bytes});
    cursor = next;
  }
  layout.arenaSize = cursor;
  return layout;
}

std::vector<std::string> nova::checkGuardBands(const ExecutableDesc &exe,
                                               const EntryDesc &entry,
                                               const std::string &arena) {
  std::vector<std::string> lines;
  for (const GuardDesc &g : entry.guards) {
    uint64_t changed = 0, first = 0;
    for (uint64_t i = 0; i < g.size && g.offset + i < arena.size(); ++i)
      if ((unsigned char)arena[g.offset + i] != kGuardByte && !changed++)
        first = i;
    if (!changed)
      continue;
    // The suspects: kernels that take the buffer before the guard (a write
    // past its end) or the one after it (a write before its start).
    std::string kernels;
    for (const LaunchDesc &l : entry.launches)
      for (const ArgDesc &a : l.args) {
        bool before =
            !g.buffer.empty() && a.offset >= g.bufferOffset &&
            a.offset < g.bufferOffset + std::max<uint64_t>(g.bufferSize, 1);
        if (a.kind != ParamKind::Buffer ||
            (!before && a.offset != g.offset + g.size))
          continue;
        std::string name = "@" + exe.kernels[l.kernel].name;
        if (kernels.find(name) == std::string::npos)
          kernels += (kernels.empty() ? "" : ", ") + name;
      }
    lines.push_back(
        "guard band " +
        (g.buffer.empty() ? std::string("at the start of the arena")
                          : "after buffer '" + g.buffer + "'") +
        " overwritten: " + std::to_string(changed) + " of its " +
        std::to_string(g.size) + " bytes changed, the first " +
        std::to_string(first) + " bytes past " +
        (g.buffer.empty() ? std::string("the start") : "the buffer's end") +
        " (kernels that take it or the next buffer: " +
        (kernels.empty() ? std::string("none") : kernels) + ")");
  }
  return lines;
}
