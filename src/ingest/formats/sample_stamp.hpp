// The time line culprit writes above each memory sample it takes (`culprit run`'s
// sample-NNNN-meminfo.txt / -cgroup.txt, a snapshot's meminfo.txt / cgroup.txt): the output of
// `date -u +%Y-%m-%dT%H:%M:%S.%NZ`, run by the same shell just before the files are read, so it
// is the sample's real time on the node's clock. A pasted `date -Is; cat /proc/meminfo` has the
// same shape. /proc/meminfo and the cgroup files carry no time of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit::ingest::sample_stamp {

/// UTC seconds of a line that is only an ISO 8601 date-time with a zone: `2026-04-09T00:47:19Z`,
/// `2026-04-09T00:47:19.123456789Z`, `2026-04-09T02:47:19+02:00` (surrounding blanks allowed).
/// nullopt for anything else — a stamp without a zone, a stamp followed by text (a log line).
std::optional<double> parse(std::string_view line);

/// The last stamp line a parser passed: the listing that starts on the line after it takes its
/// time (and starts at the stamp, so evidence cites both).
struct Last {
  std::optional<double> ts;
  std::string text;
  std::int64_t line = 0;  ///< segment line of the stamp

  /// Takes `text_line` (segment line `seg`) when it is a stamp; true then.
  bool take(std::string_view text_line, std::int64_t seg);
  /// Whether the stamp is on the line just above segment line `seg`.
  bool above(std::int64_t seg) const { return ts && line == seg - 1; }
  /// Dates a listing (a struct with `ts`, `stamp` and `first_line`) that starts below the stamp.
  template <class Listing>
  void date(Listing& l) const {
    l.ts = ts;
    l.stamp = text;
    l.first_line = line;
  }
};

}  // namespace culprit::ingest::sample_stamp
