// Line splitting and cleaning shared by every parser. Logs arrive with \n, \r\n or lone \r
// (progress bars), and with colour codes either real (ESC[...m) or pasted as text (^[[0;36m).
#include "culprit/text/lines.hpp"

namespace culprit::text {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// A control byte strip_ansi removes: C0 controls except tab, and DEL.
bool is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

/// Length of a CSI body starting at `pos` (just after `ESC[` or `^[[`): parameter bytes
/// 0x30-0x3F, intermediate bytes 0x20-0x2F, one final byte 0x40-0x7E. 0 if incomplete.
std::size_t csi_body_length(std::string_view s, std::size_t pos) {
  std::size_t i = pos;
  while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x30 &&
         static_cast<unsigned char>(s[i]) <= 0x3f)
    ++i;
  while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 &&
         static_cast<unsigned char>(s[i]) <= 0x2f)
    ++i;
  if (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x40 &&
      static_cast<unsigned char>(s[i]) <= 0x7e)
    return i + 1 - pos;
  return 0;
}

/// Length of the pasted caret form `^[[<digits;>*<letter>` at `pos`, or 0. Stricter than a real
/// CSI (parameters are digits and `;` only, final byte a letter) because `^[[` can be plain text.
std::size_t caret_csi_length(std::string_view s, std::size_t pos) {
  if (s.compare(pos, 3, "^[[") != 0) return 0;
  std::size_t i = pos + 3;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';' || s[i] == '?')) ++i;
  if (i < s.size() && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
    return i + 1 - pos;
  return 0;
}

/// Length of an escape sequence starting with ESC at `pos` (at least 1: the ESC itself).
std::size_t esc_length(std::string_view s, std::size_t pos) {
  const std::size_t n = s.size();
  if (pos + 1 >= n) return 1;
  const char next = s[pos + 1];
  if (next == '[') {
    const std::size_t body = csi_body_length(s, pos + 2);
    return body ? 2 + body : 2;  // a cut-off CSI: drop ESC[ and keep the rest as text
  }
  if (next == ']') {  // OSC: ends at BEL or ESC backslash (hyperlinks, window titles)
    for (std::size_t i = pos + 2; i < n; ++i) {
      if (s[i] == '\a') return i + 1 - pos;
      if (s[i] == '\x1b' && i + 1 < n && s[i + 1] == '\\') return i + 2 - pos;
    }
    return n - pos;
  }
  if (next == '(' || next == ')') return pos + 2 < n ? 3 : 2;  // charset selection ESC(B
  if (static_cast<unsigned char>(next) >= 0x40 && static_cast<unsigned char>(next) <= 0x5f)
    return 2;  // two-byte Fe sequences (ESC M, ESC 7 ...)
  if (static_cast<unsigned char>(next) >= 0x30 && static_cast<unsigned char>(next) <= 0x3f)
    return 2;  // Fp private sequences (ESC 7 / ESC 8)
  return 1;
}

}  // namespace

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (c == '\r') {
      lines.push_back(text.substr(start, i - start));
      if (i + 1 < n && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < n) lines.push_back(text.substr(start));
  return lines;
}

std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  const std::size_t n = line.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == 0x1b) {
      i += esc_length(line, i);
      continue;
    }
    if (c == '^') {
      if (const std::size_t len = caret_csi_length(line, i)) {
        i += len;
        continue;
      }
    }
    if (is_control(c)) {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(c));
    ++i;
  }
  return out;
}

bool has_ansi(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (is_control(c)) return true;
    if (c == '^' && caret_csi_length(line, i)) return true;
  }
  return false;
}

std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  std::size_t end = s.size();
  while (end > 0 && is_space(s[end - 1])) --end;
  return s.substr(0, end);
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view s, std::string_view needle) {
  return s.find(needle) != std::string_view::npos;
}

}  // namespace culprit::text
