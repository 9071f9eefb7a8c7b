// TEMPORARY (wt-gpu): civil time helpers so the GPU parsers link before the lead's
// src/core/time.cpp lands on main. Delete this file when merging main.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "culprit/core/time.hpp"

namespace culprit::core {

namespace {
// Howard Hinnant's days_from_civil.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
}  // namespace

double civil_to_epoch(int year, int month, int day, int hour, int minute, double second) {
  return static_cast<double>(days_from_civil(year, static_cast<unsigned>(month),
                                             static_cast<unsigned>(day))) * 86400.0 +
         hour * 3600.0 + minute * 60.0 + second;
}

std::optional<int> parse_month(std::string_view name) {
  static constexpr std::string_view kNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                "jul", "aug", "sep", "oct", "nov", "dec"};
  if (name.size() < 3) return std::nullopt;
  std::string s;
  for (char c : name.substr(0, 3)) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < 12; ++i)
    if (s == kNames[i]) return i + 1;
  return std::nullopt;
}

std::string format_iso(double epoch_seconds) {
  const auto ms_total = static_cast<std::int64_t>(std::floor(epoch_seconds * 1000.0 + 0.5));
  std::int64_t days = ms_total / 86400000;
  std::int64_t ms = ms_total % 86400000;
  if (ms < 0) { ms += 86400000; --days; }
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y, m, d, ms / 3600000,
                     ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
}

}  // namespace culprit::core
