// Rule ids that culprit's own parsers give the events they make themselves (no signal in rules/
// makes these), and that other modules read back from the timeline: one home for each, so the
// parser that writes it and the query that reads it cannot disagree. Signals' ids never appear
// in C++: what C++ needs of a signal's event it reads from the fields the signal declares
// (core/facts.hpp).
#pragma once

#include <string_view>

namespace culprit::core::parser_rule {

/// torchrun's failure summary, one event per failed rank (`failed (exitcode: N) local_rank: R
/// (pid: P)` and the ChildFailedError block): pairs a rank with its pid (ingest/formats/app_log.cpp).
inline constexpr std::string_view kTorchrunChildFailed = "torchrun_child_failed";
/// A reading of culprit's cgroup.txt (ingest/formats/cgroup_memory.cpp): usage and limit.
inline constexpr std::string_view kCgroupMemory = "cgroup_memory";
/// A boot's clock anchor (`rtc_cmos … setting system clock to …`, ingest/formats/kernel_log.cpp).
/// Its kind is `log`: a fact about clocks, not a failure, so diagnoses and the job's time span
/// never count it; clock alignment (store/clock.cpp) reads it by this id.
inline constexpr std::string_view kKernelClockAnchor = "kernel_clock_anchor";
/// A stamped line of an application log kept only for its time (ingest/formats/app_log.cpp): the
/// first one after an unstamped failure, when no event of its own carries its stamp. Kind `log`,
/// severity debug, as the kernel's anchor: clock alignment (store/clock.cpp) dates the failure
/// from it, and its date is one of the host's.
inline constexpr std::string_view kClockMark = "clock_mark";
/// A process's finite address-space / data ceiling from its /proc/PID/limits
/// (ingest/formats/proc_status.cpp; `culprit run` samples the job's): kind `log`, fields
/// `address_space_bytes` / `data_bytes`; the host-alloc-fail diagnosis names it.
inline constexpr std::string_view kProcLimits = "proc_limits";
/// AMD's GPU monitors' snapshots (ingest/formats/rocm_smi.cpp, amd_smi.cpp, amd_smi_monitor.cpp):
/// the `gpu_snapshot` event's rule, which the GPU ledger reads to name AMD's process listings
/// (not nvidia-smi's) in its advice.
inline constexpr std::string_view kRocmSmi = "rocm_smi";
inline constexpr std::string_view kAmdSmi = "amd_smi";
/// Ray's memory-monitor table of the node's largest memory users, printed with its kill
/// (ingest/formats/ray_memory_table.cpp): kind `log`, one event per table, its `kill_line` the
/// line of the kill it belongs to; the `userspace-oom-kill` diagnosis reads its top row.
inline constexpr std::string_view kRayMemoryTable = "ray_memory_table";

}  // namespace culprit::core::parser_rule
