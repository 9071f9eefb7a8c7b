// The diagnosis loader: every SQL read the decisions below the engine need, into plain records —
// the roles' facts (roles.cpp decides), the GPU ledger's input (its arithmetic and policy are
// ledger_account.cpp / ledger_rules.cpp), the host OOM record (host_ledger.cpp), the advice's
// facts (advice.cpp). Those decide over the records and never see the database. The one write
// is the roles' decisions (assign_roles), inserted into process_roles: the rules' SQL reads a
// process's role from the view `processes`, which joins the records and the decisions.
#include "load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "culprit/core/cgroup_place.hpp"
#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/core/job_evidence.hpp"
#include "culprit/core/parser_rules.hpp"
#include "culprit/core/size.hpp"
#include "culprit/text/text_hash.hpp"
#include "infrastructure.hpp"
#include "leftover.hpp"

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
  auto w = db.query_bound(
      "SELECT DISTINCT pid FROM processes WHERE host = ?1 AND (instr(job_evidence, ?2) OR instr(job_evidence, ?3)"
      " OR instr(job_evidence, ?4) OR instr(job_evidence, ?5)) LIMIT 2",
      {host, core::job_evidence::kVllmWorkerPrefix, core::job_evidence::kRayWorkerPrefix,
       core::job_evidence::kVllmEngineCorePrefix, core::job_evidence::kVllmEngineProcess});
  if (w.rows.size() != 1) return std::nullopt;
  return w.rows[0]["pid"].as_int();
}

}  // namespace

