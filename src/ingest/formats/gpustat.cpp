// gpustat (wookayin/gpustat): one line per GPU with its memory and processes, under an optional
// `host  time  driver` header; `gpustat -i` repeats the block. Read into the same GpuSnapshot /
// GpuProcess / ProcessSighting records and `gpu_snapshot` event the nvidia-smi parsers write
// (emit_smi_report), so the ledger and the roles use it as they use nvidia-smi.
//
// Field table (gpustat/core.py, print_to / print_formatted; memory in MiB although printed `MB`,
// gpustat divides NVML's bytes by 1024 * 1024):
//   header `host  <D_T_FMT time>  <driver>` → event ts (C locale ctime), driver_version
//   `[i]`                                   → gpu index
//   name (padded; absent with --gpuname-width 0) → model
//   `<used> / <total> MB`                   → mem_used / mem_total (`??` unknown)
//   `[user][:cmd][/pid](<n>M)` per process  → GpuProcess (pid, cmd or user, mem) + ProcessSighting;
//                                             a process printed without its pid (no -p) is counted
//                                             in the event's `processes_without_pid`, not listed:
//                                             the ledger and the roles key holders by pid
//   `(Not Supported)`                       → no process list (the event's `processes_not_supported`)
//   ` ├─ pid (cpu%, mem): cmd` (--show-full-cmd) → part of the block, not read
#include "ingest/formats/gpustat.hpp"

#include <algorithm>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace gpustat {
namespace {

using Sv = std::string_view;
using text::is_digit;
using text::trim;

constexpr std::int64_t kMiB = 1024 * 1024;
constexpr Sv kDegree = "\xC2\xB0";  // `°` (1.0+); 0.x prints `'C`

std::vector<Sv> split(Sv s, char sep) {
  std::vector<Sv> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == Sv::npos ? Sv::npos : at - start));
    if (at == Sv::npos) break;
    start = at + 1;
  }
  return out;
}

std::vector<Sv> tokens(Sv s) {
  std::vector<Sv> out;
  for (Sv t : split(s, ' '))
    if (!trim(t).empty()) out.push_back(trim(t));
  return out;
}

/// The temperature cell: `45°C,   0 %`, `44'C,   0 %`, `??°C,  ?? %`, with fan, codec and power
/// parts after it (`80°C,  16 %,  76 % (E:  88 %  D:  67 %),  125 / 250 W`).
bool is_temperature_cell(Sv cell) {
  const Sv t = trim(cell);
  std::size_t c = t.find(kDegree);
  if (c != Sv::npos) c += kDegree.size();
  else if ((c = t.find('\'')) != Sv::npos) ++c;
  if (c == Sv::npos || c + 1 >= t.size() || t[c] != 'C' || t[c + 1] != ',') return false;
  const Sv temp = t.substr(0, t.find_first_of("'\xC2"));
  return (text::is_decimal(temp, 4) || temp == "??") && t.find('%') != Sv::npos;
}

/// `used` / `total` of `15234 / 24576 MB`; false when the cell is not one.
bool read_memory_cell(Sv cell, std::optional<std::int64_t>& used, std::optional<std::int64_t>& total) {
  const auto toks = tokens(cell);
  if (toks.size() != 4 || toks[1] != "/" || toks[3] != "MB") return false;
  const auto value = [](Sv t, std::optional<std::int64_t>& out) {
    if (t == "??") return true;
    if (!text::is_decimal(t, 9)) return false;
    out = text::decimal_value(t) * kMiB;
    return true;
  };
  return value(toks[0], used) && value(toks[2], total);
}

/// `alice(15228M)`, `python/12345(15228M)`, `alice:python/12345(?M)`.
std::optional<Process> read_process(Sv tok) {
  if (tok.size() < 4 || tok.substr(tok.size() - 2) != "M)") return std::nullopt;
  const std::size_t open = tok.rfind('(');
  if (open == Sv::npos) return std::nullopt;
  Process p;
  const Sv mem = tok.substr(open + 1, tok.size() - open - 3);
  if (text::is_decimal(mem, 9)) p.mem = text::decimal_value(mem) * kMiB;
  else if (mem != "?") return std::nullopt;
  Sv who = tok.substr(0, open);
  if (const std::size_t slash = who.rfind('/'); slash != Sv::npos) {
    const Sv pid = who.substr(slash + 1);
    if (text::is_decimal(pid, 10)) p.pid = text::decimal_value(pid);
    else if (pid != "--") return std::nullopt;
    who = who.substr(0, slash);
  }
  if (const std::size_t colon = who.find(':'); colon != Sv::npos) {
    p.user = std::string(who.substr(0, colon));
    p.command = std::string(who.substr(colon + 1));
  } else if (p.pid) {
    p.command = std::string(who);  // `-c -p` or `-p`: a command or a user, the better name either way
  } else {
    p.user = std::string(who);
  }
  return p;
}

}  // namespace

bool may_be_gpu_line(Sv line) {
  const Sv t = text::trim_left(line);
  return !t.empty() && t[0] == '[' && text::contains(line, " MB");
}

