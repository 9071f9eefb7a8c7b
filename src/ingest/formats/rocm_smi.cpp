// rocm-smi text (see rocm_smi.hpp). Field table, from rocm_smi.py (printLog, printLogSpacer,
// showMemInfo, showPids, print2DArray; python_smi_tools since 2020 (ROCm 3.9) → 6.x, appWidth 90):
//   `==== ROCm System Management Interface ====` … `==== End of ROCm SMI Log ====` → the block
//   `GPU[i]\t\t: VRAM Total Memory (B): <n>`       → mem_total (bytes)
//   `GPU[i]\t\t: VRAM Total Used Memory (B): <n>`  → mem_used (bytes)
//   `==== KFD Processes ====`, `KFD process information:`, the header
//   `PID  PROCESS NAME  GPU(s)  VRAM USED  SDMA USED  CU OCCUPANCY` (`GPU` with `details`), rows
//   `<pid>\t<name>\t<n gpus>\t<vram bytes>\t<sdma>\t<cu>` → counted (`processes_unplaced`): the
//     tool prints how many GPUs a process uses, not which (and `-d` may have hidden the others),
//     so no row is placed on a GPU; where rows exist the GPUs' figures are withheld, because a
//     full GPU whose holders cannot be placed must not read as a GPU with no process listed
//   `No KFD PIDs currently running`                → no_processes_listed
//   `==== Concise Info ====`, its header (`GPU … VRAM%  GPU%`, since 2023 `Device  Node  IDs …`)
//   and sub-header (`(DieEdge)`, `(DID,  GUID)  (Junction) …`), rows `<index>  …  <VRAM%>  <GPU%>`
//     (cells ljust to the widest + 2) → a snapshot without bytes and the event's
//     `gpu<N>_vram_percent` (VRAM% is used/total of `--showmeminfo vram`: floored since 2024,
//     `% 3.0f%%` before); the table lists no processes, as `amd-smi metric` lists none
//   `==== Current Memory Use ====` (`--showmemuse`) `GPU[i]\t\t: GPU Memory Allocated (VRAM%): <n>`
//     (2023+) → the same `gpu<N>_vram_percent`; `GPU memory use (%)` (before) and `GPU Memory
//     Read/Write Activity (%)` are activity, not read
#include "ingest/formats/rocm_smi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace rocm_smi {
namespace {

using Sv = std::string_view;
using text::trim;

constexpr std::size_t kMaxLine = 4000;
constexpr std::size_t kMaxBlockLines = 8192;  // `rocm-smi -a` on 16 GPUs is ~1500 lines

bool iequals(Sv a, Sv b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

/// `GPU[3]` at the start of a log line; the rest after its `:` separator.
std::optional<std::pair<int, Sv>> gpu_prefix(Sv line) {
  const Sv t = trim(line);
  if (!text::starts_with(t, "GPU[")) return std::nullopt;
  const std::size_t close = t.find(']');
  if (close == Sv::npos || !text::is_decimal(t.substr(4, close - 4), 3)) return std::nullopt;
  Sv rest = trim(t.substr(close + 1));
  if (rest.empty() || rest[0] != ':') return std::nullopt;  // `GPU[0] XCP[1]\t: …` is a partition's
  return std::make_pair(static_cast<int>(text::decimal_value(t.substr(4, close - 4))), trim(rest.substr(1)));
}

std::vector<Sv> cells(Sv line) {
  // print2DArray pads each cell with spaces and ends it with a tab; a paste may turn tabs into
  // runs of spaces, so cells are split on tabs, or else on runs of two spaces and more.
  std::vector<Sv> out;
  const bool tabs = line.find('\t') != Sv::npos;
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t end = tabs ? line.find('\t', i) : line.find("  ", i);
    if (end == Sv::npos) end = line.size();
    const Sv c = trim(line.substr(i, end - i));
    if (!c.empty()) out.push_back(c);
    i = end + 1;
  }
  return out;
}

/// `97%`, `100%` -> 97, 100; nullopt for `N/A` or anything else.
std::optional<int> percent(Sv cell) {
  if (cell.size() < 2 || cell.back() != '%' || !text::is_decimal(cell.substr(0, cell.size() - 1), 3))
    return std::nullopt;
  const auto v = text::decimal_value(cell.substr(0, cell.size() - 1));
  if (v > 100) return std::nullopt;
  return static_cast<int>(v);
}

/// Cells of a concise-table line: print2DArray's tabs do not occur there, so runs of two spaces
/// and more (each cell is padded to its column's widest + 2) split it.
std::vector<Sv> concise_cells(Sv line) {
  std::vector<Sv> out;
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t end = line.find("  ", i);
    if (end == Sv::npos) end = line.size();
    const Sv c = trim(line.substr(i, end - i));
    if (!c.empty()) out.push_back(c);
    i = end + 2;
  }
  return out;
}

