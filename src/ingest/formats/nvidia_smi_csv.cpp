// `nvidia-smi --query-gpu=… --format=csv` and `--query-compute-apps=… --format=csv` (formats.md
// §6.2): with or without header (`noheader`) and units (`nounits`), `[N/A]`-style values.
// Columns are found by header name, so any field order works; without a header the common
// `index, name, memory.total, memory.used, …` order is assumed only for rows that look like it.
// Output: one GpuSnapshot per GPU row, compute-app rows as GpuProcess + ProcessSighting.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/core/size.hpp"
#include "culprit/core/time.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;

std::vector<Sv> split_csv(Sv line) {
  std::vector<Sv> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(text::trim(line.substr(start, comma == Sv::npos ? Sv::npos : comma - start)));
    if (comma == Sv::npos) break;
    start = comma + 1;
  }
  return out;
}

/// Header name without its ` [unit]` suffix, lower case.
std::string column_key(Sv name) {
  name = text::trim(name);
  if (!name.empty() && name.back() == ']') {
    const std::size_t open = name.rfind(" [");
    if (open != Sv::npos) name = name.substr(0, open);
  }
  std::string out(name);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool is_special(Sv v) { return v.empty() || v.front() == '['; }

std::optional<std::int64_t> to_int(Sv v) {
  if (v.empty() || v.size() > 12) return std::nullopt;
  std::int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

/// A memory value in MiB (`81559 MiB` or `81559`) as bytes; nullopt for `[N/A]` and friends.
std::optional<std::int64_t> mib(Sv v) {
  if (is_special(v)) return std::nullopt;
  if (auto n = to_int(v)) return *n * 1024 * 1024;
  return core::parse_size(v, 1024 * 1024);
}

/// A row that is what its header promises: one cell per column (more only where a process name
/// holds commas), integers under `index` / `pid`, sizes under memory columns (or nvidia-smi's
/// `[N/A]`-style words). A log line that the block took for a row fails it.
bool fits_columns(const std::vector<Sv>& cells, const std::vector<std::string>& cols) {
  const bool named = std::find(cols.begin(), cols.end(), "process_name") != cols.end();
  if (cells.size() < cols.size() || (cells.size() > cols.size() && !named)) return false;
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const std::string& col = cols[c];
    const Sv v = cells[c];
    if (is_special(v) || v == "N/A") continue;
    if ((col == "index" || col == "pid") && !to_int(v)) return false;
    if ((col.rfind("memory.", 0) == 0 || col.rfind("used_", 0) == 0) && !mib(v)) return false;
  }
  return true;
}

/// `00000000:18:00.0` → `0000:18:00` (lower case); '' when it is not a bus id.
std::string bus_id(Sv v) {
  const std::size_t dot = v.rfind('.');
  if (dot != Sv::npos) v = v.substr(0, dot);
  if (v.size() < 7) return {};
  std::string out(v);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':';
    if (!hex) return {};
  }
  if (out.size() > 10 && out[8] == ':') out = out.substr(4);  // 8-digit domain → 4
  return out;
}

/// `2025/09/07 22:33:21.481` → epoch seconds (local time read as UTC, like other wall stamps).
std::optional<double> timestamp(Sv v) {
  if (v.size() < 19 || v[4] != '/' || v[7] != '/' || v[10] != ' ') return std::nullopt;
  auto num = [&](std::size_t at, std::size_t n) { return to_int(v.substr(at, n)); };
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2),
             s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  double sec = static_cast<double>(*s);
  if (v.size() > 20 && v[19] == '.') {
    double scale = 0.1;
    for (std::size_t i = 20; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i, scale /= 10)
      sec += (v[i] - '0') * scale;
  }
  return core::civil_to_epoch(static_cast<int>(*y), static_cast<int>(*mo), static_cast<int>(*d),
                              static_cast<int>(*h), static_cast<int>(*mi), sec);
}

bool is_header_row(const std::vector<Sv>& cells) {
  for (Sv c : cells) {
    const std::string k = column_key(c);
    if (k == "index" || k == "pid" || k == "name" || k == "timestamp" || k == "pci.bus_id" ||
        k.rfind("memory.", 0) == 0 || k == "used_gpu_memory" || k == "process_name")
      return true;
  }
  return false;
}

bool is_memory_cell(Sv v, bool units) {
  if (units) return v.size() > 4 && v.substr(v.size() - 4) == " MiB" && to_int(v.substr(0, v.size() - 4)).has_value();
  return to_int(v).has_value();
}

bool looks_like_gpu_name(Sv v) {
  for (Sv p : {"NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN", "GRID", "Orin", "Jetson"})
    if (v.substr(0, p.size()) == p) return true;
  return false;
}

