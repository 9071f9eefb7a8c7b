// UTF-8 handling for every output: decode with replacement, count terminal columns, strip
// terminal control sequences from log text or show them escaped in names, and cut or wrap
// lines at word boundaries.
#include "culprit/core/utf8.hpp"

#include <algorithm>

namespace culprit::core::utf8 {
namespace {

bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

struct Range {
  char32_t lo, hi;
};

// Zero-width: combining marks, zero-width spaces and joiners, variation selectors.
constexpr Range kZeroWidth[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
};

// East Asian Wide / Fullwidth and the common emoji blocks.
constexpr Range kWide[] = {
    {0x1100, 0x115F}, {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
    {0xA000, 0xA4CF}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF60},
    {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
};

template <std::size_t N>
bool in(const Range (&ranges)[N], char32_t cp) {
  return std::any_of(std::begin(ranges), std::end(ranges),
                     [cp](const Range& r) { return cp >= r.lo && cp <= r.hi; });
}

// Invisible format characters (is_invisible_format): bidi controls and zero-width characters.
constexpr Range kInvisibleFormat[] = {
    {0x061C, 0x061C}, {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064}, {0x2066, 0x2069}, {0xFEFF, 0xFEFF},
};

void append_code_point_name(std::string& out, char32_t cp) {
  static const char kHex[] = "0123456789ABCDEF";
  out += "<U+";
  for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xF]);
  out += '>';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Byte length of the longest prefix of `s` that fits in `width` columns.
std::size_t prefix_fitting(std::string_view s, int width) {
  std::size_t i = 0;
  int used = 0;
  while (i < s.size()) {
    std::size_t j = i;
    const int w = columns(next(s, j));
    if (used + w > width) break;
    used += w;
    i = j;
  }
  return i;
}

}  // namespace

char32_t next(std::string_view text, std::size_t& i) {
  const auto c0 = static_cast<unsigned char>(text[i]);
  if (c0 < 0x80) {
    ++i;
    return c0;
  }
  int len = 0;
  char32_t cp = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    len = 2;
    cp = c0 & 0x1F;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    len = 3;
    cp = c0 & 0x0F;
    if (c0 == 0xE0) lo = 0xA0;        // no overlongs
    if (c0 == 0xED) hi = 0x9F;        // no surrogates
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    len = 4;
    cp = c0 & 0x07;
    if (c0 == 0xF0) lo = 0x90;        // no overlongs
    if (c0 == 0xF4) hi = 0x8F;        // nothing above U+10FFFF
  } else {
    ++i;  // a stray continuation byte, C0/C1 (overlong), or F5..FF
    return kReplacement;
  }
  std::size_t j = i + 1;
  for (int k = 1; k < len; ++k, ++j) {
    if (j >= text.size()) {
      i = j;
      return kReplacement;
    }
    const auto c = static_cast<unsigned char>(text[j]);
    const bool ok = k == 1 ? (c >= lo && c <= hi) : is_cont(c);
    if (!ok) {
      i = j;  // the maximal subpart ends before this byte
      return kReplacement;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  i = j;
  return cp;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int columns(char32_t cp) {
  if (cp < 0x300) return 1;
  if (in(kZeroWidth, cp)) return 0;
  if (in(kWide, cp)) return 2;
  return 1;
}

int columns(std::string_view text) {
  int total = 0;
  for (std::size_t i = 0; i < text.size();) total += columns(next(text, i));
  return total;
}

std::string clean(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char32_t cp = next(text, i);
    if (cp == 0x1B) {
      // ESC: drop a CSI (`ESC [ params final`, colours) or an OSC (`ESC ] ... BEL|ESC \`,
      // titles, links) when it ends within a sane length; otherwise just the ESC itself.
      if (i < text.size() && text[i] == '[') {
        std::size_t j = i + 1;
        while (j < text.size() && j - i < 64 && !(text[j] >= 0x40 && text[j] <= 0x7E)) ++j;
        if (j < text.size() && text[j] >= 0x40 && text[j] <= 0x7E) i = j + 1;
      } else if (i < text.size() && text[i] == ']') {
        std::size_t j = i + 1;
        while (j < text.size() && j - i < 512 && text[j] != '\a' && text[j] != 0x1B) ++j;
        if (j < text.size() && text[j] == '\a') i = j + 1;
        else if (j + 1 < text.size() && text[j] == 0x1B && text[j + 1] == '\\') i = j + 2;
      }
      continue;
    }
    if (cp == '\r') {
      if (i < text.size() && text[i] == '\n') continue;  // CRLF: the LF follows
      out.push_back('\n');
      continue;
    }
    if (cp == '\n') {
      out.push_back('\n');
      continue;
    }
    if (cp == '\t') {
      out.push_back(' ');
      continue;
    }
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) continue;
    if (is_invisible_format(cp)) {
      append_code_point_name(out, cp);
      continue;
    }
    append(out, cp);
  }
  return out;
}

bool is_invisible_format(char32_t cp) { return cp >= 0x61C && cp <= 0xFEFF && in(kInvisibleFormat, cp); }

std::string visible(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {  // the common case: printable ASCII
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const std::size_t start = i;
    const char32_t cp = next(text, i);
    if (cp == kReplacement && text.substr(start, i - start) != "\xEF\xBF\xBD") {
      for (std::size_t k = start; k < i; ++k) {  // invalid UTF-8: each byte as it is
        const auto b = static_cast<unsigned char>(text[k]);
        out += "\\x";
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 0xF]);
      }
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7F) {
      out += "\\x";
      out.push_back(kHex[cp >> 4]);
      out.push_back(kHex[cp & 0xF]);
    } else if ((cp >= 0x80 && cp < 0xA0) || is_invisible_format(cp)) {
      append_code_point_name(out, cp);
    } else {
      append(out, cp);
    }
  }
  return out;
}

