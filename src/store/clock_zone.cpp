// Zones and boot times given on the command line (--tz, --boot-time; clock.hpp). Fixed offsets
// are parsed here; IANA names go through the C library (TZ + localtime_r under a lock, since
// that state is process-wide), which knows each zone's daylight-saving history.
#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>

#include "culprit/core/time.hpp"
#include "culprit/store/clock.hpp"

namespace culprit::store {
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

/// `Z`, `UTC`, `GMT`, `±hh`, `±hh:mm`, `±hhmm`, `UTC±hh:mm` -> seconds east; nullopt otherwise.
std::optional<double> fixed_offset(std::string_view z) {
  if (z == "Z" || z == "z" || z == "UTC" || z == "utc" || z == "GMT" || z == "Etc/UTC" || z == "UTC0") return 0.0;
  if (z.substr(0, 3) == "UTC" || z.substr(0, 3) == "GMT") z.remove_prefix(3);
  if (z.size() < 3 || (z[0] != '+' && z[0] != '-') || !digits(z, 1, 2)) return std::nullopt;
  std::size_t k = 3;
  int mm = 0;
  if (k < z.size()) {
    if (z[k] == ':') ++k;
    if (!digits(z, k, 2) || k + 2 != z.size()) return std::nullopt;
    mm = num(z, k, 2);
  }
  int hh = num(z, 1, 2);
  if (hh > 14 || mm > 59) return std::nullopt;
  double off = hh * 3600.0 + mm * 60.0;
  return z[0] == '-' ? -off : off;
}

bool iana_zone_exists(std::string_view name) {
  if (name.empty() || name.find("..") != std::string_view::npos || name[0] == '/') return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '+')) return false;
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + std::string(name);
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::mutex& tz_lock() {
  static std::mutex m;
  return m;
}

}  // namespace

std::optional<double> zone_offset(std::string_view zone, double utc) {
  if (auto f = fixed_offset(zone)) return f;
  if (!iana_zone_exists(zone)) return std::nullopt;
  std::lock_guard<std::mutex> guard(tz_lock());
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  ::setenv("TZ", std::string(zone).c_str(), 1);
  ::tzset();
  std::time_t t = static_cast<std::time_t>(std::floor(utc));
  std::tm tm{};
  std::optional<double> out;
  if (::localtime_r(&t, &tm) != nullptr) out = static_cast<double>(tm.tm_gmtoff);
  if (old) ::setenv("TZ", saved.c_str(), 1);
  else ::unsetenv("TZ");
  ::tzset();
  return out;
}

std::optional<BootTime> parse_boot_time(std::string_view text, std::string_view tz) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return std::nullopt;
  BootTime out;
  out.host = std::string(text.substr(0, eq));
  std::string_view t = text.substr(eq + 1);
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty()) return std::nullopt;
  // Seconds since the epoch (`date +%s`).
  if (t.find_first_not_of("0123456789.") == std::string_view::npos) {
    try {
      out.boot_wall = std::stod(std::string(t));
    } catch (...) {
      return std::nullopt;
    }
    return out;
  }
  // `YYYY-MM-DD[T ]HH:MM[:SS[.frac]][zone]` (`uptime -s` prints local time without a zone).
  if (!digits(t, 0, 4) || t.size() < 16 || t[4] != '-' || !digits(t, 5, 2) || t[7] != '-' || !digits(t, 8, 2) ||
      (t[10] != 'T' && t[10] != ' ') || !digits(t, 11, 2) || t[13] != ':' || !digits(t, 14, 2))
    return std::nullopt;
  double sec = 0;
  std::size_t k = 16;
  if (k < t.size() && t[k] == ':' && digits(t, k + 1, 2)) {
    sec = num(t, k + 1, 2);
    k += 3;
    if (k < t.size() && (t[k] == '.' || t[k] == ',')) {
      double scale = 0.1;
      for (++k; k < t.size() && std::isdigit(static_cast<unsigned char>(t[k])); ++k, scale /= 10) sec += (t[k] - '0') * scale;
    }
  }
  std::string_view zone = t.substr(k);
  while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
  const double local = core::civil_to_epoch(num(t, 0, 4), num(t, 5, 2), num(t, 8, 2), num(t, 11, 2), num(t, 14, 2), sec);
  std::optional<double> off;
  if (!zone.empty()) off = zone_offset(zone, local);
  else if (!tz.empty()) off = zone_offset(tz, local);
  else off = 0.0;
  if (!off) return std::nullopt;
  out.boot_wall = local - *off;
  return out;
}

std::string check_clock_options(const ClockOptions& options) {
  if (!options.tz.empty() && !zone_offset(options.tz, 0))
    return "--tz " + options.tz +
           ": not a zone (use UTC, an offset such as +02:00 or -0500, or a zone name such as Europe/Berlin)";
  for (const auto& b : options.boot_times)
    if (!parse_boot_time(b, options.tz))
      return "--boot-time " + b +
             ": expected HOST=TIME, TIME as 2026-04-09T00:12:03[+02:00] (as `uptime -s` prints it) or seconds since "
             "the epoch";
  return {};
}

}  // namespace culprit::store
