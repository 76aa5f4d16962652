//===- CompileKernels.cpp - gpu.modules to .nvx kernel records ------------===//

#include "nova/Conversion/TileToGPU/CompileKernels.h"
#include "nova/Dialect/Nova/IR/DType.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <cstdlib>
#include <fstream>

using namespace mlir;

void mlir::nova::resolveToolchain(GPUCompileOptions &o) {
  if (o.ptxas.empty()) {
    if (auto found = llvm::sys::findProgramByName("ptxas"))
      o.ptxas = *found;
    else
      o.ptxas = "/usr/local/cuda/bin/ptxas";
  }
  if (!o.cudaPath.empty())
    return;
  // A toolkit named in the environment is taken as given (a wrong one is an
  // error later). Otherwise the root is the first candidate holding
  // nvvm/libdevice: ptxas on PATH may be a wrapper script outside the
  // toolkit (/usr/local/bin/ptxas running /usr/local/cuda-13.0/bin/ptxas).
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *home = std::getenv(var); home && *home) {
      o.cudaPath = home;
      return;
    }
  SmallVector<std::string> candidates;
  if (llvm::sys::fs::can_execute(o.ptxas)) {
    candidates.push_back(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(o.ptxas))
            .str());
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(o.ptxas, real))
      candidates.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str());
  }
  candidates.push_back("/usr/local/cuda");
  for (const std::string &root : candidates) {
    SmallString<256> libdevice(root);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (llvm::sys::fs::is_directory(libdevice)) {
      o.cudaPath = root;
      return;
    }
  }
  o.cudaPath = candidates.front();
}

/// Runs ptxas on `ptx`; the cubin, or an error.
static std::optional<std::string>
assemble(const mlir::nova::GPUCompileOptions &o, const std::string &ptx,
         std::string &cubin) {
  const std::string &ptxas = o.ptxas;
  if (!llvm::sys::fs::can_execute(ptxas))
    return "no ptxas at '" + ptxas + "' (give --ptxas PATH or --ptx-only)";
  SmallString<128> in, out, log;
  if (llvm::sys::fs::createTemporaryFile("nova-kernel", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("nova-kernel", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("nova-kernel", "log", log))
    return std::string("cannot create temporary files");
  std::ofstream(in.c_str(), std::ios::binary) << ptx;
  std::string message;
  std::string arch = "-arch=" + o.chip;
  SmallVector<StringRef> args{ptxas, arch, in.str(), "-o", out.str()};
  // ptxas's messages become the error's, not lines on the terminal.
  std::optional<StringRef> redirects[] = {std::nullopt, log.str(), log.str()};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &message);
  auto bytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  auto logText = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(log);
  if (rc != 0 || !bytes) {
    std::string why = "ptxas failed (exit " + std::to_string(rc) + ")";
    if (!message.empty())
      why += " " + message;
    if (logText) {
      // Its temporary file name means nothing to the user.
      SmallVector<StringRef> lines;
      (*logText)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
      for (StringRef line : lines) {
        if (line.starts_with("ptxas " + in.str().str()))
          line =
              line.drop_front(("ptxas " + in.str().str()).size()).ltrim(", ");
        why += "\n  " + line.trim().str();
      }
    }
    return why;
  }
  cubin = (*bytes)->getBuffer().str();
  return std::nullopt;
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Whether `chip` is sm_70 ... sm_90a.
bool upToHopper(StringRef chip) {
  unsigned sm = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, sm) && sm >= 70 &&
         sm <= 90;
}

/// Gives every branch of a gpu.module distinct successor blocks: the second
/// and later uses of a block as a successor of one op (an llvm.switch whose
/// cases share a target) go through a forwarding block of their own,
/// placed after the target in successor order. LLVM IR export does the
/// same when it must, but orders the blocks it adds by their addresses,
/// which made a kernel's PTX (its label numbers) differ from run to run.
struct DistinctSuccessorsPass
    : PassWrapper<DistinctSuccessorsPass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DistinctSuccessorsPass)
  StringRef getArgument() const override { return "nova-distinct-successors"; }
  StringRef getDescription() const override {
    return "Give every branch distinct successor blocks, in successor order";
  }
  void runOnOperation() override {
    SmallVector<Operation *> branches;
    getOperation().walk([&](Operation *op) {
      if (op->getNumSuccessors() > 1)
        branches.push_back(op);
    });
    for (Operation *op : branches) {
      llvm::SmallPtrSet<Block *, 8> seen;
      Block *after = nullptr;
      for (unsigned i = 0; i < op->getNumSuccessors(); ++i) {
        Block *target = op->getSuccessor(i);
        if (seen.insert(target).second)
          continue;
        // Each forwarding block after the previous one, so their order is
        // the successors'.
        Block *anchor = after && after->getParent() == target->getParent()
                            ? after
                            : target;
        OpBuilder b(op->getContext());
        SmallVector<Location> locs(target->getNumArguments(), op->getLoc());
        Block *forward =
            b.createBlock(target->getParent(), std::next(anchor->getIterator()),
                          target->getArgumentTypes(), locs);
        LLVM::BrOp::create(b, op->getLoc(), forward->getArguments(), target);
        op->setSuccessor(forward, i);
        after = forward;
      }
    }
  }
};

