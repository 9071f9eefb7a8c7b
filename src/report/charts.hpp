// The HTML report's pictures as inline SVG: the cross-host timeline, GPU memory over time
// (stacked by process and role, with the failed request against the free memory), host and
// cgroup memory over time, and the kernel OOM task table by rss. Each returns a complete HTML
// fragment (figure + legend), or empty when there is nothing to draw. Pure functions of the
// verdict; no I/O.
#pragma once

#include <string>

#include "culprit/diagnose/finding.hpp"

namespace culprit::report::charts {

/// Lanes per host, events placed by UTC time; the root failure and its echoes marked.
std::string timeline(const diagnose::Verdict& v);

/// One figure per GPU that has snapshots or the failure's budget. The budget's GPU comes first
/// and gets an "at the failure" bar built from the ledger, with the request drawn beside it.
std::string gpu_memory(const diagnose::Verdict& v);

/// One figure per host / cgroup memory series with timed readings (culprit run's stamped
/// /proc/meminfo and cgroup samples): the memory in use over time under its total or limit.
std::string host_memory(const diagnose::Verdict& v);

/// What a memory chart shows, by the budget's domain: "GPU memory" (a GPU's series, a discrete
/// or unified GPU's budget), "Host memory" (a kernel OOM's host ledger), "Memory cgroup" (a
/// cgroup OOM's limit and holders).
std::string memory_label(const diagnose::Budget* b);

/// One figure per kernel OOM report: its top processes by rss, victim and hog marked.
std::string oom_tasks(const diagnose::Verdict& v);

/// `00:47:13` (UTC) for chart labels.
std::string clock_label(double ts);

}  // namespace culprit::report::charts
