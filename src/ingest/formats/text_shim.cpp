// Private stand-ins for text::split_lines / text::strip_ansi until the text module lands on main.
// TEMPORARY (wt-gpu): delete when merging main (see text_shim.hpp).
#include "ingest/formats/text_shim.hpp"

namespace culprit::ingest::shim {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '\n' && c != '\r') continue;
    out.push_back(text.substr(start, i - start));
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

namespace {
// Length of a CSI body starting at `i` (just after `ESC[` or `^[[`): parameter and intermediate
// bytes, then one final byte in 0x40..0x7E. 0 when it is not a well-formed sequence.
std::size_t csi_length(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
         static_cast<unsigned char>(s[j]) <= 0x3F)
    ++j;
  if (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x40 &&
      static_cast<unsigned char>(s[j]) <= 0x7E)
    return j - i + 1;
  return 0;
}
}  // namespace

std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b) {
      if (i + 1 < line.size() && line[i + 1] == '[') {
        const std::size_t n = csi_length(line, i + 2);
        i += 2 + n;
        continue;
      }
      if (i + 1 < line.size() && line[i + 1] == ']') {  // OSC: up to BEL or ESC '\'
        std::size_t j = i + 2;
        while (j < line.size() && line[j] != '\x07' &&
               !(line[j] == 0x1b && j + 1 < line.size() && line[j + 1] == '\\'))
          ++j;
        i = j < line.size() ? j + (line[j] == '\x07' ? 1 : 2) : j;
        continue;
      }
      i += (i + 1 < line.size()) ? 2 : 1;
      continue;
    }
    if (c == '^' && i + 2 < line.size() && line[i + 1] == '[' && line[i + 2] == '[') {
      const std::size_t n = csi_length(line, i + 3);
      if (n > 0) {
        i += 3 + n;
        continue;
      }
    }
    if (c == '^' && i + 2 == line.size() && line[i + 1] == 'M') break;  // pasted CR
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(c));
    ++i;
  }
  return out;
}

bool has_ansi(std::string_view line) {
  return line.find('\x1b') != std::string_view::npos || line.find("^[[") != std::string_view::npos;
}

}  // namespace culprit::ingest::shim