/// NVVM -> LLVM -> PTX of every gpu.module under a builtin.module.
void buildLowering(PassManager &pm, const mlir::nova::GPUCompileOptions &o) {
  OpPassManager &perModule = pm.nest<gpu::GPUModuleOp>();
  // Flat views of the buffers (vector accesses) become pointer arithmetic.
  perModule.addPass(memref::createExpandStridedMetadataPass());
  perModule.addPass(createLowerAffinePass());
  perModule.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  perModule.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  perModule.addPass(mlir::nova::createMarkKernelParamsPass());
  // NVVM ops without an LLVM intrinsic (the mbarrier parity wait loop)
  // become inline PTX.
  perModule.addPass(createConvertNVVMToLLVMPass());
  perModule.addPass(createCanonicalizerPass());
  perModule.addPass(std::make_unique<DistinctSuccessorsPass>());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = o.chip;
  // PTX ISA 8.1 lets a kernel take up to 32764 bytes of parameters (the
  // optimizer passes every parameter tensor); it is at least the minimum
  // version of the chips up to Hopper, and newer chips default above it.
  if (upToHopper(o.chip))
    target.features = "+ptx81";
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = o.cudaPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

//===----------------------------------------------------------------------===//
// The on-disk cache
//===----------------------------------------------------------------------===//

constexpr StringLiteral kEntryMagic = "NOVA-KERNEL-CACHE 1\n";

/// A value on one header line.
std::string oneLine(StringRef text) {
  std::string line;
  for (char c : text.trim())
    line += (c == '\n' || c == '\r') ? ' ' : c;
  return line;
}

struct CacheKey {
  mlir::nova::Toolchain toolchain;
  std::string chip, mode; // mode: "cubin" or "ptx"

  std::string header() const {
    return "nova: " + oneLine(toolchain.nova) +
           "\nllvm: " + oneLine(toolchain.llvm) +
           "\nlowering: " + oneLine(toolchain.lowering) +
           "\nptxas: " + oneLine(toolchain.ptxas) + "\nchip: " + chip +
           "\nmode: " + mode + "\n";
  }
  /// The entry's file name within its kernel's directory.
  std::string fileName() const {
    return ::nova::hashBytes(header()).str() + ".nvk";
  }
};

struct CacheEntry {
  CacheKey key;
  std::string ptx, cubin;
};

std::string serializeEntry(const CacheEntry &e) {
  std::string payload = e.ptx + e.cubin;
  return kEntryMagic.str() + e.key.header() +
         "ptx-bytes: " + std::to_string(e.ptx.size()) +
         "\ncubin-bytes: " + std::to_string(e.cubin.size()) +
         "\nchecksum: " + ::nova::hashBytes(payload).str() + "\n\n" + payload;
}

/// Decodes an entry; the reason it cannot be used otherwise.
std::optional<std::string> parseEntry(StringRef bytes, CacheEntry &e) {
  if (!bytes.consume_front(kEntryMagic))
    return std::string("not a Nova kernel cache entry");
  std::map<std::string, std::string> fields;
  while (true) {
    size_t end = bytes.find('\n');
    if (end == StringRef::npos)
      return std::string("truncated header");
    StringRef line = bytes.take_front(end);
    bytes = bytes.drop_front(end + 1);
    if (line.empty())
      break;
    auto [key, value] = line.split(": ");
    fields[key.str()] = value.str();
  }
  for (const char *required : {"nova", "llvm", "lowering", "ptxas", "chip",
                               "mode", "ptx-bytes", "cubin-bytes", "checksum"})
    if (!fields.count(required))
      return "no '" + std::string(required) + "' field";
  unsigned long long ptxBytes = 0, cubinBytes = 0;
  if (StringRef(fields["ptx-bytes"]).getAsInteger(10, ptxBytes) ||
      StringRef(fields["cubin-bytes"]).getAsInteger(10, cubinBytes))
    return std::string("bad sizes");
  if (ptxBytes + cubinBytes != bytes.size())
    return "holds " + std::to_string(bytes.size()) + " bytes of code, its " +
           "header says " + std::to_string(ptxBytes + cubinBytes);
  if (::nova::hashBytes(bytes.str()).str() != fields["checksum"])
    return std::string("checksum mismatch");
  e.key.toolchain = {fields["nova"], fields["llvm"], fields["lowering"],
                     fields["ptxas"]};
  e.key.chip = fields["chip"];
  e.key.mode = fields["mode"];
  e.ptx = bytes.take_front(ptxBytes).str();
  e.cubin = bytes.drop_front(ptxBytes).str();
  return std::nullopt;
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// renamed into place, so a reader never sees a partial entry.
std::optional<std::string> writeAtomically(StringRef path, StringRef bytes) {
  StringRef dir = llvm::sys::path::parent_path(path);
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return "cannot create '" + dir.str() + "': " + ec.message();
  int fd = -1;
  SmallString<256> temp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".%%%%%%%%.tmp", fd, temp))
    return "cannot create a file in '" + dir.str() + "': " + ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return "cannot write '" + temp.str().str() + "'";
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return "cannot rename into '" + path.str() + "': " + ec.message();
  }
  return std::nullopt;
}

