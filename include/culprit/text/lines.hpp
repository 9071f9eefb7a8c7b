// Line handling shared by every parser: split on \n, \r\n and lone \r, strip ANSI escapes
// (real ESC sequences and pasted `^[[0;36m`), trim.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

/// Splits into lines without their terminators. `\r\n` and a lone `\r` end a line too.
std::vector<std::string_view> split_lines(std::string_view text);

/// Removes ANSI CSI sequences (`\x1b[...m`, `^[[...m`) and other control bytes except tab.
std::string strip_ansi(std::string_view line);
bool has_ansi(std::string_view line);

std::string_view trim(std::string_view s);
std::string_view trim_left(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view needle);

}  // namespace culprit::text
