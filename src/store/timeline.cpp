// TimelineWriter: the store's EventSink. One transaction for the whole ingest, prepared
// statements per table; process sightings are merged per (host, pid) and written at finish();
// an event that restates a fact past the first few alike is counted, not written (RestatedFacts).
#include "culprit/store/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "culprit/store/clock.hpp"
#include "culprit/store/hosts.hpp"
#include "restated_facts.hpp"

namespace culprit::store {
namespace {

/// Whether byte `c` is written escaped in a JSON string.
constexpr bool json_escaped(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  // Runs of bytes that need no escape are appended whole: a field's value rarely has one.
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!json_escaped(c)) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += fmt::format("\\u{:04x}", c);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

/// How many events a writer writes with the events table's indexes kept up row by row before it
/// drops them for finish() to build (Impl::defer_event_indexes).
constexpr std::int64_t kDeferIndexesAfter = 2048;

}  // namespace

std::string fields_to_json(const std::vector<core::Field>& fields) {
  std::size_t size = 2;
  for (const auto& f : fields) size += f.key.size() + f.value.size() + 6;  // quotes, colon, comma
  std::string out;
  out.reserve(size);
  out += '{';
  bool first = true;
  for (const auto& f : fields) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, f.key);
    out += ':';
    if (f.numeric && !f.value.empty()) out += f.value;
    else append_json_string(out, f.value);
  }
  out += '}';
  return out;
}

struct TimelineWriter::Impl {
  /// What the writer gathers of one process (host, pid) until finish() writes its row. A member
  /// type, not one of the file's anonymous namespace: Impl has external linkage.
  struct ProcessAgg {
    std::vector<std::string> names;
    std::string cmdline, container, user, job_evidence, state;
    std::optional<double> first_ts, last_ts, started, elapsed;
    std::optional<std::int64_t> rss, ppid;
    std::optional<std::int64_t> nspid;  // recorded /proc facts (proc_status): the latest reading wins
    std::string cgroup;
    bool absent = false;
  };

  Database& db;
  std::unique_ptr<Transaction> tx;
  std::unique_ptr<Statement> source, event, snapshot, gpu_process, memory, report, task, container;
  std::map<std::pair<std::string, std::int64_t>, ProcessAgg> processes;
  std::set<std::string> hosts;
  std::set<std::string> unified_hosts;  // hosts whose GPU memory is host memory
  std::vector<std::string> deferred_indexes;  // CREATE INDEX statements finish() runs (defer_event_indexes)
  std::int64_t events = 0;                    // events written
  HostsNamed named;                           // hosts_named(): sources whose events may name a host
  RestatedFacts restated;                     // which events restate a fact (counted, not written)
  std::map<std::int64_t, std::string> source_hosts;  // each source's own host (add_source)
  std::int64_t last_source = -1;                     // note_named's last source, and
  const std::string* last_source_host = nullptr;     // its source_hosts entry (null: none)
  std::string error;

  explicit Impl(Database& d) : db(d) {
    // What hosts_named() says holds only of events this writer wrote, so of a timeline it began empty.
    auto any = db.query("SELECT EXISTS (SELECT 1 FROM events) AS any");
    named.complete = any.error.empty() && !any.rows.empty() && any.rows[0]["any"].as_int().value_or(1) == 0;
  }

  /// Notes event `e`'s source in `named` where the event names a host: one other than '' and its
  /// source's (settle_folder_hosts' first question), or a `node` field (its second). The last
  /// source is remembered: an input's events come source by source.
  void note_named(const core::Event& e) {
    if (named.sources.count(e.source_id) > 0) return;
    bool names = std::any_of(e.fields.begin(), e.fields.end(), [](const core::Field& f) { return f.key == "node"; });
    if (!names && !e.host.empty()) {
      if (e.source_id != last_source) {
        const auto it = source_hosts.find(e.source_id);
        last_source = e.source_id;
        last_source_host = it == source_hosts.end() ? nullptr : &it->second;
      }
      names = last_source_host == nullptr || e.host != *last_source_host;
    }
    if (names) named.sources.insert(e.source_id);
  }

  std::unique_ptr<Statement> prep(const char* sql) {
    std::string err;
    auto s = db.prepare_kept(sql, err);
    if (!s && error.empty()) error = fmt::format("{} (in: {})", err, sql);
    return s;
  }

