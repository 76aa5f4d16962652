//===- nova-run.cpp - run a nova program --------------------------------===//
//
//   nova-run model.mlir --entry NAME [--backend=ref]
//            [--inputs a.safetensors,...] [--random-inputs SEED]
//            [-o out.safetensors] [--print]
//            [--compare expected.safetensors --rtol X --atol Y]
//            [--check-gradients] [--train --steps N --text FILE ...]
//
// Exit status: 0 on success, 1 on any error or mismatch.
//
//===----------------------------------------------------------------------===//

#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nova;
using namespace llvm;

static cl::OptionCategory runCat("nova-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::Required, cl::cat(runCat));
static cl::opt<std::string>
    entry("entry", cl::desc("function to run (default: the only one)"),
          cl::cat(runCat));
static cl::opt<std::string>
    backend("backend", cl::desc("ref: the reference interpreter on the CPU"),
            cl::init("ref"), cl::cat(runCat));
static cl::list<std::string>
    inputs("inputs", cl::desc("safetensors files with inputs by name"),
           cl::CommaSeparated, cl::cat(runCat));
static cl::opt<uint64_t> randomInputs(
    "random-inputs",
    cl::desc("seed for random values of inputs not given in --inputs"),
    cl::cat(runCat));
static cl::opt<int64_t> intBound(
    "random-int-bound",
    cl::desc("upper bound (exclusive) for random integers whose use implies "
             "none"),
    cl::init(16), cl::cat(runCat));
static cl::opt<std::string>
    saveInputs("save-inputs",
               cl::desc("write the inputs used (e.g. random ones) to this "
                        "safetensors file"),
               cl::cat(runCat));
static cl::opt<std::string> output("o", cl::desc("write outputs to this "
                                                 "safetensors file"),
                                   cl::cat(runCat));
static cl::opt<bool> print("print", cl::desc("print outputs"), cl::cat(runCat));
static cl::opt<unsigned> printLimit("print-limit",
                                    cl::desc("elements printed per output"),
                                    cl::init(64), cl::cat(runCat));
static cl::opt<std::string>
    compare("compare", cl::desc("check outputs against this safetensors file"),
            cl::cat(runCat));
static cl::opt<double> rtolOpt("rtol", cl::desc("relative tolerance of --compare"), cl::init(1e-5), cl::cat(runCat));
static cl::opt<double> atolOpt("atol", cl::desc("absolute tolerance of --compare"), cl::init(1e-6), cl::cat(runCat));
static cl::opt<bool> f64("f64", cl::desc("keep every float in double"),
                         cl::cat(runCat));
static cl::opt<bool> checkGrads(
    "check-gradients",
    cl::desc("compare nova-autodiff gradients with finite differences (f64)"),
    cl::cat(runCat));
static cl::opt<double> gradRtol("grad-rtol", cl::init(1e-6), cl::cat(runCat));
static cl::opt<double> fdStep("fd-step", cl::init(1e-6), cl::cat(runCat));
static cl::opt<bool> trainMode("train",
                               cl::desc("run a train_step function on text"),
                               cl::cat(runCat));
static cl::opt<int> steps("steps", cl::init(100), cl::cat(runCat));
static cl::opt<std::string> text("text", cl::desc("byte-level training text"),
                                 cl::cat(runCat));
static cl::opt<std::string>
    params("params", cl::desc("initial parameters (safetensors, by name)"),
           cl::cat(runCat));
static cl::opt<std::string> save("save",
                                 cl::desc("write trained parameters here"),
                                 cl::cat(runCat));
static cl::opt<int> logEvery("log-every", cl::init(1), cl::cat(runCat));

static void printTensor(StringRef name, const ::nova::HostTensor &t) {
  outs() << name << " = tensor<" << t.typeString() << "> [";
  int64_t n = t.numElements();
  for (int64_t k = 0; k < n && k < int64_t(printLimit); ++k) {
    outs() << (k ? ", " : "");
    if (t.isFloat())
      outs() << format("%g", t.f[k]);
    else
      outs() << t.i[k];
  }
  if (n > int64_t(printLimit))
    outs() << ", ... (" << n << " elements)";
  outs() << "]\n";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCat);
  cl::ParseCommandLineOptions(argc, argv, "Nova program runner\n");

  if (backend != "ref") {
    errs() << "error: unknown backend '" << backend
           << "'; this nova-run has 'ref' (the reference interpreter)\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    errs() << "error: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  if (checkGrads && entry.empty()) {
    // Every function with parameters, each on its own random inputs.
    bool ok = true, any = false;
    for (auto fn : module->getOps<func::FuncOp>())
      if (llvm::any_of(llvm::seq(fn.getNumArguments()), [&](unsigned i) {
            return bool(fn.getArgAttr(i, NovaDialect::getParamAttrName()));
          })) {
        any = true;
        ok &= run::checkGradients(*module, fn, randomInputs, gradRtol, fdStep);
      }
    if (!any)
      errs() << "error: no function in " << inputFile
             << " has {nova.param} arguments\n";
    return ok && any ? 0 : 1;
  }

  func::FuncOp fn;
  if (entry.empty()) {
    auto fns = llvm::to_vector(module->getOps<func::FuncOp>());
    if (fns.size() != 1) {
      errs() << "error: " << inputFile << " has " << fns.size()
             << " functions; choose one with --entry\n";
      return 1;
    }
    fn = fns.front();
  } else if (!(fn = module->lookupSymbol<func::FuncOp>(entry))) {
    errs() << "error: no function @" << entry << " in " << inputFile << "\n";
    return 1;
  }

  if (checkGrads)
    return run::checkGradients(*module, fn, randomInputs, gradRtol, fdStep)
               ? 0
               : 1;
  if (trainMode) {
    run::TrainOptions t;
    t.steps = steps;
    t.textFile = text;
    t.paramsFile = params;
    t.saveFile = save;
    t.seed = randomInputs;
    t.logEvery = logEvery;
    return run::train(*module, fn, t) ? 0 : 1;
  }

  std::optional<uint64_t> seed;
  if (randomInputs.getNumOccurrences())
    seed = randomInputs;
  auto args = run::buildInputs(fn, inputs, seed, intBound);
  if (failed(args))
    return 1;
  // Writes tensors under the names `name(i)` gives them.
  auto writeNamed = [&](const std::string &path,
                        ArrayRef<::nova::HostTensor> tensors,
                        std::string (*name)(func::FuncOp, unsigned)) {
    ::nova::NamedTensors named;
    for (auto [i, t] : llvm::enumerate(tensors))
      named.push_back({name(fn, i), t});
    if (::nova::writeSafetensors(path, named, error))
      return true;
    errs() << "error: " << error << "\n";
    return false;
  };
  if (!saveInputs.empty() && !writeNamed(saveInputs, *args, run::argName))
    return 1;
  InterpreterOptions opts;
  opts.f64 = f64;
  Interpreter interp(*module, opts);
  auto results = interp.run(fn, std::move(*args));
  if (failed(results))
    return 1;

  if (print)
    for (auto [i, t] : llvm::enumerate(*results))
      printTensor(run::resultName(fn, i), t);
  if (!output.empty() && !writeNamed(output, *results, run::resultName))
    return 1;
  if (!compare.empty() &&
      !run::compareOutputs(fn, *results, compare, rtolOpt, atolOpt))
    return 1;
  return 0;
}
