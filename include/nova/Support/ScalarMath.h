//===- ScalarMath.h - each nova scalar function, defined once -*- C++ -*-===//
//
// The constant folder, the reference interpreter and the differentiation
// rules' tests all evaluate these, so each formula is written once.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_SCALARMATH_H
#define NOVA_SUPPORT_SCALARMATH_H

#include <cmath>

namespace nova::scalar {

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }

/// GPT-2's GELU: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
inline double geluTanh(double x) {
  const double c = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

/// Exact GELU: x/2 (1 + erf(x / sqrt 2)).
inline double geluErf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

} // namespace nova::scalar

#endif // NOVA_SUPPORT_SCALARMATH_H
