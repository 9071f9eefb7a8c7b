// Report data from the timeline: the SQL that renderers must not run. Every query here is
// read-only and bounded (a cap on events, samples and task rows), so a huge timeline still
// gives a report of a readable size.
#include "culprit/diagnose/report_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace culprit::diagnose {
namespace {

std::string in_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + store::sql_literal(i);
  return out;
}

/// A finite number for SQL text (never `inf` / `nan`, which SQLite would not parse).
std::string number(double d) { return std::isfinite(d) ? fmt::format("{:.6f}", d) : std::string("0"); }

constexpr const char* kOrder = "(e.ts IS NULL), e.ts, e.source_id, e.line, e.id";

std::string role_or_unknown(const store::Value& v) {
  const std::string r = v.as_text();
  return r == "job" || r == "foreign" ? r : std::string("unknown");
}

std::vector<GpuSeries> load_gpus(store::Database& db, std::optional<double> focus_ts) {
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
  auto pools = db.query(
      "SELECT host, total FROM host_memory WHERE total IS NOT NULL ORDER BY host, source_id, line");
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
  for (auto& s : out) {
    if (s.unified)
      if (auto it = pool_of.find(s.host); it != pool_of.end()) s.pool_total = it->second;
    if (s.samples.size() <= kReportGpuSamples) continue;
    // Keep the samples nearest the failure (or the latest), in their time order.
    std::size_t start = s.samples.size() - kReportGpuSamples;
    if (focus_ts) {
      std::size_t nearest = 0;
      double best = INFINITY;
      for (std::size_t i = 0; i < s.samples.size(); ++i) {
        if (!s.samples[i].ts) continue;
        const double d = std::fabs(*s.samples[i].ts - *focus_ts);
        if (d < best) best = d, nearest = i;
      }
      start = std::min(start, nearest > kReportGpuSamples / 2 ? nearest - kReportGpuSamples / 2 : 0);
    }
    s.samples = std::vector<GpuSample>(s.samples.begin() + static_cast<std::ptrdiff_t>(start),
                                       s.samples.begin() + static_cast<std::ptrdiff_t>(start + kReportGpuSamples));
  }
  return out;
}

std::vector<OomTable> load_ooms(store::Database& db, std::int64_t root_event) {
  std::vector<OomTable> out;
  auto reports = db.query(fmt::format(
      "SELECT event_id, host, ts, constraint_kind, memcg, trigger_pid, trigger_comm, victim_pid, victim_comm,"
      " memcg_limit, page_size FROM oom_reports ORDER BY (event_id = {}) DESC, (ts IS NULL), ts, event_id LIMIT 5",
      root_event));
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
    // The full table (up to the parser's cap of 200000 rows) stays in SQL: its size and resident
    // total are aggregated there, and only the largest rows and the victim come back, so memory
    // here does not grow with the table.
    const std::int64_t rss_cap = INT64_MAX / page;  // rows past this would overflow in bytes
    auto totals = db.query(fmt::format(
        "SELECT count(*) AS n, total(CASE WHEN rss_pages > 0 AND rss_pages < {} THEN rss_pages END) AS rss"
        " FROM oom_tasks WHERE event_id = {}",
        rss_cap, t.event_id));
    if (!totals.rows.empty()) {
      t.task_count = totals.rows[0]["n"].as_int().value_or(0);
      const double rss = totals.rows[0]["rss"].as_double().value_or(0) * static_cast<double>(page);
      t.total_rss = rss >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(rss);
    }
    const std::string columns =
        "SELECT t.pid, t.uid, t.total_vm_pages, t.rss_pages, t.oom_score_adj, t.name, p.role"
        " FROM oom_tasks t LEFT JOIN processes p ON p.incident = t.incident AND p.host = " + store::sql_literal(t.host) +
        " AND p.pid = t.pid";
    auto tasks = db.query(fmt::format("{} WHERE t.event_id = {} ORDER BY coalesce(t.rss_pages, 0) DESC, t.pid LIMIT {}",
                                      columns, t.event_id, kReportOomTasks));
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
      auto v = db.query(fmt::format("{} WHERE t.event_id = {} AND t.pid = {} LIMIT 1", columns, t.event_id, *victim));
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

}  // namespace

