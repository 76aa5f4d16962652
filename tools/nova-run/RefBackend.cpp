//===- RefBackend.cpp - nova-run on .mlir files (reference interpreter) ---===//

#include "Common.h"
#include "RunSupport.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/InitAllDialects.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nova;

/// The SSA names of every function's arguments, as the parser saw them.
static run::SourceNames sourceNames(const AsmParserState &state) {
  run::SourceNames names;
  for (const AsmParserState::BlockDefinition &def : state.getBlockDefs()) {
    Block *block = def.block;
    if (!block->isEntryBlock() || !isa<func::FuncOp>(block->getParentOp()))
      continue;
    for (auto [arg, d] : llvm::zip(block->getArguments(), def.arguments)) {
      StringRef text(d.loc.Start.getPointer(),
                     d.loc.End.getPointer() - d.loc.Start.getPointer());
      if (text.consume_front("%") && !text.empty())
        names[arg] = text.str();
    }
  }
  return names;
}

/// The function to run: --entry, else the only function with a body.
static func::FuncOp selectEntry(ModuleOp module,
                                const ::nova::run::RunOptions &o) {
  if (o.entry.empty()) {
    auto defined = llvm::to_vector(llvm::make_filter_range(
        module.getOps<func::FuncOp>(),
        [](func::FuncOp f) { return !f.isExternal(); }));
    if (defined.size() == 1)
      return defined.front();
    llvm::errs() << "error: " << o.input << " has " << defined.size()
                 << " functions with a body"
                 << (defined.empty() ? "; nothing to run\n"
                                     : "; choose one with --entry\n");
    return {};
  }
  auto fn = module.lookupSymbol<func::FuncOp>(o.entry);
  if (!fn) {
    llvm::errs() << "error: no function @" << o.entry << " in " << o.input
                 << "\n";
    return {};
  }
  if (fn.isExternal()) {
    fn.emitError("@") << o.entry
                      << " is a declaration without a body; nothing to run";
    return {};
  }
  return fn;
}

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
  // Parsed with the parser's state to learn the arguments' SSA names.
  Block parsed;
  AsmParserState parserState;
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, ParserConfig(&context),
                                &parserState)))
    return 1;
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context, FileLineColLoc::get(&context, o.input, 0, 0));
  if (!module)
    return 1;
  SourceNames names = sourceNames(parserState);

  if (o.checkGradients && o.entry.empty()) {
    // Every function with parameters, each on its own random inputs.
    bool ok = true, any = false;
    for (auto fn : module->getOps<func::FuncOp>())
      if (!fn.isExternal() &&
          llvm::any_of(llvm::seq(fn.getNumArguments()),
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

  func::FuncOp fn = selectEntry(*module, o);
  if (!fn)
    return 1;
  if (o.checkGradients)
    return checkGradients(*module, fn, o.seed.value_or(0), o.gradRtol, o.fdStep)
               ? 0
               : 1;
  if (o.train)
    return train(*module, fn, o) ? 0 : 1;

  auto args = buildInputs(fn, o.inputs, o.seed, o.intBound, names);
  if (failed(args))
    return 1;
  if (o.detectAnomaly && failed(checkFiniteInputs(fn, *args, names)))
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
  opts.poisonDeadBuffers = !o.noPoison;
  Interpreter interp(*module, opts);
  // --detect-anomaly needs the arguments again to find the op.
  auto results = o.detectAnomaly ? interp.run(fn, *args)
                                 : interp.run(fn, std::move(*args));
  if (failed(results))
    return 1;
  if (o.detectAnomaly &&
      failed(locateNonFinite(*module, fn, *args, *results, opts)))
    return 1;
  std::vector<std::string> resNames = resultNames(fn);
  if (o.print)
    for (size_t i = 0; i < results->size(); ++i)
      ::nova::run::printTensor(resNames[i], (*results)[i], o.printLimit);
  if (!o.output.empty() &&
      !::nova::run::writeNamed(o.output, resNames, *results, error))
    return fail(error);
  if (!o.compare.empty() &&
      !::nova::run::compareNamed(resNames, *results, o.compare, o.rtol, o.atol,
                    o.normRtol))
    return 1;
  return 0;
}
