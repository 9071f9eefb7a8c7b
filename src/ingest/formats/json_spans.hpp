// Finds the JSON values in a text that may hold several of them with other text between
// (journalctl -o json lines, json-seq records, two `docker inspect` outputs in one paste).
// Private to the ingest module.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace culprit::ingest::json {

/// One complete top-level JSON object or array, the 1-based line it starts on and the line it
/// ends on (relative to the text given).
struct Span {
  std::string_view text;
  std::int64_t line = 1;
  std::int64_t last_line = 1;
};

/// The places in a text whose byte a JSON walk acts on: `"`, `\`, a newline, or a bracket (`{`,
/// `}`, `[`, `]`). The bytes between are passed over whatever the walk's state (inside a string
/// only `"`, `\` and newline matter): the text is classified 64 bytes at a time into one bit
/// word, and each call takes the next bit.
class StructureBytes {
 public:
  explicit StructureBytes(std::string_view s) : s_(s) {}
  /// The first place at or after `i` (any `i`; in order is cheapest); `s.size()` if none.
  std::size_t next(std::size_t i) {
    if (!loaded_ || i < base_ || i >= base_ + 64) {
      if (i >= s_.size()) return s_.size();
      load(i);
    }
    for (;;) {
      const std::uint64_t ahead = bits_ & (~std::uint64_t{0} << (i - base_));
      if (ahead != 0) return base_ + static_cast<std::size_t>(__builtin_ctzll(ahead));
      if (base_ + 64 >= s_.size()) return s_.size();
      i = base_ + 64;
      load(i);
    }
  }

 private:
  void load(std::size_t at);  ///< the bit word of [at, at + 64)
  std::string_view s_;
  std::size_t base_ = 0;
  std::uint64_t bits_ = 0;
  bool loaded_ = false;
};

/// Top-level `{…}` values (and `[…]` when `arrays`), honouring strings and escapes. Text between
/// values is skipped; a value cut by the end of the text, or holding a raw newline inside a
/// string, is dropped. Values over `max_bytes` are dropped.
std::vector<Span> split_values(std::string_view text, bool arrays, std::size_t max_bytes = 64 * 1024 * 1024);

/// Where split_values' walk stands: between values, at `i` on line `line`.
struct ValueCursor {
  explicit ValueCursor(std::string_view text) : places(text) {}
  std::size_t i = 0;
  std::int64_t line = 1;
  StructureBytes places;
};
enum class Step { value, line, end };
/// One step of split_values' walk from `cursor`: to the next value (`value`, in `out`), or past
/// the next newline between values (`line`: the cursor is at a line's start, so a caller may read
/// a line there itself, moving the cursor past it), or to the end of the text (`end`).
Step next_value(std::string_view text, bool arrays, std::size_t max_bytes, ValueCursor& cursor, Span& out);

/// Brace / bracket depth change over `line` (`{`, `[` up, `}`, `]` down), brackets inside strings
/// not counted (a backslash in a string escapes the byte after it).
int depth_change(std::string_view line);

/// The 1-based line (relative to `text`) of the first occurrence of `needle` at or after
/// `from`; 0 when absent.
std::int64_t line_of(std::string_view text, std::string_view needle, std::size_t from = 0);

}  // namespace culprit::ingest::json
