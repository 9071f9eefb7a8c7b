// tidy_message: a few textual repairs, applied in order; see the header for the contract.
#include "message_tidy.hpp"

#include <cctype>
#include <string_view>

namespace culprit::diagnose {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool is_stop(char c) { return c == ':' || c == ',' || c == '.' || c == ';'; }

}  // namespace

std::string tidy_message(std::string text) {
  // 0. `on` followed by two spaces stood before an empty host: "x on  was killed" -> "x was killed".
  for (std::size_t at = text.find(" on  "); at != std::string::npos; at = text.find(" on  ", at))
    text.erase(at, 3);
  // 1. Spaces: one at a time, none before punctuation that closes a clause.
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    // A stop that closes a clause ends a word or the text; `../path` and `.5` do not.
    const bool closes = i + 1 == text.size() || text[i + 1] == ' ';
    if (is_stop(c) && closes && !out.empty() && out.back() == ' ') out.pop_back();
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();

  // 2. An `on` whose host was empty: "failed on: x" -> "failed: x", "on." -> ".".
  std::string mended;
  mended.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (is_stop(c) && ends_with(mended, " on")) mended.resize(mended.size() - 3);
    // A doubled full stop (". ." became ".." above) ending a sentence keeps one; an ellipsis
    // and a path (`../aten/…`) stay.
    const bool sentence_end = i + 1 == out.size() || out[i + 1] == ' ';
    if (c == '.' && sentence_end && !mended.empty() && mended.back() == '.' &&
        !(mended.size() >= 2 && mended[mended.size() - 2] == '.')) {
      continue;
    }
    mended += c;
  }

  // 3. A sentence after a full stop starts with a capital ("engine. no other" -> "No other").
  //    Not the message's first word: it is often a name (`earlyoom`, `vllm`) kept as written.
  for (std::size_t i = 2; i < mended.size(); ++i) {
    if (mended[i - 1] != ' ' || mended[i - 2] != '.') continue;
    const std::string_view before(mended.data(), i - 1);
    if (ends_with(before, "e.g.") || ends_with(before, "i.e.") || ends_with(before, "..")) continue;
    const unsigned char c = static_cast<unsigned char>(mended[i]);
    // Only a plain word: `gpu_memory_utilization` or a path keeps its case.
    std::size_t end = i;
    bool plain = true;
    while (end < mended.size() && mended[end] != ' ') {
      const char w = mended[end++];
      if (!(std::isalpha(static_cast<unsigned char>(w)) || w == ',' || w == ':' || w == '.')) plain = false;
    }
    if (plain && c >= 'a' && c <= 'z') mended[i] = static_cast<char>(std::toupper(c));
  }
  return mended;
}

}  // namespace culprit::diagnose
