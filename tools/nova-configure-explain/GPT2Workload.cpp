//===- GPT2Workload.cpp - a GPT-2 step's kernels as problems --------------===//

#include "GPT2Workload.h"

namespace nova {

std::vector<Problem> gpt2TrainingProblems(int64_t layers, int64_t embd,
                                          int64_t heads, int64_t vocab,
                                          int64_t seq, int64_t batch,
                                          DType dtype) {
  const int64_t bt = batch * seq, c = embd, d = embd / heads;
  std::vector<Problem> out;
  auto add = [&](KernelFamily f, int64_t b, int64_t m, int64_t n, int64_t k,
                 bool causal = false, int64_t bytesPerElement = 0) {
    Problem p;
    p.family = f;
    p.dtype = dtype;
    p.batch = b;
    p.m = m;
    p.n = n;
    p.k = k;
    p.causal = causal;
    p.bytesPerElement = bytesPerElement;
    out.push_back(p);
  };
  using F = KernelFamily;
  // TF32: the products that read a weight K-major (the input gradient
  // dy W^T of a weight stored [in, out], the tied head's logits x wte^T)
  // take it rounded ahead by a copy kernel of its own (nova-fuse), one
  // read and one write of the weight.
  const bool tf32 = dtype == DType::F32;
  auto roundedAhead = [&](int64_t elements) {
    if (!tf32)
      return;
    out.back().roundedKMajorB = true;
    add(F::Pointwise, 1, elements, 1, 1, false, 2 * 4);
  };
  // A linear layer: forward, input gradient, weight gradient, bias gradient.
  // The forward x W (W stored [in, out]) and the weight gradient x^T dy
  // read B N-major: the kernel transposes it as it rounds it.
  auto nMajorB = [&] { out.back().nMajorB = tf32; };
  auto linear = [&](int64_t in, int64_t outF) {
    add(F::Matmul, 1, bt, outF, in);
    nMajorB();
    add(F::Matmul, 1, bt, in, outF);
    roundedAhead(in * outF);
    add(F::Matmul, 1, in, outF, bt);
    nMajorB();
    add(F::ColumnReduction, 1, bt, outF, 1);
  };
  add(F::Gather, 1, bt, c, vocab);
  add(F::Pointwise, 1, bt * c, 1, 1);
  for (int64_t l = 0; l < layers; ++l) {
    for (int ln = 0; ln < 2; ++ln) {
      add(F::RowReduction, 1, bt, c, 1);    // forward
      add(F::RowReduction, 1, bt, c, 1);    // input gradient
      add(F::ColumnReduction, 1, bt, c, 1); // weight and bias gradients
    }
    linear(c, 3 * c);
    add(F::AttentionForward, batch * heads, seq, seq, d, true);
    add(F::AttentionBackward, batch * heads, seq, seq, d, true);
    linear(c, c);
    linear(c, 4 * c);
    add(F::Pointwise, 1, bt * 4 * c, 1, 1); // gelu
    add(F::Pointwise, 1, bt * 4 * c, 1, 1); // its gradient
    linear(4 * c, c);
    add(F::Pointwise, 1, bt * c, 1, 1); // residual adds
    add(F::Pointwise, 1, bt * c, 1, 1);
  }
  add(F::RowReduction, 1, bt, c, 1);
  add(F::Matmul, 1, bt, vocab, c);       // logits (tied head)
  roundedAhead(vocab * c);
  add(F::RowReduction, 1, bt, vocab, 1); // cross-entropy and its gradient
  add(F::Matmul, 1, bt, c, vocab);       // dx = dlogits wte: wte N-major
  nMajorB();
  add(F::Matmul, 1, vocab, c, bt); // dwte = dlogits^T x: x N-major
  nMajorB();
  add(F::ScatterAdd, 1, bt, c, vocab);
  int64_t params = vocab * c + seq * c + layers * 12 * c * c + 13 * layers * c;
  add(F::Pointwise, 1, params, 1, 1, false, 7 * 4); // AdamW: 4 reads, 3 writes
  return out;
}

} // namespace nova
