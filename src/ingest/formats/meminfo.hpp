// The line shape of /proc/meminfo (fs/proc/meminfo.c): `Key:` padded with spaces, a decimal
// count, and ` kB` for sizes (show_val_kb: the label padded to 16 columns, the value to 8;
// `HugePages_Total:   %5lu` has no unit). Shared by the sniffer's detector and the parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace culprit::ingest::meminfo {

struct Line {
  std::string_view key;   ///< `MemTotal`, `Active(anon)`, `HugePages_Total`
  std::int64_t value = 0; ///< as printed
  bool kb = false;        ///< ` kB` followed the value (KiB)
};

/// One /proc/meminfo line, or nullopt. The key is letters, digits, `_`, `(` and `)` from the
/// start of the line (a per-node `Node 0 MemTotal:` line of /sys/devices/system/node is not one).
std::optional<Line> parse_line(std::string_view line);

/// The line that opens a /proc/meminfo listing: `MemTotal:` with a size in kB.
bool is_anchor(std::string_view line);

}  // namespace culprit::ingest::meminfo
