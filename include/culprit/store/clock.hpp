// Clock alignment after ingest: gives events whose stamps lacked a year, a date, or a wall
// clock (boot-relative kernel stamps) a UTC time where the inputs allow, per host, and records
// in `hosts` how each host was aligned and how sure that is.
#pragma once

#include <string>

#include "culprit/store/database.hpp"

namespace culprit::store {

struct ClockOptions {
  int default_year = 0;  ///< year for stamps without one when no input gives one (0: none)
};

/// Runs the alignment pass. Returns an error message or empty. Events that cannot be placed
/// keep ts NULL and still count (ordered by source and line).
std::string align_clocks(Database& db, const ClockOptions& options = {});

}  // namespace culprit::store
