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
