// Kernel-log parser behaviour: each task-table layout (formats.md §1.6), report grouping (hosts,
// stamps, truncation, rate-limited kill lines), memcg classification, signals on other lines.
#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "ingest/signal_events.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/ingest/test_signals.hpp"

using culprit::core::OomTask;
using culprit::test::RecordingSink;

namespace {

struct KernelRun {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::text::SignalSet signals = culprit::test::kernel_test_signals();
};

void run_kernel(std::string_view text, KernelRun& r, std::string host = "ctx-host", int year_hint = 0) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.signals = &r.signals;
  ctx.diagnostics = &r.diags;
  ctx.source_id = 1;
  ctx.source_name = "kern.log";
  ctx.host = std::move(host);
  ctx.format = "kernel_log";
  ctx.year_hint = year_hint;
  culprit::ingest::parse_kernel_log(text, ctx);
}

const OomTask& task(const culprit::core::OomReport& r, std::int64_t pid) {
  for (const auto& t : r.tasks)
    if (t.pid == pid) return t;
  FAIL("no task " << pid);
  return r.tasks.front();
}

}  // namespace

// ---------------------------------------------------------------- task-table layouts

TEST_CASE("task table 2.6.32 RHEL 6 layout (cpu, oom_adj)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("[ pid ]   uid  tgid total_vm      rss cpu oom_adj oom_score_adj name\n"
             "[ 2592]   501  2592  2132665  1781024   6       0             0 java\n"
             "[  512]     0   512     2767      102   1     -17         -1000 udevd\n"
             "Out of memory: Kill process 2592 (java) score 870 or sacrifice child\n"
             "Killed process 2592, UID 501, (java) total-vm:8530660kB, anon-rss:7123984kB, file-rss:112kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& rep = r.sink.oom_reports[0];
  REQUIRE(rep.tasks.size() == 2);
  CHECK(task(rep, 2592).rss_pages == 1781024);
  CHECK(task(rep, 2592).total_vm_pages == 2132665);
  CHECK(task(rep, 512).oom_score_adj == -1000);
  CHECK_FALSE(task(rep, 512).swapents.has_value());
  CHECK(task(rep, 512).name == "udevd");
}

TEST_CASE("task table 3.10 layout (nr_ptes swapents)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("[ pid ]   uid  tgid total_vm      rss nr_ptes swapents oom_score_adj name\n"
             "[  390]     0   390    39012     6739      78       51             0 systemd-journal\n"
             "[ 6576]    27  6576  8478723  5157251   16234   207011             0 mysqld\n"
             "Out of memory: Kill process 6576 (mysqld) score 651 or sacrifice child\n"
             "Killed process 6576 (mysqld) total-vm:33914892kB, anon-rss:20629004kB, file-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& t = task(r.sink.oom_reports[0], 6576);
  CHECK(t.uid == 27);
  CHECK(t.rss_pages == 5157251);
  CHECK(t.swapents == 207011);
  CHECK_FALSE(t.pgtables_bytes.has_value());  // nr_ptes is pages of page tables, not bytes
  CHECK(r.sink.oom_reports[0].page_size == 4096);
}

TEST_CASE("task table 4.4-4.14 layout (nr_ptes nr_pmds)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("python invoked oom-killer: gfp_mask=0x24201ca(GFP_HIGHUSER_MOVABLE|__GFP_COLD), nodemask=0,  order=0, oom_score_adj=0\n"
             "[ pid ]   uid  tgid total_vm      rss nr_ptes nr_pmds swapents oom_score_adj name\n"
             "[ 1210]  1000  1210  3012331  2010223    4012      15        0             0 python\n"
             "Out of memory: Kill process 1210 (python) score 912 or sacrifice child\n"
             "Killed process 1210 (python) total-vm:12049324kB, anon-rss:8040892kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& t = task(r.sink.oom_reports[0], 1210);
  CHECK(t.rss_pages == 2010223);
  CHECK(t.swapents == 0);
  CHECK(t.oom_score_adj == 0);
  CHECK(t.name == "python");
}

