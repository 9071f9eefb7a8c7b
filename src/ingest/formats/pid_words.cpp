#include "ingest/formats/pid_words.hpp"

#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {
constexpr std::string_view kPidWord = "pid";
constexpr std::string_view kPidWordUpper = "PID";

bool pid_word_at(std::string_view s, std::size_t at) {
  const std::string_view word = s.substr(at, kPidWord.size());
  return word == kPidWord || word == kPidWordUpper;
}
}  // namespace

bool names_pid(std::string_view line) {
  for (std::size_t at = text::find_folded(line, kPidWord); at != std::string_view::npos;
       at = text::find_folded(line, kPidWord, at + 1))
    if (pid_word_at(line, at)) return true;
  return false;
}

bool PidWords::in(std::string_view line) {
  const char* base = text_.data();
  if (line.data() < base + floor_ || line.data() + line.size() > base + text_.size()) return names_pid(line);
  const std::size_t start = static_cast<std::size_t>(line.data() - base), end = start + line.size();
  floor_ = start;
  // A match before the line is behind it: search on from the line's start. Each match inside
  // the line is checked for the word's two spellings; the first outside it is kept for the
  // lines after.
  if (next_ < start) next_ = text::find_folded(text_, kPidWord, start);
  for (; next_ != std::string_view::npos && next_ + kPidWord.size() <= end;
       next_ = text::find_folded(text_, kPidWord, next_ + 1))
    if (pid_word_at(text_, next_)) return true;
  return false;
}

}  // namespace culprit::ingest
