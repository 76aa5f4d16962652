//===- GPT2.h - GPT-2's training loss on the capture API --------*- C++ -*-===//

#ifndef NOVA_EXAMPLES_GPT2_GPT2_H
#define NOVA_EXAMPLES_GPT2_GPT2_H

#include "nova/Frontend/Capture.h"
#include "nova/Support/Safetensors.h"

#include <cstdint>
#include <map>

namespace nova::gpt2 {

struct Config {
  int64_t layers = 12, heads = 12, embd = 768, vocab = 50304, seq = 1024,
          batch = 4;
  /// Spell LayerNorm, softmax, attention, GELU and cross-entropy out in
  /// primitive ops (reductions, exp, rsqrt, compare/select, matmul) instead
  /// of the composites: the same function, as a model ported op by op
  /// would have it.
  bool primitives = false;
};

/// Records `gpt2_loss(params..., tokens, targets) -> loss`: token and
/// position embeddings, `layers` pre-LayerNorm blocks (causal attention,
/// tanh-GELU MLP), a final LayerNorm and a head tied to the token embedding,
/// then mean cross-entropy. Parameters are named as in Hugging Face's GPT-2
/// (`wte`, `h.0.attn.c_attn.weight`, ...) with weights stored (in, out).
/// With `config.primitives` the same parameters and computation, written
/// only from primitive ops.
mlir::OwningOpRef<mlir::ModuleOp> buildLoss(mlir::MLIRContext &context,
                                            const Config &config);

/// GPT-2's initialization: N(0, 0.02) weights and embeddings, residual
/// projections N(0, 0.02 / sqrt(2 layers)), zero biases, unit LayerNorm
/// gains; deterministic for a seed.
NamedTensors initialParameters(const Config &config, uint64_t seed);

} // namespace nova::gpt2

#endif // NOVA_EXAMPLES_GPT2_GPT2_H
