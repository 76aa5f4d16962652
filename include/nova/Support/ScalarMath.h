//===- ScalarMath.h - each nova scalar function, defined once -*- C++ -*-===//
//
// The constant folder, the reference interpreter and the differentiation
// rules' tests all evaluate these, so each formula is written once and a
// folded program computes exactly what the unfolded one does.
//
// Floats are computed in double and rounded to the element type afterwards
// (nova::roundTo). Integers are held in int64_t and `bits` is the element
// type's width (1, 32 or 64): arithmetic wraps to that width as two's
// complement hardware does, never with C++'s undefined signed overflow. An i1
// holds 0 or 1, and any nonzero result is 1.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_SCALARMATH_H
#define NOVA_SUPPORT_SCALARMATH_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace nova::scalar {

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

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

/// The larger operand; NaN if either is NaN (as torch.maximum), and +0 over
/// -0, so the answer does not depend on the operands' order.
inline double maxFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// The smaller operand; NaN if either is NaN, and -0 under +0.
inline double minFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

/// `v` wrapped to a `bits`-wide two's complement integer, sign-extended
/// (i1: 1 for any nonzero value).
inline int64_t wrapInt(int64_t v, unsigned bits) {
  if (bits == 1)
    return v != 0;
  if (bits >= 64)
    return v;
  uint64_t sign = uint64_t(1) << (bits - 1), mask = (sign << 1) - 1;
  uint64_t low = uint64_t(v) & mask;
  return int64_t((low ^ sign) - sign);
}

/// The smallest and largest values of a `bits`-wide signed integer (i1: 0 and
/// 1, as it holds booleans).
inline int64_t minInt(unsigned bits) {
  if (bits == 1)
    return 0;
  return bits >= 64 ? std::numeric_limits<int64_t>::min()
                    : -(int64_t(1) << (bits - 1));
}
inline int64_t maxInt(unsigned bits) {
  if (bits == 1)
    return 1;
  return bits >= 64 ? std::numeric_limits<int64_t>::max()
                    : (int64_t(1) << (bits - 1)) - 1;
}

// Computed in uint64_t, where overflow is defined, then wrapped.
inline int64_t addInt(int64_t a, int64_t b, unsigned bits) {
  return wrapInt(int64_t(uint64_t(a) + uint64_t(b)), bits);
}
inline int64_t subInt(int64_t a, int64_t b, unsigned bits) {
  return wrapInt(int64_t(uint64_t(a) - uint64_t(b)), bits);
}
inline int64_t mulInt(int64_t a, int64_t b, unsigned bits) {
  return wrapInt(int64_t(uint64_t(a) * uint64_t(b)), bits);
}
/// -INT_MIN wraps to INT_MIN.
inline int64_t negInt(int64_t a, unsigned bits) { return subInt(0, a, bits); }
/// |INT_MIN| wraps to INT_MIN, as torch.abs does.
inline int64_t absInt(int64_t a, unsigned bits) {
  return a < 0 ? negInt(a, bits) : a;
}

/// Division truncating toward zero (C's, not Python's floor division).
/// nullopt for a zero divisor, which is an error; the one quotient that
/// overflows, INT_MIN / -1, wraps to INT_MIN like the other integer ops.
inline std::optional<int64_t> divInt(int64_t a, int64_t b, unsigned bits) {
  if (b == 0)
    return std::nullopt;
  if (b == -1) // INT64_MIN / -1 is undefined in C++
    return negInt(a, bits);
  return wrapInt(a / b, bits);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

/// A float converted to a `bits`-wide integer: truncated toward zero and
/// saturated to the type's range; NaN gives 0. To i1: nonzero (NaN included)
/// is 1, as bool(x) in C++ and PyTorch.
inline int64_t floatToInt(double x, unsigned bits) {
  if (bits == 1)
    return x != 0;
  if (std::isnan(x))
    return 0;
  double t = std::trunc(x);
  // 2^(bits-1) is exact in double; every value below it converts exactly.
  double limit = std::ldexp(1.0, int(bits) - 1);
  if (t >= limit)
    return maxInt(bits);
  if (t < -limit)
    return minInt(bits);
  return int64_t(t);
}

/// An integer converted to a float of `floatBits` (64, 32, 16), before the
/// rounding to the element type: through float for the narrow types, as
/// PyTorch converts, so an i64 rounds once to f32 and not first to double.
inline double intToFloat(int64_t v, unsigned floatBits) {
  return floatBits == 64 ? double(v) : double(float(v));
}

/// An integer converted to another integer type of `bits`: wrapped (i1:
/// nonzero is 1).
inline int64_t intToInt(int64_t v, unsigned bits) { return wrapInt(v, bits); }

} // namespace nova::scalar

#endif // NOVA_SUPPORT_SCALARMATH_H