GpuLedgerInput load_ledger_input(HostReads& reads, std::int64_t event_id, std::vector<Evidence>& evidence) {
  store::Database& db = reads.db();
  GpuLedgerInput in;
  auto ev = db.query_bound(fmt::format(
      "SELECT e.id, e.host, e.ts, e.pid, e.comm, e.line, e.source_id, e.kind, e.rule, s.name AS source, e.message,"
      " json_extract(e.fields,'$.requested_bytes') AS requested, json_extract(e.fields,'$.total_bytes') AS total,"
      " json_extract(e.fields,'$.free_bytes') AS free, json_extract(e.fields,'$.self_bytes') AS self,"
      " json_extract(e.fields,'$.allocated_bytes') AS allocated, json_extract(e.fields,'$.reserved_bytes') AS reserved,"
      " coalesce(json_extract(e.fields,'$.gpu'), json_extract(e.fields,'$.cuda_dev')) AS gpu, e.rank,"
      " {} AS startup_check, {} AS kv_budget FROM events e JOIN sources s ON s.id = e.source_id"
      " WHERE e.id = CAST(?1 AS INTEGER)",
      core::fact::provides_sql(core::fact::kStartupCheck), core::fact::provides_sql(core::fact::kKvCacheBudget)),
      {std::to_string(event_id)});
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
  in.kv_budget = e["kv_budget"].as_int().value_or(0) != 0;
  const std::string host = in.host;
  // A line that says a second engine shares the GPU (a signal providing `second_instance`), on
  // the failure's host: cited as file:line.
  if (in.stage == FailureStage::startup_check || in.kv_budget) {
    auto second = db.query_bound(
        fmt::format("SELECT s.name || ':' || e.line AS place FROM events e JOIN sources s ON s.id = e.source_id"
                    " WHERE e.host = ?1 AND {} ORDER BY e.id LIMIT 1",
                    core::fact::provides_sql(core::fact::kSecondInstance)),
        {host});
    if (!second.rows.empty()) in.second_instance = second.rows[0]["place"].as_text();
  }
  const std::int64_t source_id = e["source_id"].as_int().value_or(0), line = e["line"].as_int().value_or(0);
  const std::string source_text = std::to_string(source_id), line_text = std::to_string(line);

  auto self_pid = e["pid"].as_int();
  // A line before the error that names the process where it was raised (a signal providing
  // `failing_pid`: Ray re-raises a worker's exception in the driver as `RayTaskError(...):
  // ray::Actor.method() (pid=N, ip=…)`): the one whose allocation failed.
  auto ray = db.query_bound(
      fmt::format("SELECT json_extract(e.fields, '$.raised_pid') AS pid, json_extract(e.fields, '$.name') AS name"
                  " FROM events e WHERE e.source_id = CAST(?1 AS INTEGER) AND {}"
                  " AND e.line BETWEEN CAST(?2 AS INTEGER) - 60 AND CAST(?2 AS INTEGER) ORDER BY e.line DESC LIMIT 1",
                  core::fact::provides_sql(core::fact::kFailingPid)),
      {source_text, line_text});
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
    auto by_rank = db.query_bound(
        fmt::format("SELECT DISTINCT e.pid FROM events e WHERE e.host = ?1 AND e.pid IS NOT NULL AND"
                    " ((e.rule = ?2 AND e.rank = CAST(?3 AS INTEGER)) OR"
                    " ({} AND json_extract(e.fields, '$.local_rank') = CAST(?3 AS INTEGER))) LIMIT 2",
                    core::fact::provides_sql(core::fact::kRankPid)),
        {host, core::parser_rule::kTorchrunChildFailed, std::to_string(rank)});
    if (by_rank.rows.size() == 1) self_pid = by_rank.rows[0]["pid"].as_int();
  }
  if (!self_pid) self_pid = sole_worker_pid(db, host);
  in.self_pid = self_pid;
  if (!in.multi_rank) in.multi_rank = reads.multi_rank(host);
  // Creating the CUDA context failed: a frame or call of the process's first CUDA use (kind
  // cuda_first_use: cuCtxCreate, lazy init, a device query; rules/signals/cuda_first_use.toml)
  // near an error that asks for no size (an allocator's request is the process allocating).
  if (!in.requested) {
    auto first = db.query_bound("SELECT 1 FROM events WHERE source_id = CAST(?1 AS INTEGER) AND kind = 'cuda_first_use'"
                                " AND line BETWEEN CAST(?2 AS INTEGER) - 40 AND CAST(?2 AS INTEGER) + 20 LIMIT 1",
                                {source_text, line_text});
    if (!first.rows.empty()) in.stage = FailureStage::context_create;
  }
  // TensorFlow prints the device's total and free memory when it creates the device, before the
  // process allocates anything (signals providing `device_memory`): what others held then.
  if (!in.capacity && !in.free) {
    auto tf = db.query_bound(
        fmt::format("SELECT json_extract(e.fields, '$.total_bytes') AS total, json_extract(e.fields, '$.free_bytes') AS free,"
                    " json_extract(e.fields, '$.which') AS which, json_extract(e.fields, '$.amount_bytes') AS amount"
                    " FROM events e WHERE e.source_id = CAST(?1 AS INTEGER) AND {}"
                    " AND e.line BETWEEN CAST(?2 AS INTEGER) - 400 AND CAST(?2 AS INTEGER) ORDER BY e.line",
                    core::fact::provides_sql(core::fact::kDeviceMemory)),
        {source_text, line_text});
    for (const auto& r : tf.rows) {
      if (auto t = r["total"].as_int()) in.capacity = t;
      if (auto f = r["free"].as_int()) in.free = f;
      if (r["which"].as_text() == "Total" && r["amount"].as_int()) in.capacity = r["amount"].as_int();
      if (r["which"].as_text() == "Free" && r["amount"].as_int()) in.free = r["amount"].as_int();
    }
    if (in.capacity && in.free) {
      in.stage = FailureStage::startup_check;
    } else if (in.free) {
      // TensorFlow 2.x names only the memory the process may use (`Created device … with N MB
      // memory`: its BFC pool's limit). Free at the failure is that limit less the pool's in-use
      // total, which the allocator's failure dump prints after the error (an allocated figure of
      // the same source within 60 lines); without the dump it is not known.
      auto dump = db.query_bound(
          "SELECT json_extract(fields, '$.allocated_bytes') AS used FROM events WHERE source_id = CAST(?1 AS INTEGER)"
          " AND kind = 'cuda_oom' AND json_extract(fields, '$.allocated_bytes') IS NOT NULL"
          " AND line BETWEEN CAST(?2 AS INTEGER) AND CAST(?2 AS INTEGER) + 60 ORDER BY line LIMIT 1",
          {source_text, line_text});
      const auto used = dump.rows.empty() ? std::nullopt : dump.rows[0]["used"].as_int();
      if (used && *used <= *in.free) {
        in.torch_allocated = used;
        in.free = *in.free - *used;
      } else {
        in.free.reset();
      }
    }
  }
  const auto ts = e["ts"].as_double();
  const int gpu = in.gpu.value_or(0);

  auto unified = db.query_bound("SELECT unified_memory FROM hosts WHERE name = ?1", {host});
  in.unified = !unified.rows.empty() && unified.rows[0]["unified_memory"].as_int().value_or(0) == 1;

  // Holders quoted by the error (the snapshot the parser made from the message: same source
  // and line) come first; then the nearest table snapshot of this host and GPU fills names and
  // adds holders the message did not list.
  // The error's own list is in its fields (`proc_<pid>_bytes`, also when the message names no
  // GPU index and so made no snapshot); else the snapshot the parser made from it.
  std::map<std::int64_t, GpuHolder> holders;
  auto listed = db.query_bound(
      "SELECT CAST(substr(j.key, 6, length(j.key) - 11) AS INTEGER) AS pid, j.value AS mem_used FROM events e,"
      " json_each(e.fields) j WHERE e.id = CAST(?1 AS INTEGER) AND substr(j.key, 1, 5) = 'proc_'"
      " AND substr(j.key, -6) = '_bytes'",
      {std::to_string(event_id)});
  // (A second query, not a reassignment: rows point at their own result's column list.)
  auto from_snapshot = listed.rows.empty()
                           ? db.query_bound("SELECT gp.pid, gp.mem_used FROM gpu_snapshots g JOIN gpu_processes gp"
                                            " ON gp.snapshot_id = g.id WHERE g.source_id = CAST(?1 AS INTEGER) AND g.line"
                                            " BETWEEN CAST(?2 AS INTEGER) - 200 AND CAST(?2 AS INTEGER) + 200 AND g.host = ?3",
                                            {source_text, line_text, host})
                           : store::QueryResult{};
  const auto& from_error = listed.rows.empty() ? from_snapshot : listed;
  for (const auto& r : from_error.rows) {
    GpuHolder h;
    h.pid = r["pid"].as_int().value_or(0);
    h.bytes = r["mem_used"].as_int().value_or(0);
    h.from_error = true;
    holders[h.pid] = h;
  }
  // The failure's time as bound text ('' when unplaced: then the earliest reading).
  const std::string ts_text = ts && std::isfinite(*ts) ? fmt::format("{:.6f}", *ts) : std::string();
  auto snap = db.query_bound(
      "SELECT g.id, g.line, g.ts, g.mem_used, g.mem_total, g.unified, g.source_id, s.name AS source FROM gpu_snapshots g"
      " JOIN sources s ON s.id = g.source_id WHERE g.host = ?1 AND g.gpu = CAST(?2 AS INTEGER) AND s.format <> 'app_log'"
      " ORDER BY CASE WHEN ?3 = '' THEN g.id WHEN g.ts IS NULL THEN 1e12 ELSE abs(g.ts - CAST(?3 AS REAL)) END LIMIT 1",
      {host, std::to_string(gpu), ts_text});
  if (!snap.rows.empty()) {
    const auto& s = snap.rows[0];
    in.mig = !db.query_bound("SELECT 1 FROM events WHERE kind = 'gpu_snapshot' AND source_id = CAST(?1 AS INTEGER)"
                             " AND CAST(?2 AS INTEGER) BETWEEN line AND line_end AND (json_extract(fields, ?3) = 'Enabled'"
                             " OR json_extract(fields, '$.mig_devices') > 0) LIMIT 1",
                             {std::to_string(s["source_id"].as_int().value_or(0)),
                              std::to_string(s["line"].as_int().value_or(0)), fmt::format("$.gpu{}_mig_mode", gpu)})
                  .rows.empty();
    if (s["unified"].as_int().value_or(0)) in.unified = true;
    if (!in.capacity) in.capacity = s["mem_total"].as_int(), in.from_snapshot = true;
    if (!in.free && in.capacity && s["mem_used"].as_int())
      in.free = *in.capacity - *s["mem_used"].as_int(), in.from_snapshot = true;
    auto tool = db.query_bound("SELECT 1 FROM events WHERE kind = 'gpu_snapshot' AND source_id = CAST(?1 AS INTEGER)"
                               " AND CAST(?2 AS INTEGER) BETWEEN line AND line_end AND rule IN (?3, ?4) LIMIT 1",
                               {std::to_string(s["source_id"].as_int().value_or(0)),
                                std::to_string(s["line"].as_int().value_or(0)), core::parser_rule::kRocmSmi,
                                core::parser_rule::kAmdSmi});
    in.amd_monitor = !tool.rows.empty();
    // A monitor that prints only the share in use (rocm-smi's concise VRAM%): its event's
    // `gpu<N>_vram_percent` (N the GPU index, as the MIG field above).
    if (!in.capacity && !s["mem_total"].as_int()) {
      auto pct = db.query_bound("SELECT json_extract(fields, ?3) AS pct FROM events WHERE kind = 'gpu_snapshot'"
                                " AND source_id = CAST(?1 AS INTEGER) AND CAST(?2 AS INTEGER) BETWEEN line AND line_end"
                                " AND json_extract(fields, ?3) IS NOT NULL LIMIT 1",
                                {std::to_string(s["source_id"].as_int().value_or(0)),
                                 std::to_string(s["line"].as_int().value_or(0)), fmt::format("$.gpu{}_vram_percent", gpu)});
      if (!pct.rows.empty())
        if (auto p = pct.rows[0]["pct"].as_int(); p && *p >= 0 && *p <= 100)
          in.used_percent = static_cast<int>(*p), in.from_snapshot = true;
    }
    evidence.push_back({s["source"].as_text(), s["line"].as_int().value_or(0),
                        "nvidia-smi snapshot of GPU " + std::to_string(gpu), host, s["ts"].as_double(), 0});
    auto procs = db.query_bound("SELECT pid, name, type, mem_used FROM gpu_processes WHERE snapshot_id = CAST(?1 AS INTEGER)",
                                {std::to_string(s["id"].as_int().value_or(0))});
    for (const auto& r : procs.rows) {
      const auto pid = r["pid"].as_int().value_or(0);
      auto& h = holders[pid];
      h.pid = pid;
      h.type = r["type"].as_text();
      if (!h.from_error) h.bytes = r["mem_used"].as_int().value_or(0);
    }
  }
  // The host-memory reading nearest the failure (`culprit run` samples meminfo through the run).
  // ?2: the failure's time ('' when unplaced: then the first reading).
  constexpr const char* kNearest = "CASE WHEN ?2 = '' THEN 0 WHEN ts IS NULL THEN 1e12 ELSE abs(ts - CAST(?2 AS REAL)) END, line";
  // Unified memory with no capacity from the GPU: the host's memory is the pool.
  if (!in.capacity && in.unified) {
    auto mem = db.query_bound(fmt::format("SELECT total, available FROM host_memory WHERE host = ?1 ORDER BY {} LIMIT 1",
                                          kNearest),
                              {host, ts_text});
    if (!mem.rows.empty()) {
      in.capacity = mem.rows[0]["total"].as_int();
      if (!in.free) in.free = mem.rows[0]["available"].as_int();
    }
  }
  // Names and roles from the process registry. A name nvidia-smi printed for want of one
  // (`[Not Found]`) is no name: the first real one, and the holder is outside the listing's view.
  for (auto& [pid, h] : holders) {
    auto p = db.query_bound(
        "SELECT names, role, role_why, container FROM processes WHERE host = ?1 AND pid = CAST(?2 AS INTEGER)",
        {host, std::to_string(pid)});
    if (!p.rows.empty()) {
      auto names = db.query_bound("SELECT value FROM json_each(?1)", {p.rows[0]["names"].as_text()});
      for (const auto& n : names.rows) {
        const std::string name = n["value"].as_text();
        if (unnamed_by_nvidia_smi(name)) h.outside_view = true;
        else if (h.name.empty()) h.name = name;
      }
      h.role = p.rows[0]["role"].as_text();
      h.why = p.rows[0]["role_why"].as_text();
      h.container = p.rows[0]["container"].as_text();
    }
    if (self_pid && pid == *self_pid) h.role = "job";
    if (h.role.empty()) h.role = "unknown";
    in.holders.push_back(h);
  }
  if (self_pid && in.self_name.empty()) {
    auto p = db.query_bound(
        "SELECT json_extract(names, '$[0]') AS name FROM processes WHERE host = ?1 AND pid = CAST(?2 AS INTEGER)",
        {host, std::to_string(*self_pid)});
    if (!p.rows.empty()) in.self_name = p.rows[0]["name"].as_text();
    if (in.self_name.empty()) in.self_name = e["comm"].as_text();
  }
  if (in.unified) {
    // The page cache nearest the failure: `free`'s buff/cache (or meminfo's Buffers + Cached).
    auto cache = db.query_bound(
        fmt::format("SELECT buff_cache FROM host_memory WHERE host = ?1 AND buff_cache IS NOT NULL ORDER BY {} LIMIT 1",
                    kNearest),
        {host, ts_text});
    if (!cache.rows.empty()) in.page_cache = cache.rows[0]["buff_cache"].as_int();
    auto rows = db.query_bound(
        "SELECT pid, json_extract(names, '$[0]') AS name, rss FROM processes WHERE host = ?1 AND rss > 0"
        " ORDER BY rss DESC LIMIT 16",
        {host});
    for (const auto& r : rows.rows)
      in.host_processes.push_back({r["pid"].as_int().value_or(0), r["name"].as_text(), r["rss"].as_int().value_or(0)});
  }
  return in;
}

