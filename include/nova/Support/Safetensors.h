//===- Safetensors.h - read and write .safetensors files --------*- C++ -*-===//
//
// The format: an 8-byte little-endian header length, a JSON header mapping
// each name to {dtype, shape, data_offsets}, then the raw little-endian data.
// Reading checks every field and bound and reports what is wrong; it never
// trusts the file.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_SAFETENSORS_H
#define NOVA_SUPPORT_SAFETENSORS_H

#include "nova/Support/HostTensor.h"

#include <string>
#include <utility>
#include <vector>

namespace nova {

using NamedTensors = std::vector<std::pair<std::string, HostTensor>>;

/// Reads `path`; on failure returns false and sets `error`.
bool readSafetensors(const std::string &path, NamedTensors &out,
                     std::string &error);
/// Parses an in-memory file image (used by the reader and its fuzz test).
bool parseSafetensors(const std::string &bytes, NamedTensors &out,
                      std::string &error);
/// Writes tensors in the given order, whole or not at all (through
/// `path`.partial, renamed when complete); on failure returns false and
/// sets `error`.
bool writeSafetensors(const std::string &path, const NamedTensors &tensors,
                      std::string &error);
std::string serializeSafetensors(const NamedTensors &tensors);

} // namespace nova

#endif // NOVA_SUPPORT_SAFETENSORS_H
