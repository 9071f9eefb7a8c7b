// Line splitting and cleaning shared by every parser. Logs arrive with \n, \r\n or lone \r
// (progress bars), and with colour codes either real (ESC[...m) or pasted as text (^[[0;36m).
#include "culprit/text/lines.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "byte_bits.hpp"
#include "byte_vectors.hpp"

namespace culprit::text {

namespace {

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
  if (next == '_' || next == 'P' || next == '^' || next == 'X') {
    // APC / DCS / PM / SOS strings, ended like OSC. Buildkite stamps every line of its raw log
    // with an APC, `ESC _bk;t=1714557600123 BEL`. Unterminated: only ESC and its letter go.
    for (std::size_t i = pos + 2; i < n; ++i) {
      if (s[i] == '\a') return i + 1 - pos;
      if (s[i] == '\x1b' && i + 1 < n && s[i + 1] == '\\') return i + 2 - pos;
    }
    return 2;
  }
  if (next == '(' || next == ')') return pos + 2 < n ? 3 : 2;  // charset selection ESC(B
  if (static_cast<unsigned char>(next) >= 0x40 && static_cast<unsigned char>(next) <= 0x5f)
    return 2;  // two-byte Fe sequences (ESC M, ESC 7 ...)
  if (static_cast<unsigned char>(next) >= 0x30 && static_cast<unsigned char>(next) <= 0x3f)
    return 2;  // Fp private sequences (ESC 7 / ESC 8)
  return 1;
}

}  // namespace

static_assert(RareBytes::kBytes.size() <= detail::kCensusBytes, "the census tells at most kCensusBytes bytes");

RareBytes RareBytes::of(std::string_view text) {
  return RareBytes(detail::census(text.data(), text.size(), kBytes), true);
}

bool RareBytes::may_hold_non_ascii() const { return !known_ || (bits_ & detail::kNonAsciiBit) != 0; }
bool RareBytes::may_hold_control() const { return !known_ || (bits_ & detail::kControlBit) != 0; }

bool RareBytes::may_hold(char c) const {
  const std::size_t k = kBytes.find(c);
  return !known_ || k == std::string_view::npos || (bits_ >> k & 1u) != 0;
}

bool RareBytes::holds(char c, std::string_view text) const {
  if (known_ && kBytes.find(c) != std::string_view::npos) return may_hold(c);
  return std::memchr(text.data(), c, text.size()) != nullptr;
}

std::vector<std::string_view> split_lines(std::string_view text, const RareBytes& rare) {
  std::vector<std::string_view> lines;
  lines.reserve(text.size() / 64 + 1);
  const char* p = text.data();
  const char* end = p + text.size();
  const bool has_cr = rare.holds('\r', text);
  if (!has_cr) {
    // The newlines of 64 bytes as one word, its bits taken lowest first: a log line is short,
    // and a memchr call per line (its setup, the branch it mispredicts at the line's end) cost
    // more than the line's bytes do.
    const char* line_start = p;
    std::size_t i = 0;
    std::uint64_t words[detail::kBitWords];
    while (text.size() - i >= 64) {
      const std::size_t count = std::min((text.size() - i) / 64, detail::kBitWords);
      detail::equal_bits(p + i, count, '\n', words);
      for (std::size_t k = 0; k < count; ++k, i += 64)
        for (std::uint64_t nl = words[k]; nl != 0; nl &= nl - 1) {
          const char* at = p + i + __builtin_ctzll(nl);
          lines.emplace_back(line_start, static_cast<std::size_t>(at - line_start));
          line_start = at + 1;
        }
    }
    for (; i < text.size(); ++i)
      if (p[i] == '\n') {
        lines.emplace_back(line_start, static_cast<std::size_t>(p + i - line_start));
        line_start = p + i + 1;
      }
    if (line_start < end) lines.emplace_back(line_start, static_cast<std::size_t>(end - line_start));
    return lines;
  }
  // With a `\r`: the terminators of 64 bytes as one word (each `\n` and each `\r`), taken lowest
  // first as above. A `\r` right before a `\n` ends its line with it (the `\n` is then passed
  // over: it lies before the next line's start); any other `\r` ends a line of its own (a
  // progress bar's redraw). A memchr per line and another per `\r` cost more than the bytes.
  const char* line_start = p;
  const auto terminator = [&](const char* at) {
    if (at < line_start) return;  // the `\n` of a `\r\n` already taken
    lines.emplace_back(line_start, static_cast<std::size_t>(at - line_start));
    line_start = at + 1 + (*at == '\r' && at + 1 < end && at[1] == '\n');
  };
  std::size_t i = 0;
  std::uint64_t nls[detail::kBitWords], crs[detail::kBitWords];
  while (text.size() - i >= 64) {
    const std::size_t count = std::min((text.size() - i) / 64, detail::kBitWords);
    detail::equal_bits(p + i, count, '\n', nls);
    detail::equal_bits(p + i, count, '\r', crs);
    for (std::size_t k = 0; k < count; ++k, i += 64)
      for (std::uint64_t ends = nls[k] | crs[k]; ends != 0; ends &= ends - 1) terminator(p + i + __builtin_ctzll(ends));
  }
  for (; i < text.size(); ++i)
    if (p[i] == '\n' || p[i] == '\r') terminator(p + i);
  if (line_start < end) lines.emplace_back(line_start, static_cast<std::size_t>(end - line_start));
  return lines;
}