LedgerResult build_ledger(store::Database& db, std::int64_t event_id) {
  HostReads reads(db);
  return build_ledger(reads, event_id);
}

LedgerResult build_ledger(HostReads& reads, std::int64_t event_id) {
  store::Database& db = reads.db();
  std::vector<Evidence> evidence;
  const GpuLedgerInput in = load_ledger_input(reads, event_id, evidence);
  if (in.host.empty() && !in.capacity && !in.requested && in.holders.empty() && !in.self_pid) {
    auto exists = db.query_bound("SELECT 1 FROM events WHERE id = CAST(?1 AS INTEGER)", {std::to_string(event_id)});
    if (exists.rows.empty()) return {};
  }
  LedgerResult out = decide_ledger(in);
  out.evidence = std::move(evidence);
  return out;
}

std::optional<HostOomRecord> load_host_oom(store::Database& db, std::int64_t event_id) {
  auto rep = db.query_bound(
      "SELECT r.host, r.memcg, r.oom_memcg, r.task_memcg, r.victim_pid, r.victim_comm, r.page_size, r.memcg_usage, "
      "r.memcg_limit, json_extract(e.fields, '$.memsw_usage_bytes') AS memsw_usage, "
      "json_extract(e.fields, '$.memsw_limit_bytes') AS memsw_limit, json_extract(e.fields, '$.ram_bytes') AS ram, "
      "json_extract(e.fields, '$.shmem_bytes') AS shmem, "
      "json_extract(e.fields, '$.slab_unreclaimable_bytes') AS slab "
      "FROM oom_reports r JOIN events e ON e.id = r.event_id WHERE r.event_id = CAST(?1 AS INTEGER)",
      {std::to_string(event_id)});
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
  auto tasks = db.query_bound(
      // The host as a bound value, not a subquery in the join: that keeps SQLite from the
      // (host, pid) index, and a task table may hold 10^5 rows.
      "SELECT t.pid, t.name, t.rss_pages, t.oom_score_adj, coalesce(p.role, 'unknown') AS role FROM oom_tasks t "
      "LEFT JOIN processes p ON p.host = ?2 AND p.pid = t.pid "
      "WHERE t.event_id = CAST(?1 AS INTEGER) AND t.rss_pages IS NOT NULL",
      {std::to_string(event_id), r.host});
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
  std::vector<JobSetting> out;
  std::string error;
  // 1. Each distinct `fields` text of the host's events that may provide the fact, with its least
  //    id. A serving engine may echo its setting in a status line every few seconds, 10^4 events
  //    alike: one pass keeps each text once in a hash map, where a GROUP BY sorted them all
  //    (docs/performance.md, fourteenth pass). `instr` on the text is what the JSON condition
  //    below implies (the fact's name needs no escape), so it drops no row it keeps.
  auto events = db.prepare(fmt::format("SELECT id, fields FROM events WHERE host = ?1 AND instr(fields, ' {} ') > 0",
                                       core::fact::kMemorySetting),
                           error);
  if (!events) return out;
  events->bind(1, std::string_view(host));
  std::unordered_map<std::string, std::int64_t, text::TextHash, std::equal_to<>> first_of;
  while (events->step()) {
    const std::int64_t id = events->column_int(0);
    const std::string_view fields = events->column_text(1);
    if (auto it = first_of.find(fields); it != first_of.end()) it->second = std::min(it->second, id);
    else first_of.emplace(fields, id);
  }
  if (!events->error().empty()) return out;
  // 2. The setting and value each text names, read as JSON once a text; each (setting, value)
  //    at its least id. Their SQL types are part of the key, as GROUP BY compares values.
  auto read = db.prepare(fmt::format("SELECT json_extract(a.fields, '$.setting'), json_extract(a.fields, '$.value'),"
                                     " typeof(json_extract(a.fields, '$.setting')) || typeof(json_extract(a.fields, '$.value'))"
                                     " FROM (SELECT ?1 AS fields) a WHERE {} AND json_extract(a.fields, '$.setting') IS NOT NULL",
                                     core::fact::provides_sql(core::fact::kMemorySetting, "a")),
                         error);
  if (!read) return out;
  // A setting spelt two ways (`--gpu-memory-utilization 0.9`, `gpu_memory_utilization=0.9`) is
  // one (setting_name); it is named as its first line spells it.
  struct First {
    std::int64_t id;
    std::string as_logged;
  };
  std::map<std::tuple<std::string, std::string, std::string>, First> first_setting;  // (types, setting, value)
  for (const auto& [fields, id] : first_of) {
    read->reset();
    read->bind(1, std::string_view(fields));
    if (!read->step()) {
      if (!read->error().empty()) return out;  // a text that is no JSON fails the whole read, as it did in SQL
      continue;
    }
    const std::string_view as_logged = read->column_text(0);
    auto key = std::make_tuple(std::string(read->column_text(2)), setting_name(as_logged),
                               std::string(read->column_text(1)));
    if (auto it = first_setting.find(key); it == first_setting.end())
      first_setting.emplace(std::move(key), First{id, std::string(as_logged)});
    else if (id < it->second.id)
      it->second = {id, std::string(as_logged)};
  }
  // 3. The earliest four, each with the place of its first line.
  using Entry = decltype(first_setting)::value_type;
  std::vector<std::pair<std::int64_t, const Entry*>> order;
  for (const auto& entry : first_setting) order.emplace_back(entry.second.id, &entry);
  std::sort(order.begin(), order.end());
  auto place = db.prepare("SELECT s.name || ':' || e.line FROM events e JOIN sources s ON s.id = e.source_id WHERE e.id = ?1",
                          error);
  if (!place) return out;
  for (const auto& [id, entry] : order) {
    if (out.size() == 4) break;
    place->reset();
    place->bind(1, id);
    if (!place->step()) continue;
    out.push_back({entry->second.as_logged, std::get<2>(entry->first), std::string(place->column_text(0))});
  }
  return out;
}

