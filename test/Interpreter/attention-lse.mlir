// attention_fwd's log-sum-exp and attention_bwd on inputs with known answers.
// RUN: nova-run %s --entry uniform --random-inputs 1 --print | FileCheck %s --check-prefix=UNIFORM
// RUN: nova-run %s --entry bf16 --print | FileCheck %s --check-prefix=BF16
// RUN: nova-run %s --entry empty --random-inputs 1 --print | FileCheck %s --check-prefix=EMPTY
// RUN: nova-run %s --entry backward --print | FileCheck %s --check-prefix=BWD

// Zero queries score every key 0: causal row i averages values 0..i and its
// log-sum-exp is log(i + 1).
// UNIFORM: result0 = tensor<1x3x2xf32> [1, 10, 2, 20, 3, 30]
// UNIFORM: result1 = tensor<1x3xf32> [0, 0.693147{{[0-9]*}}, 1.09861{{[0-9]*}}]
func.func @uniform(%k: tensor<1x3x4xf32>) -> (tensor<1x3x2xf32>, tensor<1x3xf32>) {
  %q = nova.constant dense<0.0> : tensor<1x3x4xf32>
  %v = nova.constant dense<[[[1.0, 10.0], [3.0, 30.0], [5.0, 50.0]]]> : tensor<1x3x2xf32>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 causal : tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x2xf32> -> tensor<1x3x2xf32>, tensor<1x3xf32>
  return %o, %lse : tensor<1x3x2xf32>, tensor<1x3xf32>
}

// bf16 operands, f32 statistic: 2 + log 3 = 3.0986123 (bf16 would round it
// to 3.09375).
// BF16: result1 = tensor<2xf32> [3.09861{{[0-9]*}}, 3.09861{{[0-9]*}}]
func.func @bf16() -> (tensor<2x2xbf16>, tensor<2xf32>) {
  %q = nova.constant dense<1.0> : tensor<2x4xbf16>
  %k = nova.constant dense<1.0> : tensor<3x4xbf16>
  %v = nova.constant dense<1.0> : tensor<3x2xbf16>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 0.5 : tensor<2x4xbf16>, tensor<3x4xbf16>, tensor<3x2xbf16> -> tensor<2x2xbf16>, tensor<2xf32>
  return %o, %lse : tensor<2x2xbf16>, tensor<2xf32>
}

// No keys: output 0 and log-sum-exp -inf (log of an empty sum); head size 0:
// every score is 0, so the statistic is log(Tk) = log 2.
// EMPTY: result0 = tensor<2x3xf32> [0, 0, 0, 0, 0, 0]
// EMPTY: result1 = tensor<2xf32> [-inf, -inf]
// EMPTY: result2 = tensor<2xf32> [0.693147{{[0-9]*}}, 0.693147{{[0-9]*}}]
// EMPTY: result3 = tensor<2x4xf32> [0, 0, 0, 0, 0, 0, 0, 0]
func.func @empty(%q: tensor<2x4xf32>, %k0: tensor<0x4xf32>, %v0: tensor<0x3xf32>, %e: tensor<2x0xf32>, %v2: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x4xf32>) {
  %o, %lse = nova.attention_fwd %q, %k0, %v0 scale 1.0 : tensor<2x4xf32>, tensor<0x4xf32>, tensor<0x3xf32> -> tensor<2x3xf32>, tensor<2xf32>
  %o2, %lse2 = nova.attention_fwd %e, %e, %v2 scale 1.0 : tensor<2x0xf32>, tensor<2x0xf32>, tensor<2x3xf32> -> tensor<2x3xf32>, tensor<2xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k0, %v0, %o, %lse, %o scale 1.0 : tensor<2x4xf32>, tensor<0x4xf32>, tensor<0x3xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>
  return %o, %lse, %lse2, %dq : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x4xf32>
}

// One query, two keys, scale 1: scores 0 and 1, p = (1, e) / (1 + e).
// With dO = 1 and v = (0, 1): dv = p, dS = p * (v - p1) = p0 p1 * (-1, 1),
// dq = dS . k = p0 p1 (k1 - k0) = p0 p1, dk = dS^T q = p0 p1 * (-1, 1).
// p0 = 0.2689414, p0 p1 = 0.1966119.
// BWD: result0 = tensor<1x1x1xf32> [0.19661{{[0-9]*}}]
// BWD: result1 = tensor<1x2x1xf32> [-0.19661{{[0-9]*}}, 0.19661{{[0-9]*}}]
// BWD: result2 = tensor<1x2x1xf32> [0.26894{{[0-9]*}}, 0.73105{{[0-9]*}}]
func.func @backward() -> (tensor<1x1x1xf32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>) {
  %q = nova.constant dense<1.0> : tensor<1x1x1xf32>
  %k = nova.constant dense<[[[0.0], [1.0]]]> : tensor<1x2x1xf32>
  %v = nova.constant dense<[[[0.0], [1.0]]]> : tensor<1x2x1xf32>
  %do = nova.constant dense<1.0> : tensor<1x1x1xf32>
  %o, %lse = nova.attention_fwd %q, %k, %v scale 1.0 : tensor<1x1x1xf32>, tensor<1x2x1xf32>, tensor<1x2x1xf32> -> tensor<1x1x1xf32>, tensor<1x1xf32>
  %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %do scale 1.0 : tensor<1x1x1xf32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>, tensor<1x1x1xf32>, tensor<1x1xf32>, tensor<1x1x1xf32>
  return %dq, %dk, %dv : tensor<1x1x1xf32>, tensor<1x2x1xf32>, tensor<1x2x1xf32>
}
