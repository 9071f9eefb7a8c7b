// JSON value splitting for texts that hold several values (json_spans.hpp).
#include "json_spans.hpp"

#include <algorithm>
#include <cstring>

#include "text/byte_vectors.hpp"

namespace culprit::ingest::json {

void StructureBytes::load(std::size_t at) {
  using namespace text::detail;
  char tail[64] = {};  // past the end: NUL bytes, which are no structure byte
  const char* p = s_.data() + at;
  if (at + 64 > s_.size()) {
    std::memcpy(tail, p, s_.size() - at);
    p = tail;
  }
  bits_ = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const Bytes16 v = load16(p + 16 * k);
    // `{` 0x7b and `[` 0x5b differ by the 0x20 bit alone, as do `}` 0x7d and `]` 0x5d.
    const Bytes16 folded = v | splat16(0x20);
    bits_ |= std::uint64_t{bits16((v == splat16('"')) | (v == splat16('\\')) | (v == splat16('\n')) |
                                  (folded == splat16('{')) | (folded == splat16('}')))}
             << (16 * k);
  }
  base_ = at;
  loaded_ = true;
}

namespace {

/// depth_change by the walk of StructureBytes: the answer wherever a backslash stands outside a
/// string (the walk passes over it there; the word method below would take it for an escape).
int depth_by_walk(std::string_view line) {
  int d = 0;
  bool in_string = false;
  StructureBytes places(line);
  for (std::size_t i = places.next(0); i < line.size(); i = places.next(i + 1)) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++d;
    } else if (c == '}' || c == ']') {
      --d;
    }
  }
  return d;
}

/// One bit per byte of a 64-byte word: quotes, backslashes, opening and closing brackets.
struct WordBits {
  std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};
WordBits word_bits(const char* p) {
  using namespace text::detail;
  WordBits w;
  for (unsigned k = 0; k < 4; ++k) {
    const Bytes16 v = load16(p + 16 * k);
    const Bytes16 folded = v | splat16(0x20);  // `[` -> `{`, `]` -> `}`
    const unsigned shift = 16 * k;
    w.quote |= std::uint64_t{bits16(v == splat16('"'))} << shift;
    w.backslash |= std::uint64_t{bits16(v == splat16('\\'))} << shift;
    w.open |= std::uint64_t{bits16(folded == splat16('{'))} << shift;
    w.close |= std::uint64_t{bits16(folded == splat16('}'))} << shift;
  }
  return w;
}

/// The bits set in `x`, one step a bit: a word holds a few brackets outside strings (the
/// baseline x86-64 build has no popcnt instruction, and libgcc's popcount is a call).
int bits_set(std::uint64_t x) {
  int n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}

}  // namespace

int depth_change(std::string_view line) {
  // 64 bytes a word: the escaped bytes (after a backslash that is not itself escaped), the
  // string interiors as the running parity of the unescaped quotes, and the brackets outside
  // them counted. That is the byte walk's answer while every backslash lies inside a string
  // (there both escape the next byte); a backslash outside one sends the line to the walk.
  int d = 0;
  std::uint64_t inside_carry = 0;  // all ones where the last word ended inside a string
  bool escape_carry = false;       // the last word ended with an escaping backslash
  for (std::size_t at = 0; at < line.size(); at += 64) {
    char tail[64] = {};
    const char* p = line.data() + at;
    if (line.size() - at < 64) {
      std::memcpy(tail, p, line.size() - at);
      p = tail;
    }
    const WordBits w = word_bits(p);
    std::uint64_t escaped = 0;
    std::uint64_t escapes = w.backslash;
    if (escape_carry) {
      escaped |= 1;
      escapes &= ~std::uint64_t{1};
    }
    escape_carry = false;
    while (escapes != 0) {
      const unsigned b = static_cast<unsigned>(__builtin_ctzll(escapes));
      escapes &= escapes - 1;
      if (b == 63) {
        escape_carry = true;
      } else {
        escaped |= std::uint64_t{1} << (b + 1);
        escapes &= ~(std::uint64_t{1} << (b + 1));  // an escaped backslash escapes nothing
      }
    }
    std::uint64_t inside = w.quote & ~escaped;  // prefix parity: a quote opens, the next closes
    inside ^= inside << 1;
    inside ^= inside << 2;
    inside ^= inside << 4;
    inside ^= inside << 8;
    inside ^= inside << 16;
    inside ^= inside << 32;
    inside ^= inside_carry;
    if ((w.backslash & ~inside) != 0) return depth_by_walk(line);
    d += bits_set(w.open & ~inside) - bits_set(w.close & ~inside);
    inside_carry = (inside >> 63) != 0 ? ~std::uint64_t{0} : 0;
  }
  return d;
}

Step next_value(std::string_view text, bool arrays, std::size_t max_bytes, ValueCursor& c, Span& out) {
  std::size_t& i = c.i;
  std::int64_t& line = c.line;
  StructureBytes& places = c.places;
  while (i < text.size()) {
    i = places.next(i);  // (the bytes passed over open no value and end no line)
    if (i >= text.size()) break;
    char c0 = text[i];
    if (c0 == '\n') {
      ++line;
      ++i;
      return Step::line;
    }
    if (c0 != '{' && !(arrays && c0 == '[')) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    const std::int64_t start_line = line;
    int depth = 0;
    bool in_string = false, done = false;
    for (; i < text.size(); ++i) {
      // Bytes that are no structure byte change nothing but the size check outside a string:
      // jump to the next structure byte, stopping where that check would have ended the value.
      if (const std::size_t next = places.next(i); next > i) {
        const std::size_t limit = start + max_bytes + 1;  // the first place the check ends the value
        if (!in_string && next > limit) {
          i = std::max(i, limit);
          break;
        }
        i = next;
        if (i >= text.size()) break;
      }
      char d = text[i];
      if (d == '\n') ++line;
      if (in_string) {
        if (d == '\\') {
          if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
          ++i;
        } else if (d == '"') {
          in_string = false;
        } else if (d == '\n') {
          break;  // JSON strings hold no raw newline: this value is broken
        }
        continue;
      }
      if (d == '"') {
        in_string = true;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) {
          done = true;
          ++i;
          break;
        }
      }
      if (i - start > max_bytes) break;
    }
    if (done) {
      out = {text.substr(start, i - start), start_line, line};
      return Step::value;
    }
    if (i < text.size()) ++i;  // past the byte that broke the value (its newline is counted)
  }
  return Step::end;
}

std::vector<Span> split_values(std::string_view text, bool arrays, std::size_t max_bytes) {
  std::vector<Span> out;
  ValueCursor cursor(text);
  Span span;
  for (Step step; (step = next_value(text, arrays, max_bytes, cursor, span)) != Step::end;)
    if (step == Step::value) out.push_back(span);
  return out;
}

std::int64_t line_of(std::string_view text, std::string_view needle, std::size_t from) {
  if (from > text.size()) return 0;
  std::size_t at = text.find(needle, from);
  if (at == std::string_view::npos) return 0;
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
}

}  // namespace culprit::ingest::json
