// rocm-smi (ROCm/rocm_smi_lib, python_smi_tools/rocm_smi.py) text output: the `--showmeminfo
// vram` section (bytes per GPU), the `--showpids` KFD process table and the concise table that
// `rocm-smi` alone prints (VRAM% per GPU), between the tool's `=` spacers. Read into the GpuSnapshot / GpuProcess records and `gpu_snapshot` event the
// nvidia-smi parsers write, so the ledger reads an AMD GPU's memory as it reads an NVIDIA one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "culprit/ingest/parser.hpp"
#include "ingest/format_table.hpp"

namespace culprit::ingest::rocm_smi {

/// `GPU[0]\t\t: VRAM Total Memory (B): 68702699520` / `… VRAM Total Used Memory (B): 10960896`
/// (the key read without regard to case). Other memory types (VIS_VRAM, GTT) and XCP rows are not it.
struct MemLine {
  int gpu = 0;
  bool used = false;  ///< `Total Used Memory`; else `Total Memory`
  std::int64_t bytes = 0;
};
std::optional<MemLine> parse_mem_line(std::string_view line);

/// A `=` spacer, bare or with a title: `==== ROCm System Management Interface ====`; the title
/// (trimmed) or "" — nullopt when the line is not a spacer.
std::optional<std::string_view> spacer_title(std::string_view line);

/// A KFD process row under `PID  PROCESS NAME  GPU(s)  VRAM USED  SDMA USED  CU OCCUPANCY`:
/// `12345\tpython3\t1\t23622320128\t0\t0` (cells tab-separated and padded). `gpus` is how many
/// GPUs the process uses (the tool prints a count, not which); vram nullopt for `UNKNOWN`.
struct PidRow {
  std::int64_t pid = 0;
  std::string name;
  std::optional<int> gpus;
  std::optional<std::int64_t> vram;
};
std::optional<PidRow> parse_pid_row(std::string_view line);

/// `GPU[0]\t\t: GPU Memory Allocated (VRAM%): 97` (`--showmemuse`, section `Current Memory Use`,
/// 2023+): the share of VRAM allocated. The older `GPU memory use (%)` and the newer `GPU Memory
/// Read/Write Activity (%)` are the memory controller's activity, not it.
struct PercentLine {
  int gpu = 0;
  int percent = 0;
};
std::optional<PercentLine> parse_allocated_percent(std::string_view line);

/// The header of the concise table (`rocm-smi` alone, section `Concise Info`): cells split at
/// runs of two spaces, the first `GPU` or `Device`, the last two `VRAM%` and `GPU%` — every
/// version since 2020 (`GPU  Temp  AvgPwr  SCLK …`, `GPU  Temp (DieEdge)  AvgPwr …`, `GPU
/// [Model : Revision]  Temp …`, `Device  Node  IDs  Temp  Power  Partitions …`).
bool is_concise_header(std::string_view line);

/// A row of the concise table: the device index first, VRAM% (whole percent, floored since 2024,
/// rounded before; nullopt for `N/A` or 2023's `Unsupported`) second to last, GPU% last.
struct ConciseRow {
  int gpu = 0;
  std::optional<int> vram_percent;
};
std::optional<ConciseRow> parse_concise_row(std::string_view line);

}  // namespace culprit::ingest::rocm_smi

namespace culprit::ingest::detect {
/// A rocm-smi log: from its banner spacer (or a memory / KFD section pasted without it) to the
/// `End of ROCm SMI Log` spacer, or to the last line of its shape.
Detection rocm_smi_block(Scan& scan, std::size_t i);
inline constexpr std::string_view kRocmSmiAnchors[] = {"ROCm System Management Interface", "Memory Usage (Bytes)",
                                                       "KFD Processes", "Concise Info", "Current Memory Use"};
}  // namespace culprit::ingest::detect

namespace culprit::ingest {
/// The format id (sources.format; schema/culprit-report.schema.json lists it).
inline constexpr std::string_view kRocmSmiFormat = "rocm_smi";
void parse_rocm_smi(std::string_view text, ParseContext& ctx);  ///< rocm-smi, --showmeminfo, --showpids
}  // namespace culprit::ingest
