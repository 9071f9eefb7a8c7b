// The project's two files about the real cases (tests/real_cases/):
//
// ratchet.txt — the cases that pass today and must keep passing. One case per line, then the
// aspects that must hold: `verdict`, `culprit`, `victim` (separated by spaces). `#` starts a
// comment. `culprit_real_cases --write-ratchet FILE` writes it from the current results.
//
// differences.md — cases whose label the logs show to be wrong, at most five. A Markdown table
// `| case | aspect | label says | the log says | reason |`; a miss on a listed aspect is reported
// as a listed difference instead of a miss, and a listed aspect that passes against the label
// fails the run (the row is then wrong or stale).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace real_cases {

using Aspects = std::set<std::string>;  // of "verdict", "culprit", "victim"

/// Reads a ratchet file. Throws std::runtime_error (with file:line) on an unknown aspect or a
/// case listed twice.
std::map<std::string, Aspects> read_ratchet(const std::string& path);

/// The ratchet text for `passing` (case → aspects that pass), sorted, with a header comment.
std::string format_ratchet(const std::map<std::string, Aspects>& passing);

struct Difference {
  std::string case_name, aspect, reason;
};

/// Reads differences.md (a missing file is no differences). Throws on a malformed row or on
/// more than five cases.
std::vector<Difference> read_differences(const std::string& path);

}  // namespace real_cases