bool is_pid_header(Sv line) {
  const auto c = cells(line);
  return c.size() == 6 && c[0] == "PID" && c[1] == "PROCESS NAME" && (c[2] == "GPU(s)" || c[2] == "GPU") &&
         c[3] == "VRAM USED";
}

}  // namespace

std::optional<MemLine> parse_mem_line(Sv line) {
  if (line.size() > kMaxLine) return std::nullopt;
  const auto p = gpu_prefix(line);
  if (!p) return std::nullopt;
  const Sv rest = p->second;
  const std::size_t colon = rest.rfind(':');
  if (colon == Sv::npos) return std::nullopt;
  const Sv key = trim(rest.substr(0, colon)), value = trim(rest.substr(colon + 1));
  if (!text::is_decimal(value, 18)) return std::nullopt;
  MemLine m;
  m.gpu = p->first;
  m.bytes = text::decimal_value(value);
  if (iequals(key, "VRAM Total Memory (B)")) m.used = false;
  else if (iequals(key, "VRAM Total Used Memory (B)")) m.used = true;
  else return std::nullopt;
  return m;
}

std::optional<PercentLine> parse_allocated_percent(Sv line) {
  if (line.size() > kMaxLine) return std::nullopt;
  const auto p = gpu_prefix(line);
  if (!p) return std::nullopt;
  const Sv rest = p->second;
  const std::size_t colon = rest.rfind(':');
  if (colon == Sv::npos || !iequals(trim(rest.substr(0, colon)), "GPU Memory Allocated (VRAM%)")) return std::nullopt;
  const Sv value = trim(rest.substr(colon + 1));
  if (!text::is_decimal(value, 3) || text::decimal_value(value) > 100) return std::nullopt;
  return PercentLine{p->first, static_cast<int>(text::decimal_value(value))};
}

std::optional<Sv> spacer_title(Sv line) {
  const Sv t = trim(line);
  if (t.size() < 8 || t.size() > kMaxLine || t.front() != '=' || t.back() != '=') return std::nullopt;
  const std::size_t a = t.find_first_not_of('='), b = t.find_last_not_of('=');
  if (a == Sv::npos) return Sv();
  if (a < 2 || t.size() - 1 - b < 2) return std::nullopt;
  return trim(t.substr(a, b - a + 1));
}

std::optional<PidRow> parse_pid_row(Sv line) {
  if (line.size() > kMaxLine) return std::nullopt;
  const auto c = cells(line);
  if (c.size() != 6 || !text::is_decimal(c[0], 10)) return std::nullopt;
  PidRow r;
  r.pid = text::decimal_value(c[0]);
  r.name = std::string(c[1]);
  if (text::is_decimal(c[2], 3)) r.gpus = static_cast<int>(text::decimal_value(c[2]));
  else if (c[2] != "UNKNOWN") return std::nullopt;
  if (text::is_decimal(c[3], 18)) r.vram = text::decimal_value(c[3]);
  else if (c[3] != "UNKNOWN") return std::nullopt;
  return r;
}

bool is_concise_header(Sv line) {
  if (line.size() > kMaxLine) return false;
  const auto c = concise_cells(trim(line));
  return c.size() >= 4 && (c.front() == "GPU" || c.front() == "Device") && c[c.size() - 2] == "VRAM%" &&
         c.back() == "GPU%";
}

std::optional<ConciseRow> parse_concise_row(Sv line) {
  if (line.size() > kMaxLine) return std::nullopt;
  const auto c = concise_cells(trim(line));
  if (c.size() < 4 || !text::is_decimal(c.front(), 3)) return std::nullopt;
  const Sv vram = c[c.size() - 2], busy = c.back();
  const auto pct = percent(vram);
  if (!pct && vram != "N/A" && vram != "Unsupported") return std::nullopt;
  if (!percent(busy) && busy != "N/A" && busy != "Unsupported") return std::nullopt;
  return ConciseRow{static_cast<int>(text::decimal_value(c.front())), pct};
}

}  // namespace rocm_smi

