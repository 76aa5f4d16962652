//===- HostTensor.cpp - tensors in host memory ----------------------------===//

#include "nova/Support/HostTensor.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace nova {

bool isFloat(DType t) {
  return t == DType::F64 || t == DType::F32 || t == DType::BF16 ||
         t == DType::F16;
}

unsigned byteWidth(DType t) {
  switch (t) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::I1:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F64:
    return "F64";
  case DType::F32:
    return "F32";
  case DType::BF16:
    return "BF16";
  case DType::F16:
    return "F16";
  case DType::I64:
    return "I64";
  case DType::I32:
    return "I32";
  case DType::I1:
    return "BOOL";
  }
  return "?";
}

std::optional<DType> dtypeFromName(const std::string &name) {
  for (DType t : {DType::F64, DType::F32, DType::BF16, DType::F16, DType::I64,
                  DType::I32, DType::I1})
    if (name == dtypeName(t))
      return t;
  return std::nullopt;
}

uint16_t toBF16Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet, keep the sign
    return uint16_t((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return uint16_t(b >> 16);
}

float roundToTF32(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  if ((b & 0x7f800000) == 0x7f800000) // Inf and NaN are kept as they are
    return x;
  // Drop the 13 low mantissa bits, rounding to nearest even; a carry into
  // the exponent is the right answer, up to Inf.
  b += 0xfff + ((b >> 13) & 1);
  b &= ~uint32_t(0x1fff);
  std::memcpy(&x, &b, 4);
  return x;
}

float fromBF16Bits(uint16_t h) {
  uint32_t b = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

uint16_t toF16Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  uint16_t sign = uint16_t((b >> 16) & 0x8000);
  uint32_t mag = b & 0x7fffffff;
  if (mag >= 0x7f800000) // inf or NaN
    return sign | 0x7c00 | (mag > 0x7f800000 ? 0x200 : 0);
  if (mag >= 0x477ff000) // >= 65520 rounds to infinity
    return sign | 0x7c00;
  if (mag < 0x38800000) { // below 2^-14: subnormal, in units of 2^-24
    float a;
    std::memcpy(&a, &mag, 4);
    return sign | uint16_t(std::nearbyint(a * 16777216.0f));
  }
  uint32_t mant = mag & 0x7fffff;
  uint32_t h = (((mag >> 23) - 112) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h; // a carry into the exponent is the correct rounding
  return sign | uint16_t(h);
}

float fromF16Bits(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  if (exp == 0)
    return sign * std::ldexp(float(mant), -24);
  if (exp == 31)
    return mant ? std::nanf("") : sign * INFINITY;
  return sign * std::ldexp(float(mant | 0x400), exp - 25);
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::optional<int64_t> checkedNumElements(const int64_t *dims, size_t rank) {
  // A zero dimension makes the tensor empty whatever the others are, so the
  // answer does not depend on the order in which dimensions are multiplied.
  bool empty = false;
  for (size_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return std::nullopt;
    empty |= dims[d] == 0;
  }
  if (empty)
    return 0;
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d)
    if (__builtin_mul_overflow(n, dims[d], &n))
      return std::nullopt;
  return n;
}

std::optional<uint64_t> checkedBytes(int64_t elements, uint64_t bytesPerElement) {
  uint64_t bytes;
  if (elements < 0 ||
      __builtin_mul_overflow(uint64_t(elements), bytesPerElement, &bytes))
    return std::nullopt;
  return bytes;
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    s[d] = s[d + 1] * shape[d + 1];
  return s;
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  if (nova::isFloat(dtype))
    f.assign(numElements(), 0.0);
  else
    i.assign(numElements(), 0);
}

int64_t HostTensor::numElements() const { return nova::numElements(shape); }

std::string typeString(DType dtype, const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  switch (dtype) {
  case DType::F64:
    return s + "f64";
  case DType::F32:
    return s + "f32";
  case DType::BF16:
    return s + "bf16";
  case DType::F16:
    return s + "f16";
  case DType::I64:
    return s + "i64";
  case DType::I32:
    return s + "i32";
  case DType::I1:
    return s + "i1";
  }
  return s;
}

std::string HostTensor::typeString() const {
  return nova::typeString(dtype, shape);
}

bool readFileBytes(const std::string &path, std::string &bytes,
                   std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  bytes = buffer.str();
  return true;
}

uint64_t readLittleEndian(const unsigned char *p, unsigned width) {
  uint64_t v = 0;
  for (unsigned b = 0; b < width; ++b)
    v |= uint64_t(p[b]) << (8 * b);
  return v;
}

void writeLittleEndian(std::string &out, uint64_t v, unsigned width) {
  for (unsigned b = 0; b < width; ++b)
    out.push_back(char((v >> (8 * b)) & 0xff));
}

void decodeTensor(const unsigned char *p, HostTensor &t) {
  unsigned w = byteWidth(t.dtype);
  for (int64_t k = 0, n = t.numElements(); k < n; ++k, p += w) {
    uint64_t bits = readLittleEndian(p, w);
    switch (t.dtype) {
    case DType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      t.f[k] = d;
      break;
    }
    case DType::F32: {
      uint32_t b = uint32_t(bits);
      float x;
      std::memcpy(&x, &b, 4);
      t.f[k] = x;
      break;
    }
    case DType::BF16:
      t.f[k] = fromBF16Bits(uint16_t(bits));
      break;
    case DType::F16:
      t.f[k] = fromF16Bits(uint16_t(bits));
      break;
    case DType::I64:
      t.i[k] = int64_t(bits);
      break;
    case DType::I32:
      t.i[k] = int32_t(uint32_t(bits));
      break;
    case DType::I1:
      t.i[k] = bits != 0;
      break;
    }
  }
}

void encodeTensor(const HostTensor &t, std::string &out) {
  unsigned w = byteWidth(t.dtype);
  for (int64_t k = 0, n = t.numElements(); k < n; ++k) {
    uint64_t bits = 0;
    switch (t.dtype) {
    case DType::F64:
      std::memcpy(&bits, &t.f[k], 8);
      break;
    case DType::F32: {
      float x = float(t.f[k]);
      uint32_t b;
      std::memcpy(&b, &x, 4);
      bits = b;
      break;
    }
    case DType::BF16:
      bits = toBF16Bits(float(t.f[k]));
      break;
    case DType::F16:
      bits = toF16Bits(float(t.f[k]));
      break;
    case DType::I64:
    case DType::I32:
      bits = uint64_t(t.i[k]);
      break;
    case DType::I1:
      bits = t.i[k] != 0;
      break;
    }
    writeLittleEndian(out, bits, w);
  }
}

} // namespace nova
