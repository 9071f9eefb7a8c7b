// JSON value splitting for texts that hold several values (json_spans.hpp).
#include "json_spans.hpp"

#include <algorithm>

namespace culprit::ingest::json {

std::vector<Span> split_values(std::string_view text, bool arrays, std::size_t max_bytes) {
  std::vector<Span> out;
  std::int64_t line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c != '{' && !(arrays && c == '[')) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    const std::int64_t start_line = line;
    int depth = 0;
    bool in_string = false, done = false;
    for (; i < text.size(); ++i) {
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
    if (done) out.push_back({text.substr(start, i - start), start_line});
    else if (i < text.size()) ++i;  // past the byte that broke the value (its newline is counted)
  }
  return out;
}

std::int64_t line_of(std::string_view text, std::string_view needle, std::size_t from) {
  if (from > text.size()) return 0;
  std::size_t at = text.find(needle, from);
  if (at == std::string_view::npos) return 0;
  return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
}

}  // namespace culprit::ingest::json