bool load_multi_rank(store::Database& db, const std::string& host) {
  auto ranks = db.query_bound("SELECT count(DISTINCT rank) AS n FROM events WHERE host = ?1 AND rank IS NOT NULL", {host});
  return !ranks.rows.empty() && ranks.rows[0]["n"].as_int().value_or(0) > 1;
}

const std::vector<JobSetting>& HostReads::job_settings(const std::string& host) {
  auto it = settings_.find(host);
  if (it == settings_.end()) it = settings_.emplace(host, load_job_settings(db_, host)).first;
  return it->second;
}

bool HostReads::multi_rank(const std::string& host) {
  auto it = multi_rank_.find(host);
  if (it == multi_rank_.end()) it = multi_rank_.emplace(host, load_multi_rank(db_, host)).first;
  return it->second;
}

FootprintFacts load_footprint_facts(store::Database& db, std::int64_t event_id) {
  auto r = db.query_bound(
      fmt::format("SELECT json_extract(fields, '$.{}') AS framework, {} AS kv_budget,"
                  " json_extract(fields, '$.estimated_max_len') AS estimated_len FROM events e WHERE id = CAST(?1 AS INTEGER)",
                  core::framework::kField, core::fact::provides_sql(core::fact::kKvCacheBudget)),
      {std::to_string(event_id)});
  if (r.rows.empty()) return {};
  std::string framework = r.rows[0]["framework"].as_text();
  if (framework.empty()) {
    // A line that several frameworks print (the BFC allocator is TensorFlow's and XLA's, so JAX's
    // too) names none: the nearest line of the same source that does (the exception, the device
    // creation) says whose it was, within 200 lines.
    auto near = db.query_bound(
        fmt::format("SELECT json_extract(n.fields, '$.{0}') AS framework FROM events e JOIN events n"
                    " ON n.source_id = e.source_id AND n.line BETWEEN e.line - 200 AND e.line + 200"
                    " WHERE e.id = CAST(?1 AS INTEGER) AND json_extract(n.fields, '$.{0}') IS NOT NULL"
                    " ORDER BY abs(n.line - e.line), n.line LIMIT 1",
                    core::framework::kField),
        {std::to_string(event_id)});
    if (!near.rows.empty()) framework = near.rows[0]["framework"].as_text();
  }
  return {framework, r.rows[0]["kv_budget"].as_int().value_or(0) != 0, r.rows[0]["estimated_len"].as_text()};
}

