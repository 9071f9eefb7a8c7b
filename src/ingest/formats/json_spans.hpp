// Finds the JSON values in a text that may hold several of them with other text between
// (journalctl -o json lines, json-seq records, two `docker inspect` outputs in one paste).
// Private to the ingest module.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace culprit::ingest::json {

/// One complete top-level JSON object or array and the 1-based line it starts on (relative to
/// the text given).
struct Span {
  std::string_view text;
  std::int64_t line = 1;
};

/// Top-level `{…}` values (and `[…]` when `arrays`), honouring strings and escapes. Text between
/// values is skipped; a value cut by the end of the text, or holding a raw newline inside a
/// string, is dropped. Values over `max_bytes` are dropped.
std::vector<Span> split_values(std::string_view text, bool arrays, std::size_t max_bytes = 64 * 1024 * 1024);

/// The 1-based line (relative to `text`) of the first occurrence of `needle` at or after
/// `from`; 0 when absent.
std::int64_t line_of(std::string_view text, std::string_view needle, std::size_t from = 0);

}  // namespace culprit::ingest::json