namespace {
/// The end of the run of plain bytes (not a code's first byte: no control byte but tab, no DEL,
/// no `^`) that starts at `i`. Eight bytes a step while a word holds none of them (a tab sends its
/// word to the byte loop): strip_ansi runs over every line some detectors look at.
std::size_t plain_run_end(std::string_view s, std::size_t i) {
  const auto plain = [](unsigned char c) { return c >= 0x20 ? c != '^' && c != 0x7f : c == '\t'; };
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  // Whether some byte of w is below n (n <= 128), or equals b (the classic has-zero-byte tests).
  const auto below = [](std::uint64_t w, std::uint64_t n) { return ((w - kOnes * n) & ~w & kHighs) != 0; };
  const auto holds = [](std::uint64_t w, std::uint64_t b) {
    const std::uint64_t x = w ^ (kOnes * b);
    return ((x - kOnes) & ~x & kHighs) != 0;
  };
  const std::size_t n = s.size();
  while (i < n) {
    if (i + 8 <= n) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, 8);
      if (!below(w, 0x20) && !holds(w, 0x7f) && !holds(w, '^')) {
        i += 8;
        continue;
      }
    }
    for (const std::size_t stop = std::min(n, i + 8); i < stop; ++i)
      if (!plain(static_cast<unsigned char>(s[i]))) return i;
  }
  return n;
}
}  // namespace

std::string strip_ansi(std::string_view line) {
  // Plain bytes are copied a run at a time (most lines are one run: no escape at all); a byte
  // that may start a code is read as before.
  std::string out;
  out.reserve(line.size());
  const std::size_t n = line.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t from = i;
    i = plain_run_end(line, i);
    out.append(line.data() + from, i - from);
    if (i == n) break;
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
    if (!is_control(c)) out.push_back(static_cast<char>(c));  // a `^` that starts no code
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

bool has_control_bytes(std::string_view text) {
  // is_control, less the terminators (they end lines): 64 bytes to a word, then the tail.
  const std::size_t words = text.size() / 64;
  if (detail::any_control(text.data(), words)) return true;
  for (std::size_t at = 64 * words; at < text.size(); ++at) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (is_control(c) && c != '\n' && c != '\r') return true;
  }
  return false;
}

bool block_has_ansi(std::string_view text, const RareBytes& rare) {
  return (rare.may_hold_control() && has_control_bytes(text)) ||
         (rare.may_hold('^') && text.find("^[[") != std::string_view::npos);
}

std::size_t count_newlines(std::string_view text) { return count_byte(text, '\n'); }

std::size_t count_byte(std::string_view text, char c) {
  return detail::count_equal(text.data(), text.size(), static_cast<unsigned char>(c));
}

int binary_percent(std::string_view s, bool may_hold_nul) {
  s = s.substr(0, std::min(s.size(), kBinaryProbeBytes));
  // It runs over the head of every input: counted in vectors (count_controls; no set GCC would
  // turn into a 64-bit bit test), the NULs by a pass of their own where there may be one.
  const std::size_t bad = count_controls(s, [](std::uint8_t c) {
    return static_cast<std::uint8_t>((c == 0) + (static_cast<std::uint8_t>(c - 0x08) < 6) +  // \b \t \n \v \f \r
                                     (c == 0x1b));                                            // ESC
  });
  const std::size_t nul = may_hold_nul ? count_byte(s, '\0') : 0;
  const std::size_t counted = s.size() - nul;
  return counted == 0 ? 0 : static_cast<int>(bad * 100 / counted);
}

std::size_t count_line_ends(std::string_view text) {
  const std::size_t without_cr = detail::count_equal_without(text.data(), text.size(), '\n', '\r');
  if (without_cr != std::string_view::npos) return without_cr;
  // Every `\r` and every `\n` ends a line, but a `\r\n` is one end: the pairs are counted
  // sixteen starts a step (a byte loop here was a sixth of a CRLF log's scan).
  using namespace detail;
  const char* p = text.data();
  // Each lane counts its pairs (a match is -1: 0xFF), summed every 255 steps before a lane can
  // overflow (no popcount: the baseline x86-64 build calls a library function for it).
  std::size_t pairs = 0;
  std::size_t i = 0;
  while (i + 17 <= text.size()) {
    Bytes16 lanes{};
    for (int step = 0; step < 255 && i + 17 <= text.size(); ++step, i += 16)
      lanes -= reinterpret_cast<Bytes16>((load16(p + i) == splat16('\r')) & (load16(p + i + 1) == splat16('\n')));
    pairs += sum16(lanes);
  }
  for (; i + 1 < text.size(); ++i) pairs += p[i] == '\r' && p[i + 1] == '\n';
  return count_byte(text, '\r') + count_byte(text, '\n') - pairs;
}

