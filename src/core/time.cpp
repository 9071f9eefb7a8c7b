// Civil-time arithmetic (Howard Hinnant's days_from_civil), free of the C library's TZ state.
#include "culprit/core/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace culprit::core {

double civil_to_epoch(int year, int month, int day, int hour, int minute, double second) {
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned mp = static_cast<unsigned>((month + 9) % 12);
  const unsigned doy = (153 * mp + 2) / 5 + static_cast<unsigned>(day) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = static_cast<long long>(era) * 146097 + static_cast<long long>(doe) - 719468;
  return static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
}

std::optional<int> parse_month(std::string_view name) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                  "jul", "aug", "sep", "oct", "nov", "dec"};
  if (name.size() < 3) return std::nullopt;
  char m[3];
  for (int i = 0; i < 3; ++i) m[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  for (int i = 0; i < 12; ++i)
    if (m[0] == kMonths[i][0] && m[1] == kMonths[i][1] && m[2] == kMonths[i][2]) return i + 1;
  return std::nullopt;
}

std::string format_iso(double epoch_seconds) {
  if (!std::isfinite(epoch_seconds)) return "";
  // Absurd stamps are clamped to years 0000-9999: callers cut the text by position, and the
  // arithmetic below would overflow far outside that range.
  epoch_seconds = std::clamp(epoch_seconds, -62167219200.0, 253402300799.0);
  long long ms = std::llround(epoch_seconds * 1000.0);
  long long secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int millis = static_cast<int>(ms - secs * 1000);
  long long days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  long long rem = secs - days * 86400;
  // civil_from_days
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long y = static_cast<long long>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y, m, d, rem / 3600, (rem % 3600) / 60,
                     rem % 60, millis);
}

}  // namespace culprit::core