/// Why an entry made with `was` does not serve `now`.
std::string keyChange(const CacheKey &was, const CacheKey &now) {
  const mlir::nova::Toolchain &a = was.toolchain, &b = now.toolchain;
  for (auto [what, before, after] :
       {std::tuple<const char *, const std::string *, const std::string *>{
            "Nova", &a.nova, &b.nova},
        {"LLVM", &a.llvm, &b.llvm},
        {"lowering pipeline", &a.lowering, &b.lowering},
        {"ptxas", &a.ptxas, &b.ptxas}})
    if (oneLine(*before) != oneLine(*after))
      // The pipeline's text is long: naming the part is enough.
      return std::string("toolchain changed (") + what +
             (before == &a.lowering
                  ? ")"
                  : " '" + *before + "' -> '" + oneLine(*after) + "')");
  if (was.chip != now.chip)
    return "target changed (cached for " + was.chip + ", now " + now.chip + ")";
  return "mode changed (cached as " + was.mode + ", now " + now.mode + ")";
}

/// "file:line:col" of a file location; empty for any other.
std::string fileLineCol(Location loc) {
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file)
    return "";
  return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
          Twine(file.getColumn()))
      .str();
}

/// One gpu.module to compile (or find in the cache).
struct KernelJob {
  gpu::GPUModuleOp module;
  std::string name;        // the kernel (gpu.func) it holds
  std::string location;    // the gpu.module's "file:line:col", if any
  std::string keyText;     // printed without locations: the cache key
  std::string compileText; // with locations, parsed by the worker
  std::string entryPath;
  bool hit = false;
  std::string ptx, cubin, error;
  double lowerSeconds = 0, ptxasSeconds = 0;
};

