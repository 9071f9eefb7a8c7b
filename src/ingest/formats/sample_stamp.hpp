// The time line culprit writes above each memory sample it takes (`culprit run`'s
// sample-NNNN-meminfo.txt / -cgroup.txt, a snapshot's meminfo.txt / cgroup.txt): the output of
// `date -u +%Y-%m-%dT%H:%M:%S.%NZ`, run by the same shell just before the files are read, so it
// is the sample's real time on the node's clock. A pasted `date -Is; cat /proc/meminfo` has the
// same shape. /proc/meminfo and the cgroup files carry no time of their own.
#pragma once

#include <optional>
#include <string_view>

namespace culprit::ingest::sample_stamp {

/// UTC seconds of a line that is only an ISO 8601 date-time with a zone: `2026-04-09T00:47:19Z`,
/// `2026-04-09T00:47:19.123456789Z`, `2026-04-09T02:47:19+02:00` (surrounding blanks allowed).
/// nullopt for anything else — a stamp without a zone, a stamp followed by text (a log line).
std::optional<double> parse(std::string_view line);

}  // namespace culprit::ingest::sample_stamp
