// The diagnosis loader: every SQL read the decisions below the engine need, run once per failure
// event, into plain records — the GPU ledger's input (its arithmetic and policy are
// ledger_account.cpp / ledger_rules.cpp), the host OOM record (host_ledger.cpp), the advice's
// facts (advice.cpp). Those decide over the records and never see the database.
#include "load.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/core/job_evidence.hpp"
#include "culprit/core/parser_rules.hpp"
#include "culprit/core/size.hpp"

namespace culprit::diagnose {
namespace {

/// The failing process when its error line names no pid but the job's log names exactly one
/// worker. vLLM's and Ray's `(Name pid=N)` prefixer wraps the worker's Python stdout / stderr;
/// c10's glog warnings (`[rank0]:[W… CUDACachingAllocator.cpp…] memory allocation failed with
/// OOM …`) and other native writes go straight to fd 2 and come out bare. When one worker pid is
/// all the host's logs name (vLLM worker / engine-core / Ray worker prefixes, V0's engine process
/// as its API server records it; not the API server itself, which allocates no GPU memory), that
/// worker printed them. Two or more: no guess.
std::optional<std::int64_t> sole_worker_pid(store::Database& db, const std::string& host) {
  auto w = db.query(fmt::format(
      "SELECT DISTINCT pid FROM processes WHERE host = {} AND (instr(job_evidence, {}) OR instr(job_evidence, {})"
      " OR instr(job_evidence, {}) OR instr(job_evidence, {})) LIMIT 2",
      store::sql_literal(host), store::sql_literal(core::job_evidence::kVllmWorkerPrefix),
      store::sql_literal(core::job_evidence::kRayWorkerPrefix),
      store::sql_literal(core::job_evidence::kVllmEngineCorePrefix),
      store::sql_literal(core::job_evidence::kVllmEngineProcess)));
  if (w.rows.size() != 1) return std::nullopt;
  return w.rows[0]["pid"].as_int();
}

}  // namespace

GpuLedgerInput load_ledger_input(store::Database& db, std::int64_t event_id, std::vector<Evidence>& evidence) {
  GpuLedgerInput in;
  auto ev = db.query(fmt::format(
      "SELECT e.id, e.host, e.ts, e.pid, e.comm, e.line, e.source_id, e.kind, e.rule, s.name AS source, e.message,"
      " json_extract(e.fields,'$.requested_bytes') AS requested, json_extract(e.fields,'$.total_bytes') AS total,"
      " json_extract(e.fields,'$.free_bytes') AS free, json_extract(e.fields,'$.self_bytes') AS self,"
      " json_extract(e.fields,'$.allocated_bytes') AS allocated, json_extract(e.fields,'$.reserved_bytes') AS reserved,"
      " coalesce(json_extract(e.fields,'$.gpu'), json_extract(e.fields,'$.cuda_dev')) AS gpu, e.rank,"
      " {} AS startup_check FROM events e JOIN sources s ON s.id = e.source_id WHERE e.id = {}",
      core::fact::provides_sql(core::fact::kStartupCheck), event_id));
  if (ev.rows.empty()) return in;
  const auto& e = ev.rows[0];
  in.host = e["host"].as_text();
  in.gpu = e["gpu"].is_null() ? std::optional<int>() : static_cast<int>(e["gpu"].as_int().value_or(0));
  in.requested = e["requested"].as_int();
  in.capacity = e["total"].as_int();
  in.free = e["free"].as_int();
  in.torch_allocated = e["allocated"].as_int();
  in.torch_reserved = e["reserved"].as_int();
  in.self_reported = e["self"].as_int();
  in.multi_rank = !e["rank"].is_null();
  // A start-up free-memory check (its signal provides `startup_check`): the engine holds only its
  // context there.
  if (e["kind"].as_text() == core::kind::kStartupMemCheck && e["startup_check"].as_int().value_or(0) != 0)
    in.stage = FailureStage::startup_check;
  const std::string host = in.host;
  const std::int64_t source_id = e["source_id"].as_int().value_or(0), line = e["line"].as_int().value_or(0);

  auto self_pid = e["pid"].as_int();
  // A line before the error that names the process where it was raised (a signal providing
  // `failing_pid`: Ray re-raises a worker's exception in the driver as `RayTaskError(...):
  // ray::Actor.method() (pid=N, ip=…)`): the one whose allocation failed.
  auto ray = db.query(fmt::format(
      "SELECT json_extract(e.fields, '$.raised_pid') AS pid, json_extract(e.fields, '$.name') AS name FROM events e"
      " WHERE e.source_id = {} AND {} AND e.line BETWEEN {} - 60 AND {} ORDER BY e.line DESC LIMIT 1",
      source_id, core::fact::provides_sql(core::fact::kFailingPid), line, line));
  if (!ray.rows.empty() && ray.rows[0]["pid"].as_int()) {
    self_pid = ray.rows[0]["pid"].as_int();
    in.self_name = ray.rows[0]["name"].as_text();
  }
  if (!self_pid && !e["rank"].is_null()) {
    // A `[rankN]:` traceback names no pid; torchrun's failure summary on the same host (its
    // ChildFailedError block, or a line that provides `rank_pid`: `failed (exitcode: 1)
    // local_rank: N (pid: P)`) pairs the rank with its pid — a unique match only. A local rank
    // equals the global one only on the node whose ranks start at 0, and never matches another
    // node's global rank (those are at least the node's rank count), so the host decides.
    const std::int64_t rank = e["rank"].as_int().value_or(-1);
    auto by_rank = db.query(fmt::format(
        "SELECT DISTINCT e.pid FROM events e WHERE e.host = {} AND e.pid IS NOT NULL AND"
        " ((e.rule = {} AND e.rank = {}) OR ({} AND json_extract(e.fields, '$.local_rank') = {})) LIMIT 2",
        store::sql_literal(host), store::sql_literal(core::parser_rule::kTorchrunChildFailed), rank,
        core::fact::provides_sql(core::fact::kRankPid), rank));
    if (by_rank.rows.size() == 1) self_pid = by_rank.rows[0]["pid"].as_int();
  }
  if (!self_pid) self_pid = sole_worker_pid(db, host);
  in.self_pid = self_pid;
  if (!in.multi_rank) {
    auto ranks = db.query(fmt::format("SELECT count(DISTINCT rank) AS n FROM events WHERE host = {} AND rank IS NOT NULL",
                                      store::sql_literal(host)));
    in.multi_rank = !ranks.rows.empty() && ranks.rows[0]["n"].as_int().value_or(0) > 1;
  }
  // Creating the CUDA context failed: a frame or call of the process's first CUDA use (kind
  // cuda_first_use: cuCtxCreate, lazy init, a device query; rules/signals/cuda_first_use.toml)
  // near an error that asks for no size (an allocator's request is the process allocating).
  if (!in.requested) {
    auto first = db.query_bound("SELECT 1 FROM events WHERE source_id = CAST(?1 AS INTEGER) AND kind = 'cuda_first_use'"
                                " AND line BETWEEN CAST(?2 AS INTEGER) - 40 AND CAST(?2 AS INTEGER) + 20 LIMIT 1",
                                {std::to_string(source_id), std::to_string(line)});
    if (!first.rows.empty()) in.stage = FailureStage::context_create;
  }
  // TensorFlow prints the device's total and free memory when it creates the device, before the
  // process allocates anything (signals providing `device_memory`): what others held then.
  if (!in.capacity && !in.free) {
    auto tf = db.query(fmt::format(
        "SELECT json_extract(e.fields, '$.total_bytes') AS total, json_extract(e.fields, '$.free_bytes') AS free,"
        " json_extract(e.fields, '$.which') AS which, json_extract(e.fields, '$.amount_bytes') AS amount FROM events e"
        " WHERE e.source_id = {} AND {} AND e.line BETWEEN {} - 400 AND {} ORDER BY e.line",
        source_id, core::fact::provides_sql(core::fact::kDeviceMemory), line, line));
    for (const auto& r : tf.rows) {
      if (auto t = r["total"].as_int()) in.capacity = t;
      if (auto f = r["free"].as_int()) in.free = f;
      if (r["which"].as_text() == "Total" && r["amount"].as_int()) in.capacity = r["amount"].as_int();
      if (r["which"].as_text() == "Free" && r["amount"].as_int()) in.free = r["amount"].as_int();
    }
    if (in.capacity && in.free) in.stage = FailureStage::startup_check;
  }
  const auto ts = e["ts"].as_double();
  const int gpu = in.gpu.value_or(0);

  auto unified = db.query(fmt::format("SELECT unified_memory FROM hosts WHERE name={}", store::sql_literal(host)));
  in.unified = !unified.rows.empty() && unified.rows[0]["unified_memory"].as_int().value_or(0) == 1;

  // Holders quoted by the error (the snapshot the parser made from the message: same source
  // and line) come first; then the nearest table snapshot of this host and GPU fills names and
  // adds holders the message did not list.
  // The error's own list is in its fields (`proc_<pid>_bytes`, also when the message names no
  // GPU index and so made no snapshot); else the snapshot the parser made from it.
  std::map<std::int64_t, GpuHolder> holders;
  auto listed = db.query(fmt::format(
      "SELECT CAST(substr(j.key, 6, length(j.key) - 11) AS INTEGER) AS pid, j.value AS mem_used FROM events e,"
      " json_each(e.fields) j WHERE e.id = {} AND substr(j.key, 1, 5) = 'proc_' AND substr(j.key, -6) = '_bytes'",
      event_id));
  // (A second query, not a reassignment: rows point at their own result's column list.)
  auto from_snapshot = listed.rows.empty()
                           ? db.query(fmt::format("SELECT gp.pid, gp.mem_used FROM gpu_snapshots g JOIN gpu_processes gp"
                                                  " ON gp.snapshot_id = g.id WHERE g.source_id = {} AND g.line BETWEEN"
                                                  " {} - 200 AND {} + 200 AND g.host = {}",
                                                  source_id, line, line, store::sql_literal(host)))
                           : store::QueryResult{};
  const auto& from_error = listed.rows.empty() ? from_snapshot : listed;
  for (const auto& r : from_error.rows) {
    GpuHolder h;
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
  if (!snap.rows.empty()) {
    const auto& s = snap.rows[0];
    in.mig = !db.query(fmt::format("SELECT 1 FROM events WHERE kind = 'gpu_snapshot' AND source_id = {} AND {} BETWEEN line AND "
                                   "line_end AND (json_extract(fields, '$.gpu{}_mig_mode') = 'Enabled' OR "
                                   "json_extract(fields, '$.mig_devices') > 0) LIMIT 1",
                                   s["source_id"].as_int().value_or(0), s["line"].as_int().value_or(0), gpu))
                  .rows.empty();
    if (s["unified"].as_int().value_or(0)) in.unified = true;
    if (!in.capacity) in.capacity = s["mem_total"].as_int();
    if (!in.free && in.capacity && s["mem_used"].as_int()) in.free = *in.capacity - *s["mem_used"].as_int();
    evidence.push_back({s["source"].as_text(), s["line"].as_int().value_or(0),
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
  // The host-memory reading nearest the failure (`culprit run` samples meminfo through the run).
  const std::string near = ts ? fmt::format("CASE WHEN ts IS NULL THEN 1e12 ELSE abs(ts - ({})) END, line", *ts) : "line";
  // Unified memory with no capacity from the GPU: the host's memory is the pool.
  if (!in.capacity && in.unified) {
    auto mem = db.query(fmt::format("SELECT total, available FROM host_memory WHERE host = {} ORDER BY {} LIMIT 1",
                                    store::sql_literal(host), near));
    if (!mem.rows.empty()) {
      in.capacity = mem.rows[0]["total"].as_int();
      if (!in.free) in.free = mem.rows[0]["available"].as_int();
    }
  }
  // Names and roles from the process registry.
  for (auto& [pid, h] : holders) {
    auto p = db.query_bound(
        "SELECT json_extract(names, '$[0]') AS name, role, role_why, container FROM processes"
        " WHERE host = ?1 AND pid = CAST(?2 AS INTEGER)",
        {host, std::to_string(pid)});
    if (!p.rows.empty()) {
      h.name = p.rows[0]["name"].as_text();
      h.role = p.rows[0]["role"].as_text();
      h.why = p.rows[0]["role_why"].as_text();
      h.container = p.rows[0]["container"].as_text();
    }
    if (self_pid && pid == *self_pid) h.role = "job";
    if (h.role.empty()) h.role = "unknown";
    in.holders.push_back(h);
  }
  if (self_pid && in.self_name.empty()) {
    auto p = db.query(fmt::format("SELECT json_extract(names, '$[0]') AS name FROM processes WHERE host={} AND pid={}", store::sql_literal(host), *self_pid));
    if (!p.rows.empty()) in.self_name = p.rows[0]["name"].as_text();
    if (in.self_name.empty()) in.self_name = e["comm"].as_text();
  }
  if (in.unified) {
    // The page cache nearest the failure: `free`'s buff/cache (or meminfo's Buffers + Cached).
    auto cache = db.query(fmt::format("SELECT buff_cache FROM host_memory WHERE host = {} AND buff_cache IS NOT NULL"
                                      " ORDER BY {} LIMIT 1",
                                      store::sql_literal(host), near));
    if (!cache.rows.empty()) in.page_cache = cache.rows[0]["buff_cache"].as_int();
    auto rows = db.query(fmt::format(
        "SELECT pid, json_extract(names, '$[0]') AS name, rss FROM processes WHERE host = {} AND rss > 0 ORDER BY rss DESC LIMIT 16", store::sql_literal(host)));
    for (const auto& r : rows.rows)
      in.host_processes.push_back({r["pid"].as_int().value_or(0), r["name"].as_text(), r["rss"].as_int().value_or(0)});
  }
  return in;
}

LedgerResult build_ledger(store::Database& db, std::int64_t event_id) {
  std::vector<Evidence> evidence;
  const GpuLedgerInput in = load_ledger_input(db, event_id, evidence);
  if (in.host.empty() && !in.capacity && !in.requested && in.holders.empty() && !in.self_pid) {
    auto exists = db.query(fmt::format("SELECT 1 FROM events WHERE id = {}", event_id));
    if (exists.rows.empty()) return {};
  }
  LedgerResult out = decide_ledger(in);
  out.evidence = std::move(evidence);
  return out;
}

std::optional<HostOomRecord> load_host_oom(store::Database& db, std::int64_t event_id) {
  auto rep = db.query(fmt::format(
      "SELECT r.host, r.memcg, r.oom_memcg, r.task_memcg, r.victim_pid, r.victim_comm, r.page_size, r.memcg_usage, "
      "r.memcg_limit, json_extract(e.fields, '$.memsw_usage_bytes') AS memsw_usage, "
      "json_extract(e.fields, '$.memsw_limit_bytes') AS memsw_limit, json_extract(e.fields, '$.ram_bytes') AS ram, "
      "json_extract(e.fields, '$.shmem_bytes') AS shmem, "
      "json_extract(e.fields, '$.slab_unreclaimable_bytes') AS slab "
      "FROM oom_reports r JOIN events e ON e.id = r.event_id WHERE r.event_id = {}",
      event_id));
  if (rep.rows.empty()) return std::nullopt;
  const auto& row = rep.rows[0];
  HostOomRecord r;
  r.host = row["host"].as_text();
  r.memcg = row["memcg"].as_int().value_or(0) != 0;
  r.cgroup = row["oom_memcg"].as_text().empty() ? row["task_memcg"].as_text() : row["oom_memcg"].as_text();
  if (!r.memcg) r.cgroup.clear();
  r.usage = row["memcg_usage"].as_int();
  r.limit = row["memcg_limit"].as_int();
  if (!r.usage && !r.limit) {
    r.usage = row["memsw_usage"].as_int();
    r.limit = row["memsw_limit"].as_int();
  }
  r.ram = row["ram"].as_int();
  r.shmem = row["shmem"].as_int();
  r.slab_unreclaimable = row["slab"].as_int();
  r.victim_pid = row["victim_pid"].as_int();
  r.victim_name = row["victim_comm"].as_text();
  const std::int64_t page = row["page_size"].as_int().value_or(4096);
  auto tasks = db.query(fmt::format(
      // The host as a literal: a subquery in the join keeps SQLite from the (host, pid) index,
      // and a task table may hold 10^5 rows.
      "SELECT t.pid, t.name, t.rss_pages, t.oom_score_adj, coalesce(p.role, 'unknown') AS role FROM oom_tasks t "
      "LEFT JOIN processes p ON p.host = {1} AND p.pid = t.pid "
      "WHERE t.event_id = {0} AND t.rss_pages IS NOT NULL",
      event_id, store::sql_literal(r.host)));
  for (const auto& t : tasks.rows) {
    HostTask h;
    h.pid = t["pid"].as_int().value_or(0);
    h.name = t["name"].as_text();
    h.rss = core::scale_bytes(t["rss_pages"].as_int().value_or(0), page).value_or(0);
    if (auto adj = t["oom_score_adj"].as_int()) h.oom_score_adj = static_cast<int>(*adj);
    h.role = t["role"].as_text();
    r.tasks.push_back(std::move(h));
  }
  return r;
}

std::vector<JobSetting> load_job_settings(store::Database& db, const std::string& host) {
  auto rows = db.query_bound(
      fmt::format("SELECT json_extract(e.fields, '$.setting') AS setting, json_extract(e.fields, '$.value') AS value,"
                  " min(s.name || ':' || e.line) AS place FROM events e JOIN sources s ON s.id = e.source_id"
                  " WHERE {} AND e.host = ?1 AND json_extract(e.fields, '$.setting') IS NOT NULL"
                  " GROUP BY setting, value ORDER BY min(e.id) LIMIT 4",
                  core::fact::provides_sql(core::fact::kMemorySetting)),
      {host});
  std::vector<JobSetting> out;
  for (const auto& r : rows.rows) out.push_back({r["setting"].as_text(), r["value"].as_text(), r["place"].as_text()});
  return out;
}

FootprintFacts load_footprint_facts(store::Database& db, std::int64_t event_id) {
  auto r = db.query(fmt::format("SELECT json_extract(fields, '$.{}') AS framework, {} AS kv_budget,"
                                " json_extract(fields, '$.estimated_max_len') AS estimated_len FROM events e WHERE id = {}",
                                core::framework::kField, core::fact::provides_sql(core::fact::kKvCacheBudget), event_id));
  if (r.rows.empty()) return {};
  return {r.rows[0]["framework"].as_text(), r.rows[0]["kv_budget"].as_int().value_or(0) != 0,
          r.rows[0]["estimated_len"].as_text()};
}

}  // namespace culprit::diagnose