/// Lowers one job's printed module in a context of its own, then assembles
/// the PTX; fills the job's code or its error.
void compileJob(KernelJob &job, const DialectRegistry &registry,
                const mlir::nova::GPUCompileOptions &o) {
  Clock::time_point start = Clock::now();
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    llvm::raw_string_ostream os(diagnostics);
    if (!diagnostics.empty())
      os << "\n";
    // The error is reported at the gpu.module: only another location (an
    // op of the kernel's body) is worth repeating.
    std::string where = fileLineCol(d.getLocation());
    if (!where.empty() && where != job.location)
      os << where << ": ";
    os << StringRef(d.str()).rtrim();
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(job.compileText, ParserConfig(&ctx));
  if (!module) {
    job.error = "cannot re-parse its gpu.module: " + diagnostics;
    return;
  }
  PassManager pm(&ctx);
  buildLowering(pm, o);
  // Some lowering steps report an error and carry on (a missing libdevice):
  // any error fails the compile.
  if (failed(pm.run(*module)) || !diagnostics.empty()) {
    job.error = diagnostics.empty() ? "lowering failed" : diagnostics;
    return;
  }
  auto binaries = module->getOps<gpu::BinaryOp>();
  if (binaries.empty()) {
    job.error = "lowering produced no gpu.binary";
    return;
  }
  auto object = cast<gpu::ObjectAttr>((*binaries.begin()).getObjects()[0]);
  job.ptx = object.getObject().str();
  job.lowerSeconds = secondsSince(start);
  // A math function left external means libdevice was not linked: the
  // kernel could never load.
  for (StringRef rest = job.ptx; !rest.empty();) {
    auto [line, next] = rest.split('\n');
    if (line.starts_with(".extern .func") && line.contains("__nv_")) {
      job.error = "calls libdevice, which was not found under '" + o.cudaPath +
                  "/nvvm/libdevice' (give --cuda-path DIR)";
      return;
    }
    rest = next;
  }
  if (o.ptxOnly)
    return;
  start = Clock::now();
  if (auto err = assemble(o, job.ptx, job.cubin))
    job.error = *err;
  job.ptxasSeconds = secondsSince(start);
}

void printTimingReport(ArrayRef<KernelJob> jobs, double wallSeconds,
                       unsigned threads) {
  SmallVector<const KernelJob *> sorted;
  double lower = 0, ptxas = 0;
  unsigned hits = 0;
  for (const KernelJob &job : jobs) {
    sorted.push_back(&job);
    lower += job.lowerSeconds;
    ptxas += job.ptxasSeconds;
    hits += job.hit;
  }
  llvm::stable_sort(sorted, [](const KernelJob *a, const KernelJob *b) {
    return a->lowerSeconds + a->ptxasSeconds >
           b->lowerSeconds + b->ptxasSeconds;
  });
  llvm::raw_ostream &os = llvm::errs();
  os << "===" << std::string(73, '-') << "===\n"
     << "                         Nova kernel compile report\n"
     << "===" << std::string(73, '-') << "===\n";
  os << llvm::formatv("  {0} kernels: {1} from the cache, {2} compiled on {3} "
                      "threads\n",
                      jobs.size(), hits, jobs.size() - hits, threads);
  os << llvm::formatv("  Total wall time: {0,0:F3} s (NVVM lowering {1,0:F3} "
                      "s, ptxas {2,0:F3} s, summed over kernels)\n\n",
                      wallSeconds, lower, ptxas);
  os << "   NVVM (s)  ptxas (s)  total (s)  cache  kernel\n";
  for (const KernelJob *job : sorted)
    os << llvm::formatv("  {0,9:F3}  {1,9:F3}  {2,9:F3}  {3,-5}  @{4}\n",
                        job->lowerSeconds, job->ptxasSeconds,
                        job->lowerSeconds + job->ptxasSeconds,
                        job->hit ? "hit" : "miss", job->name);
  os.flush();
}

} // namespace

