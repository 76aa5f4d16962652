//===- HostTensor.h - tensors in host memory --------------------*- C++ -*-===//
//
// A dense row-major tensor on the host, shared by the reference interpreter,
// nova-run and the runtime. No MLIR dependency: the runtime links it too.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_HOSTTENSOR_H
#define NOVA_SUPPORT_HOSTTENSOR_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace nova {

enum class DType { F64, F32, BF16, F16, I64, I32, I1 };

bool isFloat(DType t);
/// Bytes per element in memory and in safetensors files.
unsigned byteWidth(DType t);
/// Safetensors name ("F32", "BF16", "BOOL", ...).
const char *dtypeName(DType t);
std::optional<DType> dtypeFromName(const std::string &name);

/// Bit patterns of the 16-bit float formats (round to nearest even).
uint16_t toBF16Bits(float x);
float fromBF16Bits(uint16_t b);
uint16_t toF16Bits(float x);
float fromF16Bits(uint16_t b);
/// `x` rounded to TF32 (f32's exponent, a 10-bit mantissa; nearest, ties to
/// even): what a tensor core reads from an f32 operand in TF32 mode.
float roundToTF32(float x);

/// Rounds `x` to the nearest value representable in `t` (ties to even), the
/// way a kernel that stores `t` would; F64 and integers are unchanged. A NaN
/// becomes the positive quiet NaN: IEEE 754 leaves the sign and payload of a
/// computed NaN open (x86 picks an operand's, in whichever order the compiler
/// put them), so the folder and the interpreter agree bit for bit only if
/// they settle it. Inline: the interpreter calls it once per element it
/// computes.
inline double roundTo(DType t, double x) {
  if (t != DType::F64 && std::isnan(x))
    return std::numeric_limits<double>::quiet_NaN();
  switch (t) {
  case DType::F32:
    return double(float(x));
  case DType::BF16:
    return fromBF16Bits(toBF16Bits(float(x)));
  case DType::F16:
    return fromF16Bits(toF16Bits(float(x)));
  default:
    return x;
  }
}

/// Floats live in `f` (already rounded to `dtype`), integers and booleans in
/// `i`; exactly one of the two holds `numElements()` values.
struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> f;
  std::vector<int64_t> i;

  HostTensor() = default;
  HostTensor(DType dtype, std::vector<int64_t> shape);

  int64_t numElements() const;
  bool isFloat() const { return nova::isFloat(dtype); }
  /// Element `k` as a double (integers converted).
  double get(int64_t k) const { return isFloat() ? f[k] : double(i[k]); }
  std::string typeString() const; // "4x8xf32"
};

/// The whole file at `path`; false with "cannot open '<path>'" otherwise.
bool readFileBytes(const std::string &path, std::string &bytes,
                   std::string &error);

uint64_t readLittleEndian(const unsigned char *p, unsigned width);
void writeLittleEndian(std::string &out, uint64_t v, unsigned width);

/// The little-endian bytes of `t` in its dtype, appended to `out` (the
/// layout of safetensors files and of device memory).
void encodeTensor(const HostTensor &t, std::string &out);
/// Reads `t.numElements()` elements of `t.dtype` from `bytes`.
void decodeTensor(const unsigned char *bytes, HostTensor &t);

/// The product of `shape`. Callers must know it fits (a shape that came
/// through checkedNumElements or a verified op); use checkedNumElements for
/// shapes from outside.
int64_t numElements(const std::vector<int64_t> &shape);
/// "4x8xf32": the type of a tensor of `dtype` and `shape`, as MLIR writes it
/// inside tensor<...>.
std::string typeString(DType dtype, const std::vector<int64_t> &shape);
/// The product of `shape`, or nullopt when a dimension is negative or the
/// product overflows int64 (2^32 x 2^32 is not 0 elements).
std::optional<int64_t> checkedNumElements(const int64_t *dims, size_t rank);
inline std::optional<int64_t>
checkedNumElements(const std::vector<int64_t> &shape) {
  return checkedNumElements(shape.data(), shape.size());
}
/// `elements * bytesPerElement`, or nullopt on overflow.
std::optional<uint64_t> checkedBytes(int64_t elements, uint64_t bytesPerElement);
/// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape);

} // namespace nova

#endif // NOVA_SUPPORT_HOSTTENSOR_H