namespace {

/// The job's first sign of life (UTC seconds): the earliest stamped line of the job's own logs
/// (app-log sources), else the earliest event of any kind but plain log lines.
std::optional<double> job_first_ts(store::Database& db) {
  // Clock alignment gives each source its events' least ts (sources.first_ts): one row a
  // source, where the join read every event. A timeline never aligned has none: its events.
  auto own = db.query("SELECT min(first_ts) AS t0 FROM sources WHERE format = 'app_log'");
  if (own.rows.empty() || own.rows[0]["t0"].is_null())
    own = db.query(
        "SELECT min(e.ts) AS t0 FROM events e JOIN sources s ON s.id = e.source_id "
        "WHERE e.ts IS NOT NULL AND s.format = 'app_log'");
  if (!own.rows.empty() && !own.rows[0]["t0"].is_null()) return own.rows[0]["t0"].as_double();
  auto any = db.query("SELECT min(ts) AS t0 FROM events WHERE ts IS NOT NULL AND " + store::not_in_sql("kind", {"log"}));
  if (any.rows.empty() || any.rows[0]["t0"].is_null()) return std::nullopt;
  return any.rows[0]["t0"].as_double();
}

/// Whether holder `pid` on `host` was listed holding GPU memory by a snapshot taken after the
/// job's processes on that host had died. The end is positive evidence only, from the job's own
/// output (app-log sources): an `engine_failure` (an engine's process died; SGLang's launcher got
/// SIGQUIT from its scheduler), a `signal_exit`, or a launcher's record of a worker's exit code
/// or of the signal it sent it (fields `exitcode`, `signal_name`: torchrun's `failed (exitcode:
/// 1)` and `closing signal SIGTERM`), dated, the latest such end at least kSettle before the
/// snapshot (a dying process frees its memory within seconds). Compute holders only (type C /
/// C+G): a display server outlives every job and is nobody's culprit.
std::optional<RoleFacts::Holder::Outlived> outlived_job(store::Database& db, const std::string& host, std::int64_t pid) {
  constexpr double kSettle = 5;
  // The snapshot first: without a dated one listing the holder there is nothing to outlive, and
  // the ends are not looked for (one query of both read every event of the host's app logs, with
  // its JSON, for each holder, snapshot or none).
  auto seen = db.query_bound(
      "SELECT max(g.ts) AS ts, max(gp.mem_used) AS bytes FROM gpu_snapshots g"
      " JOIN gpu_processes gp ON gp.snapshot_id = g.id WHERE g.host = ?1 AND gp.pid = CAST(?2 AS INTEGER)"
      " AND g.ts IS NOT NULL AND instr(gp.type, 'C') > 0",
      {host, std::to_string(pid)});
  if (seen.rows.empty() || seen.rows[0]["ts"].is_null()) return std::nullopt;
  const double seen_ts = seen.rows[0]["ts"].as_double().value_or(0);
  auto ended = db.query_bound(
      "SELECT e.ts, s.name AS source, e.line FROM events e JOIN sources s ON s.id = e.source_id"
      " WHERE e.host = ?1 AND e.ts IS NOT NULL AND e.ts + " + std::to_string(kSettle) + " <= CAST(?3 AS REAL)"
      " AND s.format = 'app_log' AND (e.pid IS NULL OR e.pid <> CAST(?2 AS INTEGER))"
      " AND (e.kind IN ('engine_failure', 'signal_exit') OR json_extract(e.fields, '$.exitcode') IS NOT NULL"
      "      OR json_extract(e.fields, '$.signal_name') IS NOT NULL)"
      " ORDER BY e.ts DESC LIMIT 1",
      {host, std::to_string(pid), fmt::format("{:.17g}", seen_ts)});  // 17 digits: the double itself
  if (ended.rows.empty()) return std::nullopt;
  const auto& row = ended.rows[0];
  return RoleFacts::Holder::Outlived{seen_ts, row["ts"].as_double().value_or(0), seen.rows[0]["bytes"].as_int(),
                                     row["source"].as_text(), row["line"].as_int().value_or(0)};
}

}  // namespace

