// ps header names -> columns, and rows split by them. Tokens, not offsets: procps right-aligns
// numbers and left-aligns text, widens columns to fit, and never prints an empty cell (it
// prints `-` or `?`), so the n-th token is the n-th column except for the multi-token start
// forms and a trailing command with spaces.
#include "ingest/formats/ps_columns.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest::ps {
namespace {

using Sv = std::string_view;

struct Tok {
  Sv text;
  std::size_t pos = 0;
};

std::vector<Tok> tokens(Sv s, std::size_t from = 0) {
  std::vector<Tok> out;
  std::size_t i = from;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) out.push_back({s.substr(b, i - b), b});
  }
  return out;
}

Col column_of(Sv name) {
  if (name == "PID") return Col::pid;
  if (name == "PPID") return Col::ppid;
  // `ps -ef` prints user names under UID; a numeric uid is kept as the user text.
  if (name == "USER" || name == "UID" || name == "EUSER" || name == "RUSER" || name == "EUID" || name == "RUID")
    return Col::user;
  if (name == "STAT" || name == "S") return Col::stat;
  if (name == "START" || name == "STIME" || name == "STARTED") return Col::start;
  if (name == "ELAPSED") return Col::elapsed;
  if (name == "RSS" || name == "RSZ" || name == "RES") return Col::rss;  // RES: top -b
  if (name == "COMMAND" || name == "CMD" || name == "ARGS") return Col::command;
  return Col::other;
}

/// How a column name starts: `%` (`%CPU`) or a capital.
constexpr bool header_start(char c) { return c == '%' || (c >= 'A' && c <= 'Z'); }

/// The longest column name a header holds.
constexpr std::size_t kMaxHeaderToken = 12;

bool header_token(Sv t) {
  if (t.empty() || t.size() > kMaxHeaderToken) return false;
  for (char c : t)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%' || c == '_' || c == '-' || c == '+'))
      return false;
  return header_start(t[0]);
}

/// The token at or after `i` (blanks skipped), cut after `max` + 1 bytes (a caller rejects
/// longer ones); `i` moves past what was read.
Sv next_token(Sv line, std::size_t& i, std::size_t max) {
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  const std::size_t b = i;
  while (i < line.size() && i - b <= max && line[i] != ' ' && line[i] != '\t') ++i;
  return line.substr(b, i - b);
}