namespace detect {

Detection rocm_smi_block(Scan& scan, std::size_t i) {
  const auto& lines = scan.lines;
  const std::size_t e = scan.end;
  const auto title = rocm_smi::spacer_title(lines[i]);
  if (!title || (*title != "ROCm System Management Interface" && *title != "Memory Usage (Bytes)" &&
                 *title != "KFD Processes" && *title != "Concise Info" && *title != "Current Memory Use"))
    return {};
  // Down to the closing spacer, or while lines keep the log's shapes (a paste cut short). Under
  // a concise header, a line whose first cell is empty (it opens with blanks) is the table's
  // too: its sub-header (`(DieEdge)`, `(DID,  GUID)  (Junction) …`) or a device's second name
  // row (2023: `[Model : Revision]`).
  std::size_t end = i + 1;
  bool concise = false;
  while (end < e && end - i < rocm_smi::kMaxBlockLines) {
    const std::string_view t = text::trim(lines[end]);
    const auto sp = rocm_smi::spacer_title(t);
    if (sp && *sp == "End of ROCm SMI Log") return {i, end + 1};
    if (sp && !sp->empty()) concise = false;
    if (rocm_smi::is_concise_header(t)) concise = true;
    const bool blank_first_cell = concise && !sp && !t.empty() && !lines[end].empty() &&
                                  (lines[end][0] == ' ' || lines[end][0] == '\t') && lines[end].size() <= rocm_smi::kMaxLine;
    if (sp || blank_first_cell || rocm_smi::is_concise_header(t) || text::starts_with(t, "GPU[") || rocm_smi::parse_pid_row(t) ||
        rocm_smi::is_pid_header(t) || rocm_smi::parse_concise_row(t) || t == "KFD process information:" ||
        t == "No KFD PIDs currently running" || text::starts_with(t, "WARNING:")) {
      ++end;
      continue;
    }
    break;
  }
  return {i, end};
}

}  // namespace detect

void parse_rocm_smi(std::string_view text, ParseContext& ctx) {
  SmiReport report;
  std::map<int, core::GpuSnapshot> gpus;
  std::vector<rocm_smi::PidRow> rows;
  std::map<int, int> percents;  // concise table: GPU index -> VRAM%
  bool none_listed = false;
  const auto flush = [&] {
    if (report.first_line == 0) return;
    // The rows say how many GPUs each process uses, never which (see the table above).
    const auto unplaced = static_cast<std::int64_t>(rows.size());
    for (auto& [index, g] : gpus) {
      if (unplaced > 0) g.mem_used.reset(), g.mem_total.reset();
      report.gpus.push_back(std::move(g));
    }
    if (unplaced > 0) report.counts.emplace_back("processes_unplaced", unplaced);
    for (const auto& [index, pct] : percents) report.counts.emplace_back(fmt::format("gpu{}_vram_percent", index), pct);
    if (none_listed) report.counts.emplace_back("no_processes_listed", 1);
    emit_smi_report(report, ctx, core::parser_rule::kRocmSmi, core::parser_rule::kRocmSmi);
    report = SmiReport{};
    gpus.clear();
    rows.clear();
    percents.clear();
    none_listed = false;
  };
  std::int64_t seg = 0;
  bool in_pids = false, in_concise = false;
  for (std::string_view raw : text::split_lines(text)) {
    ++seg;
    const std::string clean = text::strip_ansi(raw);
    const std::string_view line = text::trim(clean);
    if (const auto title = rocm_smi::spacer_title(line)) {
      if (*title == "ROCm System Management Interface" && (!gpus.empty() || !rows.empty())) flush();
      report.touch(seg);
      in_pids = *title == "KFD Processes";
      if (!title->empty()) in_concise = *title == "Concise Info";  // its header's bare spacer keeps it
      continue;
    }
    if (in_concise) {
      if (rocm_smi::is_concise_header(line)) {
        report.touch(seg);
      } else if (auto c = rocm_smi::parse_concise_row(line)) {
        report.touch(seg);
        snapshot_at(gpus, c->gpu, seg);
        if (c->vram_percent) percents[c->gpu] = *c->vram_percent;
      }
      continue;
    }
    if (auto a = rocm_smi::parse_allocated_percent(line)) {
      report.touch(seg);
      snapshot_at(gpus, a->gpu, seg);
      percents[a->gpu] = a->percent;
      continue;
    }
    if (auto m = rocm_smi::parse_mem_line(line)) {
      report.touch(seg);
      auto& g = snapshot_at(gpus, m->gpu, seg);
      (m->used ? g.mem_used : g.mem_total) = m->bytes;
      continue;
    }
    if (in_pids) {
      if (line == "No KFD PIDs currently running") {
        report.touch(seg);
        none_listed = true;
      } else if (auto r = rocm_smi::parse_pid_row(line)) {
        report.touch(seg);
        rows.push_back(std::move(*r));
      } else if (rocm_smi::is_pid_header(line) || line == "KFD process information:") {
        report.touch(seg);
      }
    }
  }
  flush();
}

}  // namespace culprit::ingest
