// Documentation next to logs (a README.md in an incident folder, notes in Markdown) is prose, not
// a log: its sentences and tables quote messages ("the head then fails when NCCL loses its
// peer") that would otherwise read as evidence. Such a file is read only for its fenced code
// blocks and its quoted runs of lines — where people paste log text in Markdown — and skipped
// when it has neither. Private to the input module (the reader applies it to every source, folders and archives alike).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace culprit::input::detail {

/// True when a file name (a path's last component; archive members too) says documentation:
/// `.md`, `.markdown`, `.rst`, `.adoc`, `.asciidoc`, or a README / CHANGELOG / LICENSE / COPYING
/// stem in any case and with any extension. Log names (`train.log`, `notes.txt`) are not.
bool is_documentation_name(std::string_view path);

/// Blanks every line of `text` outside a fenced code block (CommonMark: a line of three or more
/// backticks or tildes indented at most three spaces opens a block; a line of the same character,
/// at least as long and with nothing after it, closes it; an unclosed block runs to the end).
/// The fence lines are blanked too. A run of three or more `> `-quoted lines outside the blocks
/// (a log quoted in a GitHub issue or reply) is kept without its markers; a shorter quote (a
/// cited sentence) or a GitHub alert (`> [!NOTE]`) is prose. Newlines are kept, so line numbers
/// stay the file's own. Returns the number of non-blank lines kept.
std::size_t keep_code_blocks(std::string& text);

}  // namespace culprit::input::detail
