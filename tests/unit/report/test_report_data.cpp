// diagnose::add_report_data: what the report's pictures read from the timeline — events around
// the failure (capped), host clocks, GPU memory per snapshot with process roles, and the kernel
// OOM task table with victim and hog — on a small timeline written with plain SQL.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "culprit/diagnose/report_data.hpp"
#include "culprit/store/database.hpp"

namespace d = culprit::diagnose;
namespace store = culprit::store;

namespace {

constexpr double kOom = 1775695629.0;  // 2026-04-09T00:47:09Z

std::unique_ptr<store::Database> timeline() {
  std::string error;
  auto db = store::Database::open(":memory:", error);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  const std::string sql = fmt::format(R"sql(
INSERT INTO sources(id, name, host, format, bytes, lines) VALUES
  (1, 'spark-b/sglang-worker.log', 'spark-b', 'app_log', 9000, 24),
  (2, 'spark-b/nvidia-smi.txt', 'spark-b', 'nvidia_smi_table', 2533, 22),
  (3, 'spark-a/sglang-head.log', 'spark-a', 'app_log', 8000, 33),
  (4, 'node-3/dmesg.txt', 'node-3', 'kernel_log', 40000, 120),
  (5, 'spark-b/free.txt', 'spark-b', 'free', 300, 3);
INSERT INTO hosts(name, clock_method, clock_confidence, unified_memory) VALUES
  ('spark-b', 'wall-clock stamps', 'high', 1), ('spark-a', 'wall-clock stamps', 'high', 0),
  ('node-3', '', 'none', 0);
INSERT INTO events(id, source_id, line, line_end, ts, ts_raw, ts_kind, ts_value, host, pid, comm, rank, kind,
                   severity, rule, message, fields) VALUES
  (1, 1, 2, 2, {0} - 3, '2026-04-09 00:47:06', 'wall', NULL, 'spark-b', NULL, '', 1, 'log', 'info', 'app_log',
   'Init torch distributed begin.', '{{}}'),
  (2, 1, 22, 22, {0}, '2026-04-09 00:47:09', 'wall', NULL, 'spark-b', NULL, '', 1, 'cuda_oom', 'error',
   'torch_oom', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB.', '{{}}'),
  (3, 3, 31, 31, {0} + 4, '2026-04-09 00:47:13', 'wall', NULL, 'spark-a', NULL, '', 0, 'peer_lost', 'error',
   'nccl', 'RuntimeError: NCCL error: remote process exited or there was a network error', '{{}}'),
  (4, 4, 2, 60, NULL, '[190821.447012]', 'boot', 190821.447012, 'node-3', 40286, 'pt_main_thread', NULL,
   'kernel_oom', 'critical', 'kernel_oom', 'pt_main_thread invoked oom-killer: gfp_mask=0x140dca, order=0', '{{}}');
INSERT INTO process_records(host, pid, names) VALUES
  ('spark-b', 48211, '["VLLM::EngineCore"]'), ('spark-b', 3094, '["/usr/lib/xorg/Xorg"]'),
  ('node-3', 40287, '["pt_main_thread"]'), ('node-3', 1893, '["redis-server"]');
INSERT INTO process_roles(host, pid, role, role_why) VALUES
  ('spark-b', 48211, 'foreign', 'a vLLM process'), ('node-3', 40287, 'job', 'torchrun worker');
INSERT INTO gpu_snapshots(id, source_id, line, host, ts, ts_raw, gpu, model, bus_id, mem_used, mem_total, unified)
  VALUES (1, 2, 9, 'spark-b', {0} + 13, 'Thu Apr  9 00:47:22 2026', 0, 'NVIDIA GB10', '000f:01:00', NULL, NULL, 1),
         (2, 1, 22, 'spark-b', {0}, '2026-04-09 00:47:09', 0, '', '', 128526896333, 128527896333, 0);
INSERT INTO gpu_processes(snapshot_id, pid, name, type, mem_used) VALUES
  (1, 3094, '/usr/lib/xorg/Xorg', 'G', 45088768), (1, 48211, 'VLLM::EngineCore', 'C', 12572426240),
  (2, 48211, '', '', 12573516759);
INSERT INTO host_memory(source_id, line, host, total, used, free, available) VALUES
  (5, 2, 'spark-b', 127775277056, 18253611008, 2040109465, 109521666048);
INSERT INTO oom_reports(event_id, host, ts, constraint_kind, memcg, reason, oom_memcg, task_memcg, cpuset,
                        trigger_pid, trigger_comm, gfp_mask, victim_pid, victim_comm, page_size) VALUES
  (4, 'node-3', NULL, 'CONSTRAINT_NONE', 0, 'Out of memory', '', '/', '/', 40286, 'pt_main_thread', '0x140dca',
   40287, 'pt_main_thread', 4096);
INSERT INTO oom_tasks(event_id, pid, uid, tgid, total_vm_pages, rss_pages, oom_score_adj, name) VALUES
  (4, 1893, 113, 1893, 27000000, 26739978, -1000, 'redis-server'),
  (4, 40287, 1000, 40287, 68104644, 9084133, 0, 'pt_main_thread'),
  (4, 40286, 1000, 40286, 68000000, 8790000, 0, 'pt_main_thread'),
  (4, 812, 0, 812, 12000, 5806, -250, 'systemd-journal');
)sql", kOom);
  REQUIRE(db->exec(sql).empty());
  return db;
}

d::Verdict verdict_for_cuda_oom() {
  d::Verdict v;
  v.verdict = d::verdict::kCudaOom;
  d::Finding root;
  root.event_id = 2;
  root.host = "spark-b";
  root.ts = kOom;
  v.root = root;
  d::Finding echo;
  echo.event_id = 3;
  echo.host = "spark-a";
  echo.echo = true;
  v.echoes = {echo};
  return v;
}

}  // namespace

TEST_CASE("report data: the cross-host timeline leaves out log lines and marks root and echo", "[report]") {
  auto db = timeline();
  auto v = verdict_for_cuda_oom();
  d::add_report_data(*db, v);
  const auto& t = v.data.timeline;
  REQUIRE(t.size() == 3);
  CHECK(v.data.timeline_total == 3);
  CHECK(t[0].event_id == 2);
  CHECK(t[0].mark == "root");
  CHECK(t[0].source == "spark-b/sglang-worker.log");
  CHECK(t[0].line == 22);
  CHECK(t[0].rank == 1);
  CHECK(t[1].event_id == 3);
  CHECK(t[1].mark == "echo");
  // Unplaced events come last, with their raw stamp.
  CHECK(t[2].event_id == 4);
  CHECK_FALSE(t[2].ts);
  CHECK(t[2].ts_kind == "boot");
  CHECK(t[2].ts_value == Approx(190821.447012));
  CHECK(t[2].mark == "other");
}

TEST_CASE("report data: hosts' clock alignment", "[report]") {
  auto db = timeline();
  auto v = verdict_for_cuda_oom();
  d::add_report_data(*db, v);
  REQUIRE(v.data.hosts.size() == 3);
  CHECK(v.data.hosts[0].host == "node-3");
  CHECK(v.data.hosts[0].confidence == "none");
  CHECK(v.data.hosts[2].host == "spark-b");
  CHECK(v.data.hosts[2].method == "wall-clock stamps");
  CHECK(v.data.hosts[2].unified_memory);
}

TEST_CASE("report data: GPU memory per snapshot, processes with their roles, largest first", "[report]") {
  auto db = timeline();
  auto v = verdict_for_cuda_oom();
  d::add_report_data(*db, v);
  REQUIRE(v.data.gpus.size() == 1);
  const auto& g = v.data.gpus[0];
  CHECK(g.host == "spark-b");
  CHECK(g.model == "NVIDIA GB10");
  CHECK(g.unified);
  CHECK(g.pool_total == 127775277056);  // unified memory: the host's memory is the pool
  REQUIRE(g.samples.size() == 2);
  // Time order: the figures the OOM message quoted (00:47:09), then nvidia-smi (00:47:22).
  CHECK(g.samples[0].source == "spark-b/sglang-worker.log");
  CHECK(g.samples[0].total == 128527896333);
  REQUIRE(g.samples[0].processes.size() == 1);
  CHECK(g.samples[0].processes[0].name == "VLLM::EngineCore");  // the name from the process table
  CHECK(g.samples[0].processes[0].role == "foreign");
  const auto& smi = g.samples[1];
  CHECK_FALSE(smi.used);  // "Not Supported"
  REQUIRE(smi.processes.size() == 2);
  CHECK(smi.processes[0].pid == 48211);
  CHECK(smi.processes[0].bytes == 12572426240);
  CHECK(smi.processes[1].name == "/usr/lib/xorg/Xorg");
  CHECK(smi.processes[1].role == "unknown");
}

TEST_CASE("report data: kernel OOM task table by rss, victim and hog, roles from the verdict", "[report]") {
  auto db = timeline();
  d::Verdict v;
  v.verdict = d::verdict::kKernelOom;
  d::Finding root;
  root.event_id = 4;
  root.host = "node-3";
  v.root = root;
  v.culprit = d::ProcessRef{"node-3", 1893, "redis-server", "foreign", "largest rss", ""};
  d::add_report_data(*db, v);
  REQUIRE(v.data.ooms.size() == 1);
  const auto& o = v.data.ooms[0];
  CHECK(o.host == "node-3");
  CHECK(o.constraint == "CONSTRAINT_NONE");
  CHECK(o.trigger_pid == 40286);
  CHECK(o.task_count == 4);
  REQUIRE(o.tasks.size() == 4);
  CHECK(o.tasks[0].pid == 1893);
  CHECK(o.tasks[0].hog);
  CHECK_FALSE(o.tasks[0].victim);
  CHECK(o.tasks[0].rss == 26739978LL * 4096);
  CHECK(o.tasks[0].role == "foreign");  // the verdict knows better than the process table
  CHECK(o.tasks[0].oom_score_adj == -1000);
  CHECK(o.tasks[1].pid == 40287);
  CHECK(o.tasks[1].victim);
  CHECK(o.tasks[1].role == "job");
  CHECK(o.total_rss == (26739978LL + 9084133 + 8790000 + 5806) * 4096);
  // The root is the kernel OOM here: it is marked even though it could not be placed in time.
  REQUIRE_FALSE(v.data.timeline.empty());
  CHECK(v.data.timeline.back().mark == "root");
}

TEST_CASE("report data: a long timeline is capped around the failure", "[report]") {
  auto db = timeline();
  std::string sql = "INSERT INTO events(source_id, line, line_end, ts, ts_raw, ts_kind, host, pid, comm, kind, "
                    "severity, rule, message, fields) VALUES ";
  for (int i = 0; i < 1200; ++i)
    sql += fmt::format("{}(3, {}, {}, {}, '', 'wall', 'spark-a', 70112, 'python3', 'nccl_info', 'info', 'nccl', "
                       "'NCCL INFO comm 0x5581c3d0 rank 0 nRanks 2', '{{}}')",
                       i ? "," : "", 100 + i, 100 + i, kOom - 600 + i);
  REQUIRE(db->exec(sql).empty());
  auto v = verdict_for_cuda_oom();
  d::add_report_data(*db, v);
  CHECK(v.data.timeline.size() == d::kReportTimelineEvents);
  CHECK(v.data.timeline_total == 1203);
  bool root = false;
  for (const auto& e : v.data.timeline) root |= e.mark == "root";
  CHECK(root);
  // Filters of `culprit timeline`.
  d::TimelineQuery q;
  q.hosts = {"spark-b"};
  q.limit = 0;
  CHECK(d::load_timeline(*db, q).size() == 1);
  q.hosts.clear();
  q.kinds = {"cuda_oom", "peer_lost"};
  CHECK(d::load_timeline(*db, q).size() == 2);
  q.kinds.clear();
  q.from = kOom - 10;
  q.to = kOom + 10;
  std::int64_t total = 0;
  const auto window = d::load_timeline(*db, q, &total);
  CHECK(total == static_cast<std::int64_t>(window.size()));
  for (const auto& e : window) CHECK(std::fabs(*e.ts - kOom) <= 10);
}

TEST_CASE("report data: the timeline loader holds at most kTimelineRowLimit events and kTimelineTextBytes of text",
          "[report]") {
  // Redteam finding 14: `culprit timeline --limit 0` over a crafted timeline held every row it
  // was given (2.6 GB and growing). However many events match, and however long their
  // messages, the loader keeps its bounds and says how many matched.
  auto db = timeline();
  const std::int64_t many = static_cast<std::int64_t>(d::kTimelineRowLimit) + 5000;
  REQUIRE(db->exec(fmt::format(
                  "INSERT INTO events(source_id, line, line_end, ts, ts_raw, ts_kind, host, comm, kind, severity, "
                  "rule, message, fields) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT {}) "
                  "SELECT 1, 100 + n, 100 + n, {} + n, '', 'wall', 'spark-b', '', 'peer_lost', 'error', 'x', "
                  "'lost ' || n, '{{}}' FROM r",
                  many, kOom))
              .empty());
  d::TimelineQuery q;
  q.kinds = {"peer_lost"};
  q.limit = 0;  // "all"
  std::int64_t total = 0;
  auto events = d::load_timeline(*db, q, &total);
  CHECK(total == many + 1);  // the seed's own peer_lost too
  CHECK(events.size() == d::kTimelineRowLimit);
  CHECK(events.back().summary == fmt::format("lost {}", many));  // the latest, where failures are
  q.limit = d::kTimelineRowLimit * 10;
  CHECK(d::load_timeline(*db, q).size() == d::kTimelineRowLimit);
  q.limit = 50;
  CHECK(d::load_timeline(*db, q).size() == 50);

  // 40 messages of 4 MiB: the read stops once 64 MiB of text are held.
  REQUIRE(db->exec("INSERT INTO events(source_id, line, line_end, ts, ts_raw, ts_kind, host, comm, kind, severity, "
                   "rule, message, fields) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 40) "
                   "SELECT 1, 200000 + n, 200000 + n, NULL, '', '', 'spark-b', '', 'huge', 'error', 'x', "
                   "replace(hex(zeroblob(2097152)), '0', 'a'), '{}' FROM r")
              .empty());
  q.kinds = {"huge"};
  q.limit = 0;
  events = d::load_timeline(*db, q, &total);
  CHECK(total == 40);
  const std::size_t cap_events = d::kTimelineTextBytes / (std::size_t{4} << 20);
  CHECK(events.size() == cap_events);
  CHECK(events.front().summary.size() == (std::size_t{4} << 20));
}

TEST_CASE("report data: timed host and cgroup memory series, untimed readings left out", "[report]") {
  auto db = timeline();
  const std::string sql = fmt::format(R"sql(
INSERT INTO sources(id, name, host, format, bytes, lines) VALUES
  (6, 'spark-b/sample-0000-meminfo.txt', 'spark-b', 'meminfo', 1500, 55),
  (7, 'spark-b/sample-0001-meminfo.txt', 'spark-b', 'meminfo', 1500, 55),
  (8, 'spark-b/sample-0000-cgroup.txt', 'spark-b', 'cgroup_memory', 900, 30),
  (9, 'spark-b/sample-0001-cgroup.txt', 'spark-b', 'cgroup_memory', 900, 30);
INSERT INTO host_memory(source_id, line, host, ts, total, used, available) VALUES
  (7, 2, 'spark-b', {0} + 10, 127775277056, 100000000000, 27775277056),
  (6, 2, 'spark-b', {0}, 127775277056, 90000000000, 37775277056);
INSERT INTO events(id, source_id, line, line_end, ts, ts_raw, ts_kind, ts_value, host, pid, comm, rank, kind,
                   severity, rule, message, fields) VALUES
  (20, 9, 1, 30, {0} + 10, '2026-04-09T00:47:19Z', 'wall', NULL, 'spark-b', NULL, '', NULL, 'log', 'info',
   'cgroup_memory', 'cgroup /job: usage', '{{"cgroup":"/job","usage_bytes":64000000000,"limit_bytes":68719476736}}'),
  (21, 8, 1, 30, {0}, '2026-04-09T00:47:09Z', 'wall', NULL, 'spark-b', NULL, '', NULL, 'log', 'info',
   'cgroup_memory', 'cgroup /job: usage', '{{"cgroup":"/job","usage_bytes":60000000000,"limit_bytes":68719476736}}');
)sql", kOom);
  REQUIRE(db->exec(sql).empty());
  auto v = verdict_for_cuda_oom();
  d::add_report_data(*db, v);
  REQUIRE(v.data.memory.size() == 2);
  const auto& host = v.data.memory[0];
  CHECK(host.kind == "host");
  CHECK(host.host == "spark-b");
  REQUIRE(host.readings.size() == 2);  // free.txt's untimed row is not on the time axis
  CHECK(host.readings[0].ts == kOom);
  CHECK(host.readings[0].source == "spark-b/sample-0000-meminfo.txt");
  CHECK(*host.readings[1].used == 100000000000);
  CHECK(*host.readings[1].available == 27775277056);
  const auto& cg = v.data.memory[1];
  CHECK(cg.kind == "cgroup");
  CHECK(cg.cgroup == "/job");
  CHECK_FALSE(cg.unlimited);
  REQUIRE(cg.readings.size() == 2);
  CHECK(cg.readings[0].ts < cg.readings[1].ts);
  CHECK(*cg.readings[1].used == 64000000000);
  CHECK(*cg.readings[1].total == 68719476736);
  // Without timed readings: no series.
  auto plain = timeline();
  auto w = verdict_for_cuda_oom();
  d::add_report_data(*plain, w);
  CHECK(w.data.memory.empty());
}
