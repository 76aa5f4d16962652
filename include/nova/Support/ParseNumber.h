//===- ParseNumber.h - numbers from command-line text -----------*- C++ -*-===//
//
// The tools' option parsers read numbers with this one rule, so "12abc",
// " 12", "" and out-of-range values are refused the same way everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_PARSENUMBER_H
#define NOVA_SUPPORT_PARSENUMBER_H

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace nova {

/// The whole of `text` as a T: nothing before or after the number, no sign
/// for an unsigned T, within T's range.
template <typename T> bool parseWhole(std::string_view text, T &out) {
  const char *end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc() && stop == end;
}

/// A byte count: a whole number, optionally followed by KiB, MiB or GiB
/// (powers of 1024), e.g. "12GiB"; false on anything else or when the
/// bytes overflow 64 bits.
inline bool parseByteSize(std::string_view text, uint64_t &bytes) {
  struct Suffix {
    std::string_view name;
    unsigned shift;
  };
  static constexpr Suffix suffixes[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
  unsigned shift = 0;
  for (const Suffix &s : suffixes)
    if (text.size() > s.name.size() &&
        text.substr(text.size() - s.name.size()) == s.name) {
      shift = s.shift;
      text.remove_suffix(s.name.size());
      break;
    }
  uint64_t count = 0;
  if (!parseWhole(text, count) || count > (UINT64_MAX >> shift))
    return false;
  bytes = count << shift;
  return true;
}

} // namespace nova

#endif // NOVA_SUPPORT_PARSENUMBER_H
