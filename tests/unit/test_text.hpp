// Text checks the unit tests share: a substring, the lines of a text, one whole line, UTF-8.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace culprit::test {

/// Whether `needle` occurs in `hay`.
inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

/// The lines of `text`, split at '\n' as std::getline does (a final newline opens no empty line).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// Whether one line of `text` is exactly `line`.
inline bool has_line(const std::string& text, const std::string& line) {
  for (const auto& l : lines_of(text))
    if (l == line) return true;
  return false;
}

/// Whether `s` is valid UTF-8 (well-formed sequences, no surrogates or overlongs checked loosely).
inline bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

}  // namespace culprit::test
