//===- GPT2.cpp - GPT-2's training loss on the capture API ----------------===//

#include "GPT2.h"

#include <cmath>
#include <random>
#include <string>

using namespace mlir;
using namespace mlir::nova::capture;

namespace nova::gpt2 {
namespace {

/// The parameters of one model, in the order they become arguments.
struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
  enum Init { Normal, Residual, Zeros, Ones } init;
};

std::vector<ParamSpec> parameterSpecs(const Config &c) {
  std::vector<ParamSpec> specs{{"wte", {c.vocab, c.embd}, ParamSpec::Normal},
                               {"wpe", {c.seq, c.embd}, ParamSpec::Normal}};
  for (int64_t l = 0; l < c.layers; ++l) {
    std::string h = "h." + std::to_string(l) + ".";
    auto add = [&](std::string n, std::vector<int64_t> s, ParamSpec::Init i) {
      specs.push_back({h + n, std::move(s), i});
    };
    add("ln_1.weight", {c.embd}, ParamSpec::Ones);
    add("ln_1.bias", {c.embd}, ParamSpec::Zeros);
    add("attn.c_attn.weight", {c.embd, 3 * c.embd}, ParamSpec::Normal);
    add("attn.c_attn.bias", {3 * c.embd}, ParamSpec::Zeros);
    add("attn.c_proj.weight", {c.embd, c.embd}, ParamSpec::Residual);
    add("attn.c_proj.bias", {c.embd}, ParamSpec::Zeros);
    add("ln_2.weight", {c.embd}, ParamSpec::Ones);
    add("ln_2.bias", {c.embd}, ParamSpec::Zeros);
    add("mlp.c_fc.weight", {c.embd, 4 * c.embd}, ParamSpec::Normal);
    add("mlp.c_fc.bias", {4 * c.embd}, ParamSpec::Zeros);
    add("mlp.c_proj.weight", {4 * c.embd, c.embd}, ParamSpec::Residual);
    add("mlp.c_proj.bias", {c.embd}, ParamSpec::Zeros);
  }
  specs.push_back({"ln_f.weight", {c.embd}, ParamSpec::Ones});
  specs.push_back({"ln_f.bias", {c.embd}, ParamSpec::Zeros});
  return specs;
}

// The composites of the model written out in primitive ops, as PyTorch
// code ported op by op would have them; the definitions match the
// composites' (biased variance, tanh GELU, mean over labels that are not
// -100).

Tensor layerNormFromPrimitives(const Tensor &x, const Tensor &weight,
                               const Tensor &bias, double epsilon = 1e-5) {
  int64_t last = x.rank() - 1;
  Tensor centered = x - mean(x, {last}, /*keepDims=*/true);
  Tensor variance = mean(centered * centered, {last}, /*keepDims=*/true);
  return centered * rsqrt(variance + epsilon) * weight + bias;
}

Tensor softmaxFromPrimitives(const Tensor &x) {
  int64_t last = x.rank() - 1;
  Tensor e = exp(x - max(x, {last}, /*keepDims=*/true));
  return e / sum(e, {last}, /*keepDims=*/true);
}

/// softmax(scale * q k^T, keys after the query masked by -inf) v.
Tensor causalAttentionFromPrimitives(Graph &g, const Tensor &q, const Tensor &k,
                                     const Tensor &v, double scale) {
  int64_t t = q.dim(-2);
  Tensor scores = matmul(q, k, false, /*transposeB=*/true) * scale;
  Tensor query = iota(g, {t, t}, g.i64(), 0), key = iota(g, {t, t}, g.i64(), 1);
  Tensor keep = compare(key, query, mlir::nova::CmpPredicate::le);
  Tensor masked = select(keep, scores, g.scalar(-INFINITY));
  return matmul(softmaxFromPrimitives(masked), v);
}

/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Tensor geluFromPrimitives(const Tensor &x) {
  Tensor inner = (x + x * x * x * 0.044715) * std::sqrt(2.0 / M_PI);
  return x * 0.5 * (tanh(inner) + 1.0);
}

/// Mean negative log-likelihood of `labels` under log-softmax(logits),
/// picked by a one-hot select; labels equal to -100 are not counted.
Tensor crossEntropyFromPrimitives(Graph &g, const Tensor &logits,
                                  const Tensor &labels) {
  int64_t last = logits.rank() - 1;
  Tensor shifted = logits - max(logits, {last}, /*keepDims=*/true);
  Tensor logProbs = shifted - log(sum(exp(shifted), {last}, /*keepDims=*/true));
  std::vector<int64_t> column(labels.shape().begin(), labels.shape().end());
  column.push_back(1);
  Tensor classes = iota(g, {logits.dim(-1)}, labels.elementType(), 0);
  Tensor oneHot =
      compare(reshape(labels, column), classes, mlir::nova::CmpPredicate::eq);
  Tensor picked = select(oneHot, logProbs, g.scalar(0.0));
  Tensor counted = compare(labels, g.scalar(-100, labels.elementType()),
                           mlir::nova::CmpPredicate::ne);
  return -sum(picked) / sum(cast(counted, g.f32()));
}

} // namespace

