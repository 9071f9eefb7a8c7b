// The `job_end` event: how the job `culprit run` started ended, from its snapshot manifest, as
// the rules read it (rules/diagnoses/job_end.toml). It is what no log line says for certain:
// the exit status or signal culprit itself waited for, and whether the node's kernel log was
// read, so that a SIGKILL with no kernel OOM record can be told from one the kernel sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "culprit/api/snapshot_manifest.hpp"
#include "culprit/core/event.hpp"

namespace culprit::api {

/// The event of `m`'s job, in source `source_id` (the manifest `manifest_name`, whose text is
/// `manifest_text`: the event is cited at its job record's line), on `host`; nullopt when the
/// manifest has no job or the job's end was not recorded. Fields: `exitcode` (it exited) or
/// `signal` and `signal_name` (a signal ended it), `kernel_log` (Manifest::kernel_log, `unknown`
/// when not recorded), `command`, `user`, and `stdout` / `stderr`: the source names the job's
/// output has beside the manifest (core/job_output.hpp), which the rules cite its last lines from.
std::optional<core::Event> job_end_event(const Manifest& m, std::string_view manifest_name,
                                         std::string_view manifest_text, const std::string& host,
                                         std::int64_t source_id);

}  // namespace culprit::api
