//===- nova-gpt2.cpp - emit GPT-2's training loss as nova IR --------------===//
//
//   nova-gpt2 [--layers 12 --heads 12 --embd 768 --vocab 50304 --seq 1024
//              --batch 4] [--primitives] [-o gpt2.mlir]
//              [--init-params init.safetensors --seed 0]
//
// Sizes are checked before anything is built, and each output file is
// written whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "GPT2.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory cat("nova-gpt2 options");
static cl::opt<int64_t> layers("layers",
                               cl::desc("transformer blocks, 1 to 10000 "
                                        "(default 12)"),
                               cl::init(12), cl::cat(cat));
static cl::opt<int64_t> heads("heads",
                              cl::desc("attention heads; must divide --embd "
                                       "(default 12)"),
                              cl::init(12), cl::cat(cat));
static cl::opt<int64_t> embd("embd", cl::desc("model width (default 768)"),
                             cl::init(768), cl::cat(cat));
static cl::opt<int64_t> vocab("vocab",
                              cl::desc("vocabulary size (default 50304)"),
                              cl::init(50304), cl::cat(cat));
static cl::opt<int64_t> seqLen("seq",
                               cl::desc("sequence length, also the number of "
                                        "positions (default 1024)"),
                               cl::init(1024), cl::cat(cat));
static cl::opt<int64_t> batch("batch",
                              cl::desc("sequences per batch (default 4)"),
                              cl::init(4), cl::cat(cat));
static cl::opt<std::string> output("o",
                                   cl::desc("output .mlir file, '-' for "
                                            "stdout (default -)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(cat));
static cl::opt<std::string>
    initParams("init-params",
               cl::desc("also write GPT-2-initialized parameters to this "
                        "safetensors file (default: none)"),
               cl::value_desc("file"), cl::cat(cat));
static cl::opt<uint64_t>
    seed("seed", cl::desc("random seed of --init-params (default 0)"),
         cl::init(0), cl::cat(cat));
static cl::opt<bool> primitives(
    "primitives",
    cl::desc("write LayerNorm, softmax, attention, GELU and cross-entropy "
             "from primitive ops only (same parameters and loss; default "
             "off)"),
    cl::cat(cat));
static cl::opt<bool>
    locations("locations",
              cl::desc("print each op's location, the GPT2.cpp line that "
                       "recorded it (default off)"),
              cl::cat(cat));

/// Caps that keep a typo from asking for unbounded memory: far above any
/// GPT, far below what would exhaust a machine.
static constexpr int64_t maxLayers = 10000;
static constexpr uint64_t maxParameterBytes = uint64_t(8) << 30;

static std::optional<int64_t>
checkedProduct(std::initializer_list<int64_t> xs) {
  std::vector<int64_t> shape(xs);
  return nova::checkedNumElements(shape);
}

/// The number of parameters, or an error when a size is out of range or a
/// tensor of the model has more elements than int64 counts.
static Expected<int64_t> checkSizes(const nova::gpt2::Config &c) {
  for (auto [name, v] : {std::pair<const char *, int64_t>{"layers", c.layers},
                         {"heads", c.heads},
                         {"embd", c.embd},
                         {"vocab", c.vocab},
                         {"seq", c.seq},
                         {"batch", c.batch}})
    if (v < 1)
      return createStringError("--" + std::string(name) +
                               " must be at least 1, got " + std::to_string(v));
  if (c.layers > maxLayers)
    return createStringError("--layers " + std::to_string(c.layers) +
                             " is over the limit of " +
                             std::to_string(maxLayers));
  if (c.embd % c.heads != 0)
    return createStringError("embd (" + std::to_string(c.embd) +
                             ") must be a multiple of heads (" +
                             std::to_string(c.heads) + ")");
  const int64_t B = c.batch, T = c.seq, C = c.embd, V = c.vocab, H = c.heads;
  // The largest tensors the model makes: logits, attention scores, the
  // MLP's hidden layer, q/k/v, and the parameters.
  for (std::optional<int64_t> n :
       {checkedProduct({B, T, V}), checkedProduct({B, H, T, T}),
        checkedProduct({B, T, 4, C}), checkedProduct({V, C}),
        checkedProduct({4, C, C})})
    if (!n)
      return createStringError("a tensor of this model would have more than "
                               "2^63 elements");
  // wte, wpe, per layer 12 C^2 + 13 C, and the final LayerNorm.
  std::optional<int64_t> perLayer = checkedProduct({12, C, C});
  std::optional<int64_t> total;
  if (perLayer && !__builtin_add_overflow(*perLayer, 13 * C, &*perLayer))
    if (std::optional<int64_t> all = checkedProduct({c.layers, *perLayer})) {
      int64_t sum = *all;
      if (!__builtin_add_overflow(sum, V * C, &sum) &&
          !__builtin_add_overflow(sum, T * C + 2 * C, &sum))
        total = sum;
    }
  if (!total)
    return createStringError("the model would have more than 2^63 "
                             "parameters");
  return *total;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::SetVersionPrinter(
      [](raw_ostream &os) { os << "nova-gpt2 (Nova) " NOVA_VERSION "\n"; });
  cl::ParseCommandLineOptions(
      argc, argv,
      "Records GPT-2's training loss with Nova's capture API and prints it "
      "as one func.func of nova ops (@gpt2_loss: parameters, tokens, targets "
      "-> loss). The defaults are GPT-2 124M.\n");
  nova::gpt2::Config config{layers, heads, embd, vocab, seqLen, batch};
  config.primitives = primitives;
  Expected<int64_t> parameters = checkSizes(config);
  if (!parameters) {
    errs() << "nova-gpt2: error: " << toString(parameters.takeError()) << "\n";
    return 1;
  }
  std::optional<uint64_t> parameterBytes =
      nova::checkedBytes(*parameters, sizeof(float));
  if (!initParams.empty() &&
      (!parameterBytes || *parameterBytes > maxParameterBytes)) {
    errs() << "nova-gpt2: error: --init-params: " << *parameters
           << " parameters take more than the writer's limit of "
           << maxParameterBytes << " bytes as f32\n";
    return 1;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  try {
    module = nova::gpt2::buildLoss(context, config);
  } catch (const mlir::nova::capture::Error &e) {
    errs() << e.what() << "\n";
    return 1;
  }
  // Everything is computed before the first file is written.
  nova::NamedTensors params;
  if (!initParams.empty())
    params = nova::gpt2::initialParameters(config, seed);
  mlir::OpPrintingFlags flags;
  if (locations)
    flags.enableDebugInfo().useLocalScope(); // inline loc(...), no aliases
  // Through a temporary file renamed on success ('-' is stdout).
  if (Error e = writeToOutput(output, [&](raw_ostream &out) {
        module->print(out, flags);
        return Error::success();
      })) {
    errs() << "nova-gpt2: error: cannot write '" << output
           << "': " << toString(std::move(e)) << "\n";
    return 1;
  }
  if (!initParams.empty()) {
    std::string error;
    if (!nova::writeSafetensors(initParams, params, error)) {
      errs() << "nova-gpt2: error: " << error << "\n";
      return 1;
    }
  }
  return 0;
}
