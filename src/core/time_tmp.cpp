// TEMPORARY (wt-kernel): stand-in for the lead's src/core/time.cpp so ingest tests link.
// Delete after merging main once the real time.cpp lands.
#include <cctype>
#include <cmath>
#include <cstdio>

#include "culprit/core/time.hpp"

namespace culprit::core {

namespace {
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}
}  // namespace

double civil_to_epoch(int year, int month, int day, int hour, int minute, double second) {
  return static_cast<double>(days_from_civil(year, month, day)) * 86400.0 + hour * 3600.0 +
         minute * 60.0 + second;
}

std::optional<int> parse_month(std::string_view name) {
  static const char* kNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                 "jul", "aug", "sep", "oct", "nov", "dec"};
  if (name.size() < 3) return std::nullopt;
  char l[3];
  for (int i = 0; i < 3; ++i) l[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  for (int m = 0; m < 12; ++m)
    if (l[0] == kNames[m][0] && l[1] == kNames[m][1] && l[2] == kNames[m][2]) return m + 1;
  return std::nullopt;
}

std::string format_iso(double epoch_seconds) {
  std::int64_t ms = static_cast<std::int64_t>(std::llround(epoch_seconds * 1000));
  std::int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int millis = static_cast<int>(ms - secs * 1000);
  std::int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  std::int64_t rem = secs - days * 86400;
  std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<long long>(y), m, d,
                static_cast<int>(rem / 3600), static_cast<int>(rem / 60 % 60), static_cast<int>(rem % 60),
                millis);
  return buf;
}

}  // namespace culprit::core
