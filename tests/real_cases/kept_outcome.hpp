// Kept outcomes: culprit runs on each real case once (ctest `real_cases.reports`), and the tests
// that read its reports (the ratchet, score.py's agreement, the JSON schema) replay them instead
// of running culprit again. Under ASan each run of the 295 cases costs minutes; replaying keeps
// what each test checks (the same command line, the same bytes on stdout, the same exit).
//
// A kept case is three files in the keep folder: NAME.out (stdout, byte for byte), NAME.err
// (stderr) and NAME.status (`exit N`, `signal N` or `timeout`).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "subprocess.hpp"

namespace real_cases {

/// Writes one case's outcome into `dir`; throws std::runtime_error when it cannot.
void keep_outcome(const std::filesystem::path& dir, const std::string& name, const Outcome& o);

/// The outcome kept for `name`, or nullopt when none was kept.
std::optional<Outcome> kept_outcome(const std::filesystem::path& dir, const std::string& name);

/// Writes `dir`/culprit: a script that stands in for culprit where score.py and the schema
/// check run `culprit diagnose --format json --exclude expected.json CASE`. It runs `runner`
/// (this program) as `runner replay DIR ARGS...`.
std::filesystem::path write_replay_script(const std::filesystem::path& dir, const std::filesystem::path& runner);

/// `runner replay DIR diagnose --format json --exclude expected.json CASE`: writes the kept
/// stdout and stderr of CASE's folder name and ends as the kept run did (its exit code or its
/// signal; 124 for a time-out). Any other command line, or a case with nothing kept, exits 3
/// with the reason on stderr, which the caller reads as a crash.
int replay_main(int argc, char** argv);

}  // namespace real_cases
