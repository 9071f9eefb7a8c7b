// Who the kernel killed when a report is not whole: the selected parent killed after its
// sacrificed child (one episode, the last kill is the victim), a selection whose kill line was
// cut, the OOM reaper's line as the only trace of the victim, a memcg report known only from its
// call trace or from a counter line whose failcnt was cut. Lines are written from the kernel's
// format strings (mm/oom_kill.c: "%s: Kill process %d (%s) score %u or sacrifice child",
// "Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB",
// "oom_reaper: reaped process %d (%s), now anon-rss:%lukB, …"; mm/memcontrol.c:
// "%s: usage %llukB, limit %llukB, failcnt %lu"), not from any paste.
#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/ingest/test_signals.hpp"

namespace kernel_oom_victim_tests {

using culprit::test::RecordingSink;

namespace {

struct Run {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::text::SignalSet signals = culprit::test::kernel_test_signals();
};

void run_kernel(std::string_view text, Run& r) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.signals = &r.signals;
  ctx.diagnostics = &r.diags;
  ctx.source_id = 1;
  ctx.source_name = "kern.log";
  ctx.host = "node";
  ctx.format = "kernel_log";
  culprit::ingest::parse_kernel_log(text, ctx);
}

}  // namespace

TEST_CASE("sacrifice child, then the same parent selected again and killed: one kill, the parent", "[kernel_log][victim]") {
  Run r;
  run_kernel("[ 500.100000] Out of memory: Kill process 4100 (trainer) score 990 or sacrifice child\n"
             "[ 500.100200] Killed process 4177 (trainer) total-vm:146000kB, anon-rss:0kB, file-rss:1800kB, shmem-rss:0kB\n"
             "[ 501.200000] Out of memory: Kill process 4100 (trainer) score 990 or sacrifice child\n"
             "[ 501.200300] Killed process 4100 (trainer) total-vm:118000000kB, anon-rss:109000000kB, file-rss:3300kB, shmem-rss:0kB\n",
             r);
  auto kills = r.sink.of_kind("oom_kill");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 4100);
  CHECK(kills[0].field_or("other_killed_pids") == "4177");
  CHECK(kills[0].field_or("victim_from") == "kill_line");
}

TEST_CASE("a sacrificed child alone: the child is the victim, the selected parent is kept apart", "[kernel_log][victim]") {
  Run r;
  run_kernel("[ 500.100000] Out of memory: Kill process 4100 (python) score 998 or sacrifice child\n"
             "[ 500.100200] Killed process 4108 (nvidia-smi) total-vm:16900kB, anon-rss:2800kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  auto kills = r.sink.of_kind("oom_kill");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 4108);
  CHECK(kills[0].field_or("selected_pid") == "4100");
  CHECK(kills[0].field_or("selected_score") == "998");
}

TEST_CASE("look-alike: another process selected later is a new kill, not the same episode", "[kernel_log][victim]") {
  Run r;
  run_kernel("[ 500.100000] Out of memory: Kill process 4100 (a) score 990 or sacrifice child\n"
             "[ 500.100200] Killed process 4177 (a) total-vm:1000kB, anon-rss:0kB, file-rss:10kB, shmem-rss:0kB\n"
             "[ 501.200000] Out of memory: Kill process 5200 (b) score 700 or sacrifice child\n"
             "[ 501.200300] Killed process 5200 (b) total-vm:9000kB, anon-rss:8000kB, file-rss:10kB, shmem-rss:0kB\n"
             // the same parent again, but long after: a new OOM
             "[ 900.000000] Out of memory: Kill process 4100 (a) score 990 or sacrifice child\n"
             "[ 900.000300] Killed process 4100 (a) total-vm:9000kB, anon-rss:8000kB, file-rss:10kB, shmem-rss:0kB\n",
             r);
  auto kills = r.sink.of_kind("oom_kill");
  REQUIRE(kills.size() == 3);
  CHECK(kills[0].pid == 4177);
  CHECK(kills[1].pid == 5200);
  CHECK(kills[2].pid == 4100);
}

TEST_CASE("a report cut after its selection line: the selected process is the victim", "[kernel_log][victim]") {
  Run r;
  run_kernel("kthreadd invoked oom-killer: gfp_mask=0x27080c0(GFP_KERNEL_ACCOUNT|__GFP_ZERO), nodemask=0, order=2, oom_score_adj=0\n"
             "Out of memory: Kill process 7001 (python3) score 266 or sacrifice child\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].victim_pid == 7001);
  CHECK(r.sink.oom_reports[0].victim_comm == "python3");
  auto ev = r.sink.of_kind("kernel_oom");
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].field_or("victim_from") == "selected");
}

