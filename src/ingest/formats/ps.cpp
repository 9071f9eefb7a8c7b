// `ps` listings (procps / procps-ng; busybox prints the same names): `ps aux`, `ps -ef`,
// `ps -eo pid,user,stat,lstart,rss,cmd` and any other header-driven column set; also the task
// list of `top -b` (same names, RES for RSS). Each row becomes
// a ProcessSighting in the host's process registry — user, state, start time, elapsed time,
// RSS, command — which roles.cpp uses to say why a GPU holder is foreign (another user, stopped,
// started before the job). One `process_list` event per listing marks where it was.
//
// Rows without a header (`ps aux | grep X`, `ps -ef | grep X`: grep ate it) are read when their
// shape fits one of procps' two standard layouts (ps_columns.hpp); the grep row itself is skipped.
//
// Field table (header -> ProcessSighting): PID -> pid | PPID -> ppid | USER / UID / EUSER / RUSER -> user |
//   STAT / S -> state | STARTED (lstart `Wed Apr  8 09:12:01 2026`) -> started exactly;
//   START / STIME / STARTED (`Apr08`, `Apr 08`, `2025`) -> started = the end of that day / year
//   (a latest bound; needs a year hint for the day forms); `00:12` -> not placed (no date) |
//   ELAPSED (`2-03:04:05`, `04:05`, or etimes seconds) -> elapsed | RSS / RSZ (KiB) -> rss bytes |
//   COMMAND / CMD / ARGS -> cmdline, and name = its program's base name.
// Kernel threads (`[kworker/0:1]`) are skipped: they hold no GPU memory and no user's memory.
#include <optional>
#include <string>

#include "culprit/core/time.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/formats/ps_columns.hpp"

