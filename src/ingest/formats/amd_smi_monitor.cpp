// `amd-smi monitor` text (see amd_smi.hpp). Field table, from amdsmi_cli (amdsmi_commands.py
// monitor; amdsmi_logger.py _print_tabular_output and _convert_json_to_tabular; ROCm 6.1 → 6.2
// and later, the same columns since the subcommand's first release in 6.1):
//   header `GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL  GFX_CLOCK  MEM_UTIL  MEM_CLOCK  ENC_UTIL …
//     SINGLE_ECC  DOUBLE_ECC  PCIE_REPLAY  VRAM_USED  VRAM_TOTAL  PCIE_BW` (all columns by default;
//     a flag keeps its own: `-v` only VRAM_USED VRAM_TOTAL; `TIMESTAMP` first under `--watch`)
//   rows `<gpu>  <value>…`, each value right-justified in its column as `<n> <unit>` or `N/A`
//                                              → VRAM_USED / VRAM_TOTAL `<n> MB` (MiB) → mem_used / mem_total
//   `PROCESS INFO:` then `GPU  NAME  PID  GTT_MEM  CPU_MEM  VRAM_MEM  MEM_USAGE  GFX  ENC` (`-q`),
//     rows `<gpu>  <name, 20 chars>  <pid>  <sizes as convert_bytes_to_readable: 42.5 GB> …`
//                                              → GpuProcess (pid, name, VRAM_MEM or else MEM_USAGE) on that GPU
//     a GPU without processes prints a row of `N/A`s (`No running processes detected`)
//                                              → no_processes_listed when no GPU lists one
// MEM_UTIL is memory-controller activity, not memory in use: not read. A `--watch` run prints one
// table per interval (then two blank lines); each becomes its own snapshots, timed by its
// TIMESTAMP (`int(time.time())`: UTC seconds; one from before 2000 is no time).
#include <algorithm>
#include <map>
#include <string>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/amd_smi.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace amd_smi {
namespace {

using Sv = std::string_view;
using text::trim;

constexpr std::size_t kMaxColumns = 64;        // the widest header has about 25
constexpr std::size_t kMaxGap = 3;             // blank lines between a table and the next
constexpr std::int64_t kEpoch2000 = 946684800;  // a TIMESTAMP before this is no clock reading

/// The units the tool prints after a value (`°C`, or `C` when the locale could not print `°`).
constexpr Sv kUnits[] = {"W",  "mW", "\u00B0C", "C",  "%",    "MHz", "GHz", "B",  "KB", "MB",
                         "GB", "TB", "Mb/s",     "ns", "us",   "ms",  "J",   "mV", "V"};

bool is_column_name(Sv w) {
  const auto name_char = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  return !w.empty() && w[0] >= 'A' && w[0] <= 'Z' && std::all_of(w.begin(), w.end(), name_char);
}

std::vector<Sv> words(Sv line) {
  std::vector<Sv> out;
  std::size_t i = 0;
  while (i < line.size() && out.size() <= kMaxColumns * 3) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool is_number(Sv w) {
  if (!w.empty() && w[0] == '-') w.remove_prefix(1);
  const std::size_t dot = w.find('.');
  return text::is_decimal(w.substr(0, dot), 15) && (dot == Sv::npos || text::is_decimal(w.substr(dot + 1), 9));
}

std::optional<std::size_t> column(const std::vector<Sv>& cols, Sv name) {
  const auto it = std::find(cols.begin(), cols.end(), name);
  if (it == cols.end()) return std::nullopt;
  return static_cast<std::size_t>(it - cols.begin());
}

bool is_row(Sv line) {
  const auto w = words(line);
  return w.size() >= 2 && text::is_decimal(w[0], 10);
}

}  // namespace

std::vector<Sv> monitor_header(Sv line) {
  if (line.size() > kMaxLine) return {};
  auto w = words(trim(line));
  if (w.size() < 2 || w.size() > kMaxColumns || !std::all_of(w.begin(), w.end(), is_column_name)) return {};
  const std::size_t gpu = w[0] == "TIMESTAMP" ? 1 : 0;
  if (w[gpu] != "GPU") return {};
  const bool primary = column(w, "VRAM_USED") && column(w, "VRAM_TOTAL");
  const bool processes = w.size() > gpu + 2 && w[gpu + 1] == "NAME" && w[gpu + 2] == "PID" && column(w, "VRAM_MEM");
  if (!primary && !processes) return {};
  return w;
}

std::vector<std::string> monitor_cells(Sv line) {
  std::vector<std::string> out;
  if (line.size() > kMaxLine) return out;
  for (Sv w : words(trim(line))) {
    const bool unit = std::find(std::begin(kUnits), std::end(kUnits), w) != std::end(kUnits);
    if (unit && !out.empty() && is_number(out.back())) out.back() += " " + std::string(w);
    else out.emplace_back(w);
  }
  return out;
}

}  // namespace amd_smi