RoleFacts load_role_facts(store::Database& db, std::string& error) {
  RoleFacts f;
  // Infrastructure by name, in one pass over the names (a task table may add 10^5 processes).
  {
    std::vector<std::string> exact, like;
    for (const auto n : infrastructure_names()) exact.push_back(store::sql_literal(n));
    for (const auto n : infrastructure_prefixes())
      like.push_back(fmt::format("substr(j.value, 1, {}) = {}", n.size(), store::sql_literal(n)));
    auto infra = db.query(fmt::format(
        "SELECT DISTINCT p.host, p.pid, j.value AS name FROM processes p, json_each(p.names) j"
        " WHERE p.job_evidence = '' AND p.role <> 'job' AND (j.value IN ({}) OR {})",
        fmt::join(exact, ", "), fmt::join(like, " OR ")));
    if (!infra.error.empty()) {
      error = infra.error;
      return f;
    }
    for (const auto& row : infra.rows)
      f.infrastructure.push_back({row["host"].as_text(), row["pid"].as_int().value_or(0), row["name"].as_text()});
  }
  // The job's own output: one pass over the events (a join on the numbered first 50 of each
  // source), not a scan per source: a paste of 10^4 prompt segments has 10^4 sources and a
  // command event in each. Its events are taken first (`own`, from events_kind), then numbered:
  // numbered at once, the window's order made SQLite walk every event in source order and look
  // each up for its kind (10^4 routine `log` lines).
  auto sources = db.query(
      "WITH own AS MATERIALIZED (SELECT source_id, id, message || ' ' || fields AS t FROM events WHERE " +
      store::not_in_sql("kind", {"log"}) +
      "), ev AS MATERIALIZED (SELECT source_id, t, row_number() OVER (PARTITION BY source_id ORDER BY id) AS rn"
      " FROM own) SELECT s.host, s.name, group_concat(ev.t, ' ') AS text FROM sources s"
      " LEFT JOIN ev ON ev.source_id = s.id AND ev.rn <= 50 WHERE s.format = 'app_log' GROUP BY s.id");
  for (const auto& row : sources.rows)
    f.job_texts.push_back({row["host"].as_text(), row["name"].as_text() + " " + row["text"].as_text()});
  for (const auto& c : db.query("SELECT host, name, image, command, status, up_seconds, id FROM containers").rows)
    f.containers.push_back({c["host"].as_text(), c["name"].as_text(), c["image"].as_text(), c["command"].as_text(),
                            c["status"].as_text(), c["up_seconds"].as_double(), c["id"].as_text()});
  // The job's age: from its first event to its last (a container up longer predates it).
  auto span = db.query("SELECT min(ts) AS t0, max(ts) AS t1 FROM events WHERE ts IS NOT NULL AND " +
                       store::not_in_sql("kind", {"log"}));
  if (!span.rows.empty() && !span.rows[0]["t0"].is_null())
    f.job_age = span.rows[0]["t1"].as_double().value_or(0) - span.rows[0]["t0"].as_double().value_or(0);
  f.job_t0 = job_first_ts(db);
  for (const auto& j : db.query("SELECT host, user, started, elapsed, job_evidence FROM processes WHERE job_evidence <> ''").rows)
    f.job_processes.push_back({j["host"].as_text(), j["user"].as_text(), j["job_evidence"].as_text(),
                               j["started"].as_double(), j["elapsed"].as_double()});
  // GPU holders (a snapshot lists them), and processes re-parented to init that may be an engine
  // worker left behind (leftover.hpp: its name says it held a GPU). One scan of processes (a
  // kernel OOM's task table can add 10^5 rows) against the listed pids.
  auto holders = db.query(
      "WITH listed AS (SELECT DISTINCT g.host, gp.pid FROM gpu_snapshots g JOIN gpu_processes gp ON gp.snapshot_id = g.id) "
      "SELECT p.host, p.pid, p.names, p.container, p.cmdline, p.user, p.state, p.started, p.elapsed, p.ppid, p.cgroup, "
      "l.pid IS NOT NULL AS gpu_listed, "
      "(SELECT json_extract(q.names, '$[0]') FROM processes q WHERE q.host = p.host AND q.pid = 1) AS pid1, "
      "(SELECT json_extract(e.fields, '$.driver_frame') FROM events e WHERE e.host = p.host AND e.pid = p.pid "
      " AND e.kind = 'process_stack' AND json_extract(e.fields, '$.driver_frame') IS NOT NULL LIMIT 1) AS driver_frame "
      "FROM processes p LEFT JOIN listed l ON l.host = p.host AND l.pid = p.pid "
      "WHERE p.job_evidence = '' AND p.role <> 'job' AND (l.pid IS NOT NULL OR p.ppid = 1)");
  if (!holders.error.empty()) {
    error = holders.error;
    return f;
  }
  for (const auto& h : holders.rows) {
    RoleFacts::Holder r;
    r.host = h["host"].as_text();
    r.pid = h["pid"].as_int().value_or(0);
    for (const auto& n : db.query_bound("SELECT value AS n FROM json_each(?1)", {h["names"].as_text()}).rows)
      r.names.push_back(n["n"].as_text());
    r.cmdline = h["cmdline"].as_text();
    r.user = h["user"].as_text();
    r.state = h["state"].as_text();
    r.container = h["container"].as_text();
    r.container_id = core::cgroup_place(h["cgroup"].as_text()).container_id;
    r.started = h["started"].as_double();
    r.elapsed = h["elapsed"].as_double();
    r.ppid = h["ppid"].as_int();
    r.gpu_listed = h["gpu_listed"].as_int().value_or(0) != 0;
    if (!h["pid1"].is_null()) r.pid1_name = h["pid1"].as_text();
    r.driver_frame = h["driver_frame"].as_text();
    if (r.gpu_listed) r.outlived = outlived_job(db, r.host, r.pid);
    f.holders.push_back(std::move(r));
  }
  return f;
}

