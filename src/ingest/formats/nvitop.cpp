// nvitop one-shot screens (see nvitop.hpp). Field table, from nvitop's printing code
// (nvitop/tui/screens/main/panels/device.py and process.py: DevicePanel.print /
// ProcessPanel.print, 0.7.3 → 1.x; sizes from nvitop/api/utils.py bytes2human, binary units):
//   `%a %b %d %H:%M:%S %Y` line above the box  → event ts
//   banner `NVITOP <v>  Driver Version: <d>  CUDA Driver Version: <c>` → driver_version, cuda_version
//   row 1 `│ {index:>3}  {name:<19} {persistence:>4} │ {bus_id:<16} {disp:>3} │ …` → gpu, model, bus_id
//   row 2 `│ fan temp perf power │ {used} / {total} │ …` (`23.31GiB / 24.00GiB`, `N/A / N/A`) → mem_used / mem_total
//   MIG row `│{gpu:>2}:{mig:<2}{name:>12} @ GI/CI:…│ …`  → counted (`mig_devices`), as nvidia-smi's MIG box
//   Processes row `│{gpu:>4} {pid:>7} {type} {user:>7} {gpu_mem:>8} {%sm:>3} {%gmbw:>5} {%cpu:>5} {%mem:>5}  {time}  {command} │`
//     → GpuProcess (pid, command, type, mem) + ProcessSighting; a pid cut to 7 characters
//       (`1234567..`) is counted in `processes_without_pid`, not listed: holders are keyed by pid
//   ` No running processes found ` → the box listed none (`no_processes_listed`)
// `--ascii` prints `|`, `=`, `+` for the box characters: both are read. Width >= 100 adds bar
// charts right of the third cell; only the first three cells are read.
#include "ingest/formats/nvitop.hpp"

#include <algorithm>

#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace nvitop {
namespace {

using Sv = std::string_view;
using text::is_digit;
using text::trim;

constexpr Sv kVertical = "\xE2\x94\x82";  // │
constexpr std::size_t kMaxLine = 4000;     // a box row is 79 to a terminal's width; longer is not one
constexpr std::size_t kMaxBlockLines = 4096;

std::vector<Sv> tokens(Sv s) {
  std::vector<Sv> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && text::is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !text::is_space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

/// A line drawn with the box characters (U+2500..U+257F, UTF-8 E2 94 xx / E2 95 xx) or, in
/// `--ascii`, starting with `|` or `+`.
bool is_box_line(Sv line) {
  const Sv t = trim(line);
  if (t.empty()) return false;
  if (t[0] == '|' || t[0] == '+') return true;
  return t.size() >= 3 && t[0] == '\xE2' && (t[1] == '\x94' || t[1] == '\x95');
}

/// The host panel's bar lines between the boxes: `[ CPU: ██▍ 3.1%  UPTIME: 2 days ]  ( Load Average: … )`.
bool is_host_bar(Sv line) {
  const Sv t = trim(line);
  return text::starts_with(t, "[ CPU:") || text::starts_with(t, "[ MEM:") || text::starts_with(t, "[ SWP:") ||
         text::starts_with(t, "[ GPU");
}

/// A human size as bytes2human prints it (`23.29GiB`, `512.0MiB`, `0B`); nullopt for `N/A`.
std::optional<std::int64_t> human_size(Sv s) {
  s = trim(s);
  if (s.empty() || !is_digit(s[0]) || s.size() > 16) return std::nullopt;
  return core::parse_size(s);
}

}  // namespace

std::vector<Sv> box_cells(Sv line) {
  Sv t = trim(line);
  if (t.size() > kMaxLine) return {};
  // Split on `│`, or on `|` where the row has none (`--ascii`).
  const bool unicode = t.find(kVertical) != Sv::npos;
  const Sv sep = unicode ? kVertical : Sv("|");
  if (!text::starts_with(t, sep) || t.size() < 2 * sep.size() || t.substr(t.size() - sep.size()) != sep) return {};
  t = t.substr(sep.size(), t.size() - 2 * sep.size());
  std::vector<Sv> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = t.find(sep, start);
    out.push_back(t.substr(start, at == Sv::npos ? Sv::npos : at - start));
    if (at == Sv::npos) break;
    start = at + sep.size();
  }
  return out;
}

std::optional<Banner> parse_banner(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() != 1) return std::nullopt;
  const auto toks = tokens(cells[0]);
  // NVITOP <v> Driver Version: <d> CUDA Driver Version: <c>
  if (toks.size() != 9 || toks[0] != "NVITOP" || toks[2] != "Driver" || toks[3] != "Version:" || toks[5] != "CUDA" ||
      toks[6] != "Driver" || toks[7] != "Version:")
    return std::nullopt;
  return Banner{std::string(toks[1]), std::string(toks[4]), std::string(toks[8])};
}

