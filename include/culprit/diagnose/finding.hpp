// What the diagnosis concludes: findings (one per fired rule row), the incident verdict,
// the culprit, the memory ledger and the evidence. Renderers read these; they never run SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/diagnose/allocator_view.hpp"

namespace culprit::diagnose {

/// Verdict ids of the JSON contract.
namespace verdict {
inline constexpr const char* kCudaOom = "cuda_oom";
inline constexpr const char* kKernelOom = "kernel_oom";
inline constexpr const char* kCgroupOom = "cgroup_oom";
inline constexpr const char* kUserspaceOomKill = "userspace_oom_kill";
/// A process's own host allocation was refused (malloc / ENOMEM, NumPy, DefaultCPUAllocator,
/// /dev/shm): out of host memory without any killer acting.
inline constexpr const char* kHostAllocFail = "host_alloc_fail";
inline constexpr const char* kNotOom = "not_oom";
inline constexpr const char* kUnknown = "unknown";
}  // namespace verdict

enum class Confidence { low, medium, high };
const char* to_string(Confidence c);
Confidence parse_confidence(const std::string& text);  ///< unknown text -> low

/// One line of evidence: where it was read and what it said.
struct Evidence {
  std::string source;   ///< source name, e.g. `spark-b/sglang-worker.log`
  std::int64_t line = 0;
  std::string text;
  std::string host;
  std::optional<double> ts;
  std::int64_t event_id = 0;
};

/// Where a process ran (placement.hpp): its pid in its own namespace, its container and pod, and
/// whether its process was gone while its memory was held. Every field is optional ('' unknown).
struct ProcessPlace {
  std::optional<std::int64_t> nspid;  ///< its pid inside its container (NSpid), when that differs
  std::string runtime;                ///< docker | containerd | cri-o | podman ('' unknown)
  std::string container_id;           ///< 64 hex
  std::string container_name;         ///< from a container listing (docker / podman / crictl ps)
  std::string pod_namespace, pod_name;  ///< the Kubernetes pod (crictl ps), when a listing names it
  std::string pod_uid;                ///< from the cgroup path
  std::string cgroup;                 ///< the cgroup's path
  std::string gone;                   ///< '' alive or unknown; else why its process is gone (`zombie`, …)
};

struct ProcessRef {
  std::string host;
  std::optional<std::int64_t> pid;
  std::string name;
  std::string role;      ///< job | foreign | unknown (culprit only)
  std::string why;       ///< why this role (e.g. "vLLM server in container vllm-embeddings, up 2 days")
  std::string container;
  std::optional<ProcessPlace> place{};  ///< where it ran, when a recorded /proc or cgroup says
  /// Where its pid was listed (nvidia-smi), the process could not be read: the pid belongs to
  /// another PID namespace (NVML lists host pids; a container sees its own) or it is gone. A
  /// `kill` from there cannot reach it.
  bool outside_view = false;
};

/// One entry of the GPU memory ledger at the failure (bytes).
struct LedgerEntry {
  std::string label;     ///< `requested`, `free`, `job pid 1234 (python3)`, `foreign pid …`, `unexplained`
  std::string role;      ///< job | foreign | unknown | free | requested | total | rest
  std::optional<std::int64_t> pid;
  std::int64_t bytes = 0;
};

/// Holders as people think of them: the processes of one program / one job (ranks, workers)
/// are one group, with their pids and bytes together.
struct HolderGroup {
  std::string group;                ///< `the failing process`, `sibling ranks' contexts`, a program name, `pid 123`
  std::string role;                 ///< job | foreign | unknown | host | kernel (shmem / tmpfs, slab, page cache)
  std::vector<std::int64_t> pids;
  std::int64_t bytes = 0;
};

/// The memory budget at an OOM. Every holder is in one term, so whenever `total` is known
///   total = free + job + foreign + unattributed + host_processes + kernel + unexplained
/// exactly (a term that is nullopt counts 0: `free` of a host ledger, which the kernel's report
/// does not give apart from the rest); `unexplained` is negative when the listed holders exceed
/// the total (snapshots of other instants, pages shared between resident sets). shortfall =
/// requested - free. `arithmetic` is the human text of the same sum.
struct Budget {
  std::string host;
  std::optional<int> gpu;
  bool unified = false;
  std::string domain = "gpu";       ///< gpu (discrete device) | unified (GPU + host pool) | host | cgroup
  std::string rule;                 ///< id of the ledger rule that chose the culprit (ARCHITECTURE.md lists them)
  std::optional<std::int64_t> context_bound;  ///< bytes allowed for the failing process's own context + libraries
  std::vector<HolderGroup> holders; ///< holder groups, largest first (the failing process included)
  std::optional<std::int64_t> total, free, requested, job, foreign, unexplained, shortfall;
  std::optional<std::int64_t> unattributed;    ///< holders of role `unknown` (no log ties them to anyone)
  std::optional<std::int64_t> host_processes;  ///< unified memory: CPU processes' resident memory (role `host`)
  std::optional<std::int64_t> kernel;          ///< memory the kernel holds: page cache (unified), shmem, slab
  std::optional<std::int64_t> torch_allocated, torch_reserved;
  std::vector<LedgerEntry> entries;
  std::vector<std::string> arithmetic;  ///< lines of the worked sum
};

/// One conclusion of one diagnosis rule.
struct Finding {
  std::string rule;
  std::string verdict;
  std::string title;
  Confidence confidence = Confidence::low;
  std::string host;
  std::optional<double> ts;
  std::string summary;   ///< the rule's message rendered
  std::string advice;
  std::optional<ProcessRef> culprit;
  std::optional<ProcessRef> victim;
  std::vector<Evidence> evidence;
  std::int64_t event_id = 0;  ///< the failure event this finding is about
  int priority = 0;
  bool echo = false;          ///< a consequence of the root failure, not a cause
  /// Its culprit is the GPU ledger's answer by default (LedgerResult::by_default): a repeat of
  /// the same failure with a better-informed ledger takes its place when they merge.
  bool culprit_by_default = false;
};

/// A source that was read, for the report's "sources" list (one per name and host: a paste's
/// segments together).
struct SourceSummary {
  std::string name, host;
  std::string format;                ///< format id of most of its lines (ingest/sniff.hpp), or a snapshot status
  std::vector<std::string> formats;  ///< every format id of its segments, in order of appearance
  std::string clock = "none";        ///< wall | no-year | time-of-day | boot+offset | unplaced | none (sources.clock)
  std::string clock_note;            ///< the host's clock alignment in words (hosts.clock_method)
  std::int64_t lines = 0;
  std::int64_t bytes = 0;
  std::string host_from;  ///< where the host came from: `folder name`, `--host`, `prompt`, `log lines`, …
  /// Files it stands for: `culprit run`'s samples of one item are one source
  /// (`node/sample-*-meminfo.txt`, one file per sample), else 1.
  std::int64_t files = 1;
};

/// One event of the merged cross-host timeline (any kind but `log`), for the HTML report and
/// `culprit timeline`. Times are UTC seconds once the host's clock was aligned; an unplaced
/// event keeps its raw stamp (`ts_kind` `boot`: `ts_value` seconds since boot).
struct TimelineEvent {
  std::int64_t event_id = 0;
  std::optional<double> ts;
  std::string ts_raw;
  std::string ts_kind;               ///< none | wall | wall_no_year | boot | time_of_day
  std::optional<double> ts_value;
  std::string host;
  std::string kind;                  ///< cuda_oom, kernel_oom, oom_kill, nccl_timeout, …
  std::string severity;
  std::optional<std::int64_t> pid;
  std::optional<std::int64_t> rank;
  std::string comm;
  std::string summary;               ///< the event's message (key line of a block)
  std::string source;
  std::int64_t line = 0;
  std::string mark = "other";        ///< root | echo | other
};

/// How one host's clock was placed on UTC (the `hosts` table).
struct HostClock {
  std::string host;
  std::string method;                ///< what the alignment was based on ('' none)
  std::string confidence = "none";   ///< high | medium | low | none
  std::optional<double> offset;      ///< seconds added to local times to reach UTC
  std::optional<double> boot_wall_ts;
  bool unified_memory = false;
};

/// A process's device memory in one GPU snapshot, with its role from the process table.
struct GpuProcessMemory {
  std::int64_t pid = 0;
  std::string name;
  std::string role = "unknown";      ///< job | foreign | unknown
  std::optional<std::int64_t> bytes; ///< nullopt: N/A (unified memory)
};

/// One GPU reading (nvidia-smi row, or the figures an OOM message quoted).
struct GpuSample {
  std::optional<double> ts;
  std::string source;
  std::int64_t line = 0;
  std::optional<std::int64_t> used, total;  ///< nullopt when not reported ("Not Supported")
  std::vector<GpuProcessMemory> processes;  ///< largest first
};

/// Memory over time of one GPU of one host, oldest sample first (untimed ones by source line).
struct GpuSeries {
  std::string host;
  int gpu = 0;
  std::string model;
  bool unified = false;
  std::optional<std::int64_t> pool_total;   ///< unified memory: the host's memory (`free`)
  std::vector<GpuSample> samples;
};

/// One timed reading of a host's memory (/proc/meminfo, a stamped `free`) or of a cgroup's
/// (its memory files): for a cgroup `used` is memory.current and `total` its limit.
struct MemoryReading {
  double ts = 0;
  std::string source;
  std::int64_t line = 0;
  std::optional<std::int64_t> used, total, available;
};

/// Host or cgroup memory over time, oldest reading first; only readings with a time (culprit
/// run's stamped samples) — an untimed paste has no place on a time axis.
struct MemorySeries {
  std::string host;
  std::string kind;        ///< host | cgroup
  std::string cgroup;      ///< the cgroup's path (kind cgroup)
  bool unlimited = false;  ///< a cgroup whose limit is `max`
  std::vector<MemoryReading> readings;
};

/// One row of a kernel OOM report's task table, sizes in bytes.
struct OomTaskRow {
  std::int64_t pid = 0;
  std::string name;
  std::optional<std::int64_t> uid;
  std::int64_t rss = 0;
  std::optional<std::int64_t> total_vm;
  std::optional<std::int64_t> oom_score_adj;
  bool victim = false;               ///< the task the kernel killed
  bool hog = false;                  ///< the task holding the most memory
  std::string role = "unknown";      ///< job | foreign | unknown
};

/// A kernel (or cgroup) OOM report's task table: its top processes by rss.
struct OomTable {
  std::int64_t event_id = 0;
  std::string host;
  std::optional<double> ts;
  std::string constraint;
  bool memcg = false;
  std::optional<std::int64_t> trigger_pid;
  std::string trigger_comm;
  std::optional<std::int64_t> memcg_limit;
  std::int64_t task_count = 0;       ///< rows in the full table
  std::int64_t total_rss = 0;        ///< sum over the full table
  std::vector<OomTaskRow> tasks;     ///< largest rss first; the victim always included
};

/// Which parts of the root failure's kernel OOM report the inputs hold (core/oom_parts.hpp ids,
/// in the kernel's order) and, for each missing one, what it leaves unknown.
struct OomReportParts {
  std::string host;
  std::vector<std::string> seen, missing;
  std::vector<std::string> notes;  ///< one sentence per missing part ("no task table: …")
};

/// What the pictures of a report need, read from the timeline by diagnose::add_report_data.
struct ReportData {
  std::vector<TimelineEvent> timeline;  ///< ordered by time, unplaced ones last
  std::int64_t timeline_total = 0;      ///< events before the cap (> timeline.size(): cut)
  std::vector<HostClock> hosts;
  std::vector<GpuSeries> gpus;
  std::vector<MemorySeries> memory;     ///< host, then cgroup series per host
  std::vector<OomTable> ooms;
  std::optional<AllocatorView> allocator;  ///< PyTorch's allocator snapshot at the failure, when one was read
  std::optional<OomReportParts> oom_parts;  ///< the root's kernel OOM report (or lone kill line), when it is one
};

/// The incident's answer.
struct Verdict {
  std::string verdict = verdict::kUnknown;
  Confidence confidence = Confidence::low;
  std::string summary;
  std::optional<ProcessRef> culprit;
  std::optional<ProcessRef> victim;
  std::optional<Budget> budget;
  std::optional<Finding> root;          ///< the root failure
  std::vector<Finding> echoes;          ///< failures caused by the root (other ranks, hosts)
  std::vector<Finding> findings;        ///< every finding, best first
  std::vector<Evidence> evidence;       ///< the verdict's evidence lines
  std::vector<std::string> advice;
  std::vector<std::string> ruled_out;   ///< what was considered and rejected, with why
  std::vector<SourceSummary> sources;
  std::vector<std::string> skipped;     ///< inputs / lines skipped, with why
  ReportData data;                      ///< timeline, clocks, GPU memory, OOM task tables
};

}  // namespace culprit::diagnose
