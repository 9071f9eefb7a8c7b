// Culprit and victim of kernel and cgroup OOMs, one rule per test (ARCHITECTURE.md "Verdict"):
// the hog is a holder group (processes of one name summed), a protected hog (-1000) is still the
// culprit, a sacrificed child is the victim while the selected parent is the culprit, a cgroup's
// culprit is its largest holder, a report cut before its kill line yields to a kill line that
// names the victim, and a Slurm / container record takes its victim from the job's shell.
// Reports are written from the kernel's format strings (mm/oom_kill.c dump_tasks:
// "[%7d] %5d %5d %8lu %8lu %8ld %8lu         %5hd %s", "oom-kill:constraint=%s,nodemask=%*pbl,…",
// "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, …"), Slurm's from
// src/plugins/task/cgroup ("Detected %u oom-kill event(s) in %ps cgroup. …") and bash's job
// status ("line N: PID Killed  CMD"), not from any paste.
#include <catch2/catch.hpp>

#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

const char* kHeader =
    "[  100.000000] java invoked oom-killer: gfp_mask=0x6200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=0\n"
    "[  100.000100] Tasks state (memory values in pages):\n"
    "[  100.000101] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n";

// 524288 pages = 2 GiB, 1310720 pages = 5 GiB (4 KiB pages).
std::string row(int pid, long rss, int adj, const char* name) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "[  100.000102] [%7d] %5d %5d %8ld %8ld %8ld %8d         %5d %s\n", pid, 1000, pid, rss + 1000,
                rss, 4300800L, 0, adj, name);
  return buf;
}

std::string kill(int pid, const char* name, long anon_kb, int adj = 0, const char* constraint = "CONSTRAINT_NONE") {
  char buf[600];
  std::snprintf(buf, sizeof buf,
                "[  100.000200] oom-kill:constraint=%s,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=%s,pid=%d,uid=1000\n"
                "[  100.000201] Out of memory: Killed process %d (%s) total-vm:%ldkB, anon-rss:%ldkB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:10000kB oom_score_adj:%d\n",
                constraint, name, pid, pid, name, anon_kb + 1000, anon_kb, adj);
  return buf;
}

}  // namespace

TEST_CASE("kernel OOM: the hog is the holder group, not the largest single process", "[diagnose][host_oom]") {
  // Four php-fpm workers of 2 GiB (8 GiB together) and one java of 5 GiB: the kernel kills java
  // (the largest single process), the pool held the most.
  std::string log = kHeader;
  for (int pid : {1001, 1002, 1003, 1004}) log += row(pid, 524288, 0, "php-fpm");
  log += row(2001, 1310720, 0, "java");
  log += kill(2001, "java", 5242880);
  const auto v = culprit::test::diagnose_texts({{"kern.log", "web-1", log}});
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 2001);
  REQUIRE(v.culprit);
  CHECK(v.culprit->name == "php-fpm");
  CHECK(v.culprit->pid == 1001);
  CHECK(v.culprit->why.find("4 processes of php-fpm") != std::string::npos);
}

TEST_CASE("kernel OOM look-alike: one small process of a name is no group: the victim is the hog", "[diagnose][host_oom]") {
  std::string log = kHeader;
  log += row(1001, 524288, 0, "php-fpm");
  log += row(2001, 1310720, 0, "java");
  log += kill(2001, "java", 5242880);
  const auto v = culprit::test::diagnose_texts({{"kern.log", "web-1", log}});
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 2001);
  CHECK(v.culprit->name == "java");
  CHECK(v.confidence == culprit::diagnose::Confidence::high);
}

TEST_CASE("kernel OOM: a hog protected by oom_score_adj -1000 is the culprit, the killed one the victim", "[diagnose][host_oom]") {
  std::string log = kHeader;
  log += row(3001, 2621440, -1000, "mysqld");  // 10 GiB, unkillable
  log += row(2001, 786432, 0, "python");       // 3 GiB
  log += kill(2001, "python", 3145728);
  const auto v = culprit::test::diagnose_texts({{"kern.log", "db-1", log}});
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 3001);
  CHECK(v.culprit->why.find("-1000") != std::string::npos);
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 2001);
}

TEST_CASE("kernel OOM without a table: a sacrificed child is the victim, the selected parent the culprit", "[diagnose][host_oom]") {
  const auto v = culprit::test::diagnose_texts(
      {{"kern.log", "node-1",
        "[  500.100000] Out of memory: Kill process 4100 (python) score 998 or sacrifice child\n"
        "[  500.100200] Killed process 4108 (nvidia-smi) total-vm:16900kB, anon-rss:2800kB, file-rss:0kB, shmem-rss:0kB\n"}});
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 4108);
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 4100);
  CHECK(v.culprit->why.find("child") != std::string::npos);
  CHECK(v.confidence != culprit::diagnose::Confidence::high);
}

TEST_CASE("a report cut before its kill line yields to a kill line that names the victim", "[diagnose][host_oom]") {
  // The head of the next OOM (no kill line, no table) after the kill lines of the one before.
  const auto v = culprit::test::diagnose_texts(
      {{"kern.log", "node-1",
        "[  500.100200] Out of memory: Killed process 4108 (trainer) total-vm:16900000kB, anon-rss:12800000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:100kB oom_score_adj:0\n"
        "[  500.300000] apiserver invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=982\n"
        "[  500.300010] CPU: 2 PID: 1708 Comm: apiserver Not tainted 5.4.0-100-generic #113-Ubuntu\n"}});
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 4108);

  // Alone, the cut report is the finding (victim unknown).
  const auto alone = culprit::test::diagnose_texts(
      {{"kern.log", "node-1",
        "[  500.300000] apiserver invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null), order=0, oom_score_adj=982\n"
        "[  500.300010] CPU: 2 PID: 1708 Comm: apiserver Not tainted 5.4.0-100-generic #113-Ubuntu\n"}});
  CHECK(alone.verdict == "kernel_oom");
  CHECK_FALSE(alone.victim);
}

