//===- ScalarMathTest.cpp - nova::scalar edge cases -----------------------===//
//
// The folders and the interpreter both compute with these functions; here
// each edge case has its expected value written out independently.
//
//===----------------------------------------------------------------------===//

#include "nova/Support/ScalarMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace nova::scalar;

namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();

TEST(ScalarMath, WrapToWidth) {
  EXPECT_EQ(wrapInt(int64_t(1) << 31, 32), kMin32);
  EXPECT_EQ(wrapInt((int64_t(1) << 32) + 5, 32), 5);
  EXPECT_EQ(wrapInt(-1, 32), -1);
  EXPECT_EQ(wrapInt(kMin64, 64), kMin64);
  EXPECT_EQ(wrapInt(2, 1), 1);
  EXPECT_EQ(wrapInt(0, 1), 0);
}

TEST(ScalarMath, ArithmeticWrapsInsteadOfOverflowing) {
  EXPECT_EQ(addInt(kMax64, 1, 64), kMin64);
  EXPECT_EQ(subInt(kMin64, 1, 64), kMax64);
  EXPECT_EQ(mulInt(kMax64, 2, 64), -2);
  EXPECT_EQ(addInt(kMax32, 1, 32), kMin32);
  EXPECT_EQ(mulInt(65536, 65536, 32), 0);
  EXPECT_EQ(negInt(kMin64, 64), kMin64);
  EXPECT_EQ(negInt(kMin32, 32), kMin32);
  EXPECT_EQ(absInt(kMin64, 64), kMin64);
  EXPECT_EQ(absInt(-5, 32), 5);
}

TEST(ScalarMath, DivisionTruncatesAndWrapsTheOneOverflow) {
  EXPECT_EQ(divInt(-7, 2, 64), -3);
  EXPECT_EQ(divInt(7, -2, 32), -3);
  EXPECT_EQ(divInt(kMin64, -1, 64), kMin64);
  EXPECT_EQ(divInt(kMin32, -1, 32), kMin32);
  EXPECT_EQ(divInt(5, 0, 64), std::nullopt);
}

TEST(ScalarMath, FloatToIntTruncatesSaturatesAndZeroesNaN) {
  EXPECT_EQ(floatToInt(1e10, 32), kMax32);
  EXPECT_EQ(floatToInt(-1e10, 32), kMin32);
  EXPECT_EQ(floatToInt(2147483647.9, 32), kMax32);
  EXPECT_EQ(floatToInt(-2147483648.9, 32), kMin32);
  EXPECT_EQ(floatToInt(2.9, 32), 2);
  EXPECT_EQ(floatToInt(-2.9, 64), -2);
  EXPECT_EQ(floatToInt(-0.0, 64), 0);
  EXPECT_EQ(floatToInt(NAN, 32), 0);
  EXPECT_EQ(floatToInt(INFINITY, 64), kMax64);
  EXPECT_EQ(floatToInt(-INFINITY, 64), kMin64);
  EXPECT_EQ(floatToInt(9.3e18, 64), kMax64);
  EXPECT_EQ(floatToInt(-9223372036854775808.0, 64), kMin64);
  EXPECT_EQ(floatToInt(NAN, 1), 1);
  EXPECT_EQ(floatToInt(-0.0, 1), 0);
}

TEST(ScalarMath, IntToFloatRoundsOnceForNarrowTypes) {
  // 2^54 + 2^30 + 1: through double it lands on 2^54 + 2^30, the midpoint
  // between two floats, which ties to 2^54; rounded once it is 2^54 + 2^31.
  int64_t v = (int64_t(1) << 54) + (int64_t(1) << 30) + 1;
  EXPECT_EQ(intToFloat(v, 32), std::ldexp(1.0, 54) + std::ldexp(1.0, 31));
  EXPECT_EQ(intToFloat(v, 64), std::ldexp(1.0, 54) + std::ldexp(1.0, 30));
}

TEST(ScalarMath, MaxMinPropagateNaNAndOrderSignedZeros) {
  EXPECT_TRUE(std::isnan(maxFloat(NAN, 1.0)));
  EXPECT_TRUE(std::isnan(maxFloat(1.0, NAN)));
  EXPECT_TRUE(std::isnan(minFloat(NAN, 1.0)));
  EXPECT_FALSE(std::signbit(maxFloat(-0.0, 0.0)));
  EXPECT_FALSE(std::signbit(maxFloat(0.0, -0.0)));
  EXPECT_TRUE(std::signbit(minFloat(-0.0, 0.0)));
  EXPECT_TRUE(std::signbit(minFloat(0.0, -0.0)));
  EXPECT_EQ(maxFloat(-INFINITY, 3.0), 3.0);
}

TEST(ScalarMath, TypeRanges) {
  EXPECT_EQ(minInt(32), kMin32);
  EXPECT_EQ(maxInt(32), kMax32);
  EXPECT_EQ(minInt(64), kMin64);
  EXPECT_EQ(maxInt(64), kMax64);
  EXPECT_EQ(minInt(1), 0);
  EXPECT_EQ(maxInt(1), 1);
}

} // namespace
