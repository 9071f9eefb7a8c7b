// Text normalisation (see normalize.hpp). The fast path only scans: NULs by memchr, UTF-8 by
// simdjson's validator, line lengths by memchr; a copy is made only when something must change.
#include "ingest/normalize.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "culprit/text/lines.hpp"

namespace culprit::ingest::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// UTF-32 by its byte-order mark (FF FE 00 00 is UTF-32LE, not UTF-16LE's FF FE followed by a
/// NUL), UTF-16 by its byte-order mark or by its shape: ASCII text in UTF-16 has a NUL in every
/// other byte. Returns "UTF-32LE", "UTF-32BE", "UTF-16LE", "UTF-16BE" or "".
std::string_view detect_wide_encoding(std::string_view in, bool& from_bom) {
  from_bom = false;
  if (in.size() >= 4) {
    if (in.substr(0, 4) == std::string_view("\xFF\xFE\0\0", 4)) return from_bom = true, "UTF-32LE";
    if (in.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4)) return from_bom = true, "UTF-32BE";
  }
  if (in.size() >= 2) {
    const auto b0 = static_cast<unsigned char>(in[0]), b1 = static_cast<unsigned char>(in[1]);
    if (b0 == 0xFF && b1 == 0xFE) return from_bom = true, "UTF-16LE";
    if (b0 == 0xFE && b1 == 0xFF) return from_bom = true, "UTF-16BE";
  }
  const size_t pairs = std::min<size_t>(in.size(), 4096) / 2;
  if (pairs < 8) return {};
  // Without a NUL in the probe neither half is mostly NULs: most inputs are answered by one
  // memchr, not by the count (a folder of small files asked it of each).
  if (std::memchr(in.data(), '\0', 2 * pairs) == nullptr) return {};
  size_t zero_even = 0, zero_odd = 0;
  for (size_t i = 0; i < pairs; ++i) {
    zero_even += in[2 * i] == '\0';
    zero_odd += in[2 * i + 1] == '\0';
  }
  if (zero_odd * 10 >= pairs * 9 && zero_even * 10 <= pairs) return "UTF-16LE";
  if (zero_even * 10 >= pairs * 9 && zero_odd * 10 <= pairs) return "UTF-16BE";
  return {};
}

std::string decode_utf16(std::string_view in, bool little_endian, bool skip_bom) {
  std::string out;
  out.reserve(in.size() / 2 + 16);
  size_t i = skip_bom ? 2 : 0;
  auto unit = [&](size_t at) -> char32_t {
    const auto a = static_cast<unsigned char>(in[at]), b = static_cast<unsigned char>(in[at + 1]);
    return little_endian ? static_cast<char32_t>(a | (b << 8)) : static_cast<char32_t>((a << 8) | b);
  };
  for (; i + 1 < in.size(); i += 2) {
    const char32_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 3 < in.size()) {
      const char32_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
    }
    if (u >= 0xD800 && u <= 0xDFFF) out += kReplacement;  // a lone surrogate
    else append_utf8(out, u);
  }
  if (i < in.size()) out += kReplacement;  // an odd trailing byte
  return out;
}

/// UTF-32 (after its 4-byte byte-order mark): each unit a code point; a unit that is none (a
/// surrogate, past U+10FFFF) and a trailing part unit are U+FFFD.
std::string decode_utf32(std::string_view in, bool little_endian) {
  std::string out;
  out.reserve(in.size() / 4 + 16);
  std::size_t i = 4;
  for (; i + 3 < in.size(); i += 4) {
    char32_t u = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const auto b = static_cast<unsigned char>(in[i + (little_endian ? 3 - k : k)]);
      u = (u << 8) | b;
    }
    if (u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)) out += kReplacement;
    else append_utf8(out, u);
  }
  if (i < in.size()) out += kReplacement;
  return out;
}

/// Length of the valid UTF-8 sequence at `s[i]`, or 0 when it is not one.
size_t valid_sequence(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    if (i + k >= s.size()) return false;
    const auto b = static_cast<unsigned char>(s[i + k]);
    return b >= lo && b <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/// text::binary_percent of the probe; `census`: of `s` (or all()), so NULs are counted only where
/// it may hold one.
int binary_percent(std::string_view s, const text::RareBytes& census) {
  // Where the census saw no control byte but \t, \n and \r, the probe would count none: most
  // files, and a folder of small ones asked it of each.
  if (!census.may_hold_control()) return 0;
  return text::binary_percent(s, census.may_hold('\0'));
}

/// True when some line (ended by \n, \r\n or a lone \r) is longer than `max`.
bool has_long_line(std::string_view s, size_t max) {
  if (max == 0 || s.size() <= max) return false;
  size_t pos = 0;
  while (pos < s.size()) {
    // The last \n of the next max + 1 bytes: every line ending there is short enough (a lone \r
    // only shortens lines), so the walk goes a window at a time, not a line at a time.
    if (s.size() - pos <= max) return false;
    if (const void* last = memrchr(s.data() + pos, '\n', max + 1)) {
      pos = static_cast<size_t>(static_cast<const char*>(last) - s.data()) + 1;
      continue;
    }
    const void* nl = std::memchr(s.data() + pos, '\n', s.size() - pos);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - s.data()) : s.size();
    if (end - pos > max) {
      // A lone \r also ends a line: measure the pieces between them.
      size_t piece = pos;
      for (size_t k = pos; k <= end; ++k) {
        if (k == end || s[k] == '\r') {
          if (k - piece > max) return true;
          piece = k + 1;
        }
      }
    }
    pos = end + 1;
  }
  return false;
}

