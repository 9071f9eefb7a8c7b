// The last lines of a job's own output (`culprit run`'s recording, core/job_output.hpp), kept as
// events: when the job exits non-zero, what it printed last is its own account of why, and the
// rules cite it by file:line (rules/diagnoses/job_end.toml) even where no signal or logger level
// marks the line (`step 3 failed`, a shell's `not found`).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

/// Adds to `ctx.sink`, as `log` events of rule core::job_output::kTailRule, the last
/// core::job_output::kTailLines non-blank lines of `lines` (the segment `ctx` parsed, in its line
/// numbering) that lie after input line `after_line` (the end of the input's last event: a line
/// an event already cites, a traceback's exception line, is not repeated). Each line is peeled
/// as the application-log parser peels it (its arrival stamp, its prefixes), and keeps a
/// logger's level where it has one (else `info`).
void add_job_output_tail(const ParseContext& ctx, std::span<const std::string_view> lines, std::int64_t after_line);

}  // namespace culprit::ingest
