// The shared option checks (option_checks.hpp): ranges, choices, colour, width, command typos.
#include "cli/option_checks.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <system_error>

#include "culprit/text/spelling.hpp"

namespace culprit::cli {

std::string check_range(std::string_view option, std::int64_t value, std::int64_t lo, std::int64_t hi,
                        std::string_view what) {
  if (value >= lo && value <= hi) return {};
  if (hi == INT64_MAX) return fmt::format("{} {} is out of range: {}, {} or more", option, value, what, lo);
  return fmt::format("{} {} is out of range: {}, {} to {}", option, value, what, lo, hi);
}

std::string check_choice(std::string_view option, std::string_view value, const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return {};
  return fmt::format("{} '{}' is not one of: {}", option, value, fmt::join(choices, ", "));
}

std::string check_year(std::string_view option, int year) {
  if (year == 0 || (year >= 1970 && year <= 2200)) return {};
  return fmt::format("{} {} is not a year culprit can place: give four digits, 1970 to 2200", option, year);
}

bool color_wanted(std::string_view mode, bool to_file, bool stdout_is_terminal) {
  if (mode == "always") return true;
  if (mode == "never" || to_file) return false;
  if (const char* no_color = std::getenv("NO_COLOR"); no_color && *no_color) return false;
  return stdout_is_terminal;
}

int output_columns(const char* columns_env, int terminal_columns, int fallback, int cap) {
  int columns = 0;
  if (columns_env && *columns_env) {
    const std::string_view text(columns_env);
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && value > 0) columns = value;
  }
  if (columns == 0) columns = terminal_columns > 0 ? terminal_columns : fallback;
  return cap > 0 && columns > cap ? cap : columns;
}

int output_columns(int fallback, int cap) {
  winsize size{};
  const int terminal = ::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
  return output_columns(std::getenv("COLUMNS"), terminal, fallback, cap);
}

std::optional<std::string> near_command(std::string_view word, const std::vector<std::string>& commands) {
  if (word.empty() || word.size() > 16 || word.find_first_of("/.\\") != std::string_view::npos) return std::nullopt;
  return text::near_word(word, commands);
}

}  // namespace culprit::cli