std::string mlir::nova::defaultKernelCacheDir() {
  if (const char *dir = std::getenv("NOVA_CACHE_DIR"); dir && *dir)
    return dir;
  SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return "";
  llvm::sys::path::append(path, "nova");
  return path.str().str();
}

namespace {
constexpr StringLiteral kExecutableMagic = "NOVA-EXECUTABLE-CACHE 1\n";

std::string executablePath(StringRef dir, StringRef key) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, "executables",
                          ::nova::hashBytes(key.str()).str() + ".nvx-entry");
  return path.str().str();
}
} // namespace

std::optional<std::string>
mlir::nova::ExecutableCache::lookup(StringRef key, std::string &why) const {
  auto file = llvm::MemoryBuffer::getFile(executablePath(dir, key),
                                          /*IsText=*/false);
  if (!file) {
    why = "no entry";
    return std::nullopt;
  }
  StringRef bytes = (*file)->getBuffer();
  // Magic, the key's size and the key, the executable's checksum, then it.
  uint64_t keySize = 0;
  if (!bytes.consume_front(kExecutableMagic) ||
      bytes.consumeInteger(10, keySize) || !bytes.consume_front("\n") ||
      bytes.size() < keySize) {
    why = "corrupt entry (bad header)";
    return std::nullopt;
  }
  if (bytes.take_front(keySize) != key) {
    why = "another key under the same hash";
    return std::nullopt;
  }
  bytes = bytes.drop_front(keySize);
  auto [checksum, executable] = bytes.split('\n');
  if (::nova::hashBytes(executable.str()).str() != checksum) {
    why = "corrupt entry (checksum mismatch)";
    return std::nullopt;
  }
  return executable.str();
}

std::optional<std::string>
mlir::nova::ExecutableCache::store(StringRef key, StringRef executable) const {
  std::string entry = kExecutableMagic.str() + std::to_string(key.size()) +
                      "\n" + key.str() +
                      ::nova::hashBytes(executable.str()).str() + "\n" +
                      executable.str();
  return writeAtomically(executablePath(dir, key), entry);
}

mlir::nova::Toolchain
mlir::nova::currentToolchain(const GPUCompileOptions &options) {
  Toolchain t;
  t.nova = NOVA_VERSION;
  t.llvm = LLVM_VERSION_STRING;
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  PassManager pm(&ctx);
  // The chip is a key of its own.
  GPUCompileOptions anyChip = options;
  anyChip.chip = "<chip>";
  buildLowering(pm, anyChip);
  llvm::raw_string_ostream lowering(t.lowering);
  pm.printAsTextualPipeline(lowering);
  if (options.ptxOnly) {
    t.ptxas = "none (PTX only)";
    return t;
  }
  t.ptxas = "unavailable (" + options.ptxas + ")";
  SmallString<128> out;
  if (!llvm::sys::fs::can_execute(options.ptxas) ||
      llvm::sys::fs::createTemporaryFile("nova-ptxas", "txt", out))
    return t;
  std::optional<StringRef> redirects[] = {std::nullopt, out.str(),
                                          std::nullopt};
  StringRef args[] = {options.ptxas, "--version"};
  int rc =
      llvm::sys::ExecuteAndWait(options.ptxas, args, std::nullopt, redirects);
  auto text = llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (rc != 0 || !text)
    return t;
  // The release and build lines identify the assembler; the banner and
  // copyright lines do not.
  SmallVector<StringRef> lines, kept;
  (*text)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    if (!line.starts_with("ptxas: NVIDIA") && !line.starts_with("Copyright"))
      kept.push_back(line.trim());
  t.ptxas = llvm::join(kept, "; ");
  return t;
}