std::optional<DeviceRow> parse_device_row(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() < 3) return std::nullopt;
  const auto left = tokens(cells[0]);
  const auto mid = tokens(cells[1]);
  if (left.size() < 2 || !text::is_decimal(left[0], 3) || mid.empty()) return std::nullopt;
  std::string bus = smi_bus_id(mid[0]);
  if (bus.empty()) return std::nullopt;
  DeviceRow r;
  r.index = static_cast<int>(text::decimal_value(left[0]));
  // The name runs from after the index to before the persistence / driver-model cell.
  const Sv cell = trim(cells[0]);
  const Sv after_index = trim(cell.substr(left[0].size()));
  const Sv last = left.back();
  Sv name = left.size() > 2 ? trim(after_index.substr(0, after_index.size() - last.size())) : after_index;
  r.name = std::string(name);
  r.bus_id = std::move(bus);
  return r;
}

std::optional<MemoryCell> parse_memory_row(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() < 3) return std::nullopt;
  const Sv cell = trim(cells[1]);
  const std::size_t slash = cell.find(" / ");
  if (slash == Sv::npos) return std::nullopt;
  const Sv used = trim(cell.substr(0, slash)), total = trim(cell.substr(slash + 3));
  const auto known = [](Sv s) { return s == "N/A" || (!s.empty() && is_digit(s[0])); };
  if (!known(used) || !known(total) || tokens(cell).size() != 3) return std::nullopt;
  // The first cell is fan / temperature / perf / power (`30%   45C    P2   120W / 350W`).
  if (trim(cells[0]).find('%') == Sv::npos && trim(cells[0]).find("N/A") == Sv::npos) return std::nullopt;
  MemoryCell m;
  m.used = human_size(used);
  m.total = human_size(total);
  return m;
}

bool is_mig_row(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() < 2) return false;
  const Sv c = trim(cells[0]);
  const std::size_t colon = c.find(':');
  return colon != Sv::npos && colon > 0 && text::is_decimal(c.substr(0, colon), 3) && c.find(" @ GI/CI:") != Sv::npos;
}

bool is_process_header(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() != 1) return false;
  const auto toks = tokens(cells[0]);
  return toks.size() >= 4 && toks[0] == "GPU" && toks[1] == "PID" && toks[2] == "USER" && toks[3] == "GPU-MEM";
}

std::optional<ProcessRow> parse_process_row(Sv line) {
  const auto cells = box_cells(line);
  if (cells.size() != 1) return std::nullopt;
  const auto toks = tokens(cells[0]);
  if (toks.size() < 4) return std::nullopt;
  ProcessRow r;
  // The GPU: `0`, or `0:1` (a MIG instance).
  const Sv gpu = toks[0];
  const std::size_t colon = gpu.find(':');
  if (colon == Sv::npos ? !text::is_decimal(gpu, 3)
                        : (!text::is_decimal(gpu.substr(0, colon), 3) || !text::is_decimal(gpu.substr(colon + 1), 3)))
    return std::nullopt;
  r.gpu = std::string(gpu);
  // The pid, or what cut_string left of a longer one (`1234567..` is 7 wide: digits then dots).
  const Sv pid = toks[1];
  if (text::is_decimal(pid, 7)) {
    r.pid = text::decimal_value(pid);
  } else {
    const std::size_t dot = pid.find('.');
    if (dot == 0 || dot == Sv::npos || !text::is_decimal(pid.substr(0, dot), 7) ||
        pid.find_first_not_of('.', dot) != Sv::npos)
      return std::nullopt;
  }
  std::size_t k = 2;
  if (toks[k] == "C" || toks[k] == "G" || toks[k] == "C+G" || toks[k] == "N/A") r.type = std::string(toks[k++]);
  if (k + 1 >= toks.size()) return std::nullopt;
  r.user = std::string(toks[k++]);
  const Sv mem = toks[k++];
  if (mem != "N/A" && mem != "WAITING" && !human_size(mem)) return std::nullopt;
  r.mem = human_size(mem);
  // %SM (0.3.2+), %GMBW (0.9+), %CPU, %MEM, TIME (`1:02:03`, `3 days`), then the command.
  std::size_t numbers = 0;
  while (k < toks.size() && numbers < 4 && (is_digit(toks[k][0]) || toks[k] == "N/A")) {
    ++k;
    ++numbers;
  }
  if (k < toks.size() && (is_digit(toks[k][0]) || toks[k] == "N/A")) ++k;  // the time
  if (k < toks.size() && (toks[k] == "day" || toks[k] == "days" || toks[k] == "day," || toks[k] == "days,")) {
    ++k;
    if (k < toks.size() && is_digit(toks[k][0])) ++k;
  }
  if (k < toks.size()) r.command = std::string(toks[k]);
  return r;
}

}  // namespace nvitop

