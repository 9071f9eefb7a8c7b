// UTF-8 decoding, terminal columns, and cutting/wrapping for the renderers. Log text is
// untrusted bytes: everything here tolerates invalid UTF-8 and never reads past the input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::report::utf8 {

inline constexpr char32_t kReplacement = 0xFFFD;

/// Decodes the code point starting at `text[i]` and advances `i`. An invalid or truncated
/// sequence yields kReplacement and advances over its maximal invalid prefix (at least one
/// byte), as Unicode's "substitution of maximal subparts" recommends. Requires i < size.
char32_t next(std::string_view text, std::size_t& i);

/// Appends the UTF-8 encoding of `cp` (must be a scalar value).
void append(std::string& out, char32_t cp);

/// Display columns of one code point: 0 for combining marks and zero-width characters,
/// 2 for East Asian wide / emoji, 1 otherwise.
int columns(char32_t cp);

/// Display columns of (possibly invalid) UTF-8 text; invalid bytes count as one U+FFFD each.
int columns(std::string_view text);

/// Log text made safe for a terminal or a Markdown file: valid UTF-8, ANSI escape sequences
/// removed, CRLF and lone CR as LF, tabs as one space, other control characters dropped.
/// Newlines are kept; use `one_line` to fold them.
std::string clean(std::string_view text);

/// `clean`, then every run of newlines as one space and the ends trimmed.
std::string one_line(std::string_view text);

/// `text` (clean, one line) cut to at most `width` columns. When it is longer, it is cut at
/// the last space that keeps at least half the room (else at a code point) and ends with `…`.
/// `width` <= 0 means no limit.
std::string cut(std::string_view text, int width);

/// `text` (clean, one line) cut from the left to at most `cols` columns, with a leading `…`:
/// `…/train-rank0.log:1184` — a location keeps its end (the file name and line).
std::string cut_left(std::string_view text, int cols);

/// Greedy word wrap of one clean line into lines of at most `width` columns; a word longer than
/// a line is split at code points. `width` <= 0 means no wrapping. Never returns an empty vector.
std::vector<std::string> wrap(std::string_view text, int width);

}  // namespace culprit::report::utf8
