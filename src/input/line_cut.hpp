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
#include <vector>

namespace culprit::input::detail {


/// True when `head`, an input's first bytes, reads as lines of text: no UTF-16 byte-order mark
/// and no NUL in its first 4 KiB (UTF-16 without one), not an archive's magic.
bool reads_as_lines(std::string_view head);

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
  std::int64_t first_cut_line() const { return cuts_.empty() ? 0 : cuts_.front().line; }
  std::int64_t first_cut_bytes() const { return cuts_.empty() ? 0 : cuts_.front().bytes; }

  /// How much of `out` is final: the start of the line still being read or cut (everything
  /// before it stays as it is). A piece handed on ends at a line start no later than this.
  std::size_t settled(const std::string& out) const;
  /// What the cutter knows of a piece of the input: the bytes it stood for as read, and its
  /// first cut line (1-based in the piece, 0: none) with that line's whole length.
  struct Account {
    std::int64_t lines = 0;  ///< the lines that end in the piece (take_front; rest() leaves 0)
    std::int64_t read_bytes = 0;
    std::int64_t first_cut_line = 0;
    std::int64_t first_cut_bytes = 0;
  };
  /// Hands on `piece`, the first bytes of `out` up to a line start no later than settled(),
  /// which the caller then erases from `out`: returns its account, and the cutter goes on with
  /// the rest, counting its lines afresh.
  Account take_front(std::string_view piece);
  /// The account of what `out` holds now (the last piece, or the whole input).
  Account rest() const;

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
  /// A line cut since the last piece was taken: its number (1-based in what `out` holds) and
  /// whole length (BOM aside; the last one's grows while it is still being cut).
  struct CutLine {
    std::int64_t line = 0;
    std::int64_t bytes = 0;
  };
  std::vector<CutLine> cuts_;
  static constexpr std::size_t kMaxCutLines = 4096;
  /// Line numbering of `out`, kept as cuts are found: `counted_` bytes hold `counted_lines_`
  /// line ends (the last one a \r when `counted_cr_`, whose \n would not count again).
  std::int64_t line_at(const std::string& out, std::size_t at);
  std::size_t counted_ = 0;
  std::int64_t counted_lines_ = 0;
  bool counted_cr_ = false;
  std::size_t probe_ = kProbeBytes;  ///< no cut before this offset (0 once a piece was taken)
  std::int64_t taken_ = 0;           ///< bytes read that pieces taken so far stood for
  std::int64_t dropped_done_ = 0;    ///< bytes dropped from lines that ended, since the last piece
  std::int64_t dropped_open_ = 0;    ///< bytes dropped from the line being cut
};

}  // namespace culprit::input::detail
