//===- Safetensors.cpp - read and write .safetensors files ----------------===//
//
// nlohmann::json is used without exceptions (LLVM builds with
// -fno-exceptions): parse errors come back as a discarded value and every
// field's type is checked before it is read.
//
//===----------------------------------------------------------------------===//

#include "nova/Support/Safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace nova {

bool parseSafetensors(const std::string &bytes, NamedTensors &out,
                      std::string &error) {
  out.clear();
  if (bytes.size() < 8) {
    error = "file is shorter than the 8-byte header length";
    return false;
  }
  uint64_t headerLen = readLittleEndian(
      reinterpret_cast<const unsigned char *>(bytes.data()), 8);
  if (headerLen > bytes.size() - 8) {
    error = "header length " + std::to_string(headerLen) +
            " runs past the end of the file (" + std::to_string(bytes.size()) +
            " bytes)";
    return false;
  }
  nlohmann::json header = nlohmann::json::parse(
      bytes.begin() + 8, bytes.begin() + 8 + headerLen, nullptr,
      /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    error = "header is not a JSON object";
    return false;
  }
  const unsigned char *data =
      reinterpret_cast<const unsigned char *>(bytes.data()) + 8 + headerLen;
  uint64_t dataLen = bytes.size() - 8 - headerLen;

  std::vector<std::pair<uint64_t, std::pair<std::string, HostTensor>>> found;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string &name = it.key();
    if (name == "__metadata__")
      continue;
    auto fail = [&](const std::string &why) {
      error = "tensor '" + name + "': " + why;
      return false;
    };
    const nlohmann::json &entry = it.value();
    if (!entry.is_object() || !entry.contains("dtype") ||
        !entry.contains("shape") || !entry.contains("data_offsets"))
      return fail("needs dtype, shape and data_offsets");
    const auto &dt = entry["dtype"];
    if (!dt.is_string())
      return fail("dtype is not a string");
    std::optional<DType> dtype = dtypeFromName(dt.get<std::string>());
    if (!dtype)
      return fail("unsupported dtype '" + dt.get<std::string>() + "'");
    const auto &shapeJson = entry["shape"];
    if (!shapeJson.is_array())
      return fail("shape is not an array");
    std::vector<int64_t> shape;
    uint64_t count = 1;
    for (const auto &d : shapeJson) {
      if (!d.is_number_unsigned())
        return fail("shape holds a value that is not a size");
      uint64_t v = d.get<uint64_t>();
      if (v != 0 && count > (uint64_t(1) << 40) / v)
        return fail("shape is implausibly large");
      count *= v;
      shape.push_back(int64_t(v));
    }
    const auto &offs = entry["data_offsets"];
    if (!offs.is_array() || offs.size() != 2 || !offs[0].is_number_unsigned() ||
        !offs[1].is_number_unsigned())
      return fail("data_offsets is not [begin, end]");
    uint64_t begin = offs[0].get<uint64_t>(), end = offs[1].get<uint64_t>();
    if (begin > end || end > dataLen)
      return fail("data_offsets [" + std::to_string(begin) + ", " +
                  std::to_string(end) + "] lie outside the " +
                  std::to_string(dataLen) + "-byte data section");
    if (end - begin != count * byteWidth(*dtype))
      return fail("data_offsets span " + std::to_string(end - begin) +
                  " bytes, the shape and dtype need " +
                  std::to_string(count * byteWidth(*dtype)));
    HostTensor t(*dtype, shape);
    decodeTensor(data + begin, t);
    found.push_back({begin, {name, std::move(t)}});
  }
  std::stable_sort(
      found.begin(), found.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  for (auto &f : found)
    out.push_back(std::move(f.second));
  return true;
}

bool readSafetensors(const std::string &path, NamedTensors &out,
                     std::string &error) {
  std::string bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  if (!parseSafetensors(bytes, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

std::string serializeSafetensors(const NamedTensors &tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::string data;
  for (const auto &[name, t] : tensors) {
    uint64_t begin = data.size();
    encodeTensor(t, data);
    header[name] = {{"dtype", dtypeName(t.dtype)},
                    {"shape", t.shape},
                    {"data_offsets", {begin, uint64_t(data.size())}}};
  }
  std::string text = header.dump();
  // Pad the header with spaces so the data section starts 8-byte aligned.
  while ((text.size() + 8) % 8)
    text.push_back(' ');
  std::string out;
  writeLittleEndian(out, text.size(), 8);
  return out + text + data;
}

bool writeSafetensors(const std::string &path, const NamedTensors &tensors,
                      std::string &error) {
  std::string bytes = serializeSafetensors(tensors);
  // A symbolic link is written through (the link stays), and a path that
  // exists but is no regular file (/dev/null, a FIFO, a terminal) is written
  // directly: renaming over it would replace the device with a file.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(target, ec); ++hops) {
    fs::path next = fs::read_symlink(target, ec);
    if (ec)
      break;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    std::ofstream o(target, std::ios::binary);
    o.write(bytes.data(), std::streamsize(bytes.size()));
    o.close();
    if (!o.fail())
      return true;
    error = "cannot write '" + path + "'";
    return false;
  }
  // Whole or not at all: the bytes go to a file next to the target that
  // replaces it only once written, so a failure leaves no truncated file
  // (nor destroys an older one).
  std::string partial = target.string() + ".partial";
  std::ofstream o(partial, std::ios::binary);
  o.write(bytes.data(), std::streamsize(bytes.size()));
  o.close(); // flushes: a full disk shows up here
  if (!o.fail() && std::rename(partial.c_str(), target.c_str()) == 0)
    return true;
  std::remove(partial.c_str());
  error = "cannot write '" + path + "'";
  return false;
}

} // namespace nova
