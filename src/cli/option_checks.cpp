// The shared option checks (option_checks.hpp): ranges, choices, colour, command typos.
#include "cli/option_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace culprit::cli {
namespace {

/// Optimal string alignment distance: insertions, deletions, substitutions and a swap of two
/// neighbours (`scna` -> `scan`) each cost one.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

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

std::optional<std::string> near_command(std::string_view word, const std::vector<std::string>& commands) {
  if (word.empty() || word.size() > 16 || word.find_first_of("/.\\") != std::string_view::npos) return std::nullopt;
  std::optional<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& c : commands) {
    const std::size_t d = edit_distance(word, c);
    // Two edits only for words of five letters or more: short words are too near each other.
    if (d < best_distance && (d == 1 || (d == 2 && c.size() >= 5))) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace culprit::cli
