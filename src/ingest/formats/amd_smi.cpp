// amd-smi text (see amd_smi.hpp). Field table, from amdsmi_cli (amdsmi_logger.py
// _convert_json_to_human_readable: the JSON dumped as YAML, keys upper case, 4-space indents;
// amdsmi_commands.py metric / process; ROCm 6.0 → 6.4):
//   `GPU: <n>` at indent 0                       → gpu index of what follows
//   `MEM_USAGE:` / `TOTAL_VRAM: <n> MB` / `USED_VRAM: <n> MB` (metric) → mem_total / mem_used
//   `PROCESS_INFO:` then `NAME:`, `PID:`, `MEMORY_USAGE:` / `VRAM_MEM: 42.5 GB`, `MEM_USAGE: …`
//                                                → GpuProcess (pid, name, VRAM_MEM or else MEM_USAGE)
//   `PROCESS_INFO: No running processes detected` → no_processes_listed
// Sizes: metric prints whole MB (bytes // 2**20); process prints convert_bytes_to_readable's
// `%3.1f <unit>` with units B, KB, MB, GB, TB, each 1024 times the last.
#include "ingest/formats/amd_smi.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace amd_smi {
namespace {

using Sv = std::string_view;
using text::is_digit;
using text::trim;

constexpr std::size_t kMaxUp = 400;  // lines from an anchor up to its `GPU:` line

bool is_key_char(char c) { return (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_'; }

/// `GPU: 3` at indent 0: its index.
std::optional<int> gpu_line(Sv line) {
  const auto k = parse_key_line(line);
  if (!k || k->indent != 0 || k->key != "GPU" || !text::is_decimal(k->value, 3)) return std::nullopt;
  return std::stoi(std::string(k->value));
}

bool is_indented_key(Sv line) {
  const auto k = parse_key_line(line);
  return k && k->indent > 0;
}

/// The keys whose indented line anchors a block (amd_smi_block): a GPU's `MEM_USAGE:` section
/// or its `PROCESS_INFO:` list.
bool is_anchor_key(Sv key) { return key == "MEM_USAGE" || key == "PROCESS_INFO"; }

}  // namespace

bool may_anchor_block(Sv line) {
  // monitor_header's words are split at spaces and tabs after trim(), and its first is the GPU
  // column or TIMESTAMP; parse_key_line's key runs to the first colon after the indent.
  const Sv t = trim(line);
  const Sv first = t.substr(0, t.find_first_of(" \t"));
  if (first == "GPU" || first == "TIMESTAMP") return true;
  std::size_t indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  const std::size_t colon = line.find(':', indent);
  return indent > 0 && colon != Sv::npos && is_anchor_key(line.substr(indent, colon - indent));
}

std::optional<KeyLine> parse_key_line(Sv line) {
  if (line.size() > kMaxLine) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  KeyLine k;
  while (k.indent < line.size() && line[k.indent] == ' ') ++k.indent;
  const Sv rest = line.substr(k.indent);
  const std::size_t colon = rest.find(':');
  if (colon == Sv::npos || colon == 0) return std::nullopt;
  k.key = rest.substr(0, colon);
  if (!std::all_of(k.key.begin(), k.key.end(), is_key_char) || !(k.key[0] >= 'A' && k.key[0] <= 'Z')) return std::nullopt;
  const Sv after = rest.substr(colon + 1);
  if (!after.empty() && after[0] != ' ') return std::nullopt;
  k.value = trim(after);
  return k;
}

std::optional<std::int64_t> size_value(Sv value) {
  value = trim(value);
  const std::size_t space = value.find(' ');
  if (space == Sv::npos) return std::nullopt;
  const Sv number = value.substr(0, space), unit = trim(value.substr(space + 1));
  const std::size_t dot = number.find('.');
  if (!text::is_decimal(number.substr(0, dot), 15) || (dot != Sv::npos && !text::is_decimal(number.substr(dot + 1), 6)))
    return std::nullopt;
  static constexpr Sv kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  const auto* u = std::find(std::begin(kUnits), std::end(kUnits), unit);
  if (u == std::end(kUnits)) return std::nullopt;
  const double v = std::stod(std::string(number)) * std::pow(1024.0, static_cast<double>(u - std::begin(kUnits)));
  if (!(v < 9.0e18)) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(v));
}

}  // namespace amd_smi

