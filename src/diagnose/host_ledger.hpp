// The host / cgroup memory ledger at a kernel or cgroup OOM: what the report's figures say about
// where the memory was (the limit or the RAM, the usage, the holder groups of the task table,
// shmem and slab, the rest nothing lists), as a Budget with its worked sum. A pure function over
// plain records (HostOomRecord) does the arithmetic; load_host_oom reads the record of one
// kernel_oom event from the timeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// One row of the report's task table, resident set in bytes.
struct HostTask {
  std::int64_t pid = 0;
  std::string name;
  std::int64_t rss = 0;
  std::optional<int> oom_score_adj;
  std::string role = "unknown";  ///< job | foreign | unknown (the processes table's)
};

/// What a kernel OOM report tells about memory (bytes; nullopt: not in the report).
struct HostOomRecord {
  std::string host;
  bool memcg = false;                            ///< a cgroup limit was hit (else the host ran out)
  std::string cgroup;                            ///< the limiting cgroup ('' unknown / global)
  std::optional<std::int64_t> limit, usage;      ///< memcg `memory:` (else `memory+swap:`) counter
  std::optional<std::int64_t> ram;               ///< global: `N pages RAM`
  std::optional<std::int64_t> shmem, slab_unreclaimable;  ///< Mem-Info (global reports)
  std::optional<std::int64_t> victim_pid;
  std::string victim_name;
  std::vector<HostTask> tasks;
};

/// Processes of one program (one name in the task table: a php-fpm or gunicorn pool, DataLoader
/// workers, the ranks of one job) as one holder.
struct TaskGroup {
  std::string name;
  std::vector<std::int64_t> pids;  ///< largest resident set first
  std::int64_t bytes = 0;
  int max_oom_score_adj = 0;       ///< -1000 for every member: the OOM killer may not kill them
  bool has_victim = false;
  std::string role = "unknown";    ///< its largest member's role
};

/// The task table's holder groups, largest first (ties by name). Rows without a name stay
/// apart, each its own holder.
std::vector<TaskGroup> holder_groups(const std::vector<HostTask>& tasks, std::optional<std::int64_t> victim_pid);

/// The ledger of `r`: total (the limit, or the RAM), free (limit - usage), the largest holder
/// groups (at most `kHostLedgerGroups`, then "other processes"), shmem and slab as kernel
/// holders, and the rest nothing in the report accounts for (page cache, kernel memory, memory
/// charged to the cgroup that no task maps). nullopt when the report has no size at all.
inline constexpr std::size_t kHostLedgerGroups = 5;
std::optional<Budget> build_host_budget(const HostOomRecord& r);

/// Gives the culprit's task the role its diagnosis found where the processes table has none
/// (a kernel OOM rule calls a process `foreign` when the host runs a known job it is not part
/// of), so the ledger's row for the culprit says what the verdict says.
void adopt_culprit_role(HostOomRecord& r, const ProcessRef& culprit);


}  // namespace culprit::diagnose
