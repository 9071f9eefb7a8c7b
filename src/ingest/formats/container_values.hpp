// Values as container tools print them: Kubernetes quantities (`64Gi`, `500M`, `1e9`), Go
// RFC 3339 times (`2026-04-09T00:47:22.987654321Z`) and kubectl's RFC 1123 times
// (`Thu, 09 Apr 2026 00:47:22 +0000`). Shared by docker_inspect.cpp and kubectl_describe.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace culprit::ingest::containers {

/// A Kubernetes resource quantity in bytes: binary suffixes Ki Mi Gi Ti Pi Ei (1024^n), decimal
/// k M G T P E (1000^n), an exponent (`129e6`), or plain bytes. nullopt when not a quantity.
std::optional<std::int64_t> parse_quantity(std::string_view text);

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±hh:mm)` to UTC seconds. Go's zero time
/// (`0001-01-01T00:00:00Z`, "never") gives nullopt.
std::optional<double> parse_rfc3339(std::string_view text);

/// `Www, DD Mmm YYYY HH:MM:SS ±hhmm` (kubectl describe) to UTC seconds; a zone name (`UTC`,
/// `GMT`) instead of the offset reads as UTC.
std::optional<double> parse_rfc1123(std::string_view text);

}  // namespace culprit::ingest::containers