namespace culprit::ingest {
namespace {

using Sv = std::string_view;

std::optional<std::int64_t> uint_of(Sv s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

/// `[[dd-]hh:]mm:ss` (etime) or plain seconds (etimes) -> seconds.
std::optional<double> elapsed_of(Sv s) {
  if (auto n = uint_of(s)) return static_cast<double>(*n);
  std::int64_t days = 0;
  if (const auto dash = s.find('-'); dash != Sv::npos) {
    auto d = uint_of(s.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    s = s.substr(dash + 1);
  }
  std::int64_t total = 0;
  int parts = 0;
  while (!s.empty()) {
    const auto colon = s.find(':');
    auto v = uint_of(s.substr(0, colon));
    if (!v || ++parts > 3) return std::nullopt;
    total = total * 60 + *v;
    if (colon == Sv::npos) break;
    s = s.substr(colon + 1);
  }
  if (parts < 2) return std::nullopt;
  return static_cast<double>(days * 86400 + total);
}

/// When it started: lstart exactly; `Apr08` / `Apr 08` / `2025` as the latest moment that form
/// allows (the end of that day or year); nullopt for a time of day (no date) or no year.
std::optional<double> started_of(Sv s, int year_hint) {
  PeeledTime t;
  if (read_ctime_stamp(s, t) > 0) return stamp_epoch(t, 0);
  if (s.size() == 4) {
    if (auto y = uint_of(s); y && *y >= 1990 && *y <= 2200)
      return core::civil_to_epoch(static_cast<int>(*y) + 1, 1, 1, 0, 0, 0);
  }
  if (s.size() >= 4 && s.size() <= 6 && year_hint > 0) {
    const auto month = core::parse_month(s.substr(0, 3));
    Sv day = text::trim(s.substr(3));
    auto d = uint_of(day);
    if (month && d && *d >= 1 && *d <= 31)
      return core::civil_to_epoch(year_hint, *month, static_cast<int>(*d), 0, 0, 0) + 86400;
  }
  return std::nullopt;
}

/// RSS in bytes: ps prints KiB; top's RES is KiB too, or scaled with a suffix (`8.2g`, `512m`).
std::optional<std::int64_t> rss_of(Sv v) {
  if (auto kib = uint_of(v)) return *kib < (std::int64_t{1} << 40) ? std::optional(*kib * 1024) : std::nullopt;
  if (v.size() < 2 || v.size() > 12) return std::nullopt;
  double scale = 0;
  switch (v.back()) {
    case 'k': scale = 1024.0; break;
    case 'm': scale = 1024.0 * 1024; break;
    case 'g': scale = 1024.0 * 1024 * 1024; break;
    case 't': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: return std::nullopt;
  }
  double n = 0, place = 0;  // place: 0 before the decimal point, then 0.1, 0.01, …
  for (char c : v.substr(0, v.size() - 1)) {
    if (c == '.' && place == 0) {
      place = 1;
    } else if (c >= '0' && c <= '9' && place == 0) {
      n = n * 10 + (c - '0');
    } else if (c >= '0' && c <= '9') {
      place /= 10;
      n += (c - '0') * place;
    } else {
      return std::nullopt;
    }
  }
  return static_cast<std::int64_t>(n * scale);
}

/// The command without `ps f` forest art (`  \_ python3 …`, `|   \_ …`).
Sv deforest(Sv cmd) {
  while (true) {
    if (!cmd.empty() && cmd.front() == ' ') cmd.remove_prefix(1);
    else if (text::starts_with(cmd, "\\_ ")) cmd.remove_prefix(3);
    else if (text::starts_with(cmd, "| ")) cmd.remove_prefix(2);
    else return cmd;
  }
}

/// The program's base name: `/opt/venv/bin/python3 train.py` -> `python3`, `sshd: alice` -> `sshd`,
/// `[python3] <defunct>` -> `python3`.
std::string name_of(Sv cmd) {
  // A zombie has no command line: ps prints its comm in brackets and `<defunct>`.
  if (text::starts_with(cmd, "[") && cmd.size() > 12 && cmd.substr(cmd.size() - 10) == " <defunct>") {
    const Sv comm = cmd.substr(1, cmd.size() - 11);
    if (!comm.empty() && comm.back() == ']') return std::string(comm.substr(0, comm.size() - 1));
  }
  Sv prog = cmd.substr(0, cmd.find(' '));
  if (!prog.empty() && prog.back() == ':') prog.remove_suffix(1);
  if (const auto slash = prog.rfind('/'); slash != Sv::npos && slash + 1 < prog.size()) prog = prog.substr(slash + 1);
  return std::string(prog);
}

}  // namespace

void parse_ps(std::string_view text, ParseContext& ctx) {
  std::optional<ps::Header> header;
  std::int64_t first = 0, last = 0, listing_rows = 0;
  bool noted = false;
  auto flush = [&]() {
    if (first == 0 || !ctx.sink) return;
    core::Event ev = ctx.make_event(first);
    ev.line_end = ctx.absolute_line_end(last);
    ev.kind = "process_list";
    ev.severity = core::Severity::info;
    ev.rule = "ps";
    ev.message = "ps listing";
    ev.set_int("processes", listing_rows);
    ctx.sink->add_event(ev);
  };
  std::int64_t seg = 0;
  for (Sv raw : text::split_lines(text)) {
    ++seg;
    if (raw.size() > 65536) raw = raw.substr(0, 65536);  // a command line can be huge; the columns are early
    const Sv line = text::trim(raw);
    if (line.empty()) continue;
    if (auto h = ps::parse_header(line)) {
      flush();
      header = std::move(h);
      first = last = seg;
      listing_rows = 0;
      continue;
    }
    // Rows whose header grep ate (`ps aux | grep X`) are read by their shape, one row at a time.
    const ps::Header* layout = header ? &*header : ps::headerless_layout(line);
    if (!layout) continue;
    if (first == 0) first = seg;
    const ps::Row row = ps::split_row(line, *layout);
    if (!row.ok) {
      if (!noted) {
        noted = true;
        ctx.note("ps_row_skipped", seg, "ps row does not fit its header (no PID where the header has one); skipped");
      }
      continue;
    }
    last = seg;
    ++listing_rows;
    core::ProcessSighting p;
    p.host = ctx.host;
    p.evidence = "ps";
    for (std::size_t c = 0; c < layout->cols.size(); ++c) {
      const Sv v = row.cells[c];
      switch (layout->cols[c]) {
        case ps::Col::pid: p.pid = uint_of(v).value_or(0); break;
        case ps::Col::ppid: p.ppid = uint_of(v); break;
        case ps::Col::user: p.user = std::string(v); break;
        case ps::Col::stat: p.state = v == "-" ? std::string() : std::string(v); break;
        case ps::Col::start: p.started = started_of(v, ctx.year_hint); break;
        case ps::Col::elapsed: p.elapsed = elapsed_of(v); break;
        case ps::Col::rss: p.rss = rss_of(v); break;
        case ps::Col::command:
          p.cmdline = std::string(deforest(v));
          p.name = name_of(p.cmdline);
          break;
        default: break;
      }
    }
    if (p.cmdline.size() > 2 && p.cmdline.front() == '[' && p.cmdline.back() == ']') continue;  // kernel thread
    if (p.name == "grep" || p.name == "egrep" || p.name == "fgrep") continue;  // the `| grep X` that listed it
    if (ctx.sink) ctx.sink->add_process(p);
  }
  flush();
}

}  // namespace culprit::ingest