FailureOr<std::map<std::string, mlir::nova::CompiledKernel>>
mlir::nova::compileGPUKernels(ModuleOp module,
                              const GPUCompileOptions &options) {
  GPUCompileOptions o = options;
  resolveToolchain(o);
  MLIRContext *ctx = module.getContext();

  // Launch geometry, recorded by convert-tile-to-gpu, before the gpu.modules
  // become binaries.
  std::map<std::string, CompiledKernel> kernels;
  std::vector<KernelJob> jobs;
  for (auto gm : module.getOps<gpu::GPUModuleOp>()) {
    auto functions = gm.getOps<gpu::GPUFuncOp>();
    if (!llvm::hasSingleElement(functions))
      return gm.emitError("gpu.module @")
             << gm.getName() << " must hold exactly one gpu.func";
    gpu::GPUFuncOp fn = *functions.begin();
    auto block = fn.getKnownBlockSize(), grid = fn.getKnownGridSize();
    if (!block || !grid)
      return fn.emitError("gpu.func @")
             << fn.getName()
             << " has no known_block_size / known_grid_size (not written "
                "by convert-tile-to-gpu)";
    CompiledKernel &k = kernels[fn.getName().str()];
    k.desc.name = fn.getName().str();
    for (int d = 0; d < 3; ++d) {
      k.desc.block[d] = uint32_t((*block)[d]);
      k.grid[d] = uint32_t((*grid)[d]);
    }
    k.desc.params.assign(fn.getNumArguments(), {::nova::ParamKind::Buffer, 8});
    for (unsigned a = 0; a < fn.getNumArguments(); ++a)
      if (auto bits = fn.getArgAttrOfType<IntegerAttr>(a, kStatusBitsAttr))
        k.desc.params[a] = {::nova::ParamKind::StatusWord, 8,
                            uint32_t(bits.getInt())};
    if (auto bytes = fn->getAttrOfType<IntegerAttr>(kDynamicSharedBytesAttr))
      k.desc.sharedMemory = uint32_t(bytes.getInt());
    // The descriptors: kTmaAttr arguments, each listed in kTmaParamsAttr
    // (which the lowering marks as by-value parameters).
    auto listed = fn->getAttrOfType<DenseI32ArrayAttr>(kTmaParamsAttr);
    for (unsigned a = 0; a < fn.getNumArguments(); ++a) {
      auto map = fn.getArgAttrOfType<DictionaryAttr>(a, kTmaAttr);
      bool isListed = listed && llvm::is_contained(listed.asArrayRef(), a);
      if (bool(map) != isListed)
        return fn.emitError("gpu.func @")
               << fn.getName() << " argument #" << a << ": "
               << (map ? "a TMA descriptor missing from " : "listed in ")
               << kTmaParamsAttr
               << (map ? "" : " without a TMA descriptor attribute");
      if (!map)
        continue;
      auto buffer = map.getAs<IntegerAttr>("buffer");
      auto offset = map.getAs<IntegerAttr>("offset");
      auto dims = map.getAs<DenseI64ArrayAttr>("dims");
      auto strides = map.getAs<DenseI64ArrayAttr>("strides");
      auto box = map.getAs<DenseI64ArrayAttr>("box");
      auto swizzle = map.getAs<IntegerAttr>("swizzle");
      auto memref =
          buffer && buffer.getInt() >= 0 && buffer.getInt() < a
              ? dyn_cast<MemRefType>(fn.getArgumentTypes()[buffer.getInt()])
              : MemRefType();
      auto dtype = memref ? dtypeOf(memref.getElementType()) : std::nullopt;
      if (!offset || !dims || !strides || !box || !swizzle || !dtype ||
          dims.size() != box.size() || strides.size() + 1 != dims.size())
        return fn.emitError("gpu.func @")
               << fn.getName() << " argument #" << a
               << ": malformed TMA descriptor attribute";
      TmaParam &p = k.tma.emplace_back();
      p.param = a;
      p.buffer = unsigned(
          llvm::count_if(ArrayRef(k.desc.params).take_front(buffer.getInt()),
                         [](const ::nova::ParamDesc &d) {
                           return d.kind == ::nova::ParamKind::Buffer;
                         }));
      p.tma.offset = uint64_t(offset.getInt());
      p.tma.dtype = *dtype;
      p.tma.dims.assign(dims.asArrayRef().begin(), dims.asArrayRef().end());
      p.tma.strides.assign(strides.asArrayRef().begin(),
                           strides.asArrayRef().end());
      p.tma.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
      p.tma.elementStrides.assign(dims.size(), 1);
      // CUtensorMapSwizzle: none, 32, 64, 128 bytes.
      int64_t bytes = swizzle.getInt();
      p.tma.swizzle = bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0;
      k.desc.params[a] = {::nova::ParamKind::TmaDescriptor, 128};
    }
    // A workspace is the last argument, its size on the function.
    if (auto bytes = fn->getAttrOfType<IntegerAttr>(kWorkspaceBytesAttr)) {
      if (bytes.getInt() <= 0 || fn.getNumArguments() == 0 ||
          k.desc.params.back().kind != ::nova::ParamKind::Buffer)
        return fn.emitError("gpu.func @")
               << fn.getName() << " declares " << bytes.getInt()
               << " bytes of workspace; a workspace is a positive size "
                  "passed as the last argument";
      k.desc.params.back().kind = ::nova::ParamKind::Workspace;
      k.desc.workspaceBytes = uint64_t(bytes.getInt());
    }
    if (auto blocks = fn->getAttrOfType<IntegerAttr>(kCoResidentBlocksAttr)) {
      if (blocks.getInt() <= 0 || blocks.getInt() > (int64_t(1) << 20))
        return fn.emitError("gpu.func @")
               << fn.getName() << " asks for " << blocks.getInt()
               << " co-resident blocks; expected 1 to 2^20";
      k.desc.coResident = uint32_t(blocks.getInt());
    }
    KernelJob &job = jobs.emplace_back();
    job.module = gm;
    job.name = fn.getName().str();
    job.location = fileLineCol(gm.getLoc());
  }
  if (kernels.empty())
    return kernels;

  // Each kernel is printed alone in a module of its own: the text is both
  // its cache key and what its worker parses.
  for (KernelJob &job : jobs) {
    OpBuilder builder(ctx);
    OwningOpRef<ModuleOp> alone = ModuleOp::create(job.module.getLoc());
    builder.setInsertionPointToEnd(alone->getBody());
    builder.clone(*job.module);
    llvm::raw_string_ostream key(job.keyText), compile(job.compileText);
    alone->print(key, OpPrintingFlags().enableDebugInfo(false));
    alone->print(compile, OpPrintingFlags().enableDebugInfo(true));
  }

  CacheKey key;
  if (!o.cacheDir.empty()) {
    key.toolchain = currentToolchain(o);
    key.chip = o.chip;
    key.mode = o.ptxOnly ? "ptx" : "cubin";
  }
  llvm::raw_ostream &log = llvm::errs();
  if (o.explainCache && o.cacheDir.empty())
    log << "nova: kernel cache off (no cache directory): all " << jobs.size()
        << " kernels compile\n";
  std::vector<KernelJob *> misses;
  for (KernelJob &job : jobs) {
    if (o.cacheDir.empty()) {
      misses.push_back(&job);
      continue;
    }
    SmallString<256> dir(o.cacheDir);
    llvm::sys::path::append(dir, "kernels",
                            ::nova::hashBytes(job.keyText).str());
    SmallString<256> path(dir);
    llvm::sys::path::append(path, key.fileName());
    job.entryPath = path.str().str();
    std::string why;
    if (auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false)) {
      CacheEntry entry;
      if (auto bad = parseEntry((*bytes)->getBuffer(), entry)) {
        why = "corrupt entry (" + *bad + ")";
        log << "nova: warning: ignoring the corrupt kernel cache entry '"
            << path << "': " << *bad << "; rebuilding it\n";
      } else if (entry.key.header() != key.header()) {
        why = keyChange(entry.key, key); // a hash collision of the name
      } else {
        job.hit = true;
        job.ptx = std::move(entry.ptx);
        job.cubin = std::move(entry.cubin);
      }
    } else {
      // No entry for this toolchain and target: say which key part changed
      // if the kernel was cached under another.
      why = "no entry";
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
           it.increment(ec)) {
        if (!StringRef(it->path()).ends_with(".nvk"))
          continue;
        auto other = llvm::MemoryBuffer::getFile(it->path(), false);
        CacheEntry entry;
        if (!other || parseEntry((*other)->getBuffer(), entry))
          continue;
        std::string change = keyChange(entry.key, key);
        // The closest entry explains best: one built with this toolchain
        // for another target.
        if (why == "no entry" || StringRef(why).starts_with("toolchain"))
          why = change;
      }
    }
    if (o.explainCache) {
      if (job.hit)
        log << "nova: kernel cache hit: @" << job.name << "\n";
      else
        log << "nova: kernel cache miss: @" << job.name << ": " << why << "\n";
    }
    if (!job.hit)
      misses.push_back(&job);
  }

  // The misses compile in parallel, each in its own context.
  Clock::time_point start = Clock::now();
  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(o.threads);
  unsigned threads =
      std::max(1u, std::min<unsigned>(strategy.compute_thread_count(),
                                      unsigned(misses.size())));
  if (!misses.empty()) {
    const DialectRegistry &registry = ctx->getDialectRegistry();
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    // The biggest kernels first, so one long compile does not start last.
    llvm::stable_sort(misses, [](const KernelJob *a, const KernelJob *b) {
      return a->keyText.size() > b->keyText.size();
    });
    for (KernelJob *job : misses)
      pool.async([job, &registry, &o] { compileJob(*job, registry, o); });
    pool.wait();
  }
  double wall = secondsSince(start);

  bool failedAny = false;
  for (KernelJob &job : jobs) {
    if (!job.error.empty()) {
      job.module.emitError("kernel @") << job.name << ": " << job.error;
      failedAny = true;
      continue;
    }
    if (!job.hit && !job.entryPath.empty())
      if (auto err = writeAtomically(job.entryPath,
                                     serializeEntry({key, job.ptx, job.cubin})))
        log << "nova: warning: cannot cache kernel @" << job.name << ": "
            << *err << "\n";
    ::nova::KernelDesc &desc = kernels[job.name].desc;
    desc.hash = ::nova::hashBytes(job.ptx);
    desc.ptx = job.ptx;
    if (!o.ptxOnly)
      desc.images.push_back({o.chip, job.cubin});
  }
  if (o.timing)
    printTimingReport(jobs, wall, threads);
  if (failedAny)
    return failure();

  return kernels;
}

