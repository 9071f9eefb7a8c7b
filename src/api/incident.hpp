// One incident, end to end: read inputs, ingest into a timeline, align clocks, diagnose, save
// the findings. The library's pipeline (culprit/culprit.hpp's analyze is its front).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "api/parallel_ingest.hpp"
#include "culprit/core/diagnostic.hpp"
#include "culprit/diagnose/engine.hpp"
#include "culprit/diagnose/finding.hpp"
#include "culprit/rules/loader.hpp"

namespace culprit::api {

struct IncidentOptions {
  std::string db_path;   ///< '' keeps the timeline in memory; else written here (caller renames)
  int year = 0;
  std::int64_t max_events = 0;            ///< --max-events (0: no limit)
  std::size_t max_line_bytes = 1 << 20;   ///< --max-line-bytes (0: no limit)
  std::string tz;                        ///< --tz: zone of stamps that carry none ('' infer / UTC)
  std::vector<std::string> boot_times;   ///< --boot-time HOST=TIME entries
  /// Big sources parsed at once (1: one after the other). The result is the same for any
  /// count; with max_events set, sources are parsed in order, one at a time.
  unsigned threads = 1;
  double rule_query_seconds = diagnose::kRuleQuerySeconds;  ///< --rule-timeout
};

struct IncidentResult {
  diagnose::Verdict verdict;
  core::Diagnostics problems;
  std::size_t sources = 0;  ///< inputs read (0: nothing readable)
  bool ok = true;           ///< false when the timeline could not be written
};

/// Runs the whole pipeline over the sources `read` produces with `rules`. Never throws for bad
/// inputs.
IncidentResult run_incident(const SourceReader& read, const rules::RuleSet& rules, const IncidentOptions& options);

}  // namespace culprit::api