TEST_CASE("cgroup OOM: the culprit is the cgroup's largest holder: without a victim, the task that hit the limit", "[diagnose][host_oom]") {
  std::string log =
      "[  100.000000] node invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=999\n"
      "[  100.000001] memory: usage 4194304kB, limit 4194304kB, failcnt 120\n"
      "[  100.000002] Memory cgroup stats for /kubepods/burstable/pod1234/abcd:\n"
      "[  100.000100] Tasks state (memory values in pages):\n"
      "[  100.000101] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n";
  log += row(501, 20000, 999, "npm start");
  log += row(502, 700000, 999, "node");
  const auto v = culprit::test::diagnose_texts({{"kern.log", "k8s-1", log}});
  CHECK(v.verdict == "cgroup_oom");
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 502);
  CHECK(v.culprit->role == "job");
  CHECK_FALSE(v.victim);
  // The ledger shows the arithmetic: limit, usage, the holder, the rest.
  REQUIRE(v.budget);
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == 4194304LL * 1024);

  const auto cut = culprit::test::diagnose_texts(
      {{"kern.log", "k8s-1",
        "[  100.000000] python invoked oom-killer: gfp_mask=0x14000c0(GFP_KERNEL), nodemask=(null), order=0, oom_score_adj=829\n"
        "[  100.000001] CPU: 6 PID: 20801 Comm: python Not tainted 4.15.0-1-generic #1\n"
        "[  100.000002]  mem_cgroup_out_of_memory+0x4b/0x80\n"}});
  CHECK(cut.verdict == "cgroup_oom");
  REQUIRE(cut.culprit);
  CHECK(cut.culprit->pid == 20801);
  CHECK(cut.confidence == culprit::diagnose::Confidence::medium);
}

TEST_CASE("a Slurm oom-kill record takes its victim from the batch script's Killed line", "[diagnose][host_oom]") {
  const auto v = culprit::test::diagnose_texts(
      {{"slurm-4242.out", "gpu-017",
        "/var/spool/slurmd/job04242/slurm_script: line 12:  31337 Killed                  python3 train.py --epochs 10\n"
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.\n"}});
  CHECK(v.verdict == "cgroup_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 31337);
  CHECK(v.victim->name == "python3");
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 31337);

  // Look-alike: without a shell line the step is the culprit and no victim is named.
  const auto bare = culprit::test::diagnose_texts(
      {{"slurm-4242.out", "gpu-017",
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.batch cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler.\n"}});
  CHECK(bare.verdict == "cgroup_oom");
  CHECK_FALSE(bare.victim);
}

TEST_CASE("kernel OOM: evidence cites the line its text is (the kill line), not the report's first line", "[diagnose][host_oom]") {
  // The report spans `invoked oom-killer` (line 1) to the kill line (line 7); the evidence shows
  // the kill line, so it is cited there.
  std::string log = kHeader;
  for (int pid : {1001, 1002}) log += row(pid, 524288, 0, "php-fpm");
  log += kill(2001, "java", 5242880);
  const auto v = culprit::test::diagnose_texts({{"kern.log", "web-1", log}});
  REQUIRE(v.verdict == "kernel_oom");
  REQUIRE_FALSE(v.evidence.empty());
  const auto& e = v.evidence.front();
  CHECK(e.text.rfind("Out of memory: Killed process 2001 (java)", 0) == 0);
  CHECK(e.line == 7);
}

// A pod whose limit is below what the runtime needs to start it: the cgroup's task table lists
// the runtime (runc, conmon, pause) charged to the pod, and the kernel kills runc's init. The
// runtime is infrastructure, not the job's workload: foreign, and the why says what it is.
TEST_CASE("cgroup OOM: a container runtime as the largest holder is infrastructure, not the job", "[diagnose][host_oom]") {
  std::string log =
      "[  100.000000] runc:[2:INIT] invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=-998\n"
      "[  100.000001] memory: usage 10240kB, limit 10240kB, failcnt 31\n"
      "[  100.000002] Memory cgroup stats for /kubepods/pod77/crio-abcd:\n"
      "[  100.000100] Tasks state (memory values in pages):\n"
      "[  100.000101] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n";
  log += row(7701, 200, -998, "pause");
  log += row(7702, 1900, 0, "runc");
  log += row(7703, 300, -998, "runc:[2:INIT]");
  const auto v = culprit::test::diagnose_texts({{"kern.log", "k8s-2", log}});
  CHECK(v.verdict == "cgroup_oom");
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 7702);
  CHECK(v.culprit->role == "foreign");
  CHECK(v.culprit->why.find("infrastructure: the container runtime (runc)") != std::string::npos);

  // runc's init execs the container's command: it is the workload at its start, the job's.
  std::string init_only =
      "[  100.000000] runc:[2:INIT] invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=998\n"
      "[  100.000001] memory: usage 10240kB, limit 10240kB, failcnt 31\n"
      "[  100.000100] Tasks state (memory values in pages):\n"
      "[  100.000101] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n";
  init_only += row(7801, 2400, 998, "runc:[2:INIT]");
  const auto w = culprit::test::diagnose_texts({{"kern.log", "k8s-3", init_only}});
  REQUIRE(w.culprit);
  CHECK(w.culprit->role == "job");
}
