// One incident, end to end: read inputs, ingest into a timeline, align clocks, diagnose, save
// the findings. The library's pipeline (culprit/culprit.hpp's analyze is its front).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "api/parallel_ingest.hpp"
#include "culprit/core/diagnostic.hpp"
#include "culprit/culprit.hpp"
#include "culprit/diagnose/engine.hpp"
#include "culprit/diagnose/finding.hpp"
#include "culprit/rules/loader.hpp"

namespace culprit::api {

struct IncidentResult {
  diagnose::Verdict verdict;
  core::Diagnostics problems;
  std::size_t sources = 0;  ///< inputs read that hold a non-blank byte (0: nothing readable)
  bool ok = true;           ///< false when the timeline could not be written
};

/// Runs the whole pipeline over the sources `read` produces with `rules` and analyze's options
/// (checked by check_options; `db_path` '' keeps the timeline in memory, else it is written
/// there and the caller renames it; with max_events set, sources are parsed one at a time, in
/// order). Never throws for bad inputs.
IncidentResult run_incident(const SourceReader& read, const rules::RuleSet& rules, const Options& options);

}  // namespace culprit::api
