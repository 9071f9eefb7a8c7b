// The host / cgroup ledger (host_ledger.hpp). The sum it shows: for a cgroup,
//   limit = free + Σ holder groups + rest      (rest = usage - Σ tasks: page cache, kernel memory
//                                               and tmpfs charged to the cgroup, not in any rss)
// for the host,
//   RAM = Σ holder groups + shmem + slab + rest  (rest: page cache, kernel, reserved, free)
// The groups' bytes go to the budget's job / foreign / unattributed terms by role, shmem and slab
// to `kernel`, so total = free + job + foreign + unattributed + kernel + unexplained exactly.
// Resident sets include the file and shmem pages a task maps, so shmem may count twice; the rest
// is then an underestimate, negative when the resident sets add up to more than the whole.
#include "host_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "culprit/core/size.hpp"

namespace culprit::diagnose {
namespace {

std::string size(std::int64_t b) { return core::format_size(b); }

std::string group_label(const TaskGroup& g) {
  if (g.pids.size() == 1) return fmt::format("pid {} ({})", g.pids.front(), g.name.empty() ? "?" : g.name);
  return fmt::format("{} ({} processes, largest pid {})", g.name, g.pids.size(), g.pids.front());
}

}  // namespace

std::vector<TaskGroup> holder_groups(const std::vector<HostTask>& tasks, std::optional<std::int64_t> victim_pid) {
  std::vector<const HostTask*> sorted;
  for (const auto& t : tasks) sorted.push_back(&t);
  std::stable_sort(sorted.begin(), sorted.end(), [](const HostTask* a, const HostTask* b) { return a->rss > b->rss; });
  std::vector<TaskGroup> groups;
  std::map<std::string, std::size_t> by_name;
  for (const HostTask* t : sorted) {
    if (!t->name.empty()) {
      auto [it, fresh] = by_name.emplace(t->name, groups.size());
      if (!fresh) {
        TaskGroup& g = groups[it->second];
        g.pids.push_back(t->pid);
        g.bytes += t->rss;
        g.max_oom_score_adj = std::max(g.max_oom_score_adj, t->oom_score_adj.value_or(0));
        g.has_victim = g.has_victim || (victim_pid && *victim_pid == t->pid);
        continue;
      }
    }
    TaskGroup g;
    g.name = t->name;
    g.pids.push_back(t->pid);
    g.bytes = t->rss;
    g.max_oom_score_adj = t->oom_score_adj.value_or(0);
    g.has_victim = victim_pid && *victim_pid == t->pid;
    g.role = t->role;
    groups.push_back(std::move(g));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const TaskGroup& a, const TaskGroup& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.name < b.name;
  });
  return groups;
}

void adopt_culprit_role(HostOomRecord& r, const ProcessRef& culprit) {
  if (!culprit.pid || culprit.host != r.host || culprit.role == "unknown" || culprit.role.empty()) return;
  for (auto& t : r.tasks)
    if (t.pid == *culprit.pid && t.role == "unknown") t.role = culprit.role;
}

