// Clock alignment after ingest: gives events whose stamps lacked a year, a date, a zone or a
// wall clock (boot-relative kernel stamps) a UTC time where the inputs allow, per host, and
// records in `hosts` how each host was aligned and how sure that is.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/store/database.hpp"

namespace culprit::store {

struct ClockOptions {
  int default_year = 0;  ///< year for stamps without one when no input gives one (0: none)
  /// `--tz`: the zone of stamps that carry none: `UTC`, `+02:00`, `-0500`, or an IANA name
  /// (`Europe/Berlin`). Empty: per host, the offset of the host's own zoned stamps, else UTC.
  std::string tz;
  /// `--boot-time HOST=TIME` entries: TIME is ISO 8601 (zone optional; none = --tz, else UTC)
  /// or seconds since the epoch. They place HOST's boot-relative stamps (and win over anchors).
  std::vector<std::string> boot_times;
  double now = 0;  ///< "now" when a year must be assumed from the clock (0: the system clock)
};

/// Checks the options' --tz and --boot-time values; returns an error message or empty.
std::string check_clock_options(const ClockOptions& options);

/// Seconds east of UTC of `zone` (a --tz value) at the UTC instant `utc`; nullopt when `zone`
/// is not a zone culprit knows.
std::optional<double> zone_offset(std::string_view zone, double utc);

/// A --boot-time value split into host and UTC seconds; nullopt when it does not parse.
struct BootTime {
  std::string host;
  double boot_wall = 0;
};
std::optional<BootTime> parse_boot_time(std::string_view text, std::string_view tz);

/// sources.clock of a source with no stamped event. The timeline writer inserts each source so,
/// and align_clocks writes a source's row only where its values change, so a folder of small
/// files without stamps (most of a batch) costs no UPDATE per source.
inline constexpr std::string_view kNoSourceClock = "none";

/// Runs the alignment passes (clock.cpp explains them) once per timeline (a second run would
/// shift zoneless stamps again). Returns an error message or empty. Events that cannot be
/// placed keep ts NULL and still count (ordered by source and line).
std::string align_clocks(Database& db, const ClockOptions& options = {});

}  // namespace culprit::store
