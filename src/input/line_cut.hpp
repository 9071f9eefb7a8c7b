// Cutting over-long lines while an input is read, so a 400 MB line is never held whole.
// Ingest's normalisation (src/ingest/normalize.cpp) cuts every line to max_line_bytes of its
// *cleaned* text anyway; the reader keeps a little more than that of each line (kSlack bytes
// that are not NUL), so normalisation makes the same cut and the same text from what is kept.
// What normalisation cannot see any more, the full length of the first line cut here, is
// handed on in the Source (cut_line, cut_line_bytes) for its note. Private to the input module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace culprit::input::detail {

class LineCutter {
 public:
  /// Bytes of a line past max_line_bytes still kept: normalisation looks at most 3 bytes past
  /// its cut (a UTF-8 sequence) and strips a 3-byte BOM from line 1.
  static constexpr std::size_t kSlack = 8;
  /// Nothing before this offset is ever dropped: normalisation's binary probe (64 KiB after a
  /// BOM), its UTF-16 probe (4 KiB) and the archive magic (512 bytes) see the bytes as read.
  static constexpr std::size_t kProbeBytes = 65536 + kSlack;

  /// `max_line_bytes` 0: keep everything (no per-line limit).
  explicit LineCutter(std::size_t max_line_bytes) : keep_(max_line_bytes == 0 ? 0 : max_line_bytes + kSlack) {}

  /// Appends `chunk`, the next bytes of the input, to `out`, less what lies past the kept part
  /// of a line. Off for good (everything kept) when the first bytes look like UTF-16 (a
  /// byte-order mark or any NUL in the first 4 KiB) or an archive: their "lines" are not text.
  void append(std::string& out, std::string_view chunk);

  /// Bytes given to append() so far.
  std::int64_t read_bytes() const { return read_; }
  /// The first line cut (1-based, counted as normalisation counts: \n, \r\n, lone \r), 0 when
  /// none, and its whole length in bytes (BOM aside); a line still being read counts so far.
  std::int64_t first_cut_line() const { return first_cut_line_; }
  std::int64_t first_cut_bytes() const { return first_cut_bytes_; }

 private:
  void decide(const std::string& out);
  void scan(std::string& out);
  /// Walks the current line from where the last walk stopped to `end`: the offset where it
  /// has `keep_` bytes that are not NUL (never before kProbeBytes), the cut; else npos.
  std::size_t walk(const std::string& out, std::size_t end);
  /// Drops `out` from `at` to the line's terminator (all of it when the chunk has none).
  void start_cut(std::string& out, std::size_t at);

  enum class State { undecided, on, off };
  std::size_t keep_;
  State state_ = State::undecided;
  std::int64_t read_ = 0;
  std::size_t scanned_ = 0;      ///< `out` is checked up to here
  std::size_t line_start_ = 0;   ///< after the last \n before scanned_ (an upper bound of the line)
  std::size_t walk_pos_ = 0;     ///< the exact walk of the current line reached here...
  std::size_t walk_count_ = 0;   ///< ...with this many non-NUL bytes since the last terminator
  std::size_t walk_begin_ = 0;   ///< ...which ended just before here (the line's start)
  bool cutting_ = false;         ///< dropping the rest of a line until its terminator
  bool cutting_first_ = false;   ///< ... and that line is the first cut one
  std::int64_t first_cut_line_ = 0;
  std::int64_t first_cut_bytes_ = 0;
};

}  // namespace culprit::input::detail
