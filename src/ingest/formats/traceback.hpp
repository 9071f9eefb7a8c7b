// Assembles one Python traceback (plain, chained, IPython's or Rich's form) from the messages of
// one writer's lines, after prefix peeling. The caller routes lines by writer (PeeledLine::key)
// so interleaved ranks give separate tracebacks; this class only decides line membership.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "culprit/text/exception_line.hpp"
#include "ingest/formats/line_prefix.hpp"

namespace culprit::ingest {

/// A frame as the traceback printed it.
struct TracebackFrame {
  std::string file;
  std::int64_t line = 0;
  std::string func;
};

/// One exception chain: the event kind `traceback`. Lines are 1-based in the segment.
struct Traceback {
  std::int64_t first_line = 0;     ///< the `Traceback (most recent call last)` line
  std::int64_t last_line = 0;      ///< the final exception line, or the last line taken
  std::int64_t exc_line = 0;       ///< the final exception line (0 when truncated)
  std::string preamble;            ///< text before `Traceback` on its line (SGLang)
  std::string exc_text;            ///< the final exception line as printed
  std::string exc_type, exc_message;
  std::optional<TracebackFrame> innermost;
  /// The innermost frame in the program's own code (not site-packages, dist-packages, the
  /// standard library or `<frozen …>`): where a user fixes the error. Empty when every frame is
  /// library code.
  std::optional<TracebackFrame> innermost_own;
  int frames = 0;                  ///< frames of the last traceback in the chain
  int exceptions = 0;              ///< exception lines in the chain
  bool chained = false;            ///< `During handling…` / `The above exception…` joined it
  bool truncated = false;          ///< ended before its exception line
  bool rich = false;               ///< Rich's boxed rendering
  bool ipython = false;            ///< IPython / Jupyter's `ExcType   Traceback (…)` rendering
  PeeledLine start;                ///< prefixes of the first line
};

/// Python's `ExcType: message` line (text/exception_line.hpp).
using text::split_exception_line;

/// Feeds lines of one writer into one traceback.
class TracebackBuilder {
 public:
  /// True when `message` opens a traceback; `offset` is where `Traceback` (or Rich's `╭`) starts.
  static bool opens(std::string_view message, std::size_t* offset = nullptr);

  TracebackBuilder(std::int64_t seg_line, std::string_view message, PeeledLine start);

  enum class Step {
    taken,      ///< the line belongs to the traceback
    exception,  ///< taken, and it is an exception line (run the signals on it)
    rejected,   ///< not part of it: the traceback is complete; the caller handles the line
  };
  Step offer(std::int64_t seg_line, std::string_view message);

  /// The traceback as assembled (call after `rejected`, or at the end of the input).
  const Traceback& result();
  /// Prefixes of the opening line, and that line (1-based in the segment).
  const PeeledLine& start() const { return tb_.start; }
  std::int64_t first_line() const { return tb_.first_line; }

 private:
  enum class State { frames, ipython_frames, rich_box, after_box, after_exception, expect_traceback };
  Step frame_line(std::int64_t seg_line, std::string_view message);
  void note_frame(TracebackFrame f);  ///< innermost, and innermost_own when it is the program's
  Step ipython_line(std::int64_t seg_line, std::string_view message);
  Step exception_line(std::int64_t seg_line, std::string_view message);
  void restart(std::int64_t seg_line, std::string_view message);

  std::size_t rel_indent(std::string_view message) const;

  Traceback tb_;
  State state_ = State::frames;
  std::size_t base_indent_ = 0;  // indent of the `Traceback` line (pastes indent whole blocks)
};

}  // namespace culprit::ingest