namespace detect {

Detection nvitop_block(Scan& scan, std::size_t i) {
  const auto& lines = scan.lines;
  const std::size_t b = scan.begin, e = scan.end;
  // Both anchors are box rows, which end in `|` or `│` (E2 94 82): a line holding neither byte
  // is none, however its colour codes strip (the sniffer asks this at every line holding any
  // format's anchor: every line of a syslog file).
  if (lines[i].find('|') == std::string_view::npos && lines[i].find('\x82') == std::string_view::npos) return {};
  const std::string anchor = text::strip_ansi(lines[i]);
  if (!nvitop::parse_banner(anchor) && !nvitop::is_process_header(anchor)) return {};
  // Up: the box's top border and `Processes:` line, then the time line.
  std::size_t start = i;
  for (int up = 0; up < 3 && start > b && nvitop::box_cells(lines[start - 1]).size() <= 1 &&
                   (text::contains(lines[start - 1], "\xE2\x95\x92") || text::starts_with(text::trim(lines[start - 1]), "+") ||
                    text::contains(lines[start - 1], "Processes:"));
       ++up)
    --start;
  PeeledTime pt;
  if (start > b && read_ctime_stamp(text::trim(lines[start - 1]), pt) > 0) --start;
  // Down: box lines, host bars, and blank lines between them.
  std::size_t end = i + 1;
  while (end < e && end - start < nvitop::kMaxBlockLines) {
    if (nvitop::is_box_line(lines[end]) || nvitop::is_host_bar(lines[end])) { ++end; continue; }
    std::size_t k = end;
    while (k < e && k < end + 2 && text::trim(lines[k]).empty()) ++k;
    if (k > end && k < e && (nvitop::is_box_line(lines[k]) || nvitop::is_host_bar(lines[k]))) { end = k + 1; continue; }
    break;
  }
  return {start, end};
}

}  // namespace detect

void parse_nvitop(std::string_view text, ParseContext& ctx) {
  SmiReport report;
  std::int64_t without_pid = 0, mig = 0, none_listed = 0;
  const auto flush = [&] {
    if (report.first_line == 0) return;
    if (without_pid > 0) report.counts.emplace_back("processes_without_pid", without_pid);
    if (mig > 0) report.counts.emplace_back("mig_devices", mig);
    if (none_listed > 0) report.counts.emplace_back("no_processes_listed", 1);
    emit_smi_report(report, ctx, "nvitop", "nvitop");
    report = SmiReport{};
    without_pid = mig = none_listed = 0;
  };
  const auto gpu_named = [&](int index) -> core::GpuSnapshot& {
    for (auto& g : report.gpus)
      if (g.gpu == index) return g;
    core::GpuSnapshot s;
    s.gpu = index;
    report.gpus.push_back(std::move(s));
    return report.gpus.back();
  };
  std::int64_t seg = 0;
  bool in_processes = false;
  int pending_device = -1;  // the GPU whose row 1 was just read (row 2, memory, next); -1 none
  for (std::string_view raw : text::split_lines(text)) {
    ++seg;
    const std::string clean = text::strip_ansi(raw);
    const std::string_view line = text::trim(clean);
    PeeledTime pt;
    if (read_ctime_stamp(line, pt) > 0 && pt.raw.size() + 2 >= line.size()) {
      // A time line opens the next screen (a log of several `nvitop -1`).
      if (!report.gpus.empty()) flush();
      report.touch(seg);
      report.ts_raw = pt.raw;
      continue;
    }
    if (auto banner = nvitop::parse_banner(line)) {
      if (!report.gpus.empty()) flush();
      report.touch(seg);
      report.driver = banner->driver;
      report.cuda = banner->cuda;
      in_processes = false;
      continue;
    }
    if (nvitop::is_process_header(line)) {
      report.touch(seg);
      in_processes = true;
      continue;
    }
    if (in_processes) {
      if (auto p = nvitop::parse_process_row(line)) {
        report.touch(seg);
        const int index = static_cast<int>(std::stol(p->gpu.substr(0, p->gpu.find(':'))));
        if (!p->pid) {
          ++without_pid;
          continue;
        }
        core::GpuProcess gp;
        gp.pid = *p->pid;
        gp.name = !p->command.empty() ? p->command : p->user;
        gp.type = p->type == "N/A" ? std::string() : p->type;
        gp.mem_used = p->mem;
        gpu_named(index).processes.push_back(std::move(gp));
        if (gpu_named(index).line == 0) gpu_named(index).line = seg;
        continue;
      }
      if (text::contains(line, "No running processes found")) {
        report.touch(seg);
        ++none_listed;
        continue;
      }
      if (nvitop::is_box_line(line)) report.touch(seg);
      continue;
    }
    if (auto d = nvitop::parse_device_row(line)) {
      report.touch(seg);
      auto& g = gpu_named(d->index);
      g.line = seg;
      g.model = d->name;
      g.bus_id = d->bus_id;
      pending_device = d->index;
      continue;
    }
    if (pending_device >= 0) {
      const int index = pending_device;
      pending_device = -1;
      if (auto m = nvitop::parse_memory_row(line)) {
        report.touch(seg);
        auto& g = gpu_named(index);
        g.mem_used = m->used;
        g.mem_total = m->total;
        continue;
      }
    }
    if (nvitop::is_mig_row(line)) {
      report.touch(seg);
      ++mig;
      continue;
    }
    if (nvitop::is_box_line(line) && report.first_line != 0) report.last_line = seg;
  }
  flush();
}

}  // namespace culprit::ingest
