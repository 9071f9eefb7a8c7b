// One input's text, built as its bytes are read — through the line cutter — and handed on in
// pieces once it passes ReadOptions::piece_bytes, so a big input is never held whole. Each
// piece ends at a line start ReadOptions::piece_end chooses, carries the account of the bytes
// it stands for (cut lines, the first one cut) and its first line's number, and says `more`.
// Files, streams and archive members are all read through it. Private to the input module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "culprit/input/reader.hpp"
#include "input/line_cut.hpp"
#include "input/read_context.hpp"

namespace culprit::input::detail {

class SourcePieces {
 public:
  /// A piece that piece_end keeps reading on for (inside a block it must not cut) ends at its
  /// last line start once it is this many times ReadOptions::piece_bytes.
  static constexpr std::size_t kMaxPieceFactor = 64;

  /// `src` names the input and starts empty; its text is built here and, after finish(), holds
  /// the last piece (all of the input when it was never split). `max_line_bytes` is the
  /// cutter's (0: no per-line cut). `whole`: never split (an archive's member that is itself an
  /// archive keeps its bytes).
  SourcePieces(Source& src, ReadContext& ctx, std::size_t max_line_bytes, bool whole = false);

  /// The next bytes of the input; may hand a piece on (ReadContext::emit).
  void append(std::string_view chunk);
  /// Bytes given to append() so far (the per-file limit counts these).
  std::int64_t read_bytes() const { return cutter_.read_bytes(); }
  /// Makes room for an input of about `size` bytes before the first append(): all of it, or a
  /// piece's worth when it will be split, in a buffer given back where one is big enough
  /// (give_back_text), so its pages are mapped already.
  void reserve(std::int64_t size);
  /// Pieces handed on so far.
  int pieces() const { return pieces_; }
  /// Ends the input: src's text is its last piece, with that piece's account. The caller hands
  /// it on (or reads it as an archive, or drops it after an error).
  void finish();

 private:
  void split();
  /// The size at which piece_end is told the piece must end (ReadOptions::piece_end's `must`).
  std::size_t must_bytes() const { return 2 * piece_bytes_; }
  /// The room a piece's buffer is made with: what it holds when split() must end a piece (where
  /// no quiet stretch came sooner: a log with a memory line in ten) and the reads asked for
  /// after a try, so a piece never moves to a bigger buffer as it grows. A move copies
  /// megabytes into fresh pages, and the buffer given back would not fit the next piece.
  std::size_t piece_room() const { return must_bytes() + (piece_bytes_ >> 2); }
  Source& src_;
  ReadContext& ctx_;
  LineCutter cutter_;
  std::size_t piece_bytes_;  ///< 0: never split
  std::size_t next_try_;     ///< the size of the text at which split() is asked again
  std::string tail_;         ///< split(): the bytes past a piece's end while it is handed on
  bool probed_ = false;      ///< the input's head was checked for reading as lines
  int pieces_ = 0;
};

}  // namespace culprit::input::detail