  /// Past kDeferIndexesAfter events, drops the events table's indexes for finish() to build
  /// again from the same CREATE INDEX text (the schema's, read back from sqlite_master): one sort
  /// of the finished table builds an index for less than the B-tree search per row that keeps it
  /// up row by row (a fifth of each event's insert where one line in ten is an event; issue 38).
  /// Not sooner: a change of schema makes the connection prepare its kept statements again (a
  /// scan's spare timeline keeps them from incident to incident; ~7 M instructions), which fewer
  /// events do not repay. Nothing reads the events by an index while the writer writes; inside its
  /// transaction, so a writer that never finishes leaves the schema as it was.
  void defer_event_indexes() {
    auto rows = db.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'"
                         " AND sql IS NOT NULL ORDER BY rowid");
    if (!rows.error.empty()) return;
    for (const auto& r : rows.rows) {
      if (!db.exec(fmt::format("DROP INDEX \"{}\"", r["name"].as_text())).empty()) continue;
      deferred_indexes.push_back(r["sql"].as_text());
    }
  }
};

TimelineWriter::TimelineWriter(Database& db) : impl_(std::make_unique<Impl>(db)) {
  auto& m = *impl_;
  m.tx = std::make_unique<Transaction>(db);
  m.source = m.prep(
      "INSERT INTO sources(name,host,format,bytes,lines,first_line,origin,host_from,clock) VALUES(?,?,?,?,?,?,?,?,?)");
  m.event = m.prep(
      "INSERT INTO events(source_id,line,line_end,ts,ts_raw,ts_kind,ts_value,host,pid,comm,rank,kind,"
      "severity,rule,message,fields) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  m.snapshot = m.prep(
      "INSERT INTO gpu_snapshots(source_id,line,host,ts,ts_raw,gpu,model,bus_id,mem_used,mem_total,"
      "unified) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
  m.gpu_process = m.prep(
      "INSERT INTO gpu_processes(snapshot_id,pid,name,type,mem_used) VALUES(?,?,?,?,?)");
  m.memory = m.prep(
      "INSERT INTO host_memory(source_id,line,host,ts,total,used,free,shared,buff_cache,available,"
      "swap_total,swap_used,swap_free) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
  m.report = m.prep(
      "INSERT OR REPLACE INTO oom_reports(event_id,host,ts,constraint_kind,memcg,reason,oom_memcg,"
      "task_memcg,cpuset,trigger_pid,trigger_comm,gfp_mask,alloc_order,victim_pid,victim_comm,"
      "victim_uid,victim_total_vm,victim_anon_rss,victim_file_rss,victim_shmem_rss,"
      "victim_oom_score_adj,memcg_usage,memcg_limit,memcg_failcnt,page_size) "
      "VALUES(?,?,(SELECT ts FROM events WHERE id=?),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  m.task = m.prep(
      "INSERT INTO oom_tasks(event_id,pid,uid,tgid,total_vm_pages,rss_pages,pgtables_bytes,swapents,"
      "oom_score_adj,name) VALUES(?,?,?,?,?,?,?,?,?,?)");
  m.container = m.prep(
      "INSERT INTO containers(host,id,name,image,command,status,up_seconds,pod,namespace) VALUES(?,?,?,?,?,?,?,?,?)");
}

TimelineWriter::~TimelineWriter() = default;

std::int64_t TimelineWriter::add_source(const core::SourceInfo& s) {
  auto& m = *impl_;
  if (!m.source) return 0;
  m.source->reset();
  // The texts without a copy (Statement::bind_static): `s` outlives the step, and each is bound
  // again for the next source (a folder of small files is thousands of sources).
  m.source->bind_static(1, s.name);
  m.source->bind_static(2, s.host);
  m.source->bind_static(3, s.format);
  m.source->bind(4, s.bytes);
  m.source->bind(5, s.lines);
  m.source->bind(6, s.first_line);
  m.source->bind_static(7, s.origin);
  m.source->bind_static(8, s.host_from);
  m.source->bind_static(9, kNoSourceClock);  // align_clocks writes the clock of a source that has one
  m.source->step();
  if (!s.host.empty()) m.hosts.insert(s.host);
  const std::int64_t id = m.db.last_insert_id();
  m.restated.add_source(id, s);
  m.source_hosts[id] = s.host;
  if (id == m.last_source) m.last_source = -1;  // its entry changed
  return id;
}

std::int64_t TimelineWriter::add_event(const core::Event& e) {
  auto& m = *impl_;
  if (!m.event) return 0;
  // Alike in host, pid and fields to one written, so its host is noted and names none anew.
  if (m.restated.restated(e)) return 0;
  auto& st = *m.event;
  st.reset();
  st.bind(1, e.source_id);
  st.bind(2, e.line);
  st.bind(3, std::max(e.line_end, e.line));
  st.bind_opt(4, e.ts);
  // Every text from `e` (or `fields`, below) without a copy: they outlive the step, and each
  // parameter is bound again for the next row (Statement::bind_static).
  const std::string fields = fields_to_json(e.fields);
  st.bind_static(5, e.ts_raw);
  st.bind_static(6, core::to_string(e.ts_kind));
  st.bind_opt(7, e.ts_value);
  st.bind_static(8, e.host);
  st.bind_opt(9, e.pid);
  st.bind_static(10, e.comm);
  if (e.rank) st.bind(11, static_cast<std::int64_t>(*e.rank)); else st.bind_null(11);
  st.bind_static(12, e.kind);
  st.bind_static(13, core::to_string(e.severity));
  st.bind_static(14, e.rule);
  st.bind_static(15, e.message);
  st.bind_static(16, fields);
  st.step();
  if (!e.host.empty()) m.hosts.insert(e.host);
  m.note_named(e);
  const std::int64_t id = m.db.last_insert_id();
  if (++m.events == kDeferIndexesAfter) m.defer_event_indexes();
  return id;
}

void TimelineWriter::add_gpu_snapshot(const core::GpuSnapshot& g) {
  auto& m = *impl_;
  if (!m.snapshot) return;
  auto& st = *m.snapshot;
  st.reset();
  st.bind(1, g.source_id);
  st.bind(2, g.line);
  st.bind(3, g.host);
  st.bind_opt(4, g.ts);
  st.bind(5, g.ts_raw);
  st.bind(6, static_cast<std::int64_t>(g.gpu));
  st.bind(7, g.model);
  st.bind(8, g.bus_id);
  st.bind_opt(9, g.mem_used);
  st.bind_opt(10, g.mem_total);
  st.bind(11, static_cast<std::int64_t>(g.unified ? 1 : 0));
  st.step();
  const std::int64_t id = m.db.last_insert_id();
  for (const auto& p : g.processes) {
    auto& ps = *m.gpu_process;
    ps.reset();
    ps.bind(1, id);
    ps.bind(2, p.pid);
    ps.bind(3, p.name);
    ps.bind(4, p.type);
    ps.bind_opt(5, p.mem_used);
    ps.step();
  }
  if (g.unified && !g.host.empty()) m.unified_hosts.insert(g.host);
  if (!g.host.empty()) m.hosts.insert(g.host);
}

void TimelineWriter::add_host_memory(const core::HostMemory& h) {
  auto& m = *impl_;
  if (!m.memory) return;
  auto& st = *m.memory;
  st.reset();
  st.bind(1, h.source_id);
  st.bind(2, h.line);
  st.bind(3, h.host);
  st.bind_opt(4, h.ts);
  st.bind_opt(5, h.total);
  st.bind_opt(6, h.used);
  st.bind_opt(7, h.free);
  st.bind_opt(8, h.shared);
  st.bind_opt(9, h.buff_cache);
  st.bind_opt(10, h.available);
  st.bind_opt(11, h.swap_total);
  st.bind_opt(12, h.swap_used);
  st.bind_opt(13, h.swap_free);
  st.step();
}

void TimelineWriter::add_oom_report(const core::OomReport& r) {
  auto& m = *impl_;
  if (!m.report) return;
  auto& st = *m.report;
  st.reset();
  int i = 1;
  st.bind(i++, r.event_id);
  st.bind(i++, r.host);
  st.bind(i++, r.event_id);
  st.bind(i++, r.constraint);
  st.bind(i++, static_cast<std::int64_t>(r.memcg ? 1 : 0));
  st.bind(i++, r.reason);
  st.bind(i++, r.oom_memcg);
  st.bind(i++, r.task_memcg);
  st.bind(i++, r.cpuset);
  st.bind_opt(i++, r.trigger_pid);
  st.bind(i++, r.trigger_comm);
  st.bind(i++, r.gfp_mask);
  if (r.order) st.bind(i++, static_cast<std::int64_t>(*r.order)); else st.bind_null(i++);
  st.bind_opt(i++, r.victim_pid);
  st.bind(i++, r.victim_comm);
  st.bind_opt(i++, r.victim_uid);
  st.bind_opt(i++, r.victim_total_vm);
  st.bind_opt(i++, r.victim_anon_rss);
  st.bind_opt(i++, r.victim_file_rss);
  st.bind_opt(i++, r.victim_shmem_rss);
  if (r.victim_oom_score_adj) st.bind(i++, static_cast<std::int64_t>(*r.victim_oom_score_adj)); else st.bind_null(i++);
  st.bind_opt(i++, r.memcg_usage);
  st.bind_opt(i++, r.memcg_limit);
  st.bind_opt(i++, r.memcg_failcnt);
  st.bind(i++, r.page_size);
  st.step();
  for (const auto& t : r.tasks) {
    auto& ts = *m.task;
    ts.reset();
    ts.bind(1, r.event_id);
    ts.bind(2, t.pid);
    ts.bind_opt(3, t.uid);
    ts.bind_opt(4, t.tgid);
    ts.bind_opt(5, t.total_vm_pages);
    ts.bind_opt(6, t.rss_pages);
    ts.bind_opt(7, t.pgtables_bytes);
    ts.bind_opt(8, t.swapents);
    if (t.oom_score_adj) ts.bind(9, static_cast<std::int64_t>(*t.oom_score_adj)); else ts.bind_null(9);
    ts.bind(10, t.name);
    ts.step();
  }
}

void TimelineWriter::add_process(const core::ProcessSighting& p) {
  auto& agg = impl_->processes[{p.host, p.pid}];
  if (!p.name.empty() && std::find(agg.names.begin(), agg.names.end(), p.name) == agg.names.end())
    agg.names.push_back(p.name);
  if (agg.cmdline.empty()) agg.cmdline = p.cmdline;
  if (agg.container.empty()) agg.container = p.container;
  if (agg.user.empty()) agg.user = p.user;
  // ps fields: the latest listing wins (a later `ps` shows the state the failure saw).
  if (!p.state.empty()) agg.state = p.state;
  if (p.started) agg.started = p.started;
  if (p.elapsed) agg.elapsed = p.elapsed;
  if (p.rss) agg.rss = p.rss;
  if (p.ppid) agg.ppid = p.ppid;
  if (p.nspid) agg.nspid = p.nspid;
  if (!p.cgroup.empty()) agg.cgroup = p.cgroup;
  if (p.absent) agg.absent = true;
  if (p.job && agg.job_evidence.empty()) agg.job_evidence = p.evidence.empty() ? "job log" : p.evidence;
  if (p.ts) {
    if (!agg.first_ts || *p.ts < *agg.first_ts) agg.first_ts = p.ts;
    if (!agg.last_ts || *p.ts > *agg.last_ts) agg.last_ts = p.ts;
  }
  if (!p.host.empty()) impl_->hosts.insert(p.host);
}

void TimelineWriter::add_container(const core::ContainerInfo& c) {
  auto& m = *impl_;
  if (!m.container) return;
  auto& st = *m.container;
  st.reset();
  st.bind(1, c.host);
  st.bind(2, c.id);
  st.bind(3, c.name);
  st.bind(4, c.image);
  st.bind(5, c.command);
  st.bind(6, c.status);
  st.bind_opt(7, c.up_seconds);
  st.bind(8, c.pod);
  st.bind(9, c.pod_namespace);
  st.step();
}

const HostsNamed& TimelineWriter::hosts_named() const { return impl_->named; }

const std::vector<RestatedEvents>& TimelineWriter::restated_events() const { return impl_->restated.counted(); }

std::string TimelineWriter::finish() {
  auto& m = *impl_;
  std::string err;
  if (auto p = m.db.prepare_kept(
          "INSERT INTO process_records(host,pid,names,cmdline,container,user,job_evidence,first_ts,last_ts,"
          "state,started,elapsed,rss,ppid,nspid,cgroup,absent) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
          err)) {
    for (const auto& [key, agg] : m.processes) {
      // Longest name first: it is the least truncated (kernel comm names stop at 15 chars).
      auto names = agg.names;
      std::stable_sort(names.begin(), names.end(),
                       [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
      std::string json = "[";
      for (size_t i = 0; i < names.size(); ++i) {
        if (i) json += ',';
        append_json_string(json, names[i]);
      }
      json += ']';
      p->reset();
      p->bind(1, key.first);
      p->bind(2, key.second);
      p->bind(3, json);
      p->bind(4, agg.cmdline);
      p->bind(5, agg.container);
      p->bind(6, agg.user);
      p->bind(7, agg.job_evidence);
      p->bind_opt(8, agg.first_ts);
      p->bind_opt(9, agg.last_ts);
      p->bind(10, agg.state);
      p->bind_opt(11, agg.started);
      p->bind_opt(12, agg.elapsed);
      p->bind_opt(13, agg.rss);
      p->bind_opt(14, agg.ppid);
      p->bind_opt(15, agg.nspid);
      p->bind(16, agg.cgroup);
      p->bind(17, static_cast<std::int64_t>(agg.absent ? 1 : 0));
      p->step();
    }
  }
  if (auto h = m.db.prepare_kept("INSERT OR IGNORE INTO hosts(name, unified_memory) VALUES(?, ?)", err)) {
    for (const auto& host : m.hosts) {
      h->reset();
      h->bind(1, host);
      h->bind(2, static_cast<std::int64_t>(m.unified_hosts.count(host) ? 1 : 0));
      h->step();
    }
  }
  for (const auto& sql : m.deferred_indexes)
    if (auto e = m.db.exec(sql); !e.empty() && m.error.empty()) m.error = e;
  m.deferred_indexes.clear();
  std::string result = m.error;
  const std::string commit = m.tx->commit();
  if (result.empty()) result = commit;
  return result;
}

}  // namespace culprit::store
