// The generators' way of writing bytes into a C++ source: adjacent string literals that any
// byte sequence survives (NULs included: read them back with sizeof, not strlen).
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

namespace culprit::tools {

/// The bytes as adjacent string literals of ~100 source bytes each: printable ASCII as itself,
/// everything else (and `\`, `"`, `?`) as a 3-digit octal escape, which can never run into a
/// following digit.
inline void write_literal(std::ofstream& out, const std::string& bytes) {
  std::string line;
  char buf[8];
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"' && c != '?') {
      line.push_back(static_cast<char>(c));
    } else {
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      line += buf;
    }
    if (line.size() >= 100) {
      out << "    \"" << line << "\"\n";
      line.clear();
    }
  }
  out << "    \"" << line << "\"";
}

}  // namespace culprit::tools