/// Columns of a header-less row (`--format=csv,noheader`). Compute apps: `pid, process_name,
/// used_gpu_memory`, optionally after `gpu_uuid` / `gpu_bus_id`. GPUs: `index, name` then memory
/// cells, read as total = the largest and used = the first other one (used <= total always;
/// `memory.total, memory.used, memory.free` and `memory.used, memory.free, memory.total` both
/// put used first among the rest). Empty when the row fits neither.
std::vector<std::string> guess_columns(const std::vector<Sv>& cells) {
  if (cells.size() < 2) return {};
  const bool units = cells.back().find(" MiB") != Sv::npos || (!cells.back().empty() && cells.back().front() == '[');
  if (to_int(cells[0]) && looks_like_gpu_name(cells[1])) {
    std::vector<std::string> cols = {"index", "name"};
    std::vector<std::size_t> mem;
    for (std::size_t i = 2; i < cells.size() && mem.size() < 3; ++i) {
      if (is_memory_cell(cells[i], units || cells[i].find(" MiB") != Sv::npos) || cells[i] == "[N/A]" ||
          cells[i] == "[Not Supported]")
        mem.push_back(i);
      else
        break;
    }
    cols.resize(cells.size(), "");
    if (mem.empty()) return cols;
    std::size_t total = mem[0];
    for (std::size_t i : mem)
      if (mib(cells[i]).value_or(-1) > mib(cells[total]).value_or(-1)) total = i;
    cols[total] = "memory.total";
    for (std::size_t i : mem)
      if (i != total) {
        cols[i] = "memory.used";
        break;
      }
    return cols;
  }
  std::vector<std::string> cols;
  std::size_t at = 0;
  if (cells[0].substr(0, 4) == "GPU-") cols.push_back("gpu_uuid"), at = 1;
  else if (!bus_id(cells[0]).empty() && cells[0].find(':') != Sv::npos) cols.push_back("gpu_bus_id"), at = 1;
  if (cells.size() >= at + 2 && to_int(cells[at])) {
    cols.insert(cols.end(), {"pid", "process_name", "used_gpu_memory"});
    return cols;
  }
  return {};
}

}  // namespace

