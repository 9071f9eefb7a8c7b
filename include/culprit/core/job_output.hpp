// The files `culprit run` records the job's output in, in the node folder beside its snapshot:
// one home for their names, which the run writes, ingest keeps the job's last lines of and the
// snapshot manifest's `job_end` event names, so that the rules can cite the job's own words.
#pragma once

#include <string_view>

namespace culprit::core::job_output {

/// The job's standard output and error output, each line under its ISO arrival stamp.
inline constexpr std::string_view kStdout = "job.stdout.log";
inline constexpr std::string_view kStderr = "job.stderr.log";

/// The last non-blank lines of a job's output, after its last event, that ingest keeps as
/// events (rule kTailRule): what a job printed just before it failed, when no signal or logger
/// level marks it (`step 3 failed`, `sh: 1: trian.py: not found`).
inline constexpr int kTailLines = 3;
inline constexpr std::string_view kTailRule = "job_output_tail";

/// True when the base name of `source_name` (after its last `/`, or the `:` / `!` of an
/// archive member) is `base`.
bool base_name_is(std::string_view source_name, std::string_view base);

/// True when `source_name` is one of the job's output files.
inline bool is_output_name(std::string_view source_name) {
  return base_name_is(source_name, kStdout) || base_name_is(source_name, kStderr);
}

}  // namespace culprit::core::job_output
