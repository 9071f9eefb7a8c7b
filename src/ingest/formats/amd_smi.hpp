// amd-smi (ROCm/amdsmi, amdsmi_cli) human-readable output of `amd-smi metric` (its MEM_USAGE
// section) and `amd-smi process`: indented `KEY: value` lines under `GPU: <n>`. Read into the
// GpuSnapshot / GpuProcess records and `gpu_snapshot` event the nvidia-smi parsers write.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "culprit/ingest/parser.hpp"
#include "ingest/format_table.hpp"

namespace culprit::ingest::amd_smi {

/// One `KEY: value` line: its indent (spaces), key and value (trimmed; "" for a section head).
struct KeyLine {
  std::size_t indent = 0;
  std::string_view key, value;
};
std::optional<KeyLine> parse_key_line(std::string_view line);

/// `196592 MB`, `42.5 GB`, `512.0 KB`, `0.0 B` (amdsmi_helpers: powers of 1024) -> bytes.
std::optional<std::int64_t> size_value(std::string_view value);

}  // namespace culprit::ingest::amd_smi

namespace culprit::ingest::detect {
/// An amd-smi listing: anchored at a `MEM_USAGE:` or `PROCESS_INFO:` section, the block runs from
/// the `GPU: <n>` line above it through the indented lines and the next GPUs' blocks.
Detection amd_smi_block(Scan& scan, std::size_t i);
inline constexpr std::string_view kAmdSmiAnchors[] = {"MEM_USAGE:", "PROCESS_INFO:"};
}  // namespace culprit::ingest::detect

namespace culprit::ingest {
/// The format id (sources.format; schema/culprit-report.schema.json lists it).
inline constexpr std::string_view kAmdSmiFormat = "amd_smi";
void parse_amd_smi(std::string_view text, ParseContext& ctx);  ///< amd-smi metric / process (text)
}  // namespace culprit::ingest
