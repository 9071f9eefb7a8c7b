// The one home of terminal-safe text: UTF-8 decoding, what may reach a reader's terminal
// (`clean` for log text in reports, `visible` for names and cells on one line), terminal
// columns, and cutting / wrapping for the renderers. Log text, file names and stored values are
// untrusted bytes: everything here tolerates invalid UTF-8 and never reads past the input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::core::utf8 {

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

/// Whether `cp` is an invisible format character that changes how the text around it reads:
/// the bidi embeddings, overrides, isolates and marks (U+202A–202E, U+2066–2069, U+200E/F,
/// U+061C) and the zero-width spaces and joiners (U+200B–200D, U+2060–2064, U+FEFF). A name
/// holding one can read differently from its bytes ("Trojan Source") or look like another.
bool is_invisible_format(char32_t cp);

/// Log text made safe for a terminal or a Markdown file: valid UTF-8, ANSI escape sequences
/// removed, CRLF and lone CR as LF, tabs as one space, other control characters (C0, DEL, C1)
/// dropped, invisible format characters shown as `<U+202E>`. Newlines are kept; use
/// `one_line` to fold them.
std::string clean(std::string_view text);

/// A name or a value (a file or archive member name, a table cell, a stored string) shown on
/// one line exactly enough to tell it apart and safely: every control character escaped
/// (`\n`, `\r`, `\t`, `\x1b`, DEL `\x7f`), C1 controls and invisible format characters as
/// `<U+009B>`, `<U+202E>`, each byte of invalid UTF-8 as `\xff`. Escape sequences are shown,
/// not run nor dropped, so a forged name is seen for what it is. Plain text is unchanged
/// (a backslash stays one); the output holds no byte a terminal acts on.
std::string visible(std::string_view text);

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

}  // namespace culprit::core::utf8
