#include "input/documentation.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <vector>

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

/// Length of the blockquote markers that open `line` (`> `, `>`, nested `> > `, indented at most
/// three spaces), or 0. `>>` (`>>>`, a Python prompt) is no marker, as in the paste repair.
std::size_t quote_marker(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  std::size_t end = 0;
  while (i < line.size() && line[i] == '>') {
    if (i + 1 < line.size() && line[i + 1] == '>') return end;
    if (i + 1 == line.size() || line[i + 1] == '\r') return i + 1;
    if (line[i + 1] != ' ') return end;
    end = i + 2;
    i += 2;
  }
  return end;
}

/// Lines in a quoted run before it is read as pasted log text: a one- or two-line quote is a cited
/// sentence or a GitHub alert; a log quoted in a reply spans lines.
constexpr std::size_t kQuotedLogLines = 3;

/// Keeps the quoted runs of `text` (outside fenced blocks, which keep_code_blocks has read) that
/// hold kQuotedLogLines lines or more and open with no GitHub alert (`> [!NOTE]`), without their
/// markers; blanks every other line outside the kept blocks. `fenced[i]`: line i is a kept
/// code line. Returns the non-blank quoted lines kept.
std::size_t keep_quoted_runs(std::string& text, const std::vector<bool>& fenced) {
  struct Line {
    std::size_t begin, end, marker;
  };
  std::vector<Line> lines;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::size_t i = lines.size();
    const bool in_fence = i < fenced.size() && fenced[i];
    lines.push_back({pos, end, in_fence ? 0 : quote_marker(std::string_view(text).substr(pos, end - pos))});
    if (end == text.size()) break;
    pos = end + 1;
  }
  std::string out;
  out.reserve(text.size());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t j = i;
    while (j < lines.size() && lines[j].marker > 0) ++j;
    if (j == i) {  // not quoted: a fenced line stays, any other is blanked
      if (i < fenced.size() && fenced[i]) out.append(text, lines[i].begin, lines[i].end - lines[i].begin);
      if (lines[i].end < text.size()) out += '\n';
      ++i;
      continue;
    }
    const std::string_view first = std::string_view(text).substr(lines[i].begin + lines[i].marker);
    const bool keep = j - i >= kQuotedLogLines && first.rfind("[!", 0) != 0;
    for (std::size_t k = i; k < j; ++k) {
      const std::size_t from = lines[k].begin + lines[k].marker;
      const std::string_view body(text.data() + from, lines[k].end - from);
      if (keep) {
        out.append(body);
        if (body.find_first_not_of(" \t\r") != std::string_view::npos) ++kept;
      }
      if (lines[k].end < text.size()) out += '\n';
    }
    i = j;
  }
  text = std::move(out);
  return kept;
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
  // Which lines are code (inside a fence): those stay, and only the others may be quoted runs.
  std::vector<bool> fenced;
  std::size_t kept = 0;
  Fence open;  // ch == 0: outside a block
  bool quoted = false;  // some line outside a fence opens with a quote marker
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
    fenced.push_back(keep);
    if (keep) {
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) ++kept;
      std::copy(line.begin(), line.end(), text.begin() + static_cast<std::ptrdiff_t>(out));  // out <= pos
      out += line.size();
    } else if (open.ch == 0 && f.ch == 0 && quote_marker(line) > 0) {
      quoted = true;  // kept as it is for keep_quoted_runs
      std::copy(line.begin(), line.end(), text.begin() + static_cast<std::ptrdiff_t>(out));
      out += line.size();
    }
    if (end < text.size()) text[out++] = '\n';
    pos = end + 1;
  }
  text.resize(out);
  if (quoted) kept += keep_quoted_runs(text, fenced);
  return kept;
}

}  // namespace culprit::input::detail