namespace {

/// Whether `pattern` (its wildcard bytes matching anything) lies at `at`.
bool matches_at(const char* at, std::string_view pattern, char wildcard) {
  for (std::size_t k = 0; k < pattern.size(); ++k)
    if (pattern[k] != wildcard && at[k] != pattern[k]) return false;
  return true;
}

}  // namespace

void for_each_pattern(std::string_view s, std::string_view pattern, char wildcard,
                      const std::function<bool(std::size_t)>& found) {
  // Every start where the pattern's first and last bytes match, many starts at a time, then the
  // rest of the pattern there: one pass, without a call per candidate byte.
  using namespace detail;
  constexpr std::size_t kNone = std::string_view::npos;
  const std::size_t n = pattern.size();
  if (n > s.size()) return;
  const std::size_t first = pattern.find_first_not_of(wildcard);
  const std::size_t starts = s.size() - n + 1;
  if (first == kNone) {  // all wildcards (or empty): every start
    for (std::size_t i = 0; i < starts; ++i)
      if (!found(i)) return;
    return;
  }
  const std::size_t last = pattern.find_last_not_of(wildcard);
  // A third byte between them, where the pattern fixes one (`:??:??.`'s second colon), weeds
  // out the starts that match at both ends only (`lora_request: None.` in every vLLM line).
  // (None: the last byte stands in for it.)
  const std::size_t middle = std::min(pattern.find_first_not_of(wildcard, first + 1), last);
  const char* p = s.data();
  // Each start of `bits` (at + bit) that holds the whole pattern, lowest first, until `found`
  // says stop (then false). `next` drops the starts an earlier, overlapping look handed on.
  std::size_t next = 0;  // the first start not yet handed on
  // `whole`: the bits' starts hold every byte the pattern fixes (it fixes none but those three).
  const auto verify = [&](std::size_t at, std::uint64_t bits, bool whole) {
    for (; bits != 0; bits &= bits - 1) {
      const std::size_t start = at + static_cast<std::size_t>(__builtin_ctzll(bits));
      if (start < next || (!whole && !matches_at(p + start, pattern, wildcard))) continue;
      next = start + 1;
      if (!found(start)) return false;
    }
    return true;
  };
  // Sixty-four starts to a word: the head byte's, the middle's and the tail byte's bits ANDed,
  // in one pass. The words come in runs that double from two to kBitWords, so that a search
  // that stops early (find_pattern) computes at most twice the words it reads. The loads reach
  // p[i + last + 63] <= p[starts - 1 + last] < p[s.size()].
  const FixedByte fixed[3] = {{first, static_cast<unsigned char>(pattern[first])},
                              {middle, static_cast<unsigned char>(pattern[middle])},
                              {last, static_cast<unsigned char>(pattern[last])}};
  // No fixed byte between the middle and the last (`:??:??.`): the three are all it fixes.
  const bool three_settle = middle == last || pattern.find_first_not_of(wildcard, middle + 1) == last;
  std::size_t i = 0;
  std::uint64_t words[kBitWords];
  for (std::size_t run = 2; i + 64 <= starts; run = std::min(2 * run, kBitWords)) {
    const std::size_t count = std::min((starts - i) / 64, run);
    fixed_bits(p + i, count, fixed, words);
    for (std::size_t k = 0; k < count; ++k, i += 64)
      if (words[k] != 0 && !verify(i, words[k], three_settle)) return;
  }
  // The rest sixteen starts at a time, the last sixteen overlapping the ones before (`next`
  // keeps a start from being handed on twice); under sixteen starts, byte by byte.
  const Bytes16 head = splat16(static_cast<unsigned char>(pattern[first]));
  const Bytes16 tail = splat16(static_cast<unsigned char>(pattern[last]));
  const auto candidates16 = [&](std::size_t at) {  // the starts [at, at + 16) as bits
    return std::uint64_t{bits16((load16(p + at + first) == head) & (load16(p + at + last) == tail))};
  };
  if (starts >= 16) {
    for (; i + 16 <= starts; i += 16)
      if (!verify(i, candidates16(i), false)) return;
    if (i < starts) verify(starts - 16, candidates16(starts - 16), false);
    return;
  }
  for (; i < starts; ++i)
    if (p[i + first] == pattern[first] && p[i + last] == pattern[last] && matches_at(p + i, pattern, wildcard) &&
        !found(i))
      return;
}

std::size_t find_pattern(std::string_view s, std::string_view pattern, char wildcard) {
  std::size_t at = std::string_view::npos;
  for_each_pattern(s, pattern, wildcard, [&at](std::size_t start) {
    at = start;
    return false;
  });
  return at;
}

bool contains_pattern(std::string_view s, std::string_view pattern, char wildcard) {
  return find_pattern(s, pattern, wildcard) != std::string_view::npos;
}

}  // namespace culprit::text
