// amd-smi (ROCm/amdsmi, amdsmi_cli) human-readable output of `amd-smi metric` (its MEM_USAGE
// section) and `amd-smi process`: indented `KEY: value` lines under `GPU: <n>`; and the table of
// `amd-smi monitor` (VRAM_USED / VRAM_TOTAL per GPU, its PROCESS INFO table with `-q`). Read into the
// GpuSnapshot / GpuProcess records and `gpu_snapshot` event the nvidia-smi parsers write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "ingest/format_table.hpp"

namespace culprit::ingest::amd_smi {

/// The longest line either reader (metric / process, monitor) reads, and the most lines of a block
/// (`amd-smi metric` is ~150 lines a GPU; a monitor `--watch` run, GPUs + 2 lines an interval).
inline constexpr std::size_t kMaxLine = 4000;
inline constexpr std::size_t kMaxBlockLines = 65536;

/// One `KEY: value` line: its indent (spaces), key and value (trimmed; "" for a section head).
struct KeyLine {
  std::size_t indent = 0;
  std::string_view key, value;
};
std::optional<KeyLine> parse_key_line(std::string_view line);

/// Whether `line` may anchor a block (detect::amd_smi_block): its first word is a monitor
/// header's (`GPU`, `TIMESTAMP`), or it is an indented `MEM_USAGE:` / `PROCESS_INFO:` key. A
/// cheap test that never turns away a line either of them takes (a unit test holds it to them).
bool may_anchor_block(std::string_view line);

/// `196592 MB`, `42.5 GB`, `512.0 KB`, `0.0 B` (amdsmi_helpers: powers of 1024) -> bytes.
std::optional<std::int64_t> size_value(std::string_view value);

/// The columns of an `amd-smi monitor` table header (`GPU  POWER  GPU_TEMP … VRAM_USED
/// VRAM_TOTAL …`, `TIMESTAMP  GPU …` under `--watch`) or of its `PROCESS INFO:` table (`GPU  NAME
/// PID  GTT_MEM  CPU_MEM  VRAM_MEM  MEM_USAGE  GFX  ENC`); empty when the line is neither.
std::vector<std::string_view> monitor_header(std::string_view line);

/// The cells of a monitor row: its words, a unit (`W`, `°C`, `%`, `MHz`, `MB`, `GB`, `Mb/s`,
/// `ns`, …) joined to the number before it (`174 W`), as the tool writes `<value> <unit>` into
/// one right-justified column.
std::vector<std::string> monitor_cells(std::string_view line);

}  // namespace culprit::ingest::amd_smi

namespace culprit::ingest::detect {
/// An amd-smi listing: anchored at a `MEM_USAGE:` or `PROCESS_INFO:` section, the block runs from
/// the `GPU: <n>` line above it through the indented lines and the next GPUs' blocks; or an
/// `amd-smi monitor` table from its header through its rows, its `PROCESS INFO:` table and the
/// next tables of a `--watch` run (amd_smi_monitor.cpp).
Detection amd_smi_block(Scan& scan, std::size_t i);
Detection amd_smi_monitor_block(Scan& scan, std::size_t i);
inline constexpr std::string_view kAmdSmiAnchors[] = {"MEM_USAGE:", "PROCESS_INFO:", "VRAM_TOTAL", "VRAM_MEM"};
}  // namespace culprit::ingest::detect

namespace culprit::ingest {
/// The format id (sources.format; schema/culprit-report.schema.json lists it).
inline constexpr std::string_view kAmdSmiFormat = "amd_smi";
void parse_amd_smi(std::string_view text, ParseContext& ctx);  ///< amd-smi metric / process / monitor (text)
/// `amd-smi monitor` tables (parse_amd_smi hands a segment that opens with a monitor header here).
void parse_amd_smi_monitor(std::string_view text, ParseContext& ctx);
}  // namespace culprit::ingest