TEST_CASE("task table 4.15-4.18 layout (pgtables_bytes, 5-wide pid)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("[ pid ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
             "[23001]     0 23001 15456336  8344168 73531392        0             0 python\n"
             "Killed process 23001 (python) total-vm:61825344kB, anon-rss:33324544kB, file-rss:52128kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& t = task(r.sink.oom_reports[0], 23001);
  CHECK(t.pgtables_bytes == 73531392);
  CHECK(t.rss_pages == 8344168);
}

TEST_CASE("task table 4.19-6.6 layout (banner, 7-wide pid)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("Tasks state (memory values in pages):\n"
             "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
             "[ 918273]     0 918273 143215104 16543056 88473600        0           985 pt_main_thread\n"
             "[ 917001] 65535 917001      243        1    28672        0          -998 pause\n"
             "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=x,mems_allowed=0-1,oom_memcg=/a,task_memcg=/a/b,task=pt_main_thread,pid=918273,uid=0\n"
             "Memory cgroup out of memory: Killed process 918273 (pt_main_thread) total-vm:572860416kB, anon-rss:66120000kB, file-rss:51200kB, shmem-rss:1024kB, UID:0 pgtables:86400kB oom_score_adj:985\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& rep = r.sink.oom_reports[0];
  CHECK(task(rep, 918273).total_vm_pages == 143215104);
  CHECK(task(rep, 918273).oom_score_adj == 985);
  CHECK(task(rep, 917001).uid == 65535);
  CHECK(rep.memcg);
  CHECK(rep.oom_memcg == "/a");
  CHECK(rep.task_memcg == "/a/b");
}

TEST_CASE("task table 6.8+ layout (rss_anon rss_file rss_shmem)", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("Tasks state (memory values in pages):\n"
             "[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name\n"
             "[   1365]   990  1365     4420      213      128       85         0    77824       96          -900 systemd-oomd\n"
             "[  43056]  1000 43056  7511161  3403343  3388364    14371       608 32583680   518157           200 colmap\n"
             "Out of memory: Killed process 43056 (colmap) total-vm:30044644kB, anon-rss:13553456kB, file-rss:57484kB, shmem-rss:2432kB, UID:1000 pgtables:31820kB oom_score_adj:200\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& t = task(r.sink.oom_reports[0], 43056);
  CHECK(t.rss_pages == 3403343);
  CHECK(t.rss_anon_pages == 3388364);
  CHECK(t.rss_file_pages == 14371);
  CHECK(t.rss_shmem_pages == 608);
  CHECK(t.pgtables_bytes == 32583680);
  CHECK(t.swapents == 518157);
  CHECK(t.oom_score_adj == 200);
  CHECK(task(r.sink.oom_reports[0], 1365).name == "systemd-oomd");
}

TEST_CASE("task names with spaces take the rest of the line", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
             "[   4711]  1000  4711   755061   325556  5541888        0           167 Isolated Web Co\n"
             "[   4712]  1000  4712    30211     1201   262144        0             0 (sd-pam)\n"
             "Out of memory: Killed process 4711 (Isolated Web Co) total-vm:3020244kB, anon-rss:1302224kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:5412kB oom_score_adj:167\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(task(r.sink.oom_reports[0], 4711).name == "Isolated Web Co");
  CHECK(task(r.sink.oom_reports[0], 4712).name == "(sd-pam)");
  CHECK(r.sink.oom_reports[0].victim_comm == "Isolated Web Co");
}

TEST_CASE("task rows wrapped by a terminal: name on the next line, or cut inside a number", "[kernel_log][task_table]") {
  KernelRun r;
  run_kernel("[  100.000001] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
             "[  100.000002] [   4711]  1000  4711   755061   325556  5541888        0           167\n"
             "Isolated Web Co\n"
             "[  100.000003] [   4712]  1000  4712    30211     1201   262144        0            -9\n"
             "00 Xorg\n"
             "[  100.000004] Out of memory: Killed process 4711 (Isolated Web Co) total-vm:3020244kB, anon-rss:1302224kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:5412kB oom_score_adj:167\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& rep = r.sink.oom_reports[0];
  REQUIRE(rep.tasks.size() == 2);
  CHECK(task(rep, 4711).name == "Isolated Web Co");
  CHECK(task(rep, 4712).name == "Xorg");
  CHECK(task(rep, 4712).oom_score_adj == -900);
  CHECK(r.sink.event_of(rep).line_end == 6);
}

// ---------------------------------------------------------------- report grouping

TEST_CASE("a kill line without a report becomes an oom_kill event", "[kernel_log]") {
  KernelRun r;
  run_kernel("[ 5823.771120] Memory cgroup out of memory: Killed process 3307 (python3) total-vm:8049324kB, anon-rss:15598812kB, file-rss:12044kB, shmem-rss:4096kB, UID:1000 pgtables:31020kB oom_score_adj:0\n"
             "[ 5824.001002] oom_reaper: reaped process 3307 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  CHECK(r.sink.oom_reports.empty());
  auto kills = r.sink.of_kind("oom_kill");
  REQUIRE(kills.size() == 1);
  CHECK(kills[0].pid == 3307);
  CHECK(kills[0].comm == "python3");
  CHECK(kills[0].field_or("memcg") == "1");
  CHECK(kills[0].field_or("victim_anon_rss_bytes") == std::to_string(15598812LL * 1024));
  CHECK(kills[0].field_or("reaped") == "1");
  CHECK(kills[0].line == 1);
  CHECK(kills[0].line_end == 2);
  CHECK(r.sink.processes.size() == 1);
}

TEST_CASE("a storm of rate-limited kills: one oom_kill per kill, 5.0 two-line form joined", "[kernel_log]") {
  KernelRun r;
  run_kernel("[  10.000001] Out of memory: Kill process 100 (a) score 900 or sacrifice child\n"
             "[  10.000002] Killed process 101 (a-child) total-vm:1000kB, anon-rss:800kB, file-rss:0kB, shmem-rss:0kB\n"
             "[  10.500001] Out of memory: Killed process 200 (b) total-vm:2000kB, anon-rss:1800kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:8kB oom_score_adj:0\n"
             "[  11.000001] Out of memory: Killed process 300 (c) total-vm:3000kB, anon-rss:2800kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:8kB oom_score_adj:0\n",
             r);
  auto kills = r.sink.of_kind("oom_kill");
  REQUIRE(kills.size() == 3);
  CHECK(kills[0].pid == 101);  // the Killed process pid is authoritative ("sacrifice child")
  CHECK(kills[0].field_or("reason") == "Out of memory");
  CHECK(kills[0].field_or("memcg") == "0");
  CHECK(kills[1].pid == 200);
  CHECK(kills[2].pid == 300);
}

TEST_CASE("a report cut before its kill line: kernel_oom with victim unknown and a note", "[kernel_log]") {
  KernelRun r;
  run_kernel("[  50.1] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[  50.1] CPU: 1 PID: 77 Comm: python Not tainted 6.1.0 #1\n"
             "[  50.1] Mem-Info:\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK_FALSE(r.sink.oom_reports[0].victim_pid.has_value());
  CHECK(r.sink.oom_reports[0].trigger_pid == 77);
  CHECK(r.sink.events[0].field_or("no_kill_line") == "1");
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags[0].code == "kernel_oom_no_kill_line");
  CHECK(r.diags[0].where == "kern.log:1");
}

TEST_CASE("two reports back to back are two events: a new invoked line closes a cut report", "[kernel_log]") {
  KernelRun r;
  run_kernel("[ 1.0] a invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[ 1.0] Mem-Info:\n"
             "[ 1.1] b invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[ 1.1] Out of memory: Killed process 9 (b) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n"
             "[ 2.1] c invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[ 2.1] Out of memory: Killed process 10 (c) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 3);
  CHECK_FALSE(r.sink.oom_reports[0].victim_pid.has_value());
  CHECK(r.sink.oom_reports[1].victim_pid == 9);
  CHECK(r.sink.oom_reports[2].victim_pid == 10);
  CHECK(r.sink.event_of(r.sink.oom_reports[1]).line == 3);
  CHECK(r.sink.event_of(r.sink.oom_reports[1]).line_end == 4);
}

TEST_CASE("interleaved syslog lines of two hosts are grouped by host", "[kernel_log]") {
  KernelRun r;
  run_kernel(
      "Jun  2 08:12:09 node-a kernel: [  10.000001] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
      "Jun  2 08:12:09 node-b kernel: [  20.000001] java invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
      "Jun  2 08:12:09 node-a kernel: [  10.000002] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
      "Jun  2 08:12:09 node-b kernel: [  20.000002] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
      "Jun  2 08:12:09 node-a kernel: [  10.000003] [    111]     0   111     1000      900     4096        0             0 python\n"
      "Jun  2 08:12:09 node-b kernel: [  20.000003] [    222]     0   222     2000     1900     4096        0             0 java\n"
      "Jun  2 08:12:09 node-b kernel: [  20.000004] Out of memory: Killed process 222 (java) total-vm:8000kB, anon-rss:7600kB, file-rss:0kB, shmem-rss:0kB\n"
      "Jun  2 08:12:09 node-a kernel: [  10.000004] Out of memory: Killed process 111 (python) total-vm:4000kB, anon-rss:3600kB, file-rss:0kB, shmem-rss:0kB\n",
      r);
  REQUIRE(r.sink.oom_reports.size() == 2);
  for (const auto& rep : r.sink.oom_reports) {
    REQUIRE(rep.tasks.size() == 1);
    if (rep.host == "node-a") {
      CHECK(rep.victim_pid == 111);
      CHECK(rep.trigger_comm == "python");
      CHECK(rep.tasks[0].pid == 111);
    } else {
      CHECK(rep.host == "node-b");
      CHECK(rep.victim_pid == 222);
      CHECK(rep.tasks[0].pid == 222);
    }
  }
}

TEST_CASE("lines far apart in time do not join one report", "[kernel_log]") {
  KernelRun r;
  run_kernel("[  10.0] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[ 500.0] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
             "[ 900.0] Out of memory: Killed process 5 (x) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK_FALSE(r.sink.oom_reports[0].victim_pid.has_value());
  CHECK(r.sink.of_kind("xid").size() == 1);
  CHECK(r.sink.of_kind("oom_kill").size() == 1);
}

TEST_CASE("a report whose lines carry different stamp styles still parses", "[kernel_log]") {
  KernelRun r;
  run_kernel("[  10.000001] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "Mem-Info:\n"
             "Jun  2 08:12:09 h kernel: Free swap  = 0kB\n"
             "6,1,10000100,-;Total swap = 0kB\n"
             "[Sun Mar  3 04:15:09 2024] Out of memory: Killed process 5 (x) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  CHECK(r.sink.events.size() >= 1);
  CHECK(r.sink.of_kind("kernel_oom").size() + r.sink.of_kind("oom_kill").size() >= 1);
}

// ---------------------------------------------------------------- classification and fields

TEST_CASE("a global OOM that kills a task inside a container is not a memcg OOM", "[kernel_log]") {
  KernelRun r;
  run_kernel("python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n"
             "Mem-Info:\n"
             "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=docker-3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09.scope,mems_allowed=0,global_oom,"
             "task_memcg=/system.slice/docker-3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09.scope,task=python,pid=4242,uid=0\n"
             "Out of memory: Killed process 4242 (python) total-vm:31254124kB, anon-rss:8359812kB, file-rss:23744kB, shmem-rss:0kB, UID:0 pgtables:17000kB oom_score_adj:0\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& rep = r.sink.oom_reports[0];
  CHECK_FALSE(rep.memcg);
  CHECK(rep.constraint == "CONSTRAINT_NONE");
  CHECK(rep.oom_memcg.empty());
  const auto& ev = r.sink.event_of(rep);
  CHECK(ev.field_or("memcg") == "0");
  CHECK(ev.field_or("container_id") == "3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09");
  bool victim_in_container = false;
  for (const auto& p : r.sink.processes)
    victim_in_container |= p.pid == 4242 && p.container.size() == 64;
  CHECK(victim_in_container);
}

TEST_CASE("memcg without a constraint line: `Task in … killed as a result of limit`", "[kernel_log]") {
  KernelRun r;
  run_kernel("python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null), order=0, oom_score_adj=0\n"
             "Task in /slurm/uid_1000/job_4242/step_0 killed as a result of limit of /slurm/uid_1000/job_4242\n"
             "memory: usage 8388608kB, limit 8388608kB, failcnt 52\n"
             "Killed process 4242 (python) total-vm:31254124kB, anon-rss:8359812kB, file-rss:23744kB, shmem-rss:0kB\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  const auto& rep = r.sink.oom_reports[0];
  CHECK(rep.memcg);
  CHECK(rep.constraint == "CONSTRAINT_MEMCG");
  CHECK(rep.oom_memcg == "/slurm/uid_1000/job_4242");
  CHECK(rep.task_memcg == "/slurm/uid_1000/job_4242/step_0");
  CHECK(rep.memcg_limit == 8388608LL * 1024);
  const auto& ev = r.sink.event_of(rep);
  CHECK(ev.field_or("memcg_limit_bytes") == std::to_string(8388608LL * 1024));
  CHECK(ev.field_or("constraint_inferred") == "1");
}

TEST_CASE("sysrq / earlyoom kernel mode: order=-1 marks a manual trigger", "[kernel_log]") {
  KernelRun r;
  run_kernel("kworker/0:2 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=-1, oom_score_adj=0\n"
             "Mem-Info:\n"
             "Out of memory: Killed process 812 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].order == -1);
  CHECK(r.sink.events[0].field_or("manual_trigger") == "1");
  CHECK(r.sink.oom_reports[0].trigger_comm == "kworker/0:2");
}

TEST_CASE("oom_kill_allocating_task reason is kept", "[kernel_log]") {
  KernelRun r;
  run_kernel("stress invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"
             "Mem-Info:\n"
             "Out of memory (oom_kill_allocating_task): Killed process 771 (stress) total-vm:4216kB, anon-rss:1084kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:52kB oom_score_adj:0\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].reason == "Out of memory (oom_kill_allocating_task)");
  CHECK_FALSE(r.sink.oom_reports[0].memcg);
}

TEST_CASE("a page allocation failure with its Mem-Info dump is not an OOM report", "[kernel_log]") {
  KernelRun r;
  run_kernel("[ 3.0] nvidia: page allocation failure: order:4, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO), nodemask=(null)\n"
             "[ 3.0] CPU: 5 PID: 9 Comm: nvidia Not tainted 6.1.0 #1\n"
             "[ 3.0] Mem-Info:\n"
             "[ 3.0] active_anon:1 inactive_anon:2 isolated_anon:0\n"
             "[ 3.0] Free swap  = 0kB\n",
             r);
  CHECK(r.sink.oom_reports.empty());
  CHECK(r.sink.of_kind("oom_kill").empty());
  CHECK(r.diags.empty());
}

TEST_CASE("arm64 64 KiB pages are inferred from the victim row and the kill line", "[kernel_log]") {
  KernelRun r;
  run_kernel("[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name\n"
             "[   5120]  1000  5120  7012345  3278080  3276800     1024       256 110100480        0             0 pt_main_thread\n"
             "Out of memory: Killed process 5120 (pt_main_thread) total-vm:448790080kB, anon-rss:209715200kB, file-rss:65536kB, shmem-rss:16384kB, UID:1000 pgtables:107520kB oom_score_adj:0\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].page_size == 65536);
  CHECK(r.sink.events[0].field_or("hog_rss_bytes") == std::to_string(3278080LL * 65536));
}

TEST_CASE("memory.oom.group: every group member is a victim", "[kernel_log]") {
  KernelRun r;
  run_kernel("[ 1.000] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "[ 1.001] memory: usage 16777216kB, limit 16777216kB, failcnt 3381\n"
             "[ 1.002] Memory cgroup out of memory: Killed process 3101 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:4kB oom_score_adj:0\n"
             "[ 1.003] Tasks in /system.slice/train.service are going to be killed due to memory.oom.group set\n"
             "[ 1.004] Memory cgroup out of memory: Killed process 3101 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:4kB oom_score_adj:0\n"
             "[ 1.005] Memory cgroup out of memory: Killed process 3150 (pt_data_worker) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:4kB oom_score_adj:0\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].victim_pid == 3101);
  CHECK(r.sink.oom_reports[0].other_killed_pids == std::vector<std::int64_t>{3150});
  CHECK(r.sink.oom_reports[0].memcg);
  CHECK(r.sink.of_kind("oom_kill").empty());
}

TEST_CASE("3.x sharing-same-memory kills are extra victims", "[kernel_log]") {
  KernelRun r;
  run_kernel("java invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0\n"
             "Mem-Info:\n"
             "Out of memory: Kill process 2592 (java) score 870 or sacrifice child\n"
             "Killed process 2592 (java) total-vm:8530660kB, anon-rss:7123984kB, file-rss:112kB\n"
             "Kill process 2601 (java) sharing same memory\n",
             r);
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].other_killed_pids == std::vector<std::int64_t>{2601});
  CHECK(r.sink.oom_reports[0].reason == "Out of memory");
}

// ---------------------------------------------------------------- other lines and signals

TEST_CASE("ordinary lines go through the signals with the line's stamp and host", "[kernel_log]") {
  KernelRun r;
  run_kernel("Apr  9 00:47:20 gpu-3 kernel: [ 1200.5] NVRM: Xid (PCI:0000:3b:00): 31, pid=12083, name=python3, Ch 00000010\n"
             "Apr  9 00:47:21 gpu-3 earlyoom[812]: sending SIGKILL to process 4242 uid 1000 \"python\": oom_score 900\n"
             "Apr  9 00:47:22 gpu-3 kernel: [ 1202.1] usb 1-1: new high-speed USB device number 2\n",
             r, "ctx-host", 2026);
  auto xid = r.sink.of_kind("xid");
  REQUIRE(xid.size() == 1);
  CHECK(xid[0].host == "gpu-3");
  CHECK(xid[0].rule == "nvidia_xid");
  CHECK(xid[0].pid == 12083);
  CHECK(xid[0].comm == "python3");
  CHECK(xid[0].field_or("xid") == "31");
  CHECK(xid[0].field("xid")->numeric);
  CHECK(std::stod(xid[0].field_or("boot_ts", "0")) == Approx(1200.5));
  CHECK(xid[0].ts_kind == culprit::core::TsKind::wall_no_year);
  CHECK(xid[0].ts.has_value());
  CHECK(xid[0].message.rfind("NVRM: Xid", 0) == 0);
  auto kill = r.sink.of_kind("userspace_oom_kill");
  REQUIRE(kill.size() == 1);
  CHECK(kill[0].comm == "earlyoom");
  CHECK(kill[0].pid == 4242);  // the captured pid (the victim) wins over the tag pid
  // Plus one clock anchor: the two kernel lines quote their boot stamps (one run of offsets).
  REQUIRE(r.sink.events.size() == 3);
  const auto& anchor = r.sink.events.back();
  CHECK(anchor.rule == "kernel_clock_anchor");
  CHECK(anchor.kind == "log");
  CHECK(anchor.host == "gpu-3");
  CHECK(anchor.field_or("anchor") == "syslog");
  CHECK(anchor.field_or("records") == "2");
  CHECK(std::stod(anchor.field_or("boot_ts", "0")) == Approx(1200.5));  // the smaller wall - boot
}

TEST_CASE("an Xid inside an OOM report is still an event: kmsg dictionary lines are skipped", "[kernel_log]") {
  KernelRun r;
  run_kernel("4,10,1000000,-;python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
             "3,11,1000001,-;NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
             " SUBSYSTEM=pci\n"
             " DEVICE=+pci:0000:01:00.0\n"
             "6,12,1000002,-;Mem-Info:\n"
             "3,13,1000003,-;Out of memory: Killed process 5 (python) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
             r);
  CHECK(r.sink.of_kind("xid").size() == 1);
  CHECK(r.sink.of_kind("xid")[0].field_or("pid") == "'<unknown>'");
  REQUIRE(r.sink.oom_reports.size() == 1);
  CHECK(r.sink.oom_reports[0].victim_pid == 5);
  CHECK(r.sink.event_of(r.sink.oom_reports[0]).ts_value == Approx(1.000003));
}

TEST_CASE("events_from_signals: size captures become bytes, pid and rank set the event", "[kernel_log][signal_events]") {
  culprit::text::SignalSet set;
  set.add(culprit::test::make_signal("t", "cuda_oom", culprit::core::Severity::error,
                                     R"(\[rank(?P<rank>\d+)\] pid (?P<pid>\d+) tried (?P<alloc_size>[\d.]+ [GM]iB) on gpu (?P<gpu>\d+))",
                                     {"tried"}));
  set.build();
  RecordingSink sink;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.signals = &set;
  ctx.format = "app_log";
  culprit::core::Event base = ctx.make_event(4);
  base.comm = "torchrun";
  auto evs = culprit::ingest::events_from_signals(base, "[rank3] pid 812 tried 2.50 GiB on gpu 1", ctx);
  REQUIRE(evs.size() == 1);
  const auto& e = evs[0];
  CHECK(e.kind == "cuda_oom");
  CHECK(e.rule == "t");
  CHECK(e.severity == culprit::core::Severity::error);
  CHECK(e.pid == 812);
  CHECK(e.rank == 3);
  CHECK(e.comm == "torchrun");
  CHECK(e.field_or("alloc_size") == "2.50 GiB");
  CHECK(e.field_or("alloc_bytes") == std::to_string(2684354560LL));
  CHECK(e.field("alloc_bytes")->numeric);
  CHECK(e.field("gpu")->numeric);
  CHECK(e.line == 4);
  ctx.signals = nullptr;
  CHECK(culprit::ingest::events_from_signals(base, "[rank3] pid 812 tried 2.50 GiB on gpu 1", ctx).empty());
}

TEST_CASE("bad input never crashes: huge lines, binary, invalid UTF-8, CRLF, cut reports", "[kernel_log]") {
  KernelRun r;
  std::string huge(1 << 20, 'A');
  run_kernel(huge + "\n" + "[" + huge + "]\n" + " invoked oom-killer: " + huge + "\n", r);
  static constexpr char kBinary[] = "\0\x01\x02\xff\xfe[ 1.0]\x80\x81 Killed process \xff (\xfe";
  run_kernel(std::string(kBinary, sizeof kBinary - 1), r);  // the whole literal, NULs included
  run_kernel("[ 1.0] a invoked oom-killer: gfp_mask=\r\n[ 1.0] [  pid  ]   uid  tgid\r\n[ 1.0] [   1]\r\n[ 1.0] Killed process 1 (\r\n", r);
  run_kernel("Killed process 99999999999999999999999 (x) total-vm:99999999999999999999999kB\n", r);
  run_kernel("oom-kill:constraint=,,,,,,pid=,uid=\noom-kill:\n[  pid  ]\n[ 12]\n", r);
  SUCCEED();
}