TEST_CASE("a report whose kill line was filtered away: the reaper's line names the victim", "[kernel_log][victim]") {
  Run r;
  run_kernel("[594675.027262] python invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0\n"
             "[594675.027276]  oom_kill_process+0x220/0x440\n"
             "[594677.436088] oom_reaper: reaped process 29001 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].victim_pid == 29001);
  CHECK(r.sink.oom_reports[0].victim_comm == "python");
  CHECK(r.sink.of_kind("kernel_oom")[0].field_or("victim_from") == "reaper");
}

TEST_CASE("a memcg OOM known only from its call trace is a cgroup OOM: a global trace is not", "[kernel_log][victim]") {
  Run memcg;
  run_kernel("[2612362.231458] python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null), order=0, oom_score_adj=829\n"
             "[2612362.231465] CPU: 6 PID: 20801 Comm: python Tainted: P           O     4.15.15-1.el7.x86_64 #1\n"
             "[2612362.231467] Call Trace:\n"
             "[2612362.231482]  ? mem_cgroup_scan_tasks+0x9c/0xf0\n"
             "[2612362.231483]  oom_kill_process+0x21c/0x430\n"
             "[2612362.231485]  out_of_memory+0x114/0x4a0\n"
             "[2612362.231487]  mem_cgroup_out_of_memory+0x4b/0x80\n"
             "[2612362.231489]  mem_cgroup_oom_synchronize+0x2f9/0x330\n",
             memcg);
  REQUIRE(memcg.sink.oom_reports.size() == 1);
  CHECK(memcg.sink.oom_reports[0].memcg);
  CHECK(memcg.sink.oom_reports[0].trigger_pid == 20801);

  Run global;  // the `?` frame of a stale stack word is not the call path
  run_kernel("[2612362.231458] python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null), order=0, oom_score_adj=0\n"
             "[2612362.231467] Call Trace:\n"
             "[2612362.231482]  ? mem_cgroup_scan_tasks+0x9c/0xf0\n"
             "[2612362.231483]  oom_kill_process+0x21c/0x430\n"
             "[2612362.231485]  out_of_memory+0x114/0x4a0\n"
             "[2612362.231486]  __alloc_pages_slowpath+0xbd1/0xc80\n"
             "[2612362.231487]  ? mem_cgroup_out_of_memory+0x4b/0x80\n",
             global);
  REQUIRE(global.sink.oom_reports.size() == 1);
  CHECK_FALSE(global.sink.oom_reports[0].memcg);
}

TEST_CASE("a memcg counter line with usage and limit opens a report even without failcnt", "[kernel_log][victim]") {
  Run r;
  run_kernel("memory+swap: usage 117964800kB, limit 117964800kB\n", r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].memcg);
  auto ev = r.sink.of_kind("kernel_oom");
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].field_or("memsw_limit_bytes") == std::to_string(117964800LL * 1024));

  Run prose;  // a sentence that quotes a usage figure is not a counter line
  run_kernel("memory usage 117964800kB, limit 117964800kB\n", prose);
  CHECK(prose.sink.oom_reports.empty());
}

}  // namespace kernel_oom_victim_tests
