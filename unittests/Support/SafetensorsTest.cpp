//===- SafetensorsTest.cpp - safetensors I/O and float formats ------------===//

#include "nova/Support/Safetensors.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace nova;

namespace {

TEST(Safetensors, RoundTripsEveryDtype) {
  NamedTensors in;
  for (DType t : {DType::F64, DType::F32, DType::BF16, DType::F16, DType::I64,
                  DType::I32, DType::I1}) {
    HostTensor x(t, {2, 3});
    for (int k = 0; k < 6; ++k) {
      if (x.isFloat())
        x.f[k] = roundTo(t, 0.37 * k - 1.1);
      else
        x.i[k] = t == DType::I1 ? k % 2 : (k - 3) * 1000003;
    }
    in.push_back({dtypeName(t), x});
  }
  in.push_back({"scalar", HostTensor(DType::F32, {})});
  in.push_back({"empty", HostTensor(DType::F32, {0, 4})});
  NamedTensors out;
  std::string error;
  ASSERT_TRUE(parseSafetensors(serializeSafetensors(in), out, error)) << error;
  ASSERT_EQ(out.size(), in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    EXPECT_EQ(out[k].first, in[k].first);
    EXPECT_EQ(out[k].second.dtype, in[k].second.dtype);
    EXPECT_EQ(out[k].second.shape, in[k].second.shape);
    EXPECT_EQ(out[k].second.f, in[k].second.f);
    EXPECT_EQ(out[k].second.i, in[k].second.i);
  }
}

TEST(FloatFormats, RoundToNearestEven) {
  // bf16 has 8 significant bits: 1 + 2^-8 is a tie and goes to the even 1.
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(roundTo(DType::BF16, 1.0 + 3 * std::ldexp(1.0, -8)),
            1.0 + std::ldexp(1.0, -6));
  // f16: 11 significant bits, max 65504, subnormals down to 2^-24.
  EXPECT_EQ(roundTo(DType::F16, 1.0 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_EQ(roundTo(DType::F16, 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundTo(DType::F16, 65520.0)));
  EXPECT_EQ(roundTo(DType::F16, std::ldexp(1.0, -24)), std::ldexp(1.0, -24));
  EXPECT_EQ(roundTo(DType::F16, std::ldexp(1.0, -26)), 0.0);
  EXPECT_TRUE(std::isnan(roundTo(DType::BF16, NAN)));
  EXPECT_TRUE(std::isnan(roundTo(DType::F16, NAN)));
  // Every f16 bit pattern survives a round trip through float.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float x = fromF16Bits(uint16_t(b));
    if (!std::isnan(x)) {
      EXPECT_EQ(toF16Bits(x), b) << b;
    }
  }
}

// Random byte flips, truncations and extensions of a valid file: the reader
// must return an error or a consistent result, never crash or overrun.
TEST(Safetensors, MutatedFilesNeverCrashTheReader) {
  NamedTensors in;
  HostTensor a(DType::F32, {3, 4}), b(DType::I64, {5});
  in.push_back({"a", a});
  in.push_back({"b", b});
  const std::string valid = serializeSafetensors(in);
  std::mt19937_64 rng(42);
  int accepted = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes = valid;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 4) {
      case 0:
        bytes[rng() % bytes.size()] = char(rng());
        break;
      case 1:
        bytes.resize(rng() % (bytes.size() + 1));
        break;
      case 2:
        bytes.insert(rng() % (bytes.size() + 1), 1, char(rng()));
        break;
      case 3: // digits in the header are where offsets and shapes live
        if (size_t p = bytes.find_first_of("0123456789", 8 + rng() % 64);
            p != std::string::npos)
          bytes[p] = char('0' + rng() % 10);
        break;
      }
      if (bytes.empty())
        break;
    }
    NamedTensors out;
    std::string error;
    if (parseSafetensors(bytes, out, error)) {
      ++accepted;
      for (auto &[name, t] : out)
        EXPECT_EQ(int64_t(t.isFloat() ? t.f.size() : t.i.size()),
                  t.numElements());
    } else {
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(accepted, 0); // some mutations (data bytes) stay valid
}

} // namespace