size_t mlir::nova::bufferParams(const ::nova::KernelDesc &kernel) {
  return llvm::count_if(kernel.params, [](const ::nova::ParamDesc &p) {
    return p.kind == ::nova::ParamKind::Buffer;
  });
}

FailureOr<std::vector<::nova::ArgDesc>>
mlir::nova::bindArguments(const CompiledKernel &kernel,
                          ArrayRef<uint64_t> bufferOffsets) {
  if (bufferParams(kernel.desc) != bufferOffsets.size())
    return failure();
  std::vector<::nova::ArgDesc> args;
  size_t next = 0;
  for (auto [index, p] : llvm::enumerate(kernel.desc.params)) {
    ::nova::ArgDesc a;
    a.kind = p.kind;
    if (p.kind == ::nova::ParamKind::Buffer) {
      a.offset = bufferOffsets[next++];
    } else if (p.kind == ::nova::ParamKind::TmaDescriptor) {
      auto tma = llvm::find_if(
          kernel.tma, [&](const TmaParam &t) { return t.param == index; });
      if (tma == kernel.tma.end() || tma->buffer >= bufferOffsets.size())
        return failure();
      a.tma = tma->tma;
      a.tma.offset += bufferOffsets[tma->buffer];
    } else if (p.kind != ::nova::ParamKind::StatusWord &&
               p.kind != ::nova::ParamKind::Workspace) {
      return failure(); // scalars are not planned here
    }
    args.push_back(std::move(a));
  }
  return args;
}
