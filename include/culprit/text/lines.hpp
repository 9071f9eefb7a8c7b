// Line handling shared by every parser: split on \n, \r\n and lone \r, strip ANSI escapes
// (real ESC sequences and pasted `^[[0;36m`), trim.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

/// Which of the bytes whole-text checks look for (each rare in logs) a text holds, from one pass
/// over it: the checks that would each scan the text for their own byte ask this instead (on a
/// batch scan those scans were ~6 % of the CPU time). The same pass tells whether the text is all
/// ASCII (normalisation's UTF-8 check then reads nothing) and whether it holds a control byte
/// other than the terminators and tab (then no line needs its colour codes stripped), which were
/// two more passes (on 231 MB of the bench corpus, one core: the census 6.7 ms, the three passes
/// 17). Where no census was taken (all()), each byte may be there, and holds() scans for it.
class RareBytes {
 public:
  /// The bytes told: \r (line ends), NUL, `#` and `\` (textual escapes), `@` (prompts), `^`
  /// (pasted colour codes).
  static constexpr std::string_view kBytes{"\r\0#\\@^", 6};
  static RareBytes of(std::string_view text);
  static RareBytes all() { return RareBytes(~std::uint32_t{0}, false); }
  /// Whether `text` (the one this census is of) holds `c`: the census's answer for a byte of
  /// kBytes, else (or without a census) a memchr.
  bool holds(char c, std::string_view text) const;
  /// The census's answer without a scan: false only where it says the text lacks `c`.
  bool may_hold(char c) const;
  /// False only where the census says every byte is ASCII (below 0x80).
  bool may_hold_non_ascii() const;
  /// False only where the census says the text holds no control byte but \t, \n and \r
  /// (has_control_bytes' kind: C0 and DEL; an ESC among them).
  bool may_hold_control() const;

 private:
  RareBytes(std::uint32_t bits, bool known) : bits_(bits), known_(known) {}
  std::uint32_t bits_;
  bool known_;
};

/// Splits into lines without their terminators. `\r\n` and a lone `\r` end a line too. Empty
/// lines are kept (line numbers stay true); a final terminator does not add an empty line.
/// `rare`: the text's census, where one was taken (its `\r`).
std::vector<std::string_view> split_lines(std::string_view text, const RareBytes& rare = RareBytes::all());

/// Removes ANSI CSI sequences (`\x1b[...m`, `^[[...m`), other ESC sequences (OSC, charset) and
/// other control bytes except tab. Bytes >= 0x80 (UTF-8 or not) are kept as they are.
std::string strip_ansi(std::string_view line);
/// True when strip_ansi() would change `line` (an escape, a pasted `^[[..m`, a control byte):
/// the cheap test that lets callers skip the copy.
bool has_ansi(std::string_view line);
/// True when `text` holds a control byte other than the line terminators and tabs: a C0 byte
/// (NUL and ESC among them) other than \t \n \r, or DEL. One pass, 64 bytes at a time.
bool has_control_bytes(std::string_view text);
/// True when some line of `text` (as split_lines() splits it) may have has_ansi() true: it holds a
/// control byte other than the line terminators and tabs, or `^[[`. One pass over the whole
/// block, so that a caller asks has_ansi() per line only where it can say yes. `rare`: a census
/// of `text` or of a text it is part of (its control bytes and `^`: no pass where it has none).
bool block_has_ansi(std::string_view text, const RareBytes& rare = RareBytes::all());
/// How many bytes of `text` are C0 control bytes (below 0x20) that `allowed` does not keep: the
/// binary probes' count. `allowed(c)` is 1 for some bytes below 0x20 and 0 for every other, by
/// plain comparisons summed. Counted in byte-wide lanes, 255 bytes at a time, with no branch per
/// byte, so that the loop vectorises at -O3 (the build's; 8 KiB of a worker log in 0.6 µs, where
/// a branch per byte took 3 µs, ~6 % of a scan of many small files).
template <class Allowed>
std::size_t count_controls(std::string_view text, Allowed allowed) {
  std::size_t count = 0;
  for (std::size_t at = 0; at < text.size(); at += 255) {
    const std::size_t n = std::min<std::size_t>(255, text.size() - at);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data() + at);
    std::uint8_t controls = 0, kept = 0;  // at most 255 each
    for (std::size_t i = 0; i < n; ++i) {
      controls += bytes[i] < 0x20;
      kept += allowed(bytes[i]);
    }
    count += static_cast<std::uint8_t>(controls - kept);
  }
  return count;
}
/// The number of '\n' bytes in `text`, a vector at a time (std::count widens each byte to a
/// 64-bit lane: ~5 % of a scan where every segment's lines are counted).
std::size_t count_newlines(std::string_view text);
/// The number of bytes `c` in `text`, the same way.
std::size_t count_byte(std::string_view text, char c);
/// The binary test of every input (ingest's, and the reader's early stop on a stream): the
/// percentage of the first kBinaryProbeBytes of `text`, NULs left out, that are control bytes
/// text does not have (other than tab, newline, CR, form feed, vertical tab, backspace and ESC).
/// Random or compressed data has about 10 %; text in any encoding next to none; 5 or more is
/// binary. `may_hold_nul` false skips counting NULs (a census said there are none).
inline constexpr std::size_t kBinaryProbeBytes = 65536;
inline constexpr int kBinaryPercent = 5;
int binary_percent(std::string_view text, bool may_hold_nul = true);
/// The lines that end in `text` as split_lines() ends them: each \n, a \r\n once, a lone \r.
/// Without a \r, one pass that counts the \n and looks for a \r at once.
std::size_t count_line_ends(std::string_view text);

