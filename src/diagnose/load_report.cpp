// The report's loader (see load_report.hpp): the SQL behind Verdict::data and `culprit timeline`.
// Every query is read-only and bounded (a cap on events, samples, readings and task rows), and
// every value is bound (?1, ?2, …), so one statement is compiled per query, not per value.
#include "load_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <string>

#include "culprit/core/event.hpp"
#include "culprit/core/parser_rules.hpp"
#include "oom_report_parts.hpp"

namespace culprit::diagnose {
namespace {

constexpr const char* kOrder = "(e.ts IS NULL), e.ts, e.source_id, e.line, e.id";

std::string role_or_unknown(const store::Value& v) {
  const std::string r = v.as_text();
  return r == "job" || r == "foreign" ? r : std::string("unknown");
}

/// `items` as a JSON array of strings, for `IN (SELECT value FROM json_each(?N))`.
std::string json_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (const unsigned char c : item) {
      if (c == '"' || c == '\\') out += static_cast<char>('\\'), out += static_cast<char>(c);
      else if (c < 0x20) out += fmt::format("\\u{:04x}", c);
      else out += static_cast<char>(c);
    }
    out += '"';
  }
  return out + "]";
}

/// A finite number as bound text (0 for none or a non-finite one, as the literal it replaces).
std::string finite_number(std::optional<double> d) {
  return d && std::isfinite(*d) ? fmt::format("{:.6f}", *d) : std::string("0");
}

/// Keeps the latest kReportMemoryReadings readings of each series.
void keep_latest(std::vector<MemorySeries>& out) {
  for (auto& s : out)
    if (s.readings.size() > kReportMemoryReadings)
      s.readings.erase(s.readings.begin(), s.readings.end() - static_cast<std::ptrdiff_t>(kReportMemoryReadings));
}

}  // namespace

std::vector<GpuSeries> load_gpu_series(store::Database& db) {
  std::vector<GpuSeries> out;
  auto snaps = db.query(
      "SELECT g.id, g.host, g.gpu, g.model, g.ts, g.line, g.mem_used, g.mem_total, g.unified, s.name AS source"
      " FROM gpu_snapshots g JOIN sources s ON s.id = g.source_id"
      " ORDER BY g.host, g.gpu, (g.ts IS NULL), g.ts, g.source_id, g.line, g.id");
  if (!snaps.error.empty()) return out;
  auto procs = db.query(
      "SELECT gp.snapshot_id, gp.pid, gp.name, gp.mem_used, p.role, json_extract(p.names, '$[0]') AS first_name"
      " FROM gpu_processes gp JOIN gpu_snapshots g ON g.id = gp.snapshot_id"
      " LEFT JOIN processes p ON p.host = g.host AND p.pid = gp.pid"
      " ORDER BY gp.snapshot_id, gp.mem_used IS NULL, gp.mem_used DESC, gp.pid");
  std::map<std::int64_t, std::vector<GpuProcessMemory>> by_snapshot;
  for (const auto& r : procs.rows) {
    GpuProcessMemory m;
    m.pid = r["pid"].as_int().value_or(0);
    m.name = r["name"].as_text();
    if (m.name.empty()) m.name = r["first_name"].as_text();
    m.role = role_or_unknown(r["role"]);
    m.bytes = r["mem_used"].as_int();
    by_snapshot[r["snapshot_id"].as_int().value_or(0)].push_back(std::move(m));
  }
  auto pools = db.query("SELECT host, total FROM host_memory WHERE total IS NOT NULL ORDER BY host, source_id, line");
  std::map<std::string, std::int64_t> pool_of;  // the pool's size does not change: the first reading
  for (const auto& r : pools.rows)
    if (auto t = r["total"].as_int()) pool_of.emplace(r["host"].as_text(), *t);

  for (const auto& r : snaps.rows) {
    const std::string host = r["host"].as_text();
    const int gpu = static_cast<int>(r["gpu"].as_int().value_or(0));
    if (out.empty() || out.back().host != host || out.back().gpu != gpu) {
      GpuSeries s;
      s.host = host;
      s.gpu = gpu;
      out.push_back(std::move(s));
    }
    GpuSeries& s = out.back();
    if (s.model.empty()) s.model = r["model"].as_text();
    if (r["unified"].as_int().value_or(0) != 0) s.unified = true;
    GpuSample sample;
    sample.ts = r["ts"].as_double();
    sample.source = r["source"].as_text();
    sample.line = r["line"].as_int().value_or(0);
    sample.used = r["mem_used"].as_int();
    sample.total = r["mem_total"].as_int();
    if (auto it = by_snapshot.find(r["id"].as_int().value_or(0)); it != by_snapshot.end())
      sample.processes = std::move(it->second);
    s.samples.push_back(std::move(sample));
  }
  for (auto& s : out)
    if (s.unified)
      if (auto it = pool_of.find(s.host); it != pool_of.end()) s.pool_total = it->second;
  return out;
}

