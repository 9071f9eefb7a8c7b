#include "input/documentation.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace culprit::input::detail {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// A fence line: its character and length, or 0 when the line is not one.
struct Fence {
  char ch = 0;
  std::size_t length = 0;
  bool bare = false;  // nothing but the fence (and spaces) on the line: it may close a block
};

Fence fence_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3 || i >= line.size() || (line[i] != '`' && line[i] != '~')) return {};
  const char ch = line[i];
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == ch) ++n;
  if (n < 3) return {};
  const std::string_view rest = line.substr(i + n);
  if (ch == '`' && rest.find('`') != std::string_view::npos) return {};  // inline code, not a fence
  const bool bare = rest.find_first_not_of(" \t\r") == std::string_view::npos;
  return {ch, n, bare};
}

}  // namespace

bool is_documentation_name(std::string_view path) {
  const auto cut = path.find_last_of("/!");
  const std::string name = lower(cut == std::string_view::npos ? path : path.substr(cut + 1));
  for (std::string_view ext : {".md", ".markdown", ".rst", ".adoc", ".asciidoc"})
    if (ends_with(name, ext)) return true;
  const std::string stem = name.substr(0, name.find('.'));
  static constexpr std::array<std::string_view, 5> kStems = {"readme", "changelog", "license", "licence", "copying"};
  return std::find(kStems.begin(), kStems.end(), stem) != kStems.end();
}

std::size_t keep_code_blocks(std::string& text) {
  std::size_t kept = 0;
  Fence open;  // ch == 0: outside a block
  std::size_t out = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    const Fence f = fence_of(line);
    bool keep = false;
    if (open.ch == 0) {
      if (f.ch != 0) open = f;
    } else if (f.ch == open.ch && f.length >= open.length && f.bare) {
      open = {};
    } else {
      keep = true;
    }
    if (keep) {
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) ++kept;
      std::copy(line.begin(), line.end(), text.begin() + static_cast<std::ptrdiff_t>(out));  // out <= pos
      out += line.size();
    }
    if (end < text.size()) text[out++] = '\n';
    pos = end + 1;
  }
  text.resize(out);
  return kept;
}

}  // namespace culprit::input::detail
