//===- nova-gpt2.cpp - emit GPT-2's training loss as nova IR --------------===//
//
//   nova-gpt2 [--layers 12 --heads 12 --embd 768 --vocab 50304 --seq 1024
//              --batch 4] [-o gpt2.mlir] [--init-params init.safetensors
//              --seed 0]
//
//===----------------------------------------------------------------------===//

#include "GPT2.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory cat("nova-gpt2 options");
static cl::opt<int64_t> layers("layers", cl::init(12), cl::cat(cat));
static cl::opt<int64_t> heads("heads", cl::init(12), cl::cat(cat));
static cl::opt<int64_t> embd("embd", cl::init(768), cl::cat(cat));
static cl::opt<int64_t> vocab("vocab", cl::init(50304), cl::cat(cat));
static cl::opt<int64_t> seqLen("seq", cl::init(1024), cl::cat(cat));
static cl::opt<int64_t> batch("batch", cl::init(4), cl::cat(cat));
static cl::opt<std::string> output("o", cl::desc("output .mlir (default -)"),
                                   cl::init("-"), cl::cat(cat));
static cl::opt<std::string>
    initParams("init-params",
               cl::desc("also write GPT-2-initialized parameters here"),
               cl::cat(cat));
static cl::opt<uint64_t> seed("seed", cl::init(0), cl::cat(cat));
static cl::opt<bool>
    locations("locations",
              cl::desc("print each op's location (the GPT2.cpp line that "
                       "recorded it)"),
              cl::cat(cat));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "Emit GPT-2's training loss (nova dialect)\n");
  for (auto [name, v] : {std::pair<const char *, int64_t>{"layers", layers},
                         {"heads", heads},
                         {"embd", embd},
                         {"vocab", vocab},
                         {"seq", seqLen},
                         {"batch", batch}})
    if (v < 1) {
      errs() << "error: --" << name << " must be at least 1, got " << v << "\n";
      return 1;
    }
  nova::gpt2::Config config{layers, heads, embd, vocab, seqLen, batch};
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  try {
    module = nova::gpt2::buildLoss(context, config);
  } catch (const mlir::nova::capture::Error &e) {
    errs() << e.what() << "\n";
    return 1;
  }
  std::error_code ec;
  raw_fd_ostream out(output, ec, sys::fs::OF_Text);
  if (ec) {
    errs() << "error: cannot write '" << output << "': " << ec.message()
           << "\n";
    return 1;
  }
  mlir::OpPrintingFlags flags;
  if (locations)
    flags.enableDebugInfo().useLocalScope(); // inline loc(...), no aliases
  module->print(out, flags);
  if (!initParams.empty()) {
    std::string error;
    if (!nova::writeSafetensors(
            initParams, nova::gpt2::initialParameters(config, seed), error)) {
      errs() << "error: " << error << "\n";
      return 1;
    }
  }
  return 0;
}
