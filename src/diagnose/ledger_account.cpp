// The GPU ledger's arithmetic over plain records (see ledger_account.hpp): who the failing
// process is and what it holds, the other holders by role, and the sum
// total = free + job + foreign + unattributed (role-unknown holders) + host processes + kernel
// (page cache) + unexplained, exactly; the unexplained rest is memory no listed process accounts
// for (on unified memory: the host's own use — OS, CPU processes). Snapshots taken at other
// instants can disagree: the rest is then negative (the listed holders exceed total - free), the
// report says so, and the rules reason as if it were zero. The culprit rules read the result
// (ledger_rules.cpp).
#include "ledger_account.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "culprit/core/size.hpp"

namespace culprit::diagnose {

std::string worked_sum(const Budget& b) {
  const auto nonzero = [](const std::optional<std::int64_t>& v) { return v && *v != 0; };
  return fmt::format("total {} = free {} + job {} + foreign {}{}{}{} + unexplained {}", fs(b.total), fs(b.free),
                     fs(b.job.value_or(0)), fs(b.foreign.value_or(0)),
                     nonzero(b.unattributed) ? " + unattributed " + core::format_size(*b.unattributed) : std::string(),
                     nonzero(b.host_processes) ? " + host processes " + core::format_size(*b.host_processes) : std::string(),
                     nonzero(b.kernel) ? " + kernel (page cache) " + core::format_size(*b.kernel) : std::string(),
                     fs(b.unexplained));
}

std::string fs(std::optional<std::int64_t> v) { return v ? core::format_size(*v) : std::string("?"); }

bool LedgerAccount::significant(std::int64_t bytes) const {
  return bytes >= kGiB || (out.budget.total && bytes * 10 >= *out.budget.total);
}

namespace {
std::int64_t absdiff(std::int64_t a, std::int64_t b) { return a > b ? a - b : b - a; }

/// In a container PyTorch cannot match itself in NVML's list (another pid namespace), so the
/// list lacks "this process": the failing process is the one entry its own figures account for.
/// Its reserved pool lies inside its NVML usage, so that entry holds at least the reserved bytes
/// (2% slack for rounding) and at most reserved + the context bound; the closest such entry, if
/// it is the only one within the bound, is the failing process. Returns its pid.
std::optional<std::int64_t> match_own_figures(const std::vector<GpuHolder>& holders, std::int64_t own) {
  if (own <= 0) return std::nullopt;
  std::optional<std::int64_t> best;
  int within = 0;
  for (const auto& h : holders) {
    if (h.role == "foreign") continue;
    if (h.bytes + own / 50 < own || h.bytes > own + kContextBound) continue;
    ++within;
    best = h.pid;
  }
  if (within == 1) return best;
  // Several candidates: only a lone entry at least as large as the pool can be the process.
  int larger = 0;
  for (const auto& h : holders)
    if (h.role != "foreign" && h.bytes + own / 50 >= own) ++larger, best = h.pid;
  if (larger == 1) return best;
  return std::nullopt;
}

}  // namespace

LedgerAccount account_ledger(const GpuLedgerInput& in) {
  LedgerAccount a;
  a.in = &in;
  LedgerResult& out = a.out;
  Budget& b = out.budget;
  b.host = in.host;
  b.gpu = in.gpu;
  b.unified = in.unified;
  b.domain = in.unified ? "unified" : "gpu";
  b.total = in.capacity;
  b.free = in.free;
  b.requested = in.requested;
  b.torch_allocated = in.torch_allocated;
  b.torch_reserved = in.torch_reserved;

  std::map<std::int64_t, Holder> holders;
  for (const auto& h : in.holders) {
    Holder x;
    static_cast<GpuHolder&>(x) = h;
    if (x.role.empty()) x.role = "unknown";
    holders[h.pid] = x;
  }
  std::optional<std::int64_t> self_pid = in.self_pid;
  std::vector<std::string> self_notes;  // shown in the ledger row: which process, on what basis

  // The framework's own figure for what the process holds: PyTorch's reserved pool, else its
  // allocated bytes.
  std::optional<std::int64_t> own = in.torch_reserved;
  if (in.torch_allocated && (!own || *in.torch_allocated > *own)) own = in.torch_allocated;
  // NVML's "this process has 0 bytes" next to gigabytes PyTorch allocated is NVML failing to
  // attribute (container, driver quirk), not an empty process: PyTorch's figure wins.
  std::optional<std::int64_t> self_reported = in.self_reported;
  if (self_reported && own && *self_reported + *own / 50 < *own) {
    self_notes.push_back(fmt::format("NVML said {}, below PyTorch's own {}", fs(self_reported), fs(own)));
    self_reported.reset();
  }

  // A `[rank0]:` line names no pid: the one holder (not foreign, not quoted by the error) whose
  // memory is what the error says "this process" has (within 2%) is the failing process.
  if (!self_pid && self_reported && *self_reported > 0) {
    std::optional<std::int64_t> match;
    int matches = 0;
    for (const auto& [pid, h] : holders) {
      if (h.role == "foreign" || h.from_error) continue;
      if (absdiff(h.bytes, *self_reported) <= *self_reported / 50) match = pid, ++matches;
    }
    if (matches == 1) self_pid = match;
  }
  // The failing process as NVML lists it (its host pid): the victim's pid. When the error's list
  // has no "this process", the entry the process's own figures account for.
  std::optional<std::int64_t> victim_pid = self_pid;
  if (!self_reported && own && (!self_pid || !holders.count(*self_pid))) {
    std::vector<GpuHolder> listed;
    for (const auto& [pid, h] : holders) listed.push_back(h);
    if (auto m = match_own_figures(listed, *own)) {
      victim_pid = m;
      if (!self_pid) self_pid = m;
      else if (*self_pid != *m) self_notes.push_back(fmt::format("pid {} in the logs' namespace", *self_pid));
      self_notes.push_back(fmt::format("NVML's pid {}, the entry PyTorch's own {} accounts for", *m, fs(own)));
      holders[*m].role = "job";
    }
  }

  // On a MIG GPU the table lists every instance's processes under one GPU index, and a process in
  // another instance does not use this one's memory: only the failing process is kept.
  if (in.mig) {
    std::int64_t others = 0, other_bytes = 0;
    for (auto it = holders.begin(); it != holders.end();) {
      if (victim_pid && it->first == *victim_pid) {
        ++it;
        continue;
      }
      ++others;
      other_bytes += it->second.bytes;
      it = holders.erase(it);
    }
    if (others > 0)
      b.arithmetic.push_back(fmt::format("GPU {} is split into MIG instances: {} process(es) holding {} in all are left out, "
                                         "since the table does not say which of them share the failing process's instance",
                                         in.gpu.value_or(0), others, core::format_size(other_bytes)));
  }

  // The failing process's own memory: NVML's "this process has"; else its row in the holder list;
  // else (PyTorch 1.x, TensorFlow) its framework's figure — a lower bound without the context.
  std::optional<std::int64_t> self_held = self_reported;
  bool bounded = false;  // self_held lacks the context: allow kContextBound on top
  const std::int64_t key = victim_pid.value_or(-1);
  if (!self_held && holders.count(key) && (!own || holders[key].bytes + *own / 50 >= *own)) {
    self_held = holders[key].bytes;
  } else if (!self_held && own) {
    self_held = own;
    bounded = true;
    self_notes.emplace_back("its framework's own figure; its CUDA context is not counted");
  }
  if (in.stage != FailureStage::running && !self_held) {
    self_held = 0;  // before its first allocation the process holds its context only
    bounded = true;
    self_notes.emplace_back("before its first allocation: its CUDA context only");
  }
  if (victim_pid) self_notes.insert(self_notes.begin(), fmt::format("pid {}", *victim_pid));
  std::string self_name = in.self_name;
  if (holders.count(key)) {
    if (self_name.empty()) self_name = holders[key].name;
    holders.erase(key);  // counted as "this process" below
  }
  if (self_pid && *self_pid != key) holders.erase(*self_pid);
  if (bounded) b.context_bound = kContextBound;

  // Small holders next to a multi-rank job are its sibling ranks' CUDA contexts, not foreign.
  for (auto& [pid, h] : holders) {
    if (h.role == "unknown" && in.multi_rank && h.bytes <= kContextBound && h.name.empty()) {
      h.role = "job";
      h.why = "a context-sized holder next to a multi-rank job: a sibling rank's CUDA context";
      h.group = "sibling ranks' contexts";
    }
    if (h.group.empty()) h.group = h.name.empty() ? fmt::format("pid {}", pid) : h.name;
  }

  std::int64_t job = self_held.value_or(0), foreign = 0, unknown = 0;
  if (self_held)
    b.entries.push_back({self_notes.empty() ? std::string("job: the failing process")
                                            : fmt::format("job: the failing process ({})", fmt::join(self_notes, ", ")),
                         "job", victim_pid, *self_held});
  std::vector<Holder> sorted;
  for (auto& [pid, h] : holders) sorted.push_back(h);
  std::sort(sorted.begin(), sorted.end(), [](const Holder& a, const Holder& c) { return a.bytes > c.bytes; });
  for (const auto& h : sorted) {
    // The label's word is the sum's term for its role (job, foreign, unattributed), one voice.
    const std::string label = fmt::format("{}: pid {}{}", h.role == "job" || h.role == "foreign" ? h.role : "unattributed",
                                          h.pid, h.name.empty() ? "" : " " + h.name);
    b.entries.push_back({label, h.role, h.pid, h.bytes});
    if (h.role == "job") job += h.bytes;
    else if (h.role == "foreign") foreign += h.bytes;
    else unknown += h.bytes;
  }
  // Holder groups: the failing process, then one group per (role, program).
  {
    std::map<std::pair<std::string, std::string>, HolderGroup> groups;
    for (const auto& h : sorted) {
      auto& g = groups[{h.role, h.group}];
      g.group = h.group;
      g.role = h.role;
      g.pids.push_back(h.pid);
      g.bytes += h.bytes;
    }
    if (self_held) {
      HolderGroup self{"the failing process", "job", {}, *self_held};
      if (victim_pid) self.pids.push_back(*victim_pid);
      b.holders.push_back(self);
    }
    std::vector<HolderGroup> rest;
    for (auto& [k, g] : groups) rest.push_back(g);
    std::sort(rest.begin(), rest.end(), [](const HolderGroup& a, const HolderGroup& c) { return a.bytes > c.bytes; });
    for (auto& g : rest) b.holders.push_back(g);
  }
  const bool job_seen = self_held || std::any_of(sorted.begin(), sorted.end(), [](const Holder& h) { return h.role == "job"; });
  if (job_seen) b.job = job;
  if (!sorted.empty()) b.foreign = foreign, b.unattributed = unknown;
  if (b.requested && b.free) b.shortfall = *b.requested - *b.free;
  std::optional<std::int64_t> rest;  // unexplained (never below 0), before host processes take their share
  if (b.total && b.free) {
    std::int64_t r = *b.total - *b.free - job - foreign - unknown;
    const std::int64_t excess = r < 0 ? -r : 0;  // listed holders beyond total - free
    if (excess) r = 0;
    rest = r;
    std::int64_t host_procs = 0;
    if (b.unified && r > 0) {
      std::set<std::int64_t> counted;
      for (const auto& h : sorted) counted.insert(h.pid);
      if (victim_pid) counted.insert(*victim_pid);
      int listed = 0;
      for (const auto& p : in.host_processes) {
        if (counted.count(p.pid)) continue;
        const std::int64_t bytes = std::min(p.rss, r - host_procs);
        if (bytes <= 0 || listed >= 5) break;
        b.entries.push_back({fmt::format("host processes: pid {}{} (resident memory, ps)", p.pid, p.name.empty() ? "" : " " + p.name),
                             "host", p.pid, bytes});
        b.holders.push_back({p.name.empty() ? fmt::format("pid {}", p.pid) : p.name, "host", {p.pid}, bytes});
        host_procs += bytes;
        ++listed;
      }
    }
    r -= host_procs;
    // Unified memory: the page cache is kernel-held memory of the pool (what `free` counts as
    // buff/cache), capped at what is left unexplained (the snapshots are of other instants).
    std::int64_t cache = 0;
    if (b.unified && in.page_cache && *in.page_cache > 0 && r > 0) {
      cache = std::min(*in.page_cache, r);
      b.entries.push_back({"kernel: page cache (buff/cache)", "kernel", std::nullopt, cache});
      b.holders.push_back({"page cache", "kernel", {}, cache});
      r -= cache;
    }
    if (b.unified) b.host_processes = host_procs, b.kernel = cache;
    // The rest as the sum leaves it: negative by the excess when the snapshots disagree.
    b.unexplained = r - excess;
    b.entries.push_back({b.unified ? (cache ? "unexplained (unified memory: host OS, CPU processes)"
                                            : "unexplained (unified memory: host OS, page cache, CPU processes)")
                                   : "unexplained (driver, other containers, not listed)",
                         "rest", std::nullopt, *b.unexplained});
    a.sum_line = b.arithmetic.size();
    b.arithmetic.push_back(worked_sum(b));
    if (cache)
      b.arithmetic.push_back(fmt::format("the page cache held {} of the unified pool (free's buff/cache{}); "
                                         "CUDA's free figure does not count it",
                                         core::format_size(*in.page_cache),
                                         cache < *in.page_cache ? fmt::format(", {} of it within the rest", core::format_size(cache))
                                                                : std::string()));
    if (excess)
      b.arithmetic.push_back(fmt::format("(the snapshots were taken at different instants: the listed holders exceed "
                                         "total - free by {}, so the rest is negative)",
                                         core::format_size(excess)));
  }
  if (b.total && !b.free) {
    // Capacity without a free figure (an XLA / NPU message names only the device's size): the
    // rest is what no holder accounts for, free memory included, so the sum still holds.
    const std::int64_t r = *b.total - job - foreign - unknown;
    b.unexplained = r;
    b.entries.push_back({"not accounted for (free memory included: the inputs give no free figure)", "rest", std::nullopt, r});
    b.arithmetic.push_back(fmt::format("total {} = job {} + foreign {}{} + not accounted for {} (free unknown)", fs(b.total),
                                       fs(job), fs(foreign), unknown ? " + unattributed " + core::format_size(unknown) : std::string(),
                                       core::format_size(r)));
  }
  if (b.shortfall)
    b.arithmetic.push_back(fmt::format("shortfall = requested {} - free {} = {}", core::format_size(*b.requested),
                                       core::format_size(*b.free), core::format_size(*b.shortfall)));

  if (victim_pid || !self_name.empty())
    out.victim = ProcessRef{in.host, victim_pid, self_name, "job", "its allocation failed", ""};
  a.sorted = std::move(sorted);
  a.self_reported = self_reported;
  a.own = own;
  a.self_held = self_held;
  a.bounded = bounded;
  a.victim_pid = victim_pid;
  a.self_name = self_name;
  a.job = job;
  a.foreign = foreign;
  a.unknown = unknown;
  a.rest = rest;
  // A holder's memory counts toward the failure once it is at least the shortfall.
  a.need = b.shortfall.value_or(1);
  if (rest && self_held) a.beyond = *rest - (bounded ? kContextBound : 0);
  return a;
}

}  // namespace culprit::diagnose