OwningOpRef<ModuleOp> buildLoss(MLIRContext &context, const Config &c) {
  if (c.embd % c.heads != 0)
    throw Error(Where(), "embd (" + std::to_string(c.embd) +
                             ") must be a multiple of heads (" +
                             std::to_string(c.heads) + ")");
  Graph g(context, "gpt2_loss");
  std::map<std::string, Tensor> p;
  for (const ParamSpec &s : parameterSpecs(c))
    p[s.name] = g.param(s.name, s.shape);
  Tensor tokens = g.input("tokens", {c.batch, c.seq}, g.i32());
  Tensor targets = g.input("targets", {c.batch, c.seq}, g.i32());

  const int64_t B = c.batch, T = c.seq, C = c.embd, H = c.heads, D = C / H;
  auto norm = [&](const Tensor &t, const Tensor &weight, const Tensor &bias) {
    return c.primitives ? layerNormFromPrimitives(t, weight, bias)
                        : layer_norm(t, weight, bias);
  };
  auto attend = [&](const Tensor &q, const Tensor &k, const Tensor &v) {
    double scale = 1.0 / std::sqrt(double(D));
    return c.primitives ? causalAttentionFromPrimitives(g, q, k, v, scale)
                        : attention(q, k, v, scale, /*causal=*/true);
  };
  Tensor positions = iota(g, {T}, g.i32(), 0);
  Tensor x = gather(p["wte"], tokens) + gather(p["wpe"], positions);
  // (B, T, C) -> (B, H, T, D) and back.
  auto splitHeads = [&](const Tensor &t) {
    return transpose(reshape(t, {B, T, H, D}), {0, 2, 1, 3});
  };
  for (int64_t l = 0; l < c.layers; ++l) {
    std::string h = "h." + std::to_string(l) + ".";
    auto w = [&](const std::string &n) { return p[h + n]; };
    Tensor a = norm(x, w("ln_1.weight"), w("ln_1.bias"));
    Tensor qkv = matmul(a, w("attn.c_attn.weight")) + w("attn.c_attn.bias");
    Tensor q = splitHeads(slice(qkv, {0, 0, 0}, {B, T, C}));
    Tensor k = splitHeads(slice(qkv, {0, 0, C}, {B, T, 2 * C}));
    Tensor v = splitHeads(slice(qkv, {0, 0, 2 * C}, {B, T, 3 * C}));
    Tensor o = attend(q, k, v);
    o = reshape(transpose(o, {0, 2, 1, 3}), {B, T, C});
    x = x + (matmul(o, w("attn.c_proj.weight")) + w("attn.c_proj.bias"));
    Tensor m = norm(x, w("ln_2.weight"), w("ln_2.bias"));
    m = matmul(m, w("mlp.c_fc.weight")) + w("mlp.c_fc.bias");
    m = c.primitives ? geluFromPrimitives(m) : gelu(m);
    x = x + (matmul(m, w("mlp.c_proj.weight")) + w("mlp.c_proj.bias"));
  }
  x = norm(x, p["ln_f.weight"], p["ln_f.bias"]);
  Tensor logits = matmul(x, p["wte"], false, /*transposeB=*/true);
  Tensor loss = c.primitives ? crossEntropyFromPrimitives(g, logits, targets)
                             : cross_entropy(logits, targets);
  return g.finish({loss}, {"loss"});
}

NamedTensors initialParameters(const Config &c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double residualStd = 0.02 / std::sqrt(2.0 * double(c.layers));
  NamedTensors out;
  for (const ParamSpec &s : parameterSpecs(c)) {
    HostTensor t(DType::F32, s.shape);
    for (double &v : t.f) {
      switch (s.init) {
      case ParamSpec::Normal:
        v = roundTo(DType::F32, 0.02 * normal(rng));
        break;
      case ParamSpec::Residual:
        v = roundTo(DType::F32, residualStd * normal(rng));
        break;
      case ParamSpec::Zeros:
        v = 0.0;
        break;
      case ParamSpec::Ones:
        v = 1.0;
        break;
      }
    }
    out.push_back({s.name, std::move(t)});
  }
  return out;
}

} // namespace nova::gpt2