std::string one_line(std::string_view text) {
  const std::string c = clean(text);
  std::string out;
  out.reserve(c.size());
  for (char ch : c) {
    if (ch == '\n') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(ch);
    }
  }
  return std::string(trim(out));
}

std::string cut(std::string_view text, int width) {
  if (width <= 0 || columns(text) <= width) return std::string(text);
  if (width == 1) return "…";
  const int room = width - 1;  // one column for the ellipsis
  std::size_t end = prefix_fitting(text, room);
  // Prefer the last space inside the fitting prefix when it keeps at least half the room.
  const std::size_t space = text.substr(0, end + 1).rfind(' ');
  if (space != std::string_view::npos && columns(text.substr(0, space)) >= room / 2) end = space;
  std::string out(trim(text.substr(0, end)));
  out += "…";
  return out;
}

std::vector<std::string> wrap(std::string_view text, int width) {
  std::vector<std::string> lines;
  if (width <= 0) {
    lines.emplace_back(text);
    return lines;
  }
  std::string line;
  int line_cols = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view word = text.substr(i, j - i);
    i = j;
    if (word.empty()) break;
    int word_cols = columns(word);
    if (line_cols > 0 && line_cols + 1 + word_cols <= width) {
      line += ' ';
      line += word;
      line_cols += 1 + word_cols;
      continue;
    }
    if (line_cols > 0) {
      lines.push_back(std::move(line));
      line.clear();  // line_cols is set again below, once the word is placed
    }
    while (word_cols > width) {  // a word longer than a line: split it at code points
      std::size_t n = prefix_fitting(word, width);
      if (n == 0) n = 1;  // a wide character in a 1-column line: emit it anyway
      lines.emplace_back(word.substr(0, n));
      word.remove_prefix(n);
      word_cols = columns(word);
    }
    line = std::string(word);
    line_cols = word_cols;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}


std::string cut_left(std::string_view s, int cols) {
  if (cols <= 0 || columns(s) <= cols) return std::string(s);
  std::size_t i = 0;
  int drop = columns(s) - (cols - 1);
  while (i < s.size() && drop > 0) {
    const char32_t cp = next(s, i);
    drop -= columns(cp);
  }
  return "…" + std::string(s.substr(i));
}

}  // namespace culprit::core::utf8
