// The `culprit timeline` listing: the merged cross-host timeline in the terminal, one line per
// event, under a header that says how each host's clock was aligned and how sure that is
// (events of hosts aligned with low confidence cannot be compared to the second).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::report {

struct TimelineOptions {
  bool color = false;  ///< ANSI colours (root red, echoes yellow, hosts cyan)
  int width = 100;     ///< columns per line; values below 60 are raised to 60; <= 0: no limit
};

/// The header (event count, time span, each host's clock) then one line per event:
/// mark (`>` root, `~` echo), time (UTC; `boot+93.1s` or `line N` when unplaced), host, kind,
/// pid/rank, source:line, and the message cut with an ellipsis to fit. `total` is the number
/// of events that matched before a cap (to say how many were left out).
///   std::string out = render_timeline(events, hosts, total, {.color = isatty(1)});
std::string render_timeline(const std::vector<diagnose::TimelineEvent>& events,
                            const std::vector<diagnose::HostClock>& hosts, std::int64_t total,
                            const TimelineOptions& options = {});

}  // namespace culprit::report

namespace culprit::report {

/// The events as a JSON array of objects (`culprit timeline --json`), in timeline order, with the
/// fields the text listing shows: id, time (ISO 8601 UTC, null when unplaced), time_text (what the
/// listing prints: the time, `boot+93.1s` or `line N`), host, kind, severity, pid, rank, comm,
/// source, line, mark (`root`, `echo` or null) and message. Absent values are null.
std::string render_timeline_json(const std::vector<diagnose::TimelineEvent>& events);

/// The same fields as CSV (RFC 4180, csv_writer.hpp) under a header record.
std::string render_timeline_csv(const std::vector<diagnose::TimelineEvent>& events);

}  // namespace culprit::report