void parse_nvidia_smi_csv(std::string_view text, ParseContext& ctx) {
  const auto lines = text::split_lines(text);
  std::vector<std::string> columns;
  std::map<std::string, int> gpu_by_bus;  // bus id / uuid → gpu index, from query-gpu rows
  std::map<int, core::GpuSnapshot> snapshots;
  std::vector<std::pair<std::string, core::GpuProcess>> procs;  // (gpu key, process)
  std::vector<std::int64_t> proc_lines;
  std::int64_t first = 0, last = 0;
  std::optional<double> ts;
  std::string ts_raw;
  bool noted_headerless = false;
  bool noted_misfit = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::int64_t seg_line = static_cast<std::int64_t>(i) + 1;
    Sv line = text::trim(lines[i]);
    if (!line.empty() && line.back() == '\r') line = text::trim(line.substr(0, line.size() - 1));
    if (line.empty()) continue;
    if (line.find(',') == Sv::npos) {
      ctx.unparsed(seg_line, lines[i]);
      continue;
    }
    const auto cells = split_csv(line);
    if (is_header_row(cells)) {
      columns.clear();
      for (Sv c : cells) columns.push_back(column_key(c));
      if (!first) first = seg_line;
      last = seg_line;
      continue;
    }
    std::vector<std::string> cols = columns;
    if (cols.empty()) cols = guess_columns(cells);
    if (cols.empty()) {
      if (!noted_headerless) ctx.note("nvidia_smi_csv.row", seg_line, "row without a header, not understood; read as a log line");
      noted_headerless = true;
      ctx.unparsed(seg_line, lines[i]);
      continue;
    }
    if (!fits_columns(cells, cols)) {
      if (!noted_misfit) ctx.note("nvidia_smi_csv.row", seg_line, "row does not fit its header; read as a log line");
      noted_misfit = true;
      ctx.unparsed(seg_line, lines[i]);
      continue;
    }
    std::map<std::string, Sv> row;
    for (std::size_t c = 0; c < cols.size() && c < cells.size(); ++c) row[cols[c]] = cells[c];
    // A process name with commas: the extra cells belong to the name (rare).
    if (cells.size() > cols.size() && row.count("process_name") && cols.back() != "process_name") {
      ctx.note("nvidia_smi_csv.row", seg_line, "more cells than header columns");
    }
    if (!first) first = seg_line;
    last = seg_line;
    if (row.count("pid")) {
      const auto pid = to_int(row["pid"]);
      if (!pid) continue;
      core::GpuProcess p;
      p.pid = *pid;
      p.name = std::string(row["process_name"]);
      p.type = "C";
      Sv mem = row.count("used_gpu_memory") ? row["used_gpu_memory"] : row["used_memory"];
      p.mem_used = mib(mem);
      std::string key;
      if (row.count("gpu_bus_id")) key = bus_id(row["gpu_bus_id"]);
      else if (row.count("gpu_uuid")) key = std::string(row["gpu_uuid"]);
      procs.emplace_back(key, std::move(p));
      proc_lines.push_back(seg_line);
      continue;
    }
    core::GpuSnapshot s;
    s.source_id = ctx.source_id;
    s.line = ctx.absolute_line(seg_line);
    s.host = ctx.host;
    s.gpu = static_cast<int>(snapshots.size());
    if (row.count("index"))
      if (auto n = to_int(row["index"])) s.gpu = static_cast<int>(*n);
    s.model = row.count("name") && !is_special(row["name"]) ? std::string(row["name"]) : "";
    if (row.count("pci.bus_id")) s.bus_id = bus_id(row["pci.bus_id"]);
    if (row.count("memory.total")) {
      s.mem_total = mib(row["memory.total"]);
      s.unified = !s.mem_total && smi_memory_unsupported(row["memory.total"]);
    }
    if (row.count("memory.used")) s.mem_used = mib(row["memory.used"]);
    if (row.count("timestamp")) {
      s.ts_raw = std::string(row["timestamp"]);
      s.ts = timestamp(row["timestamp"]);
      if (s.ts && !ts) {
        ts = s.ts;
        ts_raw = s.ts_raw;
      }
    }
    if (!s.bus_id.empty()) gpu_by_bus[s.bus_id] = s.gpu;
    if (row.count("uuid")) gpu_by_bus[std::string(row["uuid"])] = s.gpu;
    snapshots[s.gpu] = std::move(s);  // loop mode: the latest reading of a GPU wins
  }
  if (!first) return;

  // Attach processes: to the GPU named by bus id / uuid, else GPU 0.
  for (std::size_t i = 0; i < procs.size(); ++i) {
    auto& [key, p] = procs[i];
    int gpu = 0;
    std::string bus;
    if (auto it = gpu_by_bus.find(key); it != gpu_by_bus.end()) gpu = it->second;
    else if (!key.empty() && key.find(':') != std::string::npos) bus = key;
    if (!bus.empty()) {
      // No query-gpu row for it: one snapshot per bus id, numbered after the known GPUs.
      int idx = -1;
      for (auto& [g, s] : snapshots)
        if (s.bus_id == bus) idx = g;
      if (idx < 0) {
        idx = snapshots.empty() ? 0 : snapshots.rbegin()->first + 1;
        core::GpuSnapshot s;
        s.source_id = ctx.source_id;
        s.line = ctx.absolute_line(proc_lines[i]);
        s.host = ctx.host;
        s.gpu = idx;
        s.bus_id = bus;
        snapshots[idx] = std::move(s);
      }
      gpu = idx;
    } else if (!snapshots.count(gpu)) {
      core::GpuSnapshot s;
      s.source_id = ctx.source_id;
      s.line = ctx.absolute_line(proc_lines[i]);
      s.host = ctx.host;
      s.gpu = gpu;
      snapshots[gpu] = std::move(s);
    }
    p.gpu = gpu;
    snapshots[gpu].processes.push_back(p);
  }
  if (!ctx.sink) return;
  for (auto& [g, s] : snapshots) {
    if (!s.ts && ts) {
      s.ts = ts;
      s.ts_raw = ts_raw;
    }
    ctx.sink->add_gpu_snapshot(s);
  }
  std::map<std::int64_t, bool> seen;
  for (const auto& [key, p] : procs) {
    if (seen[p.pid]) continue;
    seen[p.pid] = true;
    core::ProcessSighting s;
    s.host = ctx.host;
    s.pid = p.pid;
    s.name = p.name;
    s.ts = ts;
    s.job = false;
    s.evidence = "nvidia-smi --query-compute-apps";
    ctx.sink->add_process(s);
  }
  core::Event ev = ctx.make_event(first);
  ev.line_end = ctx.absolute_line_end(last);
  ev.kind = "gpu_snapshot";
  ev.severity = core::Severity::info;
  ev.rule = "nvidia_smi_csv";
  ev.message = "nvidia-smi --format=csv";
  if (ts) {
    ev.ts = ts;
    ev.ts_raw = ts_raw;
    ev.ts_kind = core::TsKind::wall;
  }
  ev.set_int("gpus", static_cast<std::int64_t>(snapshots.size()));
  ev.set_int("processes", static_cast<std::int64_t>(procs.size()));
  ctx.sink->add_event(ev);
}

}  // namespace culprit::ingest
