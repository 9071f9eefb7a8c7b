// Checks every subcommand applies to its options after parsing, so a value out of range or not
// among the choices is an error with a one-line reason (exit 2) instead of being taken silently
// (`--year 24` as the year 24, `--jobs -3` wrapped to 4294967293), and the conventions they share:
// NO_COLOR counts only when set to a non-empty value; a command word one typo away from a
// subcommand is not taken for an input path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::cli {

/// The reason `value` of `--option` lies outside [lo, hi], or empty. `what` says what it counts.
std::string check_range(std::string_view option, std::int64_t value, std::int64_t lo, std::int64_t hi,
                        std::string_view what);

/// The reason `value` of `--option` is none of `choices`, or empty.
std::string check_choice(std::string_view option, std::string_view value, const std::vector<std::string>& choices);

/// `--year`: 0 (none given) or a four-digit year culprit can place (1970 … 2200).
std::string check_year(std::string_view option, int year);

/// `--color auto|always|never` for a report written to a terminal (`to_file`: never colour).
/// NO_COLOR (https://no-color.org) turns colour off when set to a non-empty value.
bool color_wanted(std::string_view mode, bool to_file, bool stdout_is_terminal);

/// The columns text output may take: `COLUMNS` (`columns_env`, when it is a number of 1 or more,
/// as ls and most tools read it), else the terminal's width (`terminal_columns`, 0 when standard
/// output is no terminal), else `fallback`; never more than `cap` (0: no cap).
int output_columns(const char* columns_env, int terminal_columns, int fallback, int cap);

/// output_columns for this process: $COLUMNS, the width of the terminal on standard output.
int output_columns(int fallback, int cap);

/// The subcommand `word` is probably a typo of (one or two edits, or two letters swapped), if any.
std::optional<std::string> near_command(std::string_view word, const std::vector<std::string>& commands);

}  // namespace culprit::cli
