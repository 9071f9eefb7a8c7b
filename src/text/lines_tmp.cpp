// TEMPORARY (wt-kernel): stand-in for the text module's lines.cpp so ingest tests link.
// Delete after merging main once the real one lands.
#include "culprit/text/lines.hpp"

namespace culprit::text {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      out.push_back(text.substr(start, i - start));
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

bool has_ansi(std::string_view line) {
  return line.find('\x1b') != std::string_view::npos || line.find("^[[") != std::string_view::npos;
}

std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    bool esc = line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[';
    bool caret = line.substr(i, 3) == "^[[";
    if (esc || caret) {
      std::size_t j = i + (esc ? 2 : 3);
      while (j < line.size() && ((line[j] >= '0' && line[j] <= '9') || line[j] == ';')) ++j;
      if (j < line.size()) { i = j; continue; }
    }
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c < 0x20 && c != '\t') continue;
    out.push_back(line[i]);
  }
  return out;
}

std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

}  // namespace culprit::text
