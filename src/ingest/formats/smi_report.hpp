// One nvidia-smi report (a `-q` text block or a `-q -x` XML document) as parsed, and how it
// goes into the sink: the same GpuSnapshot / GpuProcess / ProcessSighting records and
// `gpu_snapshot` event the default table parser writes, so the ledger and roles use any form.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "culprit/core/records.hpp"
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

struct SmiReport {
  std::int64_t first_line = 0, last_line = 0;  ///< segment lines
  std::string ts_raw;                          ///< `Thu Apr  9 00:47:22 2026`
  std::optional<std::int64_t> epoch;           ///< UTC seconds as a tool prints them (amd-smi monitor -w's TIMESTAMP), when ts_raw gives none
  std::string driver, cuda;
  std::vector<core::GpuSnapshot> gpus;         ///< line = segment line; host / ts filled by emit
  std::vector<std::pair<std::string, std::int64_t>> counts;  ///< more integer fields for the event

  /// The report spans segment line `seg` too (its first line is the first one touched).
  void touch(std::int64_t seg) {
    if (first_line == 0) first_line = seg;
    last_line = seg;
  }
};

/// The snapshot of GPU `gpu` in a monitor's per-index map, made at segment line `seg` when the
/// map has none yet (its line is where the GPU was first named).
inline core::GpuSnapshot& snapshot_at(std::map<int, core::GpuSnapshot>& gpus, int gpu, std::int64_t seg) {
  auto& g = gpus[gpu];
  g.gpu = gpu;
  if (g.line == 0) g.line = seg;
  return g;
}

/// Writes `report` into ctx.sink: one snapshot per GPU (processes attached), one sighting per
/// (host, pid) with `evidence`, and a `gpu_snapshot` event with rule `rule`. Nothing when the
/// report holds no GPU and no version.
void emit_smi_report(SmiReport& report, ParseContext& ctx, std::string_view rule, std::string_view evidence);

/// `81559 MiB` (also `81559MiB`, `1 GiB`) -> bytes; nullopt for `N/A`, `Not Supported`, `[N/A]`,
/// `Not available in WDDM driver model` and anything else without a number.
std::optional<std::int64_t> smi_memory(std::string_view value);

/// True when a memory value says the part has no separate framebuffer (`N/A`, `Not Supported`).
bool smi_memory_unsupported(std::string_view value);

/// `00000000:18:00.0` -> `0000:18:00` (lower case); '' when it is not a PCI bus id.
std::string smi_bus_id(std::string_view value);

}  // namespace culprit::ingest
