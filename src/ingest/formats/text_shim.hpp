// Private stand-ins for text::split_lines / text::strip_ansi (include/culprit/text/lines.hpp),
// used by the GPU/app-log parsers until the text module's versions land on main; same contract.
// TEMPORARY (wt-gpu): switch callers to culprit::text and delete this pair when merging main.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest::shim {

/// Lines without terminators; `\n`, `\r\n` and a lone `\r` each end a line.
std::vector<std::string_view> split_lines(std::string_view text);

/// Removes ANSI CSI/OSC sequences (real ESC and pasted `^[[0;36m`), a pasted `^M`, and control
/// bytes other than tab.
std::string strip_ansi(std::string_view line);

/// True when the line holds an ESC byte or a pasted `^[[`.
bool has_ansi(std::string_view line);

}  // namespace culprit::ingest::shim
