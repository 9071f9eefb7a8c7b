// How the build-time generators write a C++ source: bytes as adjacent string literals that any
// byte sequence survives (NULs included: read them back with sizeof, not strlen), and the close
// that never leaves half a file.
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

/// Closes a generated source; where it could not be written, says so, removes the partial file
/// (the build must not compile half a table) and returns 1, else 0: main()'s exit code.
inline int close_source(std::ofstream& out, const char* program, const char* path) {
  out.close();
  if (out) return 0;
  std::fprintf(stderr, "%s: cannot write %s\n", program, path);
  std::remove(path);
  return 1;
}

}  // namespace culprit::tools
