// Kubernetes quantities and the two time formats container tools print (container_values.hpp).
#include "container_values.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "culprit/core/time.hpp"

namespace culprit::ingest::containers {
namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

int num(std::string_view s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// `±hh[:]mm` at `at` -> seconds east of UTC; `Z` or a letters-only zone name -> 0.
std::optional<double> zone_offset(std::string_view s, std::size_t at) {
  s = trim(s.substr(at));
  if (s.empty() || s == "Z" || s == "UTC" || s == "GMT") return 0.0;
  if ((s[0] == '+' || s[0] == '-') && digits(s, 1, 2)) {
    std::size_t k = 3;
    if (k < s.size() && s[k] == ':') ++k;
    int mm = digits(s, k, 2) ? num(s, k, 2) : 0;
    double off = num(s, 1, 2) * 3600.0 + mm * 60.0;
    return s[0] == '-' ? -off : off;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> parse_quantity(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double value = 0;
  try {
    value = std::stod(std::string(text.substr(0, i)));
  } catch (...) {
    return std::nullopt;
  }
  std::string_view suffix = text.substr(i);
  double scale = 1;
  if (!suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E') && suffix.size() > 1 &&
      std::isdigit(static_cast<unsigned char>(suffix[1]))) {
    int exp = 0;
    auto [p, ec] = std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), exp);
    if (ec != std::errc() || p != suffix.data() + suffix.size() || exp > 18) return std::nullopt;
    scale = std::pow(10.0, exp);
  } else if (!suffix.empty()) {
    static constexpr std::pair<std::string_view, double> kUnits[] = {
        {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
        {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}, {"k", 1e3}, {"K", 1e3},
        {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
    bool found = false;
    for (auto [unit, factor] : kUnits)
      if (suffix == unit) {
        scale = factor;
        found = true;
      }
    if (!found) return std::nullopt;
  }
  double bytes = value * scale;
  if (!std::isfinite(bytes) || bytes < 0 || bytes > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(bytes));
}

std::optional<double> parse_rfc3339(std::string_view s) {
  s = trim(s);
  if (s.size() < 19 || !digits(s, 0, 4) || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' || !digits(s, 8, 2) ||
      (s[10] != 'T' && s[10] != ' ') || !digits(s, 11, 2) || s[13] != ':' || !digits(s, 14, 2) || s[16] != ':' ||
      !digits(s, 17, 2))
    return std::nullopt;
  int year = num(s, 0, 4), month = num(s, 5, 2), day = num(s, 8, 2);
  if (year <= 1 || month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;  // Go's zero time
  double sec = num(s, 17, 2);
  std::size_t k = 19;
  if (k < s.size() && (s[k] == '.' || s[k] == ',')) {
    double scale = 0.1;
    for (++k; k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); ++k, scale /= 10) sec += (s[k] - '0') * scale;
  }
  auto off = zone_offset(s, k);
  if (!off) return std::nullopt;
  return core::civil_to_epoch(year, month, day, num(s, 11, 2), num(s, 14, 2), sec) - *off;
}

std::optional<double> parse_rfc1123(std::string_view s) {
  s = trim(s);
  std::size_t comma = s.find(", ");
  if (comma != std::string_view::npos && comma <= 9) s = s.substr(comma + 2);
  // `DD Mmm YYYY HH:MM:SS zone` (day may be one digit)
  std::size_t i = 0;
  int day = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i < 2) day = day * 10 + (s[i++] - '0');
  if (i == 0 || i >= s.size() || s[i] != ' ') return std::nullopt;
  auto month = core::parse_month(s.substr(i + 1, 3));
  std::size_t y = i + 5;
  if (!month || y + 4 > s.size() || s[i + 4] != ' ' || !digits(s, y, 4)) return std::nullopt;
  int year = num(s, y, 4);
  std::size_t t = y + 5;
  if (t + 8 > s.size() || s[t - 1] != ' ' || !digits(s, t, 2) || s[t + 2] != ':' || !digits(s, t + 3, 2) ||
      s[t + 5] != ':' || !digits(s, t + 6, 2))
    return std::nullopt;
  auto off = zone_offset(s, t + 8);
  if (!off) return std::nullopt;
  return core::civil_to_epoch(year, *month, day, num(s, t, 2), num(s, t + 3, 2), num(s, t + 6, 2)) - *off;
}

}  // namespace culprit::ingest::containers
