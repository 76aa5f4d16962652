//===- RefBackend.cpp - nova-run on .mlir files (reference interpreter) ---===//

#include "Common.h"
#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nova;

int run::runReference(const ::nova::run::RunOptions &o) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false); // the location says where
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(o.input, &error);
  if (!file) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  if (o.checkGradients && o.entry.empty()) {
    // Every function with parameters, each on its own random inputs.
    bool ok = true, any = false;
    for (auto fn : module->getOps<func::FuncOp>())
      if (llvm::any_of(llvm::seq(fn.getNumArguments()),
                       [&](unsigned i) { return isParameter(fn, i); })) {
        any = true;
        ok &= checkGradients(*module, fn, o.seed.value_or(0), o.gradRtol,
                             o.fdStep);
      }
    if (!any)
      llvm::errs() << "error: no function in " << o.input
                   << " has {nova.param} arguments\n";
    return ok && any ? 0 : 1;
  }

  func::FuncOp fn;
  if (o.entry.empty()) {
    auto fns = llvm::to_vector(module->getOps<func::FuncOp>());
    if (fns.size() != 1) {
      llvm::errs() << "error: " << o.input << " has " << fns.size()
                   << " functions; choose one with --entry\n";
      return 1;
    }
    fn = fns.front();
  } else if (!(fn = module->lookupSymbol<func::FuncOp>(o.entry))) {
    llvm::errs() << "error: no function @" << o.entry << " in " << o.input
                 << "\n";
    return 1;
  }

  if (o.checkGradients)
    return checkGradients(*module, fn, o.seed.value_or(0), o.gradRtol, o.fdStep)
               ? 0
               : 1;
  if (o.train)
    return train(*module, fn, o) ? 0 : 1;

  auto args = buildInputs(fn, o.inputs, o.seed, o.intBound);
  if (failed(args))
    return 1;
  auto fail = [&](const std::string &e) {
    llvm::errs() << "error: " << e << "\n";
    return 1;
  };
  if (!o.saveInputs.empty() &&
      !::nova::run::writeNamed(o.saveInputs, argNames(fn), *args, error))
    return fail(error);
  InterpreterOptions opts;
  opts.f64 = o.f64;
  Interpreter interp(*module, opts);
  auto results = interp.run(fn, std::move(*args));
  if (failed(results))
    return 1;
  std::vector<std::string> names = resultNames(fn);
  if (o.print)
    for (size_t i = 0; i < results->size(); ++i)
      ::nova::run::printTensor(names[i], (*results)[i], o.printLimit);
  if (!o.output.empty() &&
      !::nova::run::writeNamed(o.output, names, *results, error))
    return fail(error);
  if (!o.compare.empty() &&
      !::nova::run::compareNamed(names, *results, o.compare, o.rtol, o.atol))
    return 1;
  return 0;
}