std::optional<Budget> build_host_budget(const HostOomRecord& r) {
  const auto groups = holder_groups(r.tasks, r.victim_pid);
  std::int64_t tasks_sum = 0;
  for (const auto& g : groups) tasks_sum += g.bytes;
  const std::optional<std::int64_t> total = r.memcg ? r.limit : r.ram;
  if (!total && groups.empty() && !r.usage) return std::nullopt;

  Budget b;
  b.host = r.host;
  b.domain = r.memcg ? "cgroup" : "host";
  b.total = total;
  if (r.memcg && r.limit && r.usage) b.free = std::max<std::int64_t>(0, *r.limit - *r.usage);

  // Holder groups: the job's in a cgroup (its tasks are the cgroup's), on a host the role the
  // processes table gives the group's largest member.
  std::int64_t shown = 0, others = 0;
  std::size_t other_count = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& g = groups[i];
    if (i < kHostLedgerGroups) {
      std::string label = group_label(g);
      if (g.has_victim) label += ", the victim's";
      if (g.max_oom_score_adj == -1000) label += ", oom_score_adj -1000";
      const std::string role = r.memcg && g.role != "foreign" ? std::string("job") : g.role;
      b.entries.push_back({label, role, g.pids.front(), g.bytes});
      b.holders.push_back({g.name.empty() ? fmt::format("pid {}", g.pids.front()) : g.name, role, g.pids, g.bytes});
      shown += g.bytes;
    } else {
      others += g.bytes;
      other_count += g.pids.size();
    }
  }
  if (other_count > 0)
    b.entries.push_back({fmt::format("{} other processes", other_count), r.memcg ? "job" : "unknown", std::nullopt, others});
  if (other_count > 0) b.holders.push_back({"other processes", r.memcg ? "job" : "unknown", {}, others});
  // Each group's bytes in the term of its role (a cgroup's tasks are the job's unless foreign).
  std::int64_t job = 0, foreign = 0, unattributed = 0;
  for (const auto& g : b.holders) (g.role == "job" ? job : g.role == "foreign" ? foreign : unattributed) += g.bytes;
  // (Set only where there is some: the reports show a set term without an entry as a row of its own.)
  if (r.memcg || job > 0) b.job = job;
  if (foreign > 0) b.foreign = foreign;
  if (!groups.empty()) b.unattributed = unattributed;

  std::int64_t kernel = 0;
  if (!r.memcg) {
    if (r.shmem && *r.shmem > 0) {
      b.entries.push_back({"shmem / tmpfs (kernel)", "kernel", std::nullopt, *r.shmem});
      b.holders.push_back({"shmem / tmpfs", "kernel", {}, *r.shmem});
      kernel += *r.shmem;
    }
    if (r.slab_unreclaimable && *r.slab_unreclaimable > 0) {
      b.entries.push_back({"slab, unreclaimable (kernel)", "kernel", std::nullopt, *r.slab_unreclaimable});
      b.holders.push_back({"slab, unreclaimable", "kernel", {}, *r.slab_unreclaimable});
      kernel += *r.slab_unreclaimable;
    }
    if (kernel > 0) b.kernel = kernel;
  }

  // The rest: what the whole holds beyond free and every listed holder — negative when resident
  // sets add up to more than the whole (shared pages counted in each). The whole is a cgroup's
  // usage (above its limit, free shown as 0: the limit; unknown: the limit, free included) or
  // the host's RAM.
  std::optional<std::int64_t> whole = r.ram;
  if (r.memcg) whole = r.usage ? (r.limit ? std::min(*r.usage, *r.limit) : *r.usage) : r.limit;
  std::optional<std::int64_t> rest;
  if (whole) rest = *whole - tasks_sum - kernel;
  if (rest && (!groups.empty() || kernel > 0)) {
    b.unexplained = rest;
    std::string label = r.memcg ? "charged to the cgroup, in no task's rss (page cache, kernel memory, tmpfs)"
                                : "in no task's rss (page cache, kernel, reserved, free)";
    if (r.memcg && !r.usage) label = "free or charged to the cgroup, in no task's rss";
    if (*rest < 0) label = "counted in more than one resident set (shared pages)";
    b.entries.push_back({label, "rest", std::nullopt, *rest});
  } else if (rest && b.total) {
    // No task table: nothing listed accounts for any of it.
    b.unexplained = rest;
    b.entries.push_back({r.memcg && r.usage ? "charged to the cgroup (the report lists no tasks)"
                         : r.memcg          ? "free or charged to the cgroup (the report lists no tasks)"
                                            : "in use or free (the report lists no tasks)",
                         "rest", std::nullopt, *rest});
  }

  // The worked sum.
  if (r.memcg) {
    if (r.limit && r.usage)
      b.arithmetic.push_back(fmt::format("cgroup{}: usage {} of limit {} ({:.0f}%)", r.cgroup.empty() ? "" : " " + r.cgroup,
                                         size(*r.usage), size(*r.limit),
                                         *r.limit > 0 ? 100.0 * static_cast<double>(*r.usage) / static_cast<double>(*r.limit) : 0.0));
    else if (r.limit)
      b.arithmetic.push_back(fmt::format("cgroup limit {}", size(*r.limit)));
  } else if (r.ram) {
    b.arithmetic.push_back(fmt::format("host RAM {}", size(*r.ram)));
  }
  if (!groups.empty()) {
    // The figures only; which holder is the culprit is the diagnosis rule's (protected hog first,
    // then the largest group), so the sum names no "largest" of its own.
    b.arithmetic.push_back(fmt::format("task table: {} processes hold {} (resident sets); {} by name, the first: {} {}",
                                       r.tasks.size(), size(tasks_sum),
                                       groups.size() == 1 ? std::string("one group") : fmt::format("{} groups", groups.size()),
                                       group_label(groups.front()),
                                       size(groups.front().bytes)));
    for (std::size_t i = 0; i < groups.size() && i < kHostLedgerGroups; ++i)
      if (groups[i].max_oom_score_adj == -1000)
        b.arithmetic.push_back(fmt::format("{} has oom_score_adj -1000: the OOM killer may not kill it", group_label(groups[i])));
    const std::optional<std::int64_t> base = r.memcg ? (r.usage ? r.usage : r.limit) : r.ram;
    if (base && tasks_sum > *base)
      b.arithmetic.push_back(fmt::format("the resident sets add up to more than {} ({}): pages shared between processes "
                                         "(forked workers, file mappings, shared memory) count in each",
                                         r.memcg ? "the usage" : "RAM", size(*base)));
  }
  if (rest && (!groups.empty() || kernel > 0)) {
    const char* shared = "(negative: pages shared between resident sets count in each)";
    if (r.memcg)
      b.arithmetic.push_back(fmt::format("{} {} - tasks {} = {} {}", r.usage ? "usage" : "limit", size(*whole),
                                         size(tasks_sum), size(*rest),
                                         *rest < 0 ? shared
                                         : r.usage ? "not in any task's resident set"
                                                   : "free or not in any task's resident set"));
    else
      b.arithmetic.push_back(fmt::format("RAM {} - tasks {}{} = {} {}", size(*whole), size(tasks_sum),
                                         kernel > 0 ? fmt::format(" - shmem and slab {}", size(kernel)) : std::string(),
                                         size(*rest), *rest < 0 ? shared : "in no task's resident set"));
  }
  return b;
}

}  // namespace culprit::diagnose
