//===- ParseNumber.h - numbers from command-line text -----------*- C++ -*-===//
//
// The tools' option parsers read numbers with this one rule, so "12abc",
// " 12", "" and out-of-range values are refused the same way everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_SUPPORT_PARSENUMBER_H
#define NOVA_SUPPORT_PARSENUMBER_H

#include <charconv>
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

} // namespace nova

#endif // NOVA_SUPPORT_PARSENUMBER_H
