// The scoring rules of the shared real-case scorer (../shared/real-cases/score.py, its
// docstring), for one case: culprit's JSON report against the case's hand-written label.
//
// They are re-implemented here, not copied and not parsed from score.py's prose output,
// because the ratchet needs each case's verdict / culprit / victim result separately and
// score.py only prints them as text for people. The `real_cases.scorer_agreement` test runs
// score.py itself (when python3 and the scorer are there) and requires the same totals line,
// so a change of the shared rules shows up as a failing test, not as a silent drift.
#pragma once

#include <optional>
#include <string>

namespace real_cases {

/// One case scored. `std::nullopt` for an aspect the label does not score.
struct CaseScore {
  std::string error;  // crash / time-out / invalid JSON ("" when culprit answered)
  bool verdict_ok = false;
  std::optional<bool> culprit_ok;  // scored when the label's culprit kind is job_itself / foreign_process
  std::optional<bool> victim_ok;   // scored when the label gives a victim pid
  bool high_wrong = false;         // culprit said `high` and a scored aspect is wrong
  std::string detail;              // score.py's per-case line without the leading "MISS name: "
  bool wrong() const { return !error.empty() || !verdict_ok || culprit_ok == false || victim_ok == false; }
};

/// Scores culprit's JSON report `got_json` against the label `expected_json` (both texts).
/// Throws std::runtime_error when the label itself cannot be read.
CaseScore score_case(const std::string& expected_json, const std::string& got_json);

/// Totals over many cases, printed as score.py prints its last line.
struct Totals {
  int cases = 0, verdict_ok = 0, culprit_scored = 0, culprit_ok = 0, victim_scored = 0,
      victim_ok = 0, high_wrong = 0, bad = 0;
  void add(const std::string& expected_json, const CaseScore& s);
  std::string line() const;  // "verdict 88/110 (80%), culprit …, crashes/timeouts/invalid 0"
};

}  // namespace real_cases
