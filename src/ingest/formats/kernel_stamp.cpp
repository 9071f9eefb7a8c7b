// Kernel-log stamp and transport-header peeling (see kernel_stamp.hpp; formats.md §2.1–2.6).
// Hand-written scanners, not regexes: this runs on every line of every kernel log, and each
// prefix has a fixed shape that a cursor checks in a few comparisons.
#include "kernel_stamp.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"
#include "text/byte_vectors.hpp"

namespace culprit::ingest::kernel {
namespace {

using text::is_digit;
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

/// Reads digits at `i`; returns the count read (0: none) and the value.
std::size_t read_uint(std::string_view s, std::size_t i, std::int64_t& value) {
  // (One bound and one comparison a digit: every kernel stamp is read with this.)
  const std::size_t end = std::min(s.size(), i + 18);
  std::int64_t v = 0;
  std::size_t j = i;
  for (; j < end; ++j) {
    const unsigned digit = static_cast<unsigned char>(s[j]) - unsigned{'0'};
    if (digit > 9) break;
    v = v * 10 + digit;
  }
  value = v;
  return j - i;
}

/// The value of four digits at `i` (the caller has checked them): a year.
int four_digits(std::string_view s, std::size_t i) {
  return (s[i] - '0') * 1000 + (s[i + 1] - '0') * 100 + (s[i + 2] - '0') * 10 + (s[i + 3] - '0');
}

/// `digits.digits` (the printk clock) at `i`; returns chars consumed (0: none).
std::size_t read_seconds(std::string_view s, std::size_t i, double& value) {
  std::int64_t whole = 0, frac = 0;
  std::size_t n = read_uint(s, i, whole);
  if (n == 0 || i + n >= s.size() || s[i + n] != '.') return 0;
  std::size_t m = read_uint(s, i + n + 1, frac);
  if (m == 0) return 0;
  // 10^m, m <= 18 (read_uint's bound): each exact in a double, as the product of tens it was.
  static constexpr double kScale[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                      1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
  const double scale = kScale[m];
  value = static_cast<double>(whole) + static_cast<double>(frac) / scale;
  return n + 1 + m;
}

/// `HH:MM:SS[.frac]` at `i`; returns chars consumed (0: none).
std::size_t read_clock(std::string_view s, std::size_t i, int& h, int& m, double& sec,
                       bool allow_comma = false) {
  if (i + 8 > s.size()) return 0;
  auto two = [&](std::size_t k) { return is_digit(s[k]) && is_digit(s[k + 1]); };
  if (!two(i) || s[i + 2] != ':' || !two(i + 3) || s[i + 5] != ':' || !two(i + 6)) return 0;
  h = (s[i] - '0') * 10 + (s[i + 1] - '0');
  m = (s[i + 3] - '0') * 10 + (s[i + 4] - '0');
  sec = (s[i + 6] - '0') * 10 + (s[i + 7] - '0');
  std::size_t j = i + 8;
  if (j < s.size() && (s[j] == '.' || (allow_comma && s[j] == ',')) && j + 1 < s.size() && is_digit(s[j + 1])) {
    double scale = 0.1;
    ++j;
    while (j < s.size() && is_digit(s[j])) {
      sec += (s[j] - '0') * scale;
      scale /= 10;
      ++j;
    }
  }
  if (h > 24 || m > 59 || sec >= 61) return 0;
  return j - i;
}

/// Days before `month` (1-based) counted in a leap year, so Feb 29 has a place.
int leap_year_day_before(int month) {
  static constexpr std::array<int, 12> kCum = {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335};
  return kCum[static_cast<std::size_t>(month - 1)];
}

void set_no_year(KernelLine& out, int month, int day, int h, int m, double sec, int year_hint) {
  out.ts_kind = core::TsKind::wall_no_year;
  out.ts_value = (leap_year_day_before(month) + day - 1) * 86400.0 + h * 3600.0 + m * 60.0 + sec;
  if (year_hint > 0) out.ts = core::civil_to_epoch(year_hint, month, day, h, m, sec);
}

/// ISO date-time `YYYY-MM-DD{T| }HH:MM:SS[.,frac][Z|±hh[:]mm]`. Returns chars consumed.
struct IsoStamp {
  double epoch = 0;
  bool comma = false;  ///< `,` before the fraction: dmesg --time-format iso
  bool zone = false;
  int year = 0;
  double local_of_year = 0;  ///< the local date-time as seconds since Jan 1 of a leap year (set_no_year's count)
  double offset = 0;         ///< seconds east of UTC
};
std::size_t read_iso(std::string_view s, std::size_t i, char date_time_sep, IsoStamp& out) {
  if (i + 19 > s.size()) return 0;
  for (std::size_t k : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!is_digit(s[i + k])) return 0;
  if (s[i + 4] != '-' || s[i + 7] != '-' || s[i + 10] != date_time_sep) return 0;
  int year = four_digits(s, i);
  int month = (s[i + 5] - '0') * 10 + (s[i + 6] - '0');
  int day = (s[i + 8] - '0') * 10 + (s[i + 9] - '0');
  if (month < 1 || month > 12 || day < 1 || day > 31) return 0;
  int h = 0, m = 0;
  double sec = 0;
  std::size_t n = read_clock(s, i + 11, h, m, sec, true);
  if (n == 0) return 0;
  // n > 8 means the clock went past `HH:MM:SS`, so s[i + 19] exists (a bare stamp may end the text).
  out.comma = n > 8 && s[i + 19] == ',';
  std::size_t j = i + 11 + n;
  double offset = 0;
  if (j < s.size() && s[j] == 'Z') {
    out.zone = true;
    ++j;
  } else if (j + 3 <= s.size() && (s[j] == '+' || s[j] == '-') && is_digit(s[j + 1]) && is_digit(s[j + 2])) {
    int sign = s[j] == '-' ? -1 : 1;
    int oh = (s[j + 1] - '0') * 10 + (s[j + 2] - '0');
    int om = 0;
    std::size_t k = j + 3;
    if (k < s.size() && s[k] == ':') ++k;
    if (k + 2 <= s.size() && is_digit(s[k]) && is_digit(s[k + 1])) {
      om = (s[k] - '0') * 10 + (s[k + 1] - '0');
      k += 2;
    }
    offset = sign * (oh * 3600.0 + om * 60.0);
    out.zone = true;
    j = k;
  }
  if (j < s.size() && s[j] != ' ' && s[j] != '"') return 0;
  out.epoch = core::civil_to_epoch(year, month, day, h, m, sec) - offset;
  out.year = year;
  out.offset = offset;
  out.local_of_year = (leap_year_day_before(month) + day - 1) * 86400.0 + h * 3600.0 + m * 60.0 + sec;
  return j - i;
}

/// A month name as `%b` prints it in English or, for the locales GPU hosts commonly run
/// (de, fr, es, it, pt, nl), the local abbreviation (`Mär`, `avr.`, `dic`, `mag`, `out`,
/// `mrt`), case-insensitive; the token is the whole word, dot included. nullopt otherwise.
std::optional<int> month_of(std::string_view token) {
  if (token.size() == 3) {
    // English first, folded as ASCII (core::parse_month's tolower, in the C locale culprit runs
    // in, without a call a byte): every line of a syslog file names its month.
    static constexpr std::string_view kMonths = "janfebmaraprmayjunjulaugsepoctnovdec";
    const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; };
    const char t[3] = {fold(token[0]), fold(token[1]), fold(token[2])};
    for (std::size_t k = 0; k < 12; ++k)
      if (kMonths[3 * k] == t[0] && kMonths[3 * k + 1] == t[1] && kMonths[3 * k + 2] == t[2])
        return static_cast<int>(k + 1);
  }
  std::string t;
  for (char c : token) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!t.empty() && t.back() == '.') t.pop_back();
  static const std::array<std::pair<const char*, int>, 40> kLocal = {{
      {"m\xc3\xa4r", 3}, {"mai", 5}, {"okt", 10}, {"dez", 12},                       // de
      {"janv", 1}, {"f\xc3\xa9vr", 2}, {"mars", 3}, {"avr", 4}, {"juin", 6}, {"juil", 7},
      {"ao\xc3\xbbt", 8}, {"sept", 9}, {"d\xc3\xa9" "c", 12}, {"avril", 4}, {"janvier", 1},  // fr
      {"ene", 1}, {"abr", 4}, {"ago", 8}, {"dic", 12},                              // es
      {"gen", 1}, {"mag", 5}, {"giu", 6}, {"lug", 7}, {"set", 9}, {"ott", 10},       // it
      {"fev", 2}, {"out", 10},                                                        // pt
      {"mrt", 3}, {"mei", 5},                                                          // nl
      {"march", 3}, {"april", 4}, {"june", 6}, {"july", 7}, {"august", 8},            // long English
      {"september", 9}, {"october", 10}, {"november", 11}, {"december", 12}, {"january", 1},
      {"february", 2},
  }};
  for (const auto& [name, month] : kLocal)
    if (t == name) return month;
  return std::nullopt;
}

/// `Mmm dD HH:MM:SS[.frac]` (syslog `%b %e`, journal `%b %d`), the month English or localised
/// (`Mär 09 …`, `avr. 09 …`). Returns chars consumed.
std::size_t read_month_stamp(std::string_view s, std::size_t i, int& month, int& day, int& h, int& m,
                             double& sec) {
  if (i + 15 > s.size() || !is_alpha(s[i])) return 0;
  std::size_t w = i;
  while (w < s.size() && w - i < 10 && s[w] != ' ' && !is_digit(s[w])) ++w;
  if (w >= s.size() || s[w] != ' ' || w - i < 3) return 0;
  auto mon = month_of(s.substr(i, w - i));
  if (!mon) return 0;
  std::size_t j = skip_spaces(s, w + 1);
  std::int64_t d = 0;
  std::size_t n = read_uint(s, j, d);
  if (n == 0 || n > 2 || d < 1 || d > 31) return 0;
  j += n;
  if (j >= s.size() || s[j] != ' ') return 0;
  j = skip_spaces(s, j);
  std::size_t c = read_clock(s, j, h, m, sec);
  if (c == 0) return 0;
  month = *mon;
  day = static_cast<int>(d);
  return j + c - i;
}

using text::is_host_char;

/// Syslog/journal header after the stamp: `host [<fac.lvl>] ident[pid]: ` or `host: `.
/// Returns chars consumed (0: not a header). `allow_bare_host` permits `host: msg`.
std::size_t read_header(std::string_view s, std::size_t i, bool allow_bare_host, KernelLine& out) {
  std::size_t j = i;
  while (j < s.size() && is_host_char(s[j])) ++j;
  if (j == i || j >= s.size()) return 0;
  std::string_view host = s.substr(i, j - i);
  if (s[j] == ':') {
    if (!allow_bare_host || (j + 1 < s.size() && s[j + 1] != ' ')) return 0;
    out.host = host;
    out.ident = {};
    out.kernel = true;
    return j + 1 + (j + 1 < s.size() ? 1 : 0) - i;
  }
  if (s[j] != ' ') return 0;
  j = skip_spaces(s, j);
  if (j < s.size() && s[j] == '<') {  // rsyslog `<kern.warning>` facility.level token
    std::size_t close = s.find('>', j);
    if (close == std::string_view::npos || close - j > 24 || s.substr(j, close - j).find(' ') != std::string_view::npos)
      return 0;
    j = skip_spaces(s, close + 1);
  }
  std::size_t id0 = j;
  while (j < s.size() && s[j] != ':' && s[j] != '[' && s[j] != ' ') ++j;
  if (j == id0 || j >= s.size()) return 0;
  std::string_view ident = s.substr(id0, j - id0);
  std::optional<std::int64_t> pid;
  if (s[j] == '[') {
    std::int64_t v = 0;
    std::size_t n = read_uint(s, j + 1, v);
    if (n == 0 || j + 1 + n >= s.size() || s[j + 1 + n] != ']') return 0;
    pid = v;
    j += n + 2;
  }
  if (j >= s.size() || s[j] != ':') return 0;
  ++j;
  if (j < s.size() && s[j] == ' ') ++j;
  out.host = host;
  out.ident = ident;
  out.ident_pid = pid;
  out.kernel = ident == "kernel" || ident == "vmunix";
  return j - i;
}

/// `-x` decode prefix `kern  :err   : `. Returns chars consumed.
std::size_t read_decode_prefix(std::string_view s) {
  static constexpr std::string_view kLevels[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
  std::size_t j = 0;
  while (j < s.size() && (std::islower(static_cast<unsigned char>(s[j])) || is_digit(s[j]))) ++j;
  if (j == 0 || j > 8) return 0;
  j = skip_spaces(s, j);
  if (j >= s.size() || s[j] != ':') return 0;
  std::size_t l0 = ++j;
  while (j < s.size() && std::islower(static_cast<unsigned char>(s[j]))) ++j;
  std::string_view level = s.substr(l0, j - l0);
  bool known = false;
  for (auto k : kLevels) known = known || k == level;
  if (!known) return 0;
  j = skip_spaces(s, j);
  if (j >= s.size() || s[j] != ':') return 0;
  ++j;
  if (j < s.size() && s[j] == ' ') ++j;
  return j;
}

/// Bracketed dmesg stamp at `i`: boot `[  93.1]`, relative `[  +0.1]`, delta `[<  0.1>]`,
/// boot+delta `[ 93.1 < 0.1>]`, ctime `[Sun Mar  3 04:15:09 2024]` (+ delta), reltime
/// `[Apr 9 00:47]`, or a localised ctime (kept raw, no time). Returns chars consumed incl. `]`.
std::size_t read_bracket_stamp(std::string_view s, std::size_t i, int year_hint, KernelLine& out) {
  if (i >= s.size() || s[i] != '[') return 0;
  std::size_t close = s.find(']', i);
  if (close == std::string_view::npos || close - i > 64) return 0;
  std::string_view body = s.substr(i + 1, close - i - 1);
  std::size_t j = skip_spaces(body, 0);
  if (j >= body.size()) return 0;
  auto delta_ok = [&](std::size_t k) {  // optional ` <  0.000012>` then end
    k = skip_spaces(body, k);
    if (k == body.size()) return true;
    if (body[k] != '<' || body.back() != '>') return false;
    for (std::size_t t = k + 1; t + 1 < body.size(); ++t)
      if (!(is_digit(body[t]) || body[t] == '.' || body[t] == ' ')) return false;
    return true;
  };
  if (body[j] == '+' || body[j] == '<') {  // reltime `[  +0.000123]` or delta-only `[<  0.000012>]`
    std::size_t k = skip_spaces(body, j + 1);
    double v = 0;
    std::size_t n = read_seconds(body, k, v);
    if (n == 0) return 0;
    k += n;
    if (body[j] == '<' ? (k >= body.size() || body[k] != '>') : !delta_ok(k)) return 0;
    out.relative = true;
    out.ts_raw = s.substr(i, close - i + 1);
    return close - i + 1;
  }
  if (is_digit(body[j])) {
    double v = 0;
    std::size_t n = read_seconds(body, j, v);
    if (n == 0 || !delta_ok(j + n)) return 0;
    out.ts_kind = core::TsKind::boot;
    out.ts_value = v;
    out.ts_raw = s.substr(i, close - i + 1);
    return close - i + 1;
  }
  if (!is_alpha(body[j])) return 0;
  // ctime: `Www Mmm dD HH:MM:SS YYYY`; reltime minute marker: `Mmm dD HH:MM`.
  int month = 0, day = 0, h = 0, m = 0;
  double sec = 0;
  std::size_t k = j;
  // Skip a weekday of any locale (`Sun`, `Di`, `dim.`) when a month name follows.
  if (std::size_t sp = body.find(' ', k); sp != std::string_view::npos && sp - k <= 6 &&
                                          !(sp - k == 3 && core::parse_month(body.substr(k, 3))))
    k = skip_spaces(body, sp);
  std::size_t n = read_month_stamp(body, k, month, day, h, m, sec);
  if (n > 0) {
    std::size_t y = k + n;
    if (y < body.size() && body[y] == ' ' && y + 5 <= body.size() && is_digit(body[y + 1]) && is_digit(body[y + 2]) &&
        is_digit(body[y + 3]) && is_digit(body[y + 4]) && delta_ok(y + 5)) {
      int year = four_digits(body, y + 1);
      out.ts_kind = core::TsKind::wall;
      out.ts = core::civil_to_epoch(year, month, day, h, m, sec);
      out.ts_raw = s.substr(i, close - i + 1);
      return close - i + 1;
    }
  }
  // reltime `[Apr 9 00:47]` (no seconds)
  if (auto mon = body.size() >= 9 ? core::parse_month(body.substr(j, 3)) : std::nullopt) {
    std::size_t t = skip_spaces(body, j + 3);
    std::int64_t d = 0;
    std::size_t dn = read_uint(body, t, d);
    t = skip_spaces(body, t + dn);
    if (dn > 0 && t + 5 == body.size() && is_digit(body[t]) && is_digit(body[t + 1]) && body[t + 2] == ':' &&
        is_digit(body[t + 3]) && is_digit(body[t + 4]) && d >= 1 && d <= 31) {
      set_no_year(out, *mon, static_cast<int>(d), (body[t] - '0') * 10 + (body[t + 1] - '0'),
                  (body[t + 3] - '0') * 10 + (body[t + 4] - '0'), 0, year_hint);
      out.ts_raw = s.substr(i, close - i + 1);
      return close - i + 1;
    }
  }
  // Localised ctime with the day first (`[dim. 19 avril 18:03:30 2026]`, `[Do 9. Apr …]`):
  // weekday, day, month, clock, year.
  {
    std::size_t t = k;
    std::int64_t d = 0;
    std::size_t dn = read_uint(body, t, d);
    if (dn > 0 && dn <= 2 && d >= 1 && d <= 31) {
      t += dn;
      if (t < body.size() && body[t] == '.') ++t;
      t = skip_spaces(body, t);
      std::size_t w = t;
      while (w < body.size() && w - t < 10 && body[w] != ' ') ++w;
      auto mon = w < body.size() ? month_of(body.substr(t, w - t)) : std::nullopt;
      int hh = 0, mm = 0;
      double ss = 0;
      std::size_t c = mon ? read_clock(body, skip_spaces(body, w), hh, mm, ss) : 0;
      std::size_t y = skip_spaces(body, w) + c;
      if (c > 0 && y < body.size() && body[y] == ' ' && y + 5 <= body.size() && is_digit(body[y + 1]) &&
          is_digit(body[y + 2]) && is_digit(body[y + 3]) && is_digit(body[y + 4]) && delta_ok(y + 5)) {
        out.ts_kind = core::TsKind::wall;
        out.ts = core::civil_to_epoch(four_digits(body, y + 1), *mon, static_cast<int>(d), hh, mm, ss);
        out.ts_raw = s.substr(i, close - i + 1);
        return close - i + 1;
      }
    }
  }
  // Any other localised ctime: it has a clock; keep it raw, no time.
  for (std::size_t t = 0; t + 8 <= body.size(); ++t) {
    int hh = 0, mm = 0;
    double ss = 0;
    if (read_clock(body, t, hh, mm, ss) > 0) {
      out.ts_raw = s.substr(i, close - i + 1);
      return close - i + 1;
    }
  }
  return 0;
}

/// Printk caller bracket `[ T1234]` / `[C3]`. Returns chars consumed.
std::size_t read_caller(std::string_view s, std::size_t i, KernelLine& out) {
  if (i >= s.size() || s[i] != '[') return 0;
  std::size_t j = skip_spaces(s, i + 1);
  if (j >= s.size() || (s[j] != 'T' && s[j] != 'C')) return 0;
  std::int64_t v = 0;
  std::size_t n = read_uint(s, j + 1, v);
  if (n == 0 || j + 1 + n >= s.size() || s[j + 1 + n] != ']') return 0;
  out.caller = s.substr(j, n + 1);
  return j + 1 + n + 1 - i;
}

/// VMware's vmware.log after its ISO stamp: `In(05) vcpu-5 - ` (level, log group, thread), and
/// for lines the guest forwarded, `Guest: ` and the guest's syslog priority `<6>`; the guest's
/// own dmesg stamp follows. Returns chars consumed (0: not this shape).
std::size_t read_vmware_header(std::string_view s, std::size_t i) {
  // `Xx(NN) `: two letters, then a two-digit group in parentheses.
  if (i + 7 > s.size() || !std::isupper(static_cast<unsigned char>(s[i])) ||
      !std::islower(static_cast<unsigned char>(s[i + 1])) || s[i + 2] != '(' || !is_digit(s[i + 3]) ||
      !is_digit(s[i + 4]) || s[i + 5] != ')' || s[i + 6] != ' ')
    return 0;
  std::size_t j = i + 7;
  std::size_t thread_end = s.find(' ', j);
  if (thread_end == std::string_view::npos || thread_end == j || thread_end - j > 32) return 0;
  if (s.substr(thread_end, 3) != " - ") return 0;
  j = thread_end + 3;
  if (s.substr(j, 7) != "Guest: ") return 0;  // the host's own lines are not kernel records
  j += 7;
  if (j < s.size() && s[j] == '<') {
    std::int64_t v = 0;
    std::size_t n = read_uint(s, j + 1, v);
    if (n > 0 && n <= 3 && j + 1 + n < s.size() && s[j + 1 + n] == '>') j += n + 2;
  }
  return j - i;
}

/// After a boot stamp (and caller): one separator space.
std::size_t after_separator(std::string_view s, std::size_t i) {
  return i < s.size() && s[i] == ' ' ? i + 1 : i;
}

/// starts_with_boot_stamp's answer from `p[0, 32)`, its spaces and digits read as two bit words,
/// where the stamp ends inside them: 1 yes, 0 no, -1 not told (a stamp or a run of spaces
/// reaching past byte 31). p[0] is '['. About half the instructions of the byte walk on the
/// commonest kernel line (`[12345.678901]`), asked twice of each.
int boot_stamp_in_window(const char* p) {
  using namespace text::detail;
  const Bytes16 low = load16(p), high = load16(p + 16);
  const auto bits32 = [](Mask16 low_lanes, Mask16 high_lanes) {
    return std::uint64_t{bits16(low_lanes)} | std::uint64_t{bits16(high_lanes)} << 16;
  };
  // Bytes 32..63 are in neither class, so a run reaching them ends at 32: not told.
  const std::uint64_t space = bits32(low == splat16(' '), high == splat16(' '));
  const std::uint64_t digit = bits32(low - splat16('0') < splat16(10), high - splat16('0') < splat16(10));
  const auto first_not = [](std::uint64_t cls, unsigned from) {  // the first byte >= from outside cls
    return static_cast<unsigned>(__builtin_ctzll(~cls >> from)) + from;
  };
  const unsigned seconds = first_not(space, 1);
  const unsigned point = first_not(digit, seconds);
  if (point >= 32) return -1;
  if (point == seconds || p[point] != '.') return 0;
  const unsigned end = first_not(digit, point + 1);
  if (end >= 32) return -1;
  return end > point + 1 && p[end] == ']';
}

}  // namespace

bool starts_with_boot_stamp(std::string_view raw) {
  std::size_t i = 1;
  if (raw.empty() || raw[0] != '[') return false;
  if (raw.size() >= 32)
    if (const int told = boot_stamp_in_window(raw.data()); told >= 0) return told == 1;
  while (i < raw.size() && raw[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < raw.size() && raw[i] >= '0' && raw[i] <= '9') ++i;
  if (i == digits || i >= raw.size() || raw[i] != '.') return false;
  const std::size_t fraction = ++i;
  while (i < raw.size() && raw[i] >= '0' && raw[i] <= '9') ++i;
  return i > fraction && i < raw.size() && raw[i] == ']';
}

namespace {
/// The ctime stamp's fields at their fixed places (`[Www Mmm dD HH:MM:SS YYYY]`): whether the bytes
/// are the regex's, and the month (0: not an English one), day and clock read from them.
struct CtimeStamp {
  bool shape = false;
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
};
/// The number of the English month `m` names, its first byte upper case and the other two lower
/// case (as dmesg -T and syslog print it); 0 for any other.
int english_month(const char* m) {
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  for (std::size_t k = 0; k < 12; ++k)
    if (kMonths[3 * k] == m[0] && kMonths[3 * k + 1] == m[1] && kMonths[3 * k + 2] == m[2]) return static_cast<int>(k + 1);
  return 0;
}

CtimeStamp read_ctime_stamp(std::string_view s, bool read_month) {
  CtimeStamp out;
  if (s.size() < 26 || s[0] != '[' || s[4] != ' ' || s[8] != ' ' || s[11] != ' ' || s[14] != ':' || s[17] != ':' ||
      s[20] != ' ' || s[25] != ']')
    return out;
  static constexpr std::string_view kWeekdays = "MonTueWedThuFriSatSun";
  bool known = false;
  for (std::size_t k = 0; k < 7 && !known; ++k)
    known = kWeekdays[3 * k] == s[1] && kWeekdays[3 * k + 1] == s[2] && kWeekdays[3 * k + 2] == s[3];
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  if (!known || !(s[5] >= 'A' && s[5] <= 'Z') || !lower(s[6]) || !lower(s[7]) || !(s[9] == ' ' || is_digit(s[9])))
    return out;
  for (std::size_t k : {10, 12, 13, 15, 16, 18, 19, 21, 22, 23, 24})
    if (!is_digit(s[k])) return out;
  out.shape = true;
  if (!read_month) return out;
  const auto two = [&](std::size_t k) { return (s[k] - '0') * 10 + (s[k + 1] - '0'); };
  out.month = english_month(s.data() + 5);  // core::parse_month's answer for `[A-Z][a-z]{2}`
  out.day = s[9] == ' ' ? s[10] - '0' : two(9);
  out.hour = two(12);
  out.minute = two(15);
  out.second = two(18);
  return out;
}
}  // namespace

bool starts_with_ctime_stamp(std::string_view raw) { return read_ctime_stamp(raw, false).shape; }

bool starts_with_ctime_wall_stamp(std::string_view raw) {
  // read_bracket_stamp's ctime branch: the weekday skipped, read_month_stamp's month, day and
  // read_clock's bounds, then the year and the `]`.
  const CtimeStamp c = read_ctime_stamp(raw, true);
  return c.shape && c.month > 0 && c.day >= 1 && c.day <= 31 && c.hour <= 24 && c.minute <= 59 && c.second < 61;
}

bool is_kmsg_dict_line(std::string_view line) {
  if (line.size() < 3 || line[0] != ' ' || !std::isupper(static_cast<unsigned char>(line[1]))) return false;
  for (std::size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (c == '=') return true;
    if (!(std::isupper(static_cast<unsigned char>(c)) || is_digit(c) || c == '_')) return false;
  }
  return false;
}

namespace {

/// The commonest kernel-log line, a traditional syslog header (rsyslog, `journalctl -o short`),
/// read in place: `Mmm dD HH:MM:SS host ident[pid]: ` with an English month, one blank between
/// the fields and no fraction, then the kernel's boot stamp `[   12.345678] ` if one follows.
/// False where the line is not that shape (the general walk in parse_kernel_line reads it);
/// where true, `out` is what that walk gives (the same readers after the stamp; held to it on
/// every fixture line and their edits by test_kernel_stamp_syslog.cpp). Every line of a
/// kern.log is read for its stamp pair (the clock anchor).
bool read_traditional_syslog(std::string_view s, int year_hint, KernelLine& out) {
  const std::size_t n = s.size();
  if (n < 17 || !(s[0] >= 'A' && s[0] <= 'Z') || !(s[1] >= 'a' && s[1] <= 'z') || !(s[2] >= 'a' && s[2] <= 'z') ||
      s[3] != ' ' || s[6] != ' ' || s[15] != ' ' || s[16] == ' ' || s[9] != ':' || s[12] != ':')
    return false;
  int day = 0;
  if (s[4] == ' ' && is_digit(s[5])) day = s[5] - '0';
  else if (is_digit(s[4]) && is_digit(s[5])) day = (s[4] - '0') * 10 + (s[5] - '0');
  else return false;
  for (std::size_t k : {7, 8, 10, 11, 13, 14})
    if (!is_digit(s[k])) return false;
  const int h = (s[7] - '0') * 10 + (s[8] - '0'), m = (s[10] - '0') * 10 + (s[11] - '0');
  const int sec = (s[13] - '0') * 10 + (s[14] - '0');
  if (day < 1 || day > 31 || h > 24 || m > 59 || sec >= 61) return false;
  const int month = english_month(s.data());  // month_of's answer for `[A-Z][a-z]{2}`
  if (month == 0) return false;
  KernelLine line;
  const std::size_t header = read_header(s, 16, true, line);
  if (header == 0) return false;
  set_no_year(line, month, day, h, m, sec, year_hint);
  line.ts_raw = s.substr(0, 15);
  std::size_t i = 16 + header;
  // The boot stamp the general walk reads after a wall stamp (read_bracket_stamp's boot form,
  // `[`, blanks, seconds, `]`); any other bracket there is left to that walk.
  if (i < n && s[i] == '[') {
    const std::size_t digits = skip_spaces(s, i + 1);
    double boot = 0;
    const std::size_t read = read_seconds(s, digits, boot);
    if (read == 0 || digits + read >= n || s[digits + read] != ']' || digits + read - i > 64) return false;
    line.boot_ts = boot;
    i = digits + read + 1;
    i += read_caller(s, i, line);
    i = after_separator(s, i);
  }
  line.message = s.substr(i);
  out = line;
  return true;
}

}  // namespace

KernelLine parse_kernel_line(std::string_view s, int year_hint) {
  KernelLine out;
  if (read_traditional_syslog(s, year_hint, out)) return out;
  return parse_kernel_line_walk(s, year_hint);
}

KernelLine parse_kernel_line_walk(std::string_view s, int year_hint) {
  KernelLine out;
  std::size_t i = 0;

  // dmesg -x decode prefix, then dmesg -r / syslog(2) priority `<3>`.
  i += read_decode_prefix(s);
  if (i < s.size() && s[i] == '<') {
    std::int64_t v = 0;
    std::size_t n = read_uint(s, i + 1, v);
    if (n > 0 && n <= 3 && i + 1 + n < s.size() && s[i + 1 + n] == '>') i += n + 2;
  }

  // /dev/kmsg record: `prio,seq,usec,flag[,caller=T1];message`.
  if (i < s.size() && is_digit(s[i])) {
    std::int64_t prio = 0, seq = 0, usec = 0;
    std::size_t a = read_uint(s, i, prio);
    std::size_t p = i + a;
    if (a > 0 && a <= 3 && p < s.size() && s[p] == ',') {
      std::size_t b = read_uint(s, p + 1, seq);
      std::size_t q = p + 1 + b;
      if (b > 0 && q < s.size() && s[q] == ',') {
        std::size_t c = read_uint(s, q + 1, usec);
        std::size_t r = q + 1 + c;
        std::size_t semi = s.find(';', r);
        if (c > 0 && r < s.size() && s[r] == ',' && semi != std::string_view::npos && semi - r <= 32) {
          std::string_view flags = s.substr(r + 1, semi - r - 1);
          if (auto cpos = flags.find("caller="); cpos != std::string_view::npos) out.caller = flags.substr(cpos + 7);
          out.kmsg = true;
          out.kmsg_priority = prio;
          out.kmsg_seq = seq;
          out.ts_kind = core::TsKind::boot;
          out.ts_value = static_cast<double>(usec) / 1e6;
          out.ts_raw = s.substr(q + 1, c);
          out.message = s.substr(semi + 1);
          return out;
        }
      }
    }
  }

  // ISO stamps: dmesg --time-format iso (comma fraction, no header) or RFC 3339 syslog /
  // journalctl short-iso[-precise] (header follows).
  IsoStamp iso;
  if (std::size_t n = read_iso(s, i, 'T', iso); n > 0) {
    out.ts_kind = core::TsKind::wall;
    out.ts = iso.epoch;
    out.ts_raw = s.substr(i, n);
    std::size_t j = skip_spaces(s, i + n);
    if (std::size_t v = iso.comma ? 0 : read_vmware_header(s, j); v > 0) j += v;
    else if (!iso.comma) j += read_header(s, j, true, out);
    i = j;
  } else if (s.size() > i + 4 && is_alpha(s[i]) && s[i + 3] == ' ' && read_iso(s, i + 4, ' ', iso) > 0) {
    // journalctl short-full: `Thu 2026-04-09 00:47:22 UTC host kernel: `
    std::size_t n = read_iso(s, i + 4, ' ', iso);
    std::size_t j = i + 4 + n;
    std::size_t z = skip_spaces(s, j);
    std::size_t ze = z;
    while (ze < s.size() && std::isupper(static_cast<unsigned char>(s[ze]))) ++ze;
    if (ze > z && ze < s.size() && s[ze] == ' ') j = ze;  // zone name: read as UTC (see header)
    out.ts_kind = core::TsKind::wall;
    out.ts = iso.epoch;
    out.ts_raw = s.substr(i, j - i);
    j = skip_spaces(s, j);
    i = j + read_header(s, j, true, out);
  } else {
    int month = 0, day = 0, h = 0, m = 0;
    double sec = 0;
    if (std::size_t n = read_month_stamp(s, i, month, day, h, m, sec); n > 0) {
      set_no_year(out, month, day, h, m, sec, year_hint);
      out.ts_raw = s.substr(i, n);
      std::size_t j = skip_spaces(s, i + n);
      i = j + read_header(s, j, true, out);
    } else if (i < s.size() && is_digit(s[i])) {
      // journalctl short-unix: `1775695642.123456 host kernel: `
      double v = 0;
      std::size_t n2 = read_seconds(s, i, v);
      std::size_t dot = s.find('.', i);
      if (n2 > 0 && dot != std::string_view::npos && dot - i >= 9 && dot - i <= 11 && i + n2 < s.size() &&
          s[i + n2] == ' ') {
        KernelLine probe = out;
        std::size_t h2 = read_header(s, i + n2 + 1, false, probe);
        if (h2 > 0) {
          out = probe;
          out.ts_kind = core::TsKind::wall;
          out.ts = v;
          out.ts_raw = s.substr(i, n2);
          i = i + n2 + 1 + h2;
        }
      }
    }
  }

  // Bracketed dmesg stamp (primary for dmesg; quoted boot time inside syslog/journal lines).
  bool had_wall = out.ts_kind == core::TsKind::wall || out.ts_kind == core::TsKind::wall_no_year;
  if (had_wall) {
    KernelLine inner;
    if (std::size_t n = read_bracket_stamp(s, i, year_hint, inner); n > 0 && inner.ts_kind == core::TsKind::boot) {
      out.boot_ts = inner.ts_value;
      i += n;
      i += read_caller(s, i, out);
      i = after_separator(s, i);
    }
  } else if (out.ts_kind == core::TsKind::none && !out.relative) {
    if (std::size_t n = read_bracket_stamp(s, i, year_hint, out); n > 0) {
      i += n;
      i += read_caller(s, i, out);
      i = after_separator(s, i);
      if (out.ts_kind == core::TsKind::boot && out.host.empty()) {
        // journalctl -o short-monotonic: `[  123.456789] host kernel: ` (identifier must be
        // `kernel` or carry a [pid], so dmesg text like `usb 1-1: …` is not taken for a header).
        KernelLine probe = out;
        std::size_t h = read_header(s, i, false, probe);
        if (h > 0 && (probe.kernel || probe.ident_pid)) {
          out = probe;
          i += h;
        }
      }
    }
  }

  // Bare `kernel:` prefix (grep output of a syslog file with the header cut away).
  if (out.host.empty() && out.ts_kind == core::TsKind::none && s.substr(i, 7) == "kernel:") {
    i += 7;
    if (i < s.size() && s[i] == ' ') ++i;
  }
  out.message = i <= s.size() ? s.substr(i) : std::string_view{};
  return out;
}

void apply_stamp(const KernelLine& line, core::Event& event) {
  event.ts = line.ts;
  event.ts_raw = std::string(line.ts_raw);
  event.ts_kind = line.ts_kind;
  event.ts_value = line.ts_value;
  if (!line.host.empty()) event.host = std::string(line.host);
  if (!line.kernel) {
    event.comm = std::string(line.ident);
    if (line.ident_pid) event.pid = line.ident_pid;
  }
  if (line.boot_ts) event.set_number("boot_ts", *line.boot_ts);
}

void ProgramClock::adopt(KernelLine& line) {
  if (line.ts_kind != core::TsKind::wall_no_year || !line.ts_value) return;
  std::string_view m = line.message;
  if (m.substr(0, 5) == "time=") {
    const std::size_t at = m.size() > 5 && m[5] == '"' ? 6 : 5;
    IsoStamp iso;
    // The program's own stamp of this line: the same local moment as the syslog header (to the
    // second the header keeps), with the year and the zone the header leaves out.
    if (read_iso(m, at, 'T', iso) > 0 && iso.zone && std::fabs(iso.local_of_year - *line.ts_value) < 2.0) {
      year_ = iso.year;
      offset_ = iso.offset;
    }
  }
  if (year_ == 0) return;
  const bool leap = (year_ % 4 == 0 && year_ % 100 != 0) || year_ % 400 == 0;
  double of_year = *line.ts_value;
  if (!leap && of_year >= 60 * 86400.0) of_year -= 86400.0;  // the count keeps a Feb 29 every year
  line.ts = core::civil_to_epoch(year_, 1, 1, 0, 0, 0) + of_year - offset_;
  line.ts_kind = core::TsKind::wall;
}

}  // namespace culprit::ingest::kernel