/// An ASCII digit (std::isdigit without the locale and the cast to unsigned char).
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
/// 1 to `max_digits` ASCII digits and nothing else: a table cell's count, pid or MiB. The bound
/// (at most 18 for decimal_value) keeps the value inside int64.
inline bool is_decimal(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}
/// The value of digits that is_decimal() accepted.
inline std::int64_t decimal_value(std::string_view s) {
  std::int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}
/// A byte of a host or user name as logs and prompts print them: an ASCII letter or digit, `-`,
/// `.` or `_`.
constexpr bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' || c == '.' || c == '_';
}
/// A set of bytes as 256 flags, for the loops that read every line's first bytes by class (a
/// user name's, RE2's \w): a load and a test a byte, where a chain of range compares costs
/// several. Built at compile time from a predicate: `constexpr ByteSet kWord(regex_word)`.
class ByteSet {
 public:
  template <class Pred>
  constexpr explicit ByteSet(Pred member) {
    for (int c = 0; c < 256; ++c) in_[c] = member(static_cast<char>(c));
  }
  constexpr bool operator()(char c) const { return in_[static_cast<unsigned char>(c)]; }
  /// Where the run of member bytes of `s` that starts at `i` ends (`i` itself where s[i] is none).
  constexpr std::size_t span(std::string_view s, std::size_t i) const {
    while (i < s.size() && in_[static_cast<unsigned char>(s[i])]) ++i;
    return i;
  }

 private:
  bool in_[256] = {};
};
/// is_digit as a ByteSet, for the checks that read runs of digits.
inline constexpr ByteSet kDigits(is_digit);
/// is_host_char as a ByteSet.
inline constexpr ByteSet kHostChars(is_host_char);
/// The ASCII whitespace trim() removes: space, \t, \r, \n, \v, \f.
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
/// Without leading and trailing ASCII whitespace (is_space). Inline: the sniffer and the repair
/// ask them of every line, where a call costs as much as the trimming.
inline std::string_view trim_left(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return s.substr(i);
}
inline std::string_view trim(std::string_view s) {
  s = trim_left(s);
  std::size_t end = s.size();
  while (end > 0 && is_space(s[end - 1])) --end;
  return s.substr(0, end);
}
/// Without leading and trailing spaces and tabs only: for fields padded with blanks (a table's
/// cells, a traceback's parts), where a \r or \f is the field's own.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
/// Where `s` first holds `needle` at or after `from`, as std::string_view::find, sixteen starts
/// a step (substring.cpp): for the checks asked of every line of a large input.
std::size_t find(std::string_view s, std::string_view needle, std::size_t from = 0);
/// Whether find finds it.
bool contains(std::string_view s, std::string_view needle);
/// find, ASCII letters matching either case (`pid` finds `PID` and `Pid`): one pass where a
/// caller would search for several spellings.
std::size_t find_folded(std::string_view s, std::string_view needle, std::size_t from = 0);
/// Where `s` first holds `pattern`, each `wildcard` byte in it matching any byte (`":??:??."`: a
/// PCI bus id's colons and dot); npos when nowhere. One pass, many bytes at a time.
std::size_t find_pattern(std::string_view s, std::string_view pattern, char wildcard);
/// Calls `found` with every place `s` holds `pattern` (as find_pattern), in order, until it
/// returns false: one pass for all of them, instead of a search begun again after each.
void for_each_pattern(std::string_view s, std::string_view pattern, char wildcard,
                      const std::function<bool(std::size_t)>& found);
/// Whether find_pattern finds it.
bool contains_pattern(std::string_view s, std::string_view pattern, char wildcard);

}  // namespace culprit::text