std::optional<GpuLine> parse_gpu_line(Sv line) {
  const Sv t = trim(line);
  if (t.size() < 12 || t.size() > 4000 || t[0] != '[') return std::nullopt;
  const std::size_t close = t.find(']');
  if (close == Sv::npos || !text::is_decimal(t.substr(1, close - 1), 3)) return std::nullopt;
  GpuLine g;
  g.index = static_cast<int>(text::decimal_value(t.substr(1, close - 1)));
  const auto cells = split(t.substr(close + 1), '|');
  // name | temperature … | memory [| processes]; the name cell is gone with --gpuname-width 0.
  std::size_t k = 0;
  if (cells.size() >= 2 && !is_temperature_cell(cells[0])) {
    g.name = std::string(trim(cells[0]));
    k = 1;
  }
  if (k + 1 >= cells.size() || !is_temperature_cell(cells[k])) return std::nullopt;
  if (!read_memory_cell(cells[k + 1], g.used, g.total)) return std::nullopt;
  if (k + 2 < cells.size()) {
    // Processes: the rest of the line (a `|` inside a name would split it; join the pieces).
    std::string rest;
    for (std::size_t c = k + 2; c < cells.size(); ++c) rest += std::string(cells[c]) + " ";
    if (trim(rest) == "(Not Supported)") {
      g.processes_not_supported = true;
    } else {
      for (Sv tok : tokens(rest))
        if (auto p = read_process(tok)) g.processes.push_back(std::move(*p));
    }
  }
  return g;
}

std::optional<Header> parse_header(Sv line) {
  const Sv t = trim(line);
  if (t.size() < 20 || t.size() > 200) return std::nullopt;
  const std::size_t gap = t.find("  ");
  if (gap == Sv::npos || gap == 0) return std::nullopt;
  const Sv host = t.substr(0, gap);
  for (char c : host)
    if (!text::is_host_char(c)) return std::nullopt;
  const Sv rest = text::trim_left(t.substr(gap));
  Header h;
  h.host = std::string(host);
  // The time in the locale's D_T_FMT: C's ctime form (`Mon Apr  9 00:47:22 2026`, most
  // terminals), `%Y-%m-%d %H:%M:%S` on Windows, another locale's form otherwise.
  PeeledTime pt;
  std::size_t len = read_ctime_stamp(rest, pt);
  if (len == 0) len = read_iso_stamp(rest, pt);
  Sv after;
  if (len > 0) {
    h.time = std::string(rest.substr(0, len));
    after = trim(rest.substr(len));
  } else {
    // Another locale (`Mon 09 Apr 2026 12:47:22 AM UTC`): a clock in it, the driver last.
    const std::size_t colon = rest.find(':');
    if (colon == Sv::npos || colon < 2 || colon + 6 > rest.size() || rest[colon + 3] != ':' || !is_digit(rest[colon - 1]))
      return std::nullopt;
    const std::size_t last = rest.rfind("  ");
    if (last == Sv::npos) return std::nullopt;
    after = trim(rest.substr(last));
  }
  // The driver version: digits and dots (`535.104.05`), or nothing (0.5 and older).
  if (!after.empty()) {
    if (after.find('.') == Sv::npos || !std::all_of(after.begin(), after.end(), [](char c) { return is_digit(c) || c == '.'; }))
      return std::nullopt;
    h.driver = std::string(after);
  } else if (len == 0) {
    return std::nullopt;
  }
  return h;
}

bool is_full_cmd_line(Sv line) {
  const Sv t = text::trim_left(line);
  return text::starts_with(t, "\xE2\x94\x9C\xE2\x94\x80") || text::starts_with(t, "\xE2\x94\x94\xE2\x94\x80");  // ├─ └─
}

}  // namespace gpustat

void parse_gpustat(std::string_view text, ParseContext& ctx) {
  SmiReport report;
  std::int64_t without_pid = 0;
  bool not_supported = false;
  const auto flush = [&] {
    if (report.first_line == 0) return;
    if (without_pid > 0) report.counts.emplace_back("processes_without_pid", without_pid);
    if (not_supported) report.counts.emplace_back("processes_not_supported", 1);
    emit_smi_report(report, ctx, "gpustat", "gpustat");
    report = SmiReport{};
    without_pid = 0;
    not_supported = false;
  };
  std::int64_t seg = 0;
  for (std::string_view raw : text::split_lines(text)) {
    ++seg;
    const std::string clean = text::strip_ansi(raw);
    if (auto h = gpustat::parse_header(clean); h && !gpustat::parse_gpu_line(clean)) {
      flush();
      report.first_line = report.last_line = seg;
      report.ts_raw = h->time;
      report.driver = h->driver;
      continue;
    }
    auto g = gpustat::parse_gpu_line(clean);
    if (!g) {
      if (report.first_line != 0 && gpustat::is_full_cmd_line(clean)) report.last_line = seg;
      continue;
    }
    // A GPU index seen again without a header between: the next sample of a loop.
    if (std::any_of(report.gpus.begin(), report.gpus.end(), [&](const core::GpuSnapshot& s) { return s.gpu == g->index; }))
      flush();
    report.touch(seg);
    core::GpuSnapshot s;
    s.line = seg;
    s.gpu = g->index;
    s.model = g->name;
    s.mem_used = g->used;
    s.mem_total = g->total;
    not_supported = not_supported || g->processes_not_supported;
    for (const auto& p : g->processes) {
      if (!p.pid) {
        ++without_pid;
        continue;
      }
      core::GpuProcess gp;
      gp.pid = *p.pid;
      gp.name = !p.command.empty() ? p.command : p.user;
      gp.mem_used = p.mem;
      s.processes.push_back(std::move(gp));
    }
    report.gpus.push_back(std::move(s));
  }
  flush();
}

}  // namespace culprit::ingest
