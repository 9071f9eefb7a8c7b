// Ledger arithmetic. total = free + job + foreign + unknown holders + unexplained; the
// unexplained rest is memory no listed process accounts for (on unified memory: the host's own
// use — OS, page cache, CPU processes). Snapshots taken at other instants can disagree; the
// rest is clamped at zero and the report says so.
#include "ledger.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "culprit/core/size.hpp"

namespace culprit::diagnose {
namespace {

struct Holder {
  std::int64_t pid = 0;
  std::int64_t bytes = 0;
  std::string name, role, why, container;
  std::string type;         // nvidia-smi's C / G / C+G ('' when the error quoted it)
  bool from_error = false;  // quoted by the error message itself
};

std::string first_name(const std::string& names_json) {
  // names is a JSON array of strings, longest first: take the first element.
  const auto a = names_json.find('"');
  if (a == std::string::npos) return {};
  std::string out;
  for (size_t i = a + 1; i < names_json.size(); ++i) {
    if (names_json[i] == '\\' && i + 1 < names_json.size()) { out += names_json[++i]; continue; }
    if (names_json[i] == '"') break;
    out += names_json[i];
  }
  return out;
}

/// On unified memory the rest of the pool is host memory: the largest resident processes `ps`
/// listed on the host (not GPU holders, not the failing process) take their share of it, each
/// a `host` entry, capped so the rest never goes below zero. Returns the bytes so placed.
std::int64_t unified_host_processes(store::Database& db, Budget& b, const std::string& host,
                                    const std::vector<Holder>& holders, std::optional<std::int64_t> self_pid,
                                    std::int64_t rest) {
  if (!b.unified || rest <= 0) return 0;
  std::set<std::int64_t> counted;
  for (const auto& h : holders) counted.insert(h.pid);
  if (self_pid) counted.insert(*self_pid);
  auto rows = db.query(fmt::format(
      "SELECT pid, names, rss FROM processes WHERE host = {} AND rss > 0 ORDER BY rss DESC LIMIT 16", store::sql_literal(host)));
  std::int64_t placed = 0;
  int listed = 0;
  for (const auto& r : rows.rows) {
    const auto pid = r["pid"].as_int().value_or(0);
    if (counted.count(pid)) continue;
    const std::int64_t bytes = std::min(r["rss"].as_int().value_or(0), rest - placed);
    if (bytes <= 0 || listed >= 5) break;
    const std::string name = first_name(r["names"].as_text());
    b.entries.push_back({fmt::format("host: pid {}{} (resident memory, ps)", pid, name.empty() ? "" : " " + name),
                         "host", pid, bytes});
    placed += bytes;
    ++listed;
  }
  return placed;
}

}  // namespace

LedgerResult build_ledger(store::Database& db, std::int64_t event_id) {
  LedgerResult out;
  auto ev = db.query(fmt::format(
      "SELECT e.id, e.host, e.ts, e.pid, e.line, e.source_id, s.name AS source, e.message,"
      " json_extract(e.fields,'$.requested_bytes') AS requested, json_extract(e.fields,'$.total_bytes') AS total,"
      " json_extract(e.fields,'$.free_bytes') AS free, json_extract(e.fields,'$.self_bytes') AS self,"
      " json_extract(e.fields,'$.allocated_bytes') AS allocated, json_extract(e.fields,'$.reserved_bytes') AS reserved,"
      " coalesce(json_extract(e.fields,'$.gpu'), json_extract(e.fields,'$.cuda_dev')) AS gpu, e.rank"
      " FROM events e JOIN sources s ON s.id = e.source_id WHERE e.id = {}",
      event_id));
  if (ev.rows.empty()) return out;
  const auto& e = ev.rows[0];
  Budget& b = out.budget;
  b.host = e["host"].as_text();
  b.gpu = e["gpu"].is_null() ? std::optional<int>() : static_cast<int>(e["gpu"].as_int().value_or(0));
  b.requested = e["requested"].as_int();
  b.total = e["total"].as_int();
  b.free = e["free"].as_int();
  b.torch_allocated = e["allocated"].as_int();
  b.torch_reserved = e["reserved"].as_int();
  const auto self_bytes = e["self"].as_int();
  auto self_pid = e["pid"].as_int();
  if (!self_pid && !e["rank"].is_null()) {
    // A `[rankN]:` traceback names no pid; torchrun's failure summary on the same host pairs
    // that global rank with the worker's pid. Only a single answer is taken.
    auto by_rank = db.query(fmt::format(
        "SELECT DISTINCT pid FROM events WHERE host = {} AND rule = 'torchrun_child_failed' AND rank = {}"
        " AND pid IS NOT NULL LIMIT 2",
        store::sql_literal(e["host"].as_text()), e["rank"].as_int().value_or(-1)));
    if (by_rank.rows.size() == 1) self_pid = by_rank.rows[0]["pid"].as_int();
  }
  const auto ts = e["ts"].as_double();
  const std::string host = b.host;
  const int gpu = b.gpu.value_or(0);

  auto unified = db.query(fmt::format("SELECT unified_memory FROM hosts WHERE name={}", store::sql_literal(host)));
  b.unified = !unified.rows.empty() && unified.rows[0]["unified_memory"].as_int().value_or(0) == 1;

  // Holders quoted by the error (the snapshot the parser made from the message: same source
  // and line) come first; then the nearest table snapshot of this host and GPU fills names and
  // adds holders the message did not list.
  std::map<std::int64_t, Holder> holders;
  auto from_error = db.query(fmt::format(
      "SELECT gp.pid, gp.mem_used FROM gpu_snapshots g JOIN gpu_processes gp ON gp.snapshot_id = g.id"
      " WHERE g.source_id = {} AND g.line BETWEEN {} - 200 AND {} + 200 AND g.host = {}",
      e["source_id"].as_int().value_or(0), e["line"].as_int().value_or(0), e["line"].as_int().value_or(0), store::sql_literal(host)));
  for (const auto& r : from_error.rows) {
    Holder h;
    h.pid = r["pid"].as_int().value_or(0);
    h.bytes = r["mem_used"].as_int().value_or(0);
    h.from_error = true;
    holders[h.pid] = h;
  }
  const std::string order = ts ? fmt::format("CASE WHEN g.ts IS NULL THEN 1e12 ELSE abs(g.ts - ({})) END", *ts) : "g.id";
  auto snap = db.query(fmt::format(
      "SELECT g.id, g.line, g.ts, g.mem_used, g.mem_total, g.unified, g.source_id, s.name AS source FROM gpu_snapshots g"
      " JOIN sources s ON s.id = g.source_id WHERE g.host = {} AND g.gpu = {} AND s.format <> 'app_log'"
      " ORDER BY {} LIMIT 1",
      store::sql_literal(host), gpu, order));
  bool mig = false;  // the GPU is split into MIG instances (the table's own GPU row or MIG box)
  if (!snap.rows.empty()) {
    const auto& s = snap.rows[0];
    mig = !db.query(fmt::format("SELECT 1 FROM events WHERE kind = 'gpu_snapshot' AND source_id = {} AND {} BETWEEN line AND "
                                "line_end AND (json_extract(fields, '$.gpu{}_mig_mode') = 'Enabled' OR "
                                "json_extract(fields, '$.mig_devices') > 0) LIMIT 1",
                                s["source_id"].as_int().value_or(0), s["line"].as_int().value_or(0), gpu))
               .rows.empty();
    if (s["unified"].as_int().value_or(0)) b.unified = true;
    if (!b.total) b.total = s["mem_total"].as_int();
    if (!b.free && b.total && s["mem_used"].as_int()) b.free = *b.total - *s["mem_used"].as_int();
    out.evidence.push_back({s["source"].as_text(), s["line"].as_int().value_or(0),
                            "nvidia-smi snapshot of GPU " + std::to_string(gpu), host, s["ts"].as_double(), 0});
    auto procs = db.query(fmt::format("SELECT pid, name, type, mem_used FROM gpu_processes WHERE snapshot_id = {}",
                                      s["id"].as_int().value_or(0)));
    for (const auto& r : procs.rows) {
      const auto pid = r["pid"].as_int().value_or(0);
      auto& h = holders[pid];
      h.pid = pid;
      h.type = r["type"].as_text();
      if (!h.from_error) h.bytes = r["mem_used"].as_int().value_or(0);
    }
  }
  // Unified memory with no capacity from the GPU: the host's memory is the pool.
  if (!b.total && b.unified) {
    auto mem = db.query(fmt::format("SELECT total, available FROM host_memory WHERE host = {} ORDER BY line LIMIT 1", store::sql_literal(host)));
    if (!mem.rows.empty()) {
      b.total = mem.rows[0]["total"].as_int();
      if (!b.free) b.free = mem.rows[0]["available"].as_int();
    }
  }
  // Names and roles from the process registry.
  for (auto& [pid, h] : holders) {
    auto p = db.query(fmt::format("SELECT names, role, role_why, container FROM processes WHERE host = {} AND pid = {}",
                                  store::sql_literal(host), pid));
    if (!p.rows.empty()) {
      h.name = first_name(p.rows[0]["names"].as_text());
      h.role = p.rows[0]["role"].as_text();
      h.why = p.rows[0]["role_why"].as_text();
      h.container = p.rows[0]["container"].as_text();
    }
    if (self_pid && pid == *self_pid) h.role = "job";
    // PyTorch lists the failing process as "this process", every other pid as another process.
    if (h.role.empty() || h.role == "unknown") {
      if (h.from_error && self_bytes && h.role.empty()) h.role = "unknown";
      if (h.role.empty()) h.role = "unknown";
    }
  }
  // A `[rank0]:` line names no pid: the one holder on this GPU (job or unknown, never foreign)
  // whose memory is what the error says "this process" has (within 2%) is the failing process,
  // not a second holder of the same bytes.
  if (!self_pid && self_bytes && *self_bytes > 0) {
    std::optional<std::int64_t> match;
    int matches = 0;
    for (const auto& [pid, h] : holders) {
      if (h.role == "foreign" || h.from_error) continue;
      const std::int64_t diff = h.bytes > *self_bytes ? h.bytes - *self_bytes : *self_bytes - h.bytes;
      if (diff <= *self_bytes / 50) {
        match = pid;
        ++matches;
      }
    }
    if (matches == 1) self_pid = match;
  }
  // On a MIG GPU the table lists every instance's processes under one GPU index, and a process in
  // another instance does not use this one's memory: only the failing process is kept (found by
  // pid or by its "this process has" size); the others are left out of the sums and the culprit.
  if (mig) {
    std::int64_t others = 0, other_bytes = 0;
    for (auto it = holders.begin(); it != holders.end();) {
      if (self_pid && it->first == *self_pid) {
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
                                         gpu, others, core::format_size(other_bytes)));
  }
  // The failing process's own memory: what the error says it has; else its row in the holder
  // list; else (PyTorch 1.x wording) what PyTorch reserved — a lower bound, without the CUDA
  // context — rather than nothing, which would leave it all "unexplained".
  std::optional<std::int64_t> self_held = self_bytes;
  std::vector<std::string> self_notes;  // shown in the ledger row: which process, on what basis
  if (self_pid) self_notes.push_back(fmt::format("pid {}", *self_pid));
  if (!self_held && self_pid && holders.count(*self_pid)) {
    self_held = holders[*self_pid].bytes;
  } else if (!self_held && b.torch_reserved) {
    self_held = b.torch_reserved;
    self_notes.emplace_back("PyTorch reserved; its CUDA context is not counted");
  }
  if (self_pid) holders.erase(*self_pid);  // counted as "this process" below

  std::int64_t job = self_held.value_or(0), foreign = 0, unknown = 0;
  if (self_held)
    b.entries.push_back({self_notes.empty() ? std::string("job: the failing process")
                                            : fmt::format("job: the failing process ({})", fmt::join(self_notes, ", ")),
                         "job", self_pid, *self_held});
  std::vector<Holder> sorted;
  for (auto& [pid, h] : holders) sorted.push_back(h);
  std::sort(sorted.begin(), sorted.end(), [](const Holder& a, const Holder& c) { return a.bytes > c.bytes; });
  for (const auto& h : sorted) {
    const std::string label = fmt::format("{}: pid {}{}", h.role, h.pid, h.name.empty() ? "" : " " + h.name);
    b.entries.push_back({label, h.role, h.pid, h.bytes});
    if (h.role == "job") job += h.bytes;
    else if (h.role == "foreign") foreign += h.bytes;
    else unknown += h.bytes;
  }
  // Known only when something measured them: the error's own "this process has" or a holder
  // list (nvidia-smi); with neither, the report says nothing rather than "0 bytes".
  const bool job_seen = self_held || std::any_of(sorted.begin(), sorted.end(), [](const Holder& h) { return h.role == "job"; });
  if (job_seen) b.job = job;
  if (!sorted.empty()) b.foreign = foreign;
  if (b.requested && b.free) b.shortfall = *b.requested - *b.free;
  if (b.total && b.free) {
    std::int64_t rest = *b.total - *b.free - job - foreign - unknown;
    const bool negative = rest < 0;
    if (negative) rest = 0;
    const std::int64_t host_procs = unified_host_processes(db, b, host, sorted, self_pid, rest);
    rest -= host_procs;
    b.unexplained = rest;
    b.entries.push_back({b.unified ? "unexplained (unified memory: host OS, page cache, CPU processes)"
                                   : "unexplained (driver, other containers, not listed)",
                         "rest", std::nullopt, rest});
    auto fs = [](std::optional<std::int64_t> v) { return v ? core::format_size(*v) : std::string("?"); };
    b.arithmetic.push_back(fmt::format("total {} = free {} + job {} + foreign {}{}{} + unexplained {}", fs(b.total),
                                       fs(b.free), fs(job), fs(foreign),
                                       unknown ? " + unattributed " + core::format_size(unknown) : std::string(),
                                       host_procs ? " + host processes " + core::format_size(host_procs) : std::string(),
                                       fs(rest)));
    if (negative)
      b.arithmetic.push_back("(the snapshots were taken at different instants: the listed holders exceed "
                             "total - free, so the rest is shown as 0)");
  }
  if (b.shortfall)
    b.arithmetic.push_back(fmt::format("shortfall = requested {} - free {} = {}", core::format_size(*b.requested),
                                       core::format_size(*b.free), core::format_size(*b.shortfall)));

  // The culprit: the foreign holder covering the shortfall (largest first) — if it is more than
  // a bystander: a display server (type G) never is, and a holder under both 1 GiB and a tenth
  // of the GPU is not when the job itself fills the GPU (a 600 MiB notebook next to a 22 GiB
  // server did not cause the OOM, even if freeing it would have made room).
  const std::int64_t need = b.shortfall.value_or(1);
  const auto significant = [&](std::int64_t bytes) {
    return bytes >= (std::int64_t{1} << 30) || (b.total && bytes * 10 >= *b.total);
  };
  for (const auto& h : sorted) {
    if (h.role != "foreign" || h.type == "G" || !significant(h.bytes)) continue;
    ProcessRef ref{host, h.pid, h.name, "foreign", h.why, h.container};
    if (h.bytes >= need) {
      out.culprit = ref;
      out.confidence = Confidence::high;
      out.reason = fmt::format("pid {} {} holds {}, more than the {} shortfall", h.pid, h.name,
                               core::format_size(h.bytes), b.shortfall ? core::format_size(*b.shortfall) : "?");
      if (b.shortfall) b.arithmetic.push_back(fmt::format("foreign pid {} holds {} >= shortfall {}: freeing it would have let the allocation succeed",
                                                          h.pid, core::format_size(h.bytes), core::format_size(*b.shortfall)));
      return out;
    }
  }
  std::int64_t compute_foreign = 0;  // without display servers
  for (const auto& h : sorted)
    if (h.role == "foreign" && h.type != "G") compute_foreign += h.bytes;
  if (compute_foreign > 0 && compute_foreign >= need && significant(compute_foreign)) {
    for (const auto& h : sorted)
      if (h.role == "foreign" && h.type != "G") {
        out.culprit = ProcessRef{host, h.pid, h.name, "foreign", h.why, h.container};
        break;
      }
    out.confidence = Confidence::medium;
    out.reason = "foreign processes together hold more than the shortfall";
    return out;
  }
  for (const auto& h : sorted) {
    if (h.role != "unknown" || h.bytes < need || h.bytes < (1LL << 30)) continue;
    out.culprit = ProcessRef{host, h.pid, h.name, "unknown", h.why, h.container};
    out.confidence = Confidence::medium;
    out.reason = fmt::format("pid {} holds {} on the same GPU; no log says whether it belongs to the job", h.pid,
                             core::format_size(h.bytes));
    return out;
  }
  // Nothing foreign explains it: the job asked for more than the GPU had.
  std::string name;
  if (self_pid) {
    auto p = db.query(fmt::format("SELECT names FROM processes WHERE host={} AND pid={}", store::sql_literal(host), *self_pid));
    if (!p.rows.empty()) name = first_name(p.rows[0]["names"].as_text());
  }
  out.culprit = ProcessRef{host, self_pid, name, "job", "the job's own allocations exhausted the GPU", ""};
  out.confidence = (b.total && b.free) ? Confidence::high : Confidence::medium;
  if (foreign > 0 && foreign >= need && b.shortfall) {
    // Bystanders made the difference, but the job's own footprint is the cause.
    out.confidence = Confidence::medium;
    out.reason = fmt::format("the job holds {} of the GPU; other processes hold only {} — without them the request "
                             "would have fit, but they are small next to the job's own footprint",
                             core::format_size(job), core::format_size(foreign));
    b.arithmetic.push_back(fmt::format("other processes hold {} >= shortfall {}, but they are display servers or each "
                                       "under 1 GiB and a tenth of the GPU: bystanders, not the cause",
                                       core::format_size(foreign), core::format_size(*b.shortfall)));
    return out;
  }
  // Without a holder list or a capacity nothing is known of other processes: say so, rather
  // than claim none holds enough.
  if (!sorted.empty()) {
    out.reason = "no other process holds enough memory to explain the failure: the job itself needs more than the GPU has";
  } else if (mig && b.total && self_held && *self_held > 0) {
    out.reason = fmt::format("the job itself holds {} of its MIG instance's {}; the processes of the GPU's other "
                             "MIG instances do not use that memory",
                             core::format_size(*self_held), core::format_size(*b.total));
  } else if (b.total && self_held && *self_held > 0) {
    out.reason = fmt::format("the job itself holds {} of the GPU's {}; the inputs hold no process list of that GPU, so "
                             "another holder could only hide in the {} not accounted for",
                             core::format_size(*self_held), core::format_size(*b.total),
                             core::format_size(b.unexplained.value_or(0)));
  } else {
    out.reason = "no other holder of that GPU is known (the inputs hold no process list of it), so the likeliest "
                 "culprit is the job itself, asking for more than the GPU had free";
  }
  return out;
}

}  // namespace culprit::diagnose