std::vector<TimelineEvent> load_timeline(store::Database& db, const TimelineQuery& query, std::int64_t* total) {
  std::vector<std::string> where;
  if (query.incident) where.push_back(fmt::format("e.incident = {}", *query.incident));
  if (!query.hosts.empty()) where.push_back("e.host IN (" + in_list(query.hosts) + ")");
  if (!query.kinds.empty()) where.push_back("e.kind IN (" + in_list(query.kinds) + ")");
  else if (!query.include_log) where.push_back("e.kind NOT IN ('log', 'command')");  // context, not failures
  if (query.from) where.push_back("e.ts >= " + number(*query.from));
  if (query.to) where.push_back("e.ts <= " + number(*query.to));
  std::string cond;
  for (const auto& w : where) cond += (cond.empty() ? " WHERE " : " AND ") + w;

  std::int64_t count = 0;
  if (auto c = db.query("SELECT count(*) AS n FROM events e" + cond); c.error.empty() && !c.rows.empty())
    count = c.rows[0]["n"].as_int().value_or(0);
  if (total) *total = count;

  std::int64_t offset = 0;
  const auto limit = static_cast<std::int64_t>(
      query.limit == 0 ? kTimelineRowLimit : std::min(query.limit, kTimelineRowLimit));
  if (count > limit) {
    offset = count - limit;  // no focus: the latest events (failures come last)
    if (query.focus) {
      auto pos = db.query(fmt::format(
          "SELECT rn FROM (SELECT e.id, row_number() OVER (ORDER BY {}) AS rn FROM events e{}) WHERE id = {}", kOrder,
          cond, *query.focus));
      if (pos.error.empty() && !pos.rows.empty()) {
        const std::int64_t rn = pos.rows[0]["rn"].as_int().value_or(1);
        offset = std::clamp<std::int64_t>(rn - 1 - limit / 2, 0, count - limit);
      }
    }
  }
  const std::string sql = fmt::format(
      "SELECT e.id, e.ts, e.ts_raw, e.ts_kind, e.ts_value, e.host, e.kind, e.severity, e.pid, e.rank, e.comm,"
      " e.message, e.line, s.name AS source FROM events e JOIN sources s ON s.id = e.source_id{}"
      " ORDER BY {} LIMIT {} OFFSET {}",
      cond, kOrder, limit, offset);
  std::vector<TimelineEvent> out;
  out.reserve(static_cast<std::size_t>(std::min(limit, count)));
  std::size_t text_bytes = 0;
  // Streamed: each row becomes an event as it is stepped, and the text held stops the read at
  // kTimelineTextBytes (a crafted file's messages may be of any length). The caller's deadline
  // (set_deadline) still stops a query that runs too long.
  const store::QueryGuard streamed{false, 0, 0};
  (void)db.query_each(sql, streamed, [](const std::vector<std::string>&) {}, [&](const store::Row& r) {
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
  auto rows = db.query(fmt::format(
      "SELECT name, clock_method, clock_confidence, clock_offset, boot_wall_ts, unified_memory FROM hosts{} ORDER BY name",
      incident ? fmt::format(" WHERE incident = {}", *incident) : std::string()));
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

void mark_timeline(const Verdict& verdict, std::vector<TimelineEvent>& events) {
  std::set<std::int64_t> echo_ids;
  for (const auto& e : verdict.echoes)
    if (e.event_id) echo_ids.insert(e.event_id);
  const std::int64_t root_id = verdict.root ? verdict.root->event_id : 0;
  for (auto& e : events) {
    if (root_id && e.event_id == root_id) e.mark = "root";
    else if (echo_ids.count(e.event_id)) e.mark = "echo";
    else e.mark = "other";
  }
}

void add_report_data(store::Database& db, Verdict& verdict) {
  ReportData& data = verdict.data;
  TimelineQuery query;
  if (verdict.root && verdict.root->event_id) query.focus = verdict.root->event_id;
  data.timeline = load_timeline(db, query, &data.timeline_total);
  mark_timeline(verdict, data.timeline);
  data.hosts = load_host_clocks(db);
  data.gpus = load_gpus(db, verdict.root ? verdict.root->ts : std::nullopt);
  data.memory = load_memory_series(db);
  data.ooms = load_ooms(db, verdict.root ? verdict.root->event_id : 0);
  // The diagnosis may know a process's role better than the process table (a hog the kernel
  // table names, a foreign holder): the pictures must agree with the verdict.
  auto role_of = [&](const std::string& host, std::int64_t pid) -> std::string {
    for (const auto* p : {&verdict.culprit, &verdict.victim})
      if (*p && (*p)->pid && *(*p)->pid == pid && (*p)->host == host && ((*p)->role == "job" || (*p)->role == "foreign"))
        return (*p)->role;
    return {};
  };
  for (auto& t : data.ooms)
    for (auto& task : t.tasks)
      if (auto r = role_of(t.host, task.pid); !r.empty()) task.role = r;
  for (auto& g : data.gpus)
    for (auto& s : g.samples)
      for (auto& p : s.processes)
        if (auto r = role_of(g.host, p.pid); !r.empty()) p.role = r;
}

}  // namespace culprit::diagnose
