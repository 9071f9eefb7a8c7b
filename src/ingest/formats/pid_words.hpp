// Whether a line of an application log names a pid (`pid`, `PID`): the app-log fast path skips
// such a line only behind a writer prefix already sighted (app_log.cpp, skippable).
#pragma once

#include <cstddef>
#include <string_view>

namespace culprit::ingest {

/// Whether `line` holds `pid` or `PID` (not `Pid`): one case-folded search for both spellings.
bool names_pid(std::string_view line);

/// names_pid for the lines of one text, asked in the text's order: one case-folded search runs
/// ahead through the text and keeps the next `pid` it found, so that a line without one costs a
/// compare, not a search of its own (a search's set-up costs more than the search of a short
/// line, and every line of a Python or vLLM log is asked). A line that is not a view of the
/// text, or starts before one asked already, is searched on its own: the answer is names_pid's
/// either way.
class PidWords {
 public:
  explicit PidWords(std::string_view text) : text_(text) {}
  bool in(std::string_view line);

 private:
  std::string_view text_;
  std::size_t floor_ = 0;  ///< where the last line asked starts
  /// A place in the text at or after floor_ where the case-folded search for `pid` matched,
  /// with no match between floor_ and it (npos: none up to the text's end); 0 before the first
  /// search, which in() then checks as a match.
  std::size_t next_ = 0;
};

}  // namespace culprit::ingest