bool is_weekday(Sv t) {
  for (Sv d : {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"})
    if (t == d) return true;
  return false;
}

// Column shapes of the two standard layouts (procps-ng ps/output.c: pr_stat's state letters
// and flags, pr_start / pr_stime's `HH:MM`, `MmmDD` and `YYYY`, pr_time / pr_etime's times).
/// A byte of a user name: ASCII letters and digits by their bytes (std::isalnum is a call per
/// byte, and culprit runs in the "C" locale, where it means the same), `_ - . + $`.
constexpr bool is_user_char(char c) {
  const char lower = static_cast<char>(c | 0x20);
  return (lower >= 'a' && lower <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '+' ||
         c == '$';
}

/// The longest user name Linux allows (useradd: 32 bytes).
constexpr std::size_t kMaxUser = 32;

bool is_user(Sv t) {
  if (t.empty() || t.size() > kMaxUser) return false;
  return std::all_of(t.begin(), t.end(), is_user_char);
}

bool is_percent(Sv t) {  // `1.7`, `0.0`, `101` (more than one CPU)
  const auto dot = t.find('.');
  if (dot == Sv::npos) return text::is_decimal(t, 12) && t.size() <= 4;
  return dot > 0 && dot + 2 == t.size() && text::is_decimal(t.substr(0, dot), 12) && text::is_decimal(t.substr(dot + 1), 12);
}

bool is_tty(Sv t) {
  if (t == "?" || t == "console") return true;
  if (t.size() > 4 && t.substr(0, 4) == "pts/") return text::is_decimal(t.substr(4), 12);
  if (t.size() > 3 && t.substr(0, 3) == "tty") {
    for (char c : t.substr(3))
      if (!std::isalnum(static_cast<unsigned char>(c))) return false;
    return true;
  }
  return false;
}

bool is_stat(Sv t) {
  if (t.empty() || t.size() > 8 || Sv("DRSTtWXZIP").find(t[0]) == Sv::npos) return false;
  for (char c : t.substr(1))
    if (Sv("<NnsLl+").find(c) == Sv::npos) return false;
  return true;
}

bool is_clock(Sv t) {  // HH:MM
  return t.size() == 5 && t[2] == ':' && text::is_decimal(t.substr(0, 2), 12) && text::is_decimal(t.substr(3), 12);
}

bool is_start(Sv t) {  // `10:42`, `May25`, `2025`
  if (is_clock(t)) return true;
  if (t.size() == 5 && core::parse_month(t.substr(0, 3))) return text::is_decimal(t.substr(3), 12);
  return t.size() == 4 && text::is_decimal(t, 12) && t[0] >= '1' && t[0] <= '2';
}

bool is_cpu_time(Sv t, bool hours) {  // aux: `147:37`, `0:00`; -ef: `00:00:01`, `2-03:04:05`
  if (const auto dash = t.find('-'); dash != Sv::npos) {
    if (!text::is_decimal(t.substr(0, dash), 12)) return false;
    t = t.substr(dash + 1);
  }
  int parts = 0;
  while (true) {
    const auto colon = t.find(':');
    const Sv part = t.substr(0, colon);
    if (!text::is_decimal(part, 12) || (parts > 0 && part.size() != 2)) return false;
    ++parts;
    if (colon == Sv::npos) break;
    t = t.substr(colon + 1);
  }
  return hours ? parts == 3 : parts >= 2 && parts <= 3;
}

Header make_header(std::initializer_list<Sv> names) {
  Header h;
  for (Sv n : names) {
    h.cols.push_back(column_of(n));
    h.names.emplace_back(n);
  }
  return h;
}

/// Both layouts start `USER PID N`: a name, a pid, then %CPU (`1.7`) or PPID (`1`). The scan asks
/// this of every line, so the first three tokens are looked at before anything is split: a
/// stamp, a `[tag]` or syslog's `Apr  8 12:00:01` fails here.
bool starts_like_row(Sv line) {
  // Each token is checked before the next is cut, the first by its first byte: most lines
  // fail there or at the second.
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  // The first token is a user name (is_user of next_token's token): a run of 1 to kMaxUser
  // name bytes that a blank or the line's end closes, read while it is one (`INFO:root:…`
  // stops at its `:`, not at the blank after the word).
  const std::size_t user = i;
  while (i < line.size() && i - user <= kMaxUser && is_user_char(line[i])) ++i;
  if (i == user || i - user > kMaxUser || (i < line.size() && line[i] != ' ' && line[i] != '\t')) return false;
  if (!text::is_decimal(next_token(line, i, kMaxUser), 12)) return false;
  const Sv third = next_token(line, i, kMaxUser);
  return is_percent(third) || text::is_decimal(third, 12);
}

}  // namespace

const Header* headerless_layout(Sv line) {
  static const Header aux = make_header({"USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME", "COMMAND"});
  static const Header ef = make_header({"UID", "PID", "PPID", "C", "STIME", "TTY", "TIME", "CMD"});
  if (line.size() < 20 || !starts_like_row(line)) return nullptr;
  const auto t = tokens(line.substr(0, std::min<std::size_t>(line.size(), 400)));
  if (t.size() >= 11 && is_user(t[0].text) && text::is_decimal(t[1].text, 12) && is_percent(t[2].text) && is_percent(t[3].text) &&
      text::is_decimal(t[4].text, 12) && text::is_decimal(t[5].text, 12) && is_tty(t[6].text) && is_stat(t[7].text) &&
      is_start(t[8].text) && is_cpu_time(t[9].text, false))
    return &aux;
  if (t.size() >= 8 && is_user(t[0].text) && text::is_decimal(t[1].text, 12) && text::is_decimal(t[2].text, 12) && text::is_decimal(t[3].text, 12) &&
      t[3].text.size() <= 3 && is_start(t[4].text) && is_tty(t[5].text) && is_cpu_time(t[6].text, true))
    return &ef;
  return nullptr;
}

bool may_start_listing(char c) {
  // parse_header's first token starts as a column name does; a header-less row's with a user
  // name's byte (starts_like_row).
  return header_start(c) || is_user_char(c);
}

bool may_open_listing(Sv line) {
  // Byte classes as tables (text::ByteSet): every line of a log with a letter first is asked.
  static constexpr text::ByteSet kName([](char c) { return is_user_char(c) || c == '%'; });
  static constexpr text::ByteSet kBlank([](char c) { return c == ' ' || c == '\t'; });
  static constexpr text::ByteSet kDigitOrDot([](char c) { return text::is_digit(c) || c == '.'; });
  std::size_t i = 0;
  while (i < line.size() && text::is_space(line[i])) ++i;
  // The first token: a user name (starts_like_row) or a column name (header_token), at most
  // kMaxUser bytes either way.
  const std::size_t first = i;
  i = kName.span(line.substr(0, first + kMaxUser + 1), i);
  if (i == first || i - first > kMaxUser || i == line.size() || !kBlank(line[i])) return false;
  i = kBlank.span(line, i);
  if (i == line.size()) return false;
  if (header_start(line[i])) return true;  // a header's second column name
  // A row's PID, then its %CPU or PPID (starts_like_row): digits (and a dot) to the next blank.
  // Syslog's `Apr  9 00:47:19` fails at the clock's colon.
  for (const text::ByteSet* token : {&text::kDigits, &kDigitOrDot}) {
    const std::size_t b = i = kBlank.span(line, i);
    i = token->span(line, i);
    if (i == b || (i < line.size() && !kBlank(line[i]))) return false;
  }
  return true;
}

bool may_be_header(Sv line) {
  if (line.size() > 400) return false;
  // The first two tokens, each cut only once the one before it passed: a log line fails at its
  // first byte or at its second token (`INFO 04-09 …`, a level and then a date).
  std::size_t i = 0;
  for (int k = 0; k < 2; ++k) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i == line.size() || !header_start(line[i])) return false;
    if (!header_token(next_token(line, i, kMaxHeaderToken))) return false;
  }
  return true;
}