std::string assign_roles(store::Database& db) {
  // The decisions of an earlier diagnosis of this timeline give way to this one's.
  if (auto err = db.exec("DELETE FROM process_roles"); !err.empty()) return err;
  // A pid the job's own logs name is the job's (decide_roles' first rule, applied in bulk: a log
  // may name 10^5 pids).
  if (auto err = db.exec("INSERT INTO process_roles(incident, host, pid, role, role_why)"
                         " SELECT incident, host, pid, 'job', 'named by the job''s own logs (' || job_evidence || ')'"
                         " FROM process_records WHERE job_evidence <> ''");
      !err.empty())
    return err;
  std::string error;
  const RoleFacts facts = load_role_facts(db, error);
  if (!error.empty()) return error;
  const std::vector<RoleDecision> decisions = decide_roles(facts);
  if (decisions.empty()) return {};
  // A later decision about the same process replaces the bulk one, as decide_roles ordered them.
  auto insert = db.prepare(
      "INSERT OR REPLACE INTO process_roles(incident, host, pid, role, role_why, leftover, container)"
      " SELECT incident, host, pid, ?1, ?2, ?3, ?4 FROM process_records WHERE host = ?5 AND pid = ?6",
      error);
  if (!insert) return error;
  for (const RoleDecision& d : decisions) {
    insert->reset();
    insert->bind(1, std::string_view(d.role));
    insert->bind(2, std::string_view(d.why));
    insert->bind(3, std::string_view(d.leftover));
    insert->bind(4, std::string_view(d.container));
    insert->bind(5, std::string_view(d.host));
    insert->bind(6, static_cast<std::int64_t>(d.pid));
    insert->step();
    if (!insert->error().empty()) return insert->error();
  }
  return {};
}

}  // namespace culprit::diagnose
