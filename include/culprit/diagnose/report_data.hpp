// Reads from the timeline what the report's pictures need (the cross-host timeline, the hosts'
// clock alignment, GPU memory over time, kernel OOM task tables) into Verdict::data, so that
// renderers never run SQL. Also the timeline query behind `culprit timeline`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/diagnose/finding.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// Events shown at most by the report's timeline, centred on the root failure.
inline constexpr std::size_t kReportTimelineEvents = 500;
/// GPU samples kept per GPU (nearest the failure), and OOM task rows per report.
inline constexpr std::size_t kReportGpuSamples = 200;
inline constexpr std::size_t kReportOomTasks = 10;
/// Host / cgroup memory readings kept per series (the latest; `culprit run` keeps 360 samples).
inline constexpr std::size_t kReportMemoryReadings = 400;

/// The most events load_timeline returns, whatever `limit` asks (0, "all", included), and the
/// most bytes of text (messages, raw stamps, names) they may hold: a timeline someone else made
/// may hold any number of events, and each one kept costs memory (redteam finding 14: a crafted
/// timeline grew `culprit timeline` past 2.6 GB). `culprit query` streams a list of any length.
inline constexpr std::size_t kTimelineRowLimit = 100000;
inline constexpr std::size_t kTimelineTextBytes = std::size_t{64} << 20;

/// Which events `load_timeline` returns.
struct TimelineQuery {
  std::vector<std::string> hosts;    ///< empty: every host
  std::vector<std::string> kinds;    ///< empty: every kind but `log`
  bool include_log = false;          ///< with empty `kinds`: `log` events too
  std::optional<double> from, to;    ///< UTC window (inclusive); unplaced events are then dropped
  std::optional<std::int64_t> focus; ///< event id to centre the cap on (else the latest events)
  std::size_t limit = kReportTimelineEvents;  ///< 0: up to kTimelineRowLimit
  std::optional<std::int64_t> incident;       ///< a scan database's incident (events.incident)
};

/// The matching events in time order (unplaced ones last, by source and line), at most
/// `limit` (and never more than kTimelineRowLimit, nor past kTimelineTextBytes of text), centred
/// on `focus`; rows are read as SQLite steps them, none held twice. `total` receives the number
/// that matched before the caps.
/// Marks are all `other`; the caller marks root and echoes. Never throws; a failing query
/// yields an empty list.
std::vector<TimelineEvent> load_timeline(store::Database& db, const TimelineQuery& query,
                                         std::int64_t* total = nullptr);

/// The `hosts` table: each host's clock method and confidence, sorted by name (of one incident
/// of a scan database when `incident` is given).
std::vector<HostClock> load_host_clocks(store::Database& db, std::optional<std::int64_t> incident = std::nullopt);

/// Host memory (host_memory rows) and cgroup memory (`cgroup_memory` events) over time: the
/// timed readings, one series per host and per host and cgroup, oldest first, at most
/// kReportMemoryReadings each (the latest).
std::vector<MemorySeries> load_memory_series(store::Database& db);

/// Marks `events` root / echo from the verdict's root and echo findings (by event id).
void mark_timeline(const Verdict& verdict, std::vector<TimelineEvent>& events);

/// Fills `verdict.data` (call after diagnose(): GPU process roles come from its role pass).
void add_report_data(store::Database& db, Verdict& verdict);

}  // namespace culprit::diagnose
