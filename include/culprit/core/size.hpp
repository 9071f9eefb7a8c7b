// Memory sizes as tools print them ("11.64 GiB", "12288MiB", "62Gi", "1.7G", "4096kB"), to bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit::core {

/// Parses a number with an optional unit. Binary units (KiB, MiB, GiB, TiB, Ki, Mi, Gi, Ti, kB,
/// KB, K, M, G, T, as `free -h` and nvidia-smi use them) are powers of 1024; `B`/`bytes` are bytes.
/// `default_unit` applies when the text has no unit (e.g. 1024 for `free` in KiB).
std::optional<std::int64_t> parse_size(std::string_view text, std::int64_t default_unit = 1);

/// `count * unit` (kB or pages to bytes), or nullopt when the product does not fit in 64 bits:
/// a garbled or hostile number is unknown, never a wrapped-around size.
std::optional<std::int64_t> scale_bytes(std::int64_t count, std::int64_t unit);

/// Human form with binary units and two decimals: `11.64 GiB`, `512 bytes`.
std::string format_size(std::int64_t bytes);

}  // namespace culprit::core