namespace detect {

Detection amd_smi_monitor_block(Scan& scan, std::size_t i) {
  const auto& lines = scan.lines;
  const std::size_t e = scan.end;
  if (amd_smi::monitor_header(lines[i]).empty()) return {};
  std::size_t end = i + 1;
  while (end < e && end - i < amd_smi::kMaxBlockLines) {
    const std::string_view t = text::trim(lines[end]);
    if (t.empty()) {
      // Blank lines part the process table and the tables of a --watch run.
      std::size_t k = end;
      while (k < e && k - end < amd_smi::kMaxGap && text::trim(lines[k]).empty()) ++k;
      const std::string_view next = k < e ? text::trim(lines[k]) : std::string_view();
      if (next == "PROCESS INFO:" || !amd_smi::monitor_header(next).empty()) {
        end = k;
        continue;
      }
      break;
    }
    if (t == "PROCESS INFO:" || !amd_smi::monitor_header(t).empty() || amd_smi::is_row(t)) {
      ++end;
      continue;
    }
    break;
  }
  return {i, end};
}

}  // namespace detect

void parse_amd_smi_monitor(std::string_view text, ParseContext& ctx) {
  using amd_smi::column;
  SmiReport report;
  std::map<int, core::GpuSnapshot> gpus;
  bool process_table = false;
  std::int64_t listed = 0;
  enum class Mode { none, primary, processes } mode = Mode::none;
  std::vector<std::string_view> cols;
  std::vector<std::string> col_store;  // cols point here (the header line's own text is a temporary)
  const auto flush = [&] {
    for (auto& [index, g] : gpus) report.gpus.push_back(std::move(g));
    if (process_table && listed == 0) report.counts.emplace_back("no_processes_listed", 1);
    emit_smi_report(report, ctx, core::parser_rule::kAmdSmi, core::parser_rule::kAmdSmi);
    report = SmiReport{};
    gpus.clear();
    process_table = false;
    listed = 0;
  };
  const auto snapshot = [&](const std::string& cell, std::int64_t seg) -> core::GpuSnapshot* {
    if (!text::is_decimal(cell, 3)) return nullptr;
    return &snapshot_at(gpus, static_cast<int>(text::decimal_value(cell)), seg);
  };
  std::int64_t seg = 0;
  for (std::string_view raw : text::split_lines(text)) {
    ++seg;
    const std::string clean = text::strip_ansi(raw);
    const std::string_view line = text::trim(clean);
    if (line == "PROCESS INFO:") {
      report.touch(seg);
      mode = Mode::none;
      continue;
    }
    if (const auto header = amd_smi::monitor_header(line); !header.empty()) {
      const bool primary = column(header, "VRAM_TOTAL").has_value();
      if (primary && !gpus.empty()) flush();  // the next interval of a --watch run
      col_store.assign(header.begin(), header.end());
      cols.assign(col_store.begin(), col_store.end());
      mode = primary ? Mode::primary : Mode::processes;
      process_table = process_table || !primary;
      report.touch(seg);
      continue;
    }
    if (mode == Mode::none) continue;
    const auto cells = amd_smi::monitor_cells(line);
    const auto gpu_col = column(cols, "GPU");
    if (!gpu_col || cells.size() < cols.size()) continue;
    if (mode == Mode::primary) {
      if (cells.size() != cols.size()) continue;
      auto* g = snapshot(cells[*gpu_col], seg);
      if (g == nullptr) continue;
      report.touch(seg);
      if (const auto t = column(cols, "TIMESTAMP"); t && !report.epoch && text::is_decimal(cells[*t], 10))
        if (const auto v = text::decimal_value(cells[*t]); v >= amd_smi::kEpoch2000) report.epoch = v;
      g->mem_used = amd_smi::size_value(cells[*column(cols, "VRAM_USED")]);
      g->mem_total = amd_smi::size_value(cells[*column(cols, "VRAM_TOTAL")]);
      continue;
    }
    // The process table: the name (20 characters, spaces allowed) between the GPU and the PID;
    // the columns after it counted from the right.
    const std::size_t name_col = *gpu_col + 1, right = cols.size() - name_col - 1;
    const auto at_right = [&](std::string_view name) -> const std::string* {
      const auto c = column(cols, name);
      if (!c || *c <= name_col) return nullptr;
      return &cells[cells.size() - (cols.size() - *c)];
    };
    auto* g = snapshot(cells[*gpu_col], seg);
    if (g == nullptr) continue;
    report.touch(seg);
    const std::string& pid = cells[cells.size() - right];
    if (!text::is_decimal(pid, 10)) continue;  // `N/A`: no process on this GPU
    core::GpuProcess p;
    p.pid = text::decimal_value(pid);
    for (std::size_t k = name_col; k < cells.size() - right; ++k) p.name += (p.name.empty() ? "" : " ") + cells[k];
    if (const auto* v = at_right("VRAM_MEM")) p.mem_used = amd_smi::size_value(*v);
    if (!p.mem_used)
      if (const auto* v = at_right("MEM_USAGE")) p.mem_used = amd_smi::size_value(*v);
    g->processes.push_back(std::move(p));
    ++listed;
  }
  flush();
}

}  // namespace culprit::ingest
