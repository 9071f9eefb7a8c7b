// Clock alignment as SQL passes, cheapest first:
//  1. wall_no_year: the year of the incident's wall-stamped events (else the option's year);
//  2. time_of_day: the date of the same host's (else any host's) wall events;
//  3. boot: per host, an anchor event that carries both a wall time and a boot stamp
//     (syslog `kernel: [  93.1]` lines: field boot_ts) gives boot_wall_ts = ts - boot_ts.
#include "culprit/store/clock.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/core/time.hpp"

namespace culprit::store {
namespace {

int year_of(double epoch) {
  // Days since epoch -> civil year (enough precision for a year).
  const std::string iso = core::format_iso(epoch);
  return iso.size() >= 4 ? std::stoi(iso.substr(0, 4)) : 1970;
}

}  // namespace

std::string align_clocks(Database& db, const ClockOptions& options) {
  // 1. Years.
  int year = options.default_year;
  auto r = db.query("SELECT max(ts) AS t FROM events WHERE ts_kind='wall' AND ts IS NOT NULL");
  if (!r.error.empty()) return r.error;
  if (!r.rows.empty() && !r.rows[0]["t"].is_null()) year = year_of(*r.rows[0]["t"].as_double());
  if (year > 0) {
    // Parsers count seconds from Jan 1 as in a leap year (so Feb 29 has a place); in a common
    // year every day from March 1 (day 60 of that count) is one day earlier.
    const double start = core::civil_to_epoch(year, 1, 1, 0, 0, 0);
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (auto err = db.exec(fmt::format(
            "UPDATE events SET ts = {} + ts_value - CASE WHEN {} AND ts_value >= 60 * 86400 THEN 86400 ELSE 0 END"
            " WHERE ts IS NULL AND ts_kind='wall_no_year' AND ts_value IS NOT NULL",
            start, leap ? 0 : 1));
        !err.empty())
      return err;
  }
  // 2. Dates for time-of-day stamps: midnight of the host's latest wall event, else any host's.
  if (auto err = db.exec(
          "UPDATE events SET ts = ts_value + coalesce("
          " (SELECT (CAST(max(w.ts) / 86400 AS INTEGER)) * 86400 FROM events w"
          "   WHERE w.host = events.host AND w.ts IS NOT NULL AND w.ts_kind IN ('wall','wall_no_year')),"
          " (SELECT (CAST(max(w.ts) / 86400 AS INTEGER)) * 86400 FROM events w"
          "   WHERE w.ts IS NOT NULL AND w.ts_kind IN ('wall','wall_no_year')))"
          " WHERE ts IS NULL AND ts_kind='time_of_day' AND ts_value IS NOT NULL");
      !err.empty())
    return err;
  // 3. Boot-relative stamps: anchors carrying both clocks.
  if (auto err = db.exec(
          "INSERT OR IGNORE INTO hosts(name) SELECT DISTINCT host FROM events WHERE host <> '';"
          "UPDATE hosts SET boot_wall_ts = (SELECT avg(e.ts - json_extract(e.fields, '$.boot_ts')) FROM events e"
          "   WHERE e.host = hosts.name AND e.ts IS NOT NULL AND json_extract(e.fields, '$.boot_ts') IS NOT NULL),"
          " clock_method = 'syslog lines quoting the kernel boot stamp', clock_confidence = 'medium'"
          " WHERE EXISTS (SELECT 1 FROM events e WHERE e.host = hosts.name AND e.ts IS NOT NULL"
          "   AND json_extract(e.fields, '$.boot_ts') IS NOT NULL);"
          "UPDATE hosts SET boot_wall_ts = (SELECT avg(e.ts - e.ts_value) FROM events e"
          "   WHERE e.host = hosts.name AND e.ts IS NOT NULL AND e.ts_kind = 'wall'"
          "   AND json_extract(e.fields, '$.boot_anchor') = 1),"
          " clock_method = 'dmesg -T / iso lines', clock_confidence = 'low'"
          " WHERE boot_wall_ts IS NULL AND EXISTS (SELECT 1 FROM events e WHERE e.host = hosts.name"
          "   AND json_extract(e.fields, '$.boot_anchor') = 1);"
          "UPDATE events SET ts = (SELECT h.boot_wall_ts FROM hosts h WHERE h.name = events.host) + ts_value"
          " WHERE ts IS NULL AND ts_kind = 'boot' AND ts_value IS NOT NULL"
          "   AND (SELECT h.boot_wall_ts FROM hosts h WHERE h.name = events.host) IS NOT NULL;"
          "UPDATE hosts SET clock_method = 'wall-clock stamps', clock_confidence = 'high'"
          " WHERE clock_method = '' AND EXISTS (SELECT 1 FROM events e WHERE e.host = hosts.name AND e.ts_kind = 'wall');"
          "UPDATE hosts SET clock_method = 'stamps without a year (year from the other inputs)', clock_confidence = 'medium'"
          " WHERE clock_method = '' AND EXISTS (SELECT 1 FROM events e WHERE e.host = hosts.name AND e.ts IS NOT NULL);"
          "UPDATE hosts SET clock_method = 'no wall clock: ordered by line only', clock_confidence = 'none'"
          " WHERE clock_method = '';"
          "UPDATE oom_reports SET ts = (SELECT ts FROM events WHERE id = oom_reports.event_id) WHERE ts IS NULL;"
          "UPDATE sources SET first_ts = (SELECT min(ts) FROM events WHERE source_id = sources.id),"
          " last_ts = (SELECT max(ts) FROM events WHERE source_id = sources.id),"
          " clock = coalesce((SELECT group_concat(DISTINCT ts_kind) FROM events WHERE source_id = sources.id), 'none');");
      !err.empty())
    return err;
  return {};
}

}  // namespace culprit::store