/// The slow path: one pass, line by line, writing the cleaned text.
std::string clean(std::string_view s, size_t max_line_bytes, NormalizeReport& r) {
  std::string out;
  out.reserve(s.size());
  std::int64_t line = 1;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t eol = pos;
    while (eol < s.size() && s[eol] != '\n' && s[eol] != '\r') ++eol;
    const size_t line_start = out.size();
    const size_t limit = max_line_bytes ? max_line_bytes : SIZE_MAX;
    bool invalid = false, nul = false, cut = false;
    for (size_t i = pos; i < eol;) {
      if (out.size() - line_start >= limit) {
        cut = true;
        break;
      }
      // A run of plain ASCII is copied at once (up to the room left on the line).
      size_t j = i;
      const size_t room = limit - (out.size() - line_start);
      const size_t stop = room >= eol - i ? eol : i + room;
      while (j < stop && static_cast<unsigned char>(s[j]) < 0x80 && s[j] != '\0') ++j;
      if (j > i) {
        out.append(s.data() + i, j - i);
        i = j;
        continue;
      }
      if (s[i] == '\0') {
        const size_t run = std::find_if(s.begin() + static_cast<std::ptrdiff_t>(i),
                                        s.begin() + static_cast<std::ptrdiff_t>(eol), [](char c) { return c != '\0'; }) -
                           (s.begin() + static_cast<std::ptrdiff_t>(i));
        r.nul_bytes += static_cast<std::int64_t>(run);
        nul = true;
        i += run;
        continue;
      }
      const size_t n = valid_sequence(s, i);
      if (n == 0) {
        out += kReplacement;
        invalid = true;
        ++i;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
    }
    if (out.size() - line_start > limit) cut = true;
    if (cut) {
      // Never end inside a UTF-8 sequence: when the byte after the cut continues a character,
      // back off to that character's start.
      size_t len = std::min(out.size() - line_start, limit);
      while (len > 0 && line_start + len < out.size() &&
             (static_cast<unsigned char>(out[line_start + len]) & 0xC0) == 0x80)
        --len;
      out.resize(line_start + len);
      if (r.cut_lines++ == 0) {
        r.first_cut_line = line;
        r.first_cut_bytes = static_cast<std::int64_t>(eol - pos);
      }
    }
    if (nul && r.first_nul_line == 0) r.first_nul_line = line;
    if (invalid && r.invalid_utf8_lines++ == 0) r.first_invalid_line = line;
    if (eol >= s.size()) break;
    if (s[eol] == '\r' && eol + 1 < s.size() && s[eol + 1] == '\n') {
      out += "\r\n";
      pos = eol + 2;
    } else {
      out += s[eol];
      pos = eol + 1;
    }
    ++line;
  }
  return out;
}

}  // namespace

std::string_view normalize_text(std::string_view in, std::size_t max_line_bytes, std::string& storage,
                                NormalizeReport& report, text::RareBytes* rare) {
  report = {};
  std::string_view text = in;
  const std::string_view wide = detect_wide_encoding(in, report.encoding_from_bom);
  if (!wide.empty()) {
    report.encoding = std::string(wide);
    storage = wide.substr(0, 6) == "UTF-32" ? decode_utf32(in, wide == "UTF-32LE")
                                            : decode_utf16(in, wide == "UTF-16LE", report.encoding_from_bom);
    text = storage;
  }
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  const text::RareBytes census = rare ? text::RareBytes::of(text) : text::RareBytes::all();
  if (rare) *rare = census;
  report.binary_percent = binary_percent(text, census);
  if (report.binary_percent >= text::kBinaryPercent) {
    report.binary = true;
    return text;
  }
  const bool nul = census.holds('\0', text);
  // All ASCII (the census's word) is valid UTF-8: no second pass over the text.
  const bool valid = !census.may_hold_non_ascii() || simdjson::validate_utf8(text.data(), text.size());
  if (!nul && valid && !has_long_line(text, max_line_bytes)) return text;
  std::string cleaned = clean(text, max_line_bytes, report);
  storage = std::move(cleaned);
  if (rare) *rare = text::RareBytes::of(storage);
  return storage;
}

}  // namespace culprit::ingest::detail
