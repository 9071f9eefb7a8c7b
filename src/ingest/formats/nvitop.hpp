// nvitop (XuehaiPan/nvitop) one-shot output (`nvitop -1` / `--once`, or a screen of its curses
// UI pasted): a time line, the device box (two rows per GPU, one per MIG instance), the host
// bars and the Processes box. Read into the GpuSnapshot / GpuProcess records and `gpu_snapshot`
// event the nvidia-smi parsers write, so the ledger and the roles read it as they read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "ingest/format_table.hpp"

namespace culprit::ingest::nvitop {

/// The cells of a box-drawn row: the text between `│` (or `|`, `--ascii`), without the borders.
/// Empty when the line is not a box row (it must start and end with a border).
std::vector<std::string_view> box_cells(std::string_view line);

/// `│ NVITOP 1.3.2      Driver Version: 535.104.05      CUDA Driver Version: 12.2 │` (nvitop
/// 0.7.3+; older releases print nvidia-smi's banner in the box: their device box is not read, their
/// Processes box is, by its header).
struct Banner {
  std::string version, driver, cuda;
};
std::optional<Banner> parse_banner(std::string_view line);

/// The device box's first row of a GPU: `│   0  NVIDIA A100-SXM...  On   │ 00000000:07:00.0 Off │ …`.
struct DeviceRow {
  int index = 0;
  std::string name, bus_id;
};
std::optional<DeviceRow> parse_device_row(std::string_view line);

/// The second row: `│ 30%   45C    P2   120W / 350W │   23.31GiB / 24.00GiB │ …`: used / total.
struct MemoryCell {
  std::optional<std::int64_t> used, total;
};
std::optional<MemoryCell> parse_memory_row(std::string_view line);

/// A MIG instance row: `│ 0:0 1g.10gb @ GI/CI: 7/0 │ 3.12GiB / 9.75GiB │ BAR1: …`.
bool is_mig_row(std::string_view line);

/// The Processes box header: `│ GPU     PID      USER  GPU-MEM %SM %GMBW  %CPU  %MEM  TIME  COMMAND │`
/// (`GPU    PID      USER  GPU-MEM  …` before 0.3.2, without %SM; %GMBW since 0.9).
bool is_process_header(std::string_view line);

/// A process row: `│   0   12345 C     alice  23.29GiB  98   45  100.2   3.4  1:02:03  python train.py │`.
/// pid nullopt where nvitop cut it to 7 characters (`1234567..`).
struct ProcessRow {
  std::string gpu;  ///< `0`, or `0:1` for a MIG instance
  std::optional<std::int64_t> pid;
  std::string type, user, command;
  std::optional<std::int64_t> mem;
};
std::optional<ProcessRow> parse_process_row(std::string_view line);

}  // namespace culprit::ingest::nvitop

namespace culprit::ingest::detect {
/// An nvitop screen: anchored at its banner (`NVITOP`) or its Processes header (`GPU-MEM`), the
/// block runs from the time line above to the last box line (host bars and blank lines between
/// the boxes included).
Detection nvitop_block(Scan& scan, std::size_t i);
inline constexpr std::string_view kNvitopAnchors[] = {"NVITOP ", "GPU-MEM"};
}  // namespace culprit::ingest::detect

namespace culprit::ingest {
/// The format id (sources.format; schema/culprit-report.schema.json lists it).
inline constexpr std::string_view kNvitopFormat = "nvitop";
void parse_nvitop(std::string_view text, ParseContext& ctx);  ///< nvitop -1 (device and Processes boxes)
}  // namespace culprit::ingest