std::optional<OomReportParts> load_oom_parts(store::Database& db, std::int64_t root_event) {
  if (root_event == 0) return std::nullopt;
  auto rows = db.query_bound(
      "SELECT host, json_extract(fields, '$.parts') AS parts, json_extract(fields, '$.parts_missing') AS missing,"
      " json_extract(fields, '$.victim_from') AS victim_from, json_extract(fields, '$.memcg') AS memcg"
      " FROM events WHERE id = CAST(?1 AS INTEGER) AND kind IN (?2, ?3)",
      {std::to_string(root_event), core::kind::kKernelOom, core::kind::kOomKill});
  if (rows.rows.empty()) return std::nullopt;
  const auto& r = rows.rows[0];
  const std::string parts = r["parts"].as_text(), missing = r["missing"].as_text();
  if (parts.empty() && missing.empty()) return std::nullopt;
  return describe_oom_parts(r["host"].as_text(), parts, missing, r["victim_from"].as_text(),
                            r["memcg"].as_int().value_or(0) != 0);
}

std::vector<OomTable> load_oom_tables(store::Database& db, std::int64_t root_event) {
  std::vector<OomTable> out;
  auto reports = db.query_bound(
      "SELECT event_id, host, ts, constraint_kind, memcg, trigger_pid, trigger_comm, victim_pid, victim_comm,"
      " memcg_limit, page_size FROM oom_reports ORDER BY (event_id = CAST(?1 AS INTEGER)) DESC, (ts IS NULL), ts,"
      " event_id LIMIT 5",
      {std::to_string(root_event)});
  // The task rows with the role the diagnosis gave each (?1 the report's event, ?2 its host).
  constexpr const char* kTasks =
      "SELECT t.pid, t.uid, t.total_vm_pages, t.rss_pages, t.oom_score_adj, t.name, p.role"
      " FROM oom_tasks t LEFT JOIN processes p ON p.incident = t.incident AND p.host = ?2 AND p.pid = t.pid"
      " WHERE t.event_id = CAST(?1 AS INTEGER)";
  for (const auto& r : reports.rows) {
    OomTable t;
    t.event_id = r["event_id"].as_int().value_or(0);
    t.host = r["host"].as_text();
    t.ts = r["ts"].as_double();
    t.constraint = r["constraint_kind"].as_text();
    t.memcg = r["memcg"].as_int().value_or(0) != 0;
    t.trigger_pid = r["trigger_pid"].as_int();
    t.trigger_comm = r["trigger_comm"].as_text();
    t.memcg_limit = r["memcg_limit"].as_int();
    const std::int64_t page = std::max<std::int64_t>(1, r["page_size"].as_int().value_or(4096));
    const auto victim = r["victim_pid"].as_int();
    const std::string event = std::to_string(t.event_id);
    // The full table (up to the parser's cap of 200000 rows) stays in SQL: its size and resident
    // total are aggregated there, and only the largest rows and the victim come back, so memory
    // here does not grow with the table.
    const std::int64_t rss_cap = INT64_MAX / page;  // rows past this would overflow in bytes
    auto totals = db.query_bound(
        "SELECT count(*) AS n, total(CASE WHEN rss_pages > 0 AND rss_pages < CAST(?2 AS INTEGER) THEN rss_pages END)"
        " AS rss FROM oom_tasks WHERE event_id = CAST(?1 AS INTEGER)",
        {event, std::to_string(rss_cap)});
    if (!totals.rows.empty()) {
      t.task_count = totals.rows[0]["n"].as_int().value_or(0);
      const double rss = totals.rows[0]["rss"].as_double().value_or(0) * static_cast<double>(page);
      t.total_rss = rss >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(rss);
    }
    auto tasks = db.query_bound(
        fmt::format("{} ORDER BY coalesce(t.rss_pages, 0) DESC, t.pid LIMIT {}", kTasks, kReportOomTasks),
        {event, t.host});
    auto add_task = [&](const store::Row& row, bool first) {
      OomTaskRow task;
      task.pid = row["pid"].as_int().value_or(0);
      task.name = row["name"].as_text();
      task.uid = row["uid"].as_int();
      const std::int64_t rss_pages = row["rss_pages"].as_int().value_or(0);
      task.rss = rss_pages > 0 && rss_pages < rss_cap ? rss_pages * page : 0;
      if (auto vm = row["total_vm_pages"].as_int(); vm && *vm >= 0 && *vm < rss_cap) task.total_vm = *vm * page;
      task.oom_score_adj = row["oom_score_adj"].as_int();
      task.role = role_or_unknown(row["role"]);
      task.victim = victim && task.pid == *victim;
      task.hog = first && task.rss > 0;
      t.tasks.push_back(std::move(task));
    };
    for (std::size_t i = 0; i < tasks.rows.size(); ++i) add_task(tasks.rows[i], i == 0);
    const bool victim_listed =
        std::any_of(t.tasks.begin(), t.tasks.end(), [](const OomTaskRow& task) { return task.victim; });
    if (victim && !victim_listed) {
      // The victim is always shown, even when it is not among the largest rows.
      auto v = db.query_bound(fmt::format("{} AND t.pid = CAST(?3 AS INTEGER) LIMIT 1", kTasks),
                              {event, t.host, std::to_string(*victim)});
      if (!v.rows.empty()) add_task(v.rows[0], false);
    }
    if (t.task_count == 0 && victim) {
      // A kill line without a task table still names the victim.
      OomTaskRow task;
      task.pid = *victim;
      task.name = r["victim_comm"].as_text();
      task.victim = true;
      t.tasks.push_back(std::move(task));
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TimelineEvent> load_timeline(store::Database& db, const TimelineQuery& query, std::int64_t* total) {
  // The conditions asked for, each value bound (?1, ?2, …): the SQL text depends only on which
  // conditions there are, so the indexes (events_kind) serve as they would a literal.
  std::vector<std::string> where, values;
  auto bind = [&](std::string value) {
    values.push_back(std::move(value));
    return fmt::format("?{}", values.size());
  };
  if (query.incident) where.push_back("e.incident = CAST(" + bind(std::to_string(*query.incident)) + " AS INTEGER)");
  if (!query.hosts.empty()) where.push_back("e.host IN (SELECT value FROM json_each(" + bind(json_array(query.hosts)) + "))");
  if (!query.kinds.empty()) where.push_back("e.kind IN (SELECT value FROM json_each(" + bind(json_array(query.kinds)) + "))");
  else if (!query.include_log)  // context, not failures; an allocator snapshot's sites are its section's detail
    where.push_back(store::not_in_sql("e.kind", {"log", "command", "allocator_site"}));
  if (query.from) where.push_back("e.ts >= CAST(" + bind(finite_number(query.from)) + " AS REAL)");
  if (query.to) where.push_back("e.ts <= CAST(" + bind(finite_number(query.to)) + " AS REAL)");
  std::string cond;
  for (const auto& w : where) cond += (cond.empty() ? " WHERE " : " AND ") + w;

  std::int64_t count = 0;
  if (auto c = db.query_bound("SELECT count(*) AS n FROM events e" + cond, values); c.error.empty() && !c.rows.empty())
    count = c.rows[0]["n"].as_int().value_or(0);
  if (total) *total = count;

  std::int64_t offset = 0;
  const auto limit = static_cast<std::int64_t>(
      query.limit == 0 ? kTimelineRowLimit : std::min(query.limit, kTimelineRowLimit));
  if (count > limit) {
    offset = count - limit;  // no focus: the latest events (failures come last)
    if (query.focus) {
      std::vector<std::string> with_focus = values;
      with_focus.push_back(std::to_string(*query.focus));
      auto pos = db.query_bound(fmt::format("SELECT rn FROM (SELECT e.id, row_number() OVER (ORDER BY {}) AS rn"
                                            " FROM events e{}) WHERE id = CAST(?{} AS INTEGER)",
                                            kOrder, cond, with_focus.size()),
                                with_focus);
      if (pos.error.empty() && !pos.rows.empty()) {
        const std::int64_t rn = pos.rows[0]["rn"].as_int().value_or(1);
        offset = std::clamp<std::int64_t>(rn - 1 - limit / 2, 0, count - limit);
      }
    }
  }
  const std::string limit_at = bind(std::to_string(limit));
  const std::string offset_at = bind(std::to_string(offset));
  const std::string sql = fmt::format(
      "SELECT e.id, e.ts, e.ts_raw, e.ts_kind, e.ts_value, e.host, e.kind, e.severity, e.pid, e.rank, e.comm,"
      " e.message, e.line, s.name AS source FROM events e JOIN sources s ON s.id = e.source_id{}"
      " ORDER BY {} LIMIT CAST({} AS INTEGER) OFFSET CAST({} AS INTEGER)",
      cond, kOrder, limit_at, offset_at);
  std::vector<TimelineEvent> out;
  out.reserve(static_cast<std::size_t>(std::min(limit, count)));
  std::size_t text_bytes = 0;
  // Streamed: each row becomes an event as it is stepped, and the text held stops the read at
  // kTimelineTextBytes (a crafted file's messages may be of any length). The caller's deadline
  // (set_deadline) still stops a query that runs too long.
  const store::QueryGuard streamed{false, 0, 0};
  (void)db.query_each_bound(
      sql, values, streamed,
      [&](const store::Row& r) {
        TimelineEvent e;
        e.event_id = r["id"].as_int().value_or(0);
        e.ts = r["ts"].as_double();
        if (e.ts && !std::isfinite(*e.ts)) e.ts.reset();
        e.ts_raw = r["ts_raw"].as_text();
        e.ts_kind = r["ts_kind"].as_text();
        e.ts_value = r["ts_value"].as_double();
        e.host = r["host"].as_text();
        e.kind = r["kind"].as_text();
        e.severity = r["severity"].as_text();
        e.pid = r["pid"].as_int();
        e.rank = r["rank"].as_int();
        e.comm = r["comm"].as_text();
        e.summary = r["message"].as_text();
        e.source = r["source"].as_text();
        e.line = r["line"].as_int().value_or(0);
        text_bytes += e.ts_raw.size() + e.ts_kind.size() + e.host.size() + e.kind.size() + e.severity.size() +
                      e.comm.size() + e.summary.size() + e.source.size();
        out.push_back(std::move(e));
        return text_bytes < kTimelineTextBytes;
      });
  return out;
}

std::vector<HostClock> load_host_clocks(store::Database& db, std::optional<std::int64_t> incident) {
  std::vector<HostClock> out;
  auto rows = db.query_bound(
      "SELECT name, clock_method, clock_confidence, clock_offset, boot_wall_ts, unified_memory FROM hosts"
      " WHERE ?1 = '' OR incident = CAST(?1 AS INTEGER) ORDER BY name",
      {incident ? std::to_string(*incident) : std::string()});
  for (const auto& r : rows.rows) {
    HostClock h;
    h.host = r["name"].as_text();
    h.method = r["clock_method"].as_text();
    h.confidence = r["clock_confidence"].as_text();
    if (h.confidence.empty()) h.confidence = "none";
    h.offset = r["clock_offset"].as_double();
    h.boot_wall_ts = r["boot_wall_ts"].as_double();
    h.unified_memory = r["unified_memory"].as_int().value_or(0) != 0;
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<MemorySeries> load_memory_series(store::Database& db) {
  // The timed host_memory rows (/proc/meminfo samples culprit stamped) and the `cgroup_memory`
  // events (culprit's cgroup.txt samples).
  std::vector<MemorySeries> out;
  auto host = db.query(
      "SELECT h.host, h.ts, h.line, h.total, h.used, h.available, s.name AS source"
      " FROM host_memory h JOIN sources s ON s.id = h.source_id"
      " WHERE h.ts IS NOT NULL AND (h.used IS NOT NULL OR h.total IS NOT NULL)"
      " ORDER BY h.host, h.ts, h.source_id, h.line");
  for (const auto& r : host.rows) {
    const std::string name = r["host"].as_text();
    if (out.empty() || out.back().host != name) out.push_back({name, "host", "", false, {}});
    out.back().readings.push_back({r["ts"].as_double().value_or(0), r["source"].as_text(), r["line"].as_int().value_or(0),
                                   r["used"].as_int(), r["total"].as_int(), r["available"].as_int()});
  }
  auto cgroup = db.query_bound(
      "SELECT e.host, e.ts, e.line, s.name AS source, json_extract(e.fields, '$.cgroup') AS cgroup,"
      " json_extract(e.fields, '$.usage_bytes') AS usage, json_extract(e.fields, '$.limit_bytes') AS lim,"
      " json_extract(e.fields, '$.limit_unlimited') AS unlimited"
      " FROM events e JOIN sources s ON s.id = e.source_id"
      // Its parser writes them as `log` events: the kind is asked first, so that events_kind
      // (kind, id, rule) finds them without reading every event's row.
      " WHERE e.kind = ?2 AND e.rule = ?1 AND e.ts IS NOT NULL"
      " ORDER BY e.host, cgroup, e.ts, e.source_id, e.line",
      {core::parser_rule::kCgroupMemory, core::kind::kLog});
  const std::size_t first_cgroup = out.size();
  for (const auto& r : cgroup.rows) {
    const std::string name = r["host"].as_text(), path = r["cgroup"].as_text();
    if (out.size() == first_cgroup || out.back().host != name || out.back().cgroup != path)
      out.push_back({name, "cgroup", path, false, {}});
    MemorySeries& s = out.back();
    // The limit as the latest reading has it (a limit raised mid-run shows in each reading).
    s.unlimited = r["unlimited"].as_int().value_or(0) != 0;
    s.readings.push_back({r["ts"].as_double().value_or(0), r["source"].as_text(), r["line"].as_int().value_or(0),
                          r["usage"].as_int(), r["lim"].as_int(), std::nullopt});
  }
  keep_latest(out);
  return out;
}

std::vector<AllocatorView> load_allocator_views(store::Database& db) {
  // Field names: src/ingest/formats/torch_memory_snapshot.cpp, which writes them.
  std::vector<AllocatorView> out;
  auto snaps = db.query_bound(
      "SELECT e.source_id, e.host, e.ts, e.line, s.name AS source,"
      " json_extract(e.fields, '$.gpu') AS gpu, json_extract(e.fields, '$.torch_version') AS torch_version,"
      " json_extract(e.fields, '$.reserved_bytes') AS reserved, json_extract(e.fields, '$.allocated_bytes') AS allocated,"
      " json_extract(e.fields, '$.active_bytes') AS active, json_extract(e.fields, '$.largest_free_bytes') AS largest_free,"
      " json_extract(e.fields, '$.request_bytes') AS request, json_extract(e.fields, '$.segments') AS segments,"
      " json_extract(e.fields, '$.blocks') AS blocks, json_extract(e.fields, '$.live_blocks') AS live_blocks,"
      " json_extract(e.fields, '$.free_blocks') AS free_blocks, json_extract(e.fields, '$.unattributed_bytes') AS unattributed,"
      " json_extract(e.fields, '$.sites') AS sites, json_extract(e.fields, '$.cut') AS cut"
      " FROM events e JOIN sources s ON s.id = e.source_id WHERE e.kind = ?1"
      " ORDER BY e.source_id, e.line, e.id LIMIT CAST(?2 AS INTEGER)",
      {std::string(core::kind::kAllocatorSnapshot), std::to_string(kMaxAllocatorSnapshots)});
  auto int_of = [](const store::Row& r, std::string_view column) { return r[column].as_int().value_or(0); };
  for (const auto& r : snaps.rows) {
    AllocatorView v;
    v.host = r["host"].as_text();
    v.ts = r["ts"].as_double();
    if (auto g = r["gpu"].as_int()) v.gpu = static_cast<int>(*g);
    v.source = r["source"].as_text();
    v.line = int_of(r, "line");
    v.torch_version = r["torch_version"].as_text();
    v.reserved = int_of(r, "reserved");
    v.allocated = int_of(r, "allocated");
    v.active = int_of(r, "active");
    v.unallocated = v.reserved - v.allocated;
    v.largest_free = int_of(r, "largest_free");
    v.requested = r["request"].as_int();
    v.segments = int_of(r, "segments");
    v.blocks = int_of(r, "blocks");
    v.live_blocks = int_of(r, "live_blocks");
    v.free_blocks = int_of(r, "free_blocks");
    v.unattributed = int_of(r, "unattributed");
    v.site_count = int_of(r, "sites");
    v.cut = int_of(r, "cut") != 0;
    // Its sites: the parser wrote them at the snapshot's source and line.
    auto sites = db.query_bound(
        "SELECT json_extract(e.fields, '$.site_file') AS file, json_extract(e.fields, '$.site_line') AS line,"
        " json_extract(e.fields, '$.site_function') AS function, json_extract(e.fields, '$.bytes') AS bytes,"
        " json_extract(e.fields, '$.blocks') AS blocks, json_extract(e.fields, '$.largest_bytes') AS largest"
        " FROM events e WHERE e.source_id = CAST(?2 AS INTEGER) AND e.line = CAST(?3 AS INTEGER) AND e.kind = ?1"
        " ORDER BY json_extract(e.fields, '$.site_rank'), e.id LIMIT CAST(?4 AS INTEGER)",
        {std::string(core::kind::kAllocatorSite), std::to_string(int_of(r, "source_id")), std::to_string(v.line),
         std::to_string(kMaxAllocationSites)});
    for (const auto& s : sites.rows) {
      AllocationSite site;
      site.file = s["file"].as_text();
      site.line = int_of(s, "line");
      site.function = s["function"].as_text();
      site.bytes = int_of(s, "bytes");
      site.blocks = int_of(s, "blocks");
      site.largest = int_of(s, "largest");
      v.sites.push_back(std::move(site));
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace culprit::diagnose