std::optional<Header> parse_header(Sv line) {
  if (!may_be_header(line)) return std::nullopt;  // cheap reject: most lines with `PID` in them are not headers
  const auto toks = tokens(line);
  if (toks.size() < 3 || toks.size() > 40) return std::nullopt;
  Header h;
  bool pid = false, cmd = false, user = false, stat = false;
  int unknown = 0;
  for (const auto& t : toks) {
    if (!header_token(t.text)) return std::nullopt;
    // A bare `MEM` is no column of ps or top (they print `%MEM`): Ray's memory monitor heads its
    // table of memory users `PID MEM COMMAND`, which the app-log parser reads (ray_memory_table).
    if (t.text == "MEM") return std::nullopt;
    const Col c = column_of(t.text);
    pid = pid || c == Col::pid;
    cmd = cmd || c == Col::command;
    user = user || c == Col::user;
    stat = stat || c == Col::stat;
    static constexpr Sv kOther[] = {"%CPU", "%MEM", "C", "VSZ", "VSIZE", "SZ", "TTY", "TT", "TIME", "F", "NI",
                                    "PRI", "PSR", "CLS", "WCHAN", "PGID", "SID", "TID", "LWP", "NLWP", "GROUP",
                                    "GID", "TPGID", "RTPRIO", "POL", "ADDR", "CP", "LABEL", "CGROUP", "SUSER",
                                    "FUSER", "EGROUP", "RGROUP", "SUID", "FUID", "MAJFL", "MINFL", "TRS", "DRS",
                                    "PR", "VIRT", "SHR", "TIME+"};  // the last four: top -b
    if (c == Col::other) {
      bool known = false;
      for (Sv k : kOther) known = known || t.text == k;
      if (!known) ++unknown;
    }
    h.cols.push_back(c);
    h.names.emplace_back(t.text);
  }
  if (!pid || unknown > 2 || !(cmd || (user && stat))) return std::nullopt;
  return h;
}

Row split_row(Sv line, const Header& h) {
  Row row;
  row.cells.assign(h.cols.size(), Sv{});
  const auto toks = tokens(line);
  std::size_t k = 0;
  for (std::size_t c = 0; c < h.cols.size() && k < toks.size(); ++c) {
    const Tok& t = toks[k];
    const bool last = c + 1 == h.cols.size();
    std::size_t take = 1;
    if (h.cols[c] == Col::start) {
      // lstart: `Wed Apr  8 09:12:01 2026`; start: `Apr 08` (older than a day); else one token.
      if (is_weekday(t.text) && k + 4 < toks.size()) take = 5;
      else if (t.text.size() == 3 && core::parse_month(t.text) && k + 1 < toks.size() && text::is_decimal(toks[k + 1].text, 12) &&
               toks[k + 1].text.size() <= 2 && h.cols.size() - c < toks.size() - k)
        take = 2;
    } else if (h.cols[c] == Col::command && last) {
      Sv rest = line.substr(t.pos);
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
      row.cells[c] = rest;  // the command takes the rest of the line: nothing follows it
      break;
    }
    const Tok& end = toks[k + take - 1];
    row.cells[c] = line.substr(t.pos, end.pos + end.text.size() - t.pos);
    k += take;
  }
  for (std::size_t c = 0; c < h.cols.size(); ++c)
    if (h.cols[c] == Col::pid) row.ok = text::is_decimal(row.cells[c], 12);
  return row;
}

}  // namespace culprit::ingest::ps