namespace detect {

Detection amd_smi_block(Scan& scan, std::size_t i) {
  // Asked at every line holding any row's anchor (a vLLM line's `total`): most are turned away
  // here, before monitor_header splits them into words.
  if (!amd_smi::may_anchor_block(scan.lines[i])) return {};
  if (!amd_smi::monitor_header(scan.lines[i]).empty()) return amd_smi_monitor_block(scan, i);
  const auto& lines = scan.lines;
  const std::size_t b = scan.begin, e = scan.end;
  const auto anchor = amd_smi::parse_key_line(lines[i]);
  if (!anchor || anchor->indent == 0 || !amd_smi::is_anchor_key(anchor->key)) return {};
  // Up through indented keys to the `GPU: n` line that heads them.
  std::size_t start = i;
  while (start > b && i - start < amd_smi::kMaxUp && amd_smi::is_indented_key(lines[start - 1])) --start;
  if (start == b || !amd_smi::gpu_line(lines[start - 1])) return {};
  --start;
  // Down through indented keys and the next GPUs (a blank line may part them).
  std::size_t end = i + 1;
  while (end < e && end - start < amd_smi::kMaxBlockLines) {
    if (amd_smi::is_indented_key(lines[end]) || amd_smi::gpu_line(lines[end])) { ++end; continue; }
    std::size_t k = end;
    while (k < e && k < end + 2 && text::trim(lines[k]).empty()) ++k;
    if (k > end && k < e && amd_smi::gpu_line(lines[k])) { end = k + 1; continue; }
    break;
  }
  return {start, end};
}

}  // namespace detect

void parse_amd_smi(std::string_view text, ParseContext& ctx) {
  for (std::string_view raw : text::split_lines(text)) {
    if (text::trim(raw).empty()) continue;
    if (!amd_smi::monitor_header(text::strip_ansi(raw)).empty()) return parse_amd_smi_monitor(text, ctx);
    break;
  }
  SmiReport report;
  std::map<int, core::GpuSnapshot> gpus;
  bool none_listed = false;
  std::optional<int> gpu;
  // The section path by indent: `MEM_USAGE` under a GPU (metric), `PROCESS_INFO` and its
  // `MEMORY_USAGE` (process).
  std::size_t mem_indent = 0, proc_indent = 0, proc_mem_indent = 0;
  bool in_mem = false, in_proc = false, in_proc_mem = false;
  struct Proc {
    std::optional<std::int64_t> pid, vram, total;
    std::string name;
  } proc;
  const auto end_process = [&] {
    if (in_proc && gpu && proc.pid) {
      core::GpuProcess p;
      p.pid = *proc.pid;
      p.name = proc.name;
      p.mem_used = proc.vram ? proc.vram : proc.total;
      gpus[*gpu].processes.push_back(std::move(p));
    }
    proc = Proc{};
    in_proc = in_proc_mem = false;
  };
  std::int64_t seg = 0;
  for (std::string_view raw : text::split_lines(text)) {
    ++seg;
    const std::string clean = text::strip_ansi(raw);
    const auto k = amd_smi::parse_key_line(clean);
    if (!k) continue;
    if (in_proc_mem && k->indent <= proc_mem_indent) in_proc_mem = false;
    if (in_proc && k->indent <= proc_indent) end_process();
    if (in_mem && k->indent <= mem_indent) in_mem = false;
    if (k->indent == 0) {
      if (k->key == "GPU") {
        if (auto g = amd_smi::gpu_line(clean)) {
          gpu = *g;
          snapshot_at(gpus, *g, seg);
          report.touch(seg);
        }
      }
      continue;
    }
    if (!gpu) continue;
    if (k->key == "MEM_USAGE" && k->value.empty() && !in_proc) {
      in_mem = true;
      mem_indent = k->indent;
      report.touch(seg);
      continue;
    }
    if (k->key == "PROCESS_INFO") {
      report.touch(seg);
      if (k->value.empty()) {
        in_proc = true;
        proc_indent = k->indent;
      } else if (k->value == "No running processes detected") {
        none_listed = true;
      }
      continue;
    }
    if (in_mem) {
      report.touch(seg);
      if (k->key == "TOTAL_VRAM") gpus[*gpu].mem_total = amd_smi::size_value(k->value);
      else if (k->key == "USED_VRAM") gpus[*gpu].mem_used = amd_smi::size_value(k->value);
      continue;
    }
    if (in_proc) {
      report.touch(seg);
      if (k->key == "MEMORY_USAGE" && k->value.empty()) {
        in_proc_mem = true;
        proc_mem_indent = k->indent;
      } else if (in_proc_mem && k->key == "VRAM_MEM") {
        proc.vram = amd_smi::size_value(k->value);
      } else if (!in_proc_mem && k->key == "NAME") {
        proc.name = std::string(k->value);
      } else if (!in_proc_mem && k->key == "PID" && std::all_of(k->value.begin(), k->value.end(), text::is_digit) &&
                 !k->value.empty() && k->value.size() <= 10) {
        proc.pid = std::stoll(std::string(k->value));
      } else if (!in_proc_mem && (k->key == "MEM_USAGE" || k->key == "MEM")) {
        proc.total = amd_smi::size_value(k->value);
      }
    }
  }
  end_process();
  for (auto& [index, g] : gpus) report.gpus.push_back(std::move(g));
  if (none_listed) report.counts.emplace_back("no_processes_listed", 1);
  emit_smi_report(report, ctx, core::parser_rule::kAmdSmi, core::parser_rule::kAmdSmi);
}

}  // namespace culprit::ingest
