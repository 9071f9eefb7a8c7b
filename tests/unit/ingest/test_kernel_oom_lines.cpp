// Single-line grammar of kernel OOM reports (formats.md §1.1, §1.7, §1.8): every kill-line
// wording, the select line, invoked-line eras, the oom-kill: summary, cgroup path ids.
#include <catch2/catch.hpp>

#include "ingest/formats/kernel_oom_report.hpp"
#include "unit/test_units.hpp"

namespace kernel_oom_lines_tests {

using namespace culprit::ingest::kernel;

using culprit::test::kKiB;

TEST_CASE("kill line 5.4+: reason, UID, pgtables, oom_score_adj", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Out of memory: Killed process 49358 (grep) total-vm:9476316kB, anon-rss:6845824kB, "
                           "file-rss:444kB, shmem-rss:0kB, UID:1000 pgtables:13460kB oom_score_adj:0");
  REQUIRE(k);
  CHECK(k->reason == "Out of memory");
  CHECK(k->pid == 49358);
  CHECK(k->comm == "grep");
  CHECK(k->total_vm == 9476316 * kKiB);
  CHECK(k->anon_rss == 6845824 * kKiB);
  CHECK(k->file_rss == 444 * kKiB);
  CHECK(k->shmem_rss == 0);
  CHECK(k->uid == 1000);
  CHECK(k->pgtables == 13460 * kKiB);
  CHECK(k->oom_score_adj == 0);
}

TEST_CASE("kill line memcg reason (5.2+ single line)", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Memory cgroup out of memory: Killed process 10233 (mem_stress) total-vm:1225792kB, "
                           "anon-rss:50432kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:180kB oom_score_adj:-998");
  REQUIRE(k);
  CHECK(k->reason == "Memory cgroup out of memory");
  CHECK(k->comm == "mem_stress");
  CHECK(k->oom_score_adj == -998);
}

TEST_CASE("kill line 4.9-5.0 (no reason prefix, with shmem-rss)", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Killed process 4242 (python) total-vm:31254124kB, anon-rss:8359812kB, file-rss:23744kB, shmem-rss:0kB");
  REQUIRE(k);
  CHECK(k->reason.empty());
  CHECK(k->pid == 4242);
  CHECK(k->anon_rss == 8359812 * kKiB);
  CHECK(k->shmem_rss == 0);
  CHECK_FALSE(k->uid.has_value());
  CHECK_FALSE(k->oom_score_adj.has_value());
}

TEST_CASE("kill line 3.10-4.4 (no shmem-rss)", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Killed process 6576 (mysqld) total-vm:33914892kB, anon-rss:20629004kB, file-rss:0kB");
  REQUIRE(k);
  CHECK(k->comm == "mysqld");
  CHECK(k->file_rss == 0);
  CHECK_FALSE(k->shmem_rss.has_value());
}

TEST_CASE("kill line RHEL 6 (`Killed process N, UID u, (comm)`)", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Killed process 2592, UID 501, (java) total-vm:8530660kB, anon-rss:7123984kB, file-rss:112kB");
  REQUIRE(k);
  CHECK(k->pid == 2592);
  CHECK(k->uid == 501);
  CHECK(k->comm == "java");
  CHECK(k->anon_rss == 7123984 * kKiB);
}

TEST_CASE("kill line 2.6 with vsz and a bare kill line", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Killed process 1733 (firefox) vsz:1023408kB, anon-rss:600128kB, file-rss:1220kB");
  REQUIRE(k);
  CHECK(k->total_vm == 1023408 * kKiB);
  CHECK(k->comm == "firefox");
  auto bare = parse_kill_line("Killed process 1733 (firefox)");
  REQUIRE(bare);
  CHECK(bare->comm == "firefox");
  CHECK_FALSE(bare->anon_rss.has_value());
}

TEST_CASE("kill line oom_kill_allocating_task reason", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Out of memory (oom_kill_allocating_task): Killed process 771 (stress-ng-vm) total-vm:4216kB, "
                           "anon-rss:1084kB, file-rss:4kB, shmem-rss:0kB, UID:0 pgtables:52kB oom_score_adj:1000");
  REQUIRE(k);
  CHECK(k->reason == "Out of memory (oom_kill_allocating_task)");
  CHECK(k->comm == "stress-ng-vm");
  CHECK(k->oom_score_adj == 1000);
}

TEST_CASE("kill line comm with spaces and parentheses is taken greedily up to `) total-vm:`", "[kernel_oom_lines]") {
  auto a = parse_kill_line("Out of memory: Killed process 4711 (Web Content) total-vm:3020244kB, anon-rss:1302224kB, "
                           "file-rss:0kB, shmem-rss:1028kB, UID:1000 pgtables:5412kB oom_score_adj:167");
  REQUIRE(a);
  CHECK(a->comm == "Web Content");
  auto b = parse_kill_line("Out of memory: Killed process 812 (python (worker)) total-vm:1kB, anon-rss:2kB, file-rss:3kB, shmem-rss:0kB");
  REQUIRE(b);
  CHECK(b->comm == "python (worker)");
  CHECK(b->anon_rss == 2 * kKiB);
  auto c = parse_kill_line("Killed process 913 (a) total-vm:b) total-vm:100kB, anon-rss:5kB, file-rss:0kB");
  REQUIRE(c);
  CHECK(c->comm == "a) total-vm:b");
  CHECK(c->total_vm == 100 * kKiB);
}

TEST_CASE("kill line with comma-grouped numbers", "[kernel_oom_lines]") {
  auto k = parse_kill_line("Out of memory: Killed process 5120 (trainer) total-vm:448,790,080kB, anon-rss:209,715,200kB, "
                           "file-rss:65,536kB, shmem-rss:0kB, UID:1000 pgtables:107,520kB oom_score_adj:0");
  REQUIRE(k);
  CHECK(k->total_vm == 448790080 * kKiB);
  CHECK(k->anon_rss == 209715200 * kKiB);
  CHECK(k->pgtables == 107520 * kKiB);
}

TEST_CASE("not kill lines", "[kernel_oom_lines]") {
  CHECK_FALSE(parse_kill_line("systemd-oomd killed 3 process(es) in this unit."));
  CHECK_FALSE(parse_kill_line("Killed process group"));
  CHECK_FALSE(parse_kill_line("xKilled process 12 (x)"));
  CHECK_FALSE(parse_kill_line(""));
}

TEST_CASE("select line `Kill process … score … or sacrifice child` and its siblings", "[kernel_oom_lines]") {
  auto a = parse_kill_select("Memory cgroup out of memory: Kill process 4242 (python) score 1000 or sacrifice child");
  REQUIRE(a);
  CHECK(a->reason == "Memory cgroup out of memory");
  CHECK(a->pid == 4242);
  CHECK(a->comm == "python");
  CHECK(a->score == 1000);
  CHECK_FALSE(a->sharing);
  auto b = parse_kill_select("Out of memory: kill process 1733 (firefox) score 512 or a child");
  REQUIRE(b);
  CHECK(b->reason == "Out of memory");
  CHECK(b->score == 512);
  auto c = parse_kill_select("Kill process 2601 (java) sharing same memory");
  REQUIRE(c);
  CHECK(c->sharing);
  CHECK(c->pid == 2601);
  CHECK_FALSE(parse_kill_select("Killed process 1 (x) total-vm:1kB"));
}

TEST_CASE("invoked line in every era", "[kernel_oom_lines]") {
  auto rhel6 = parse_invoked("java invoked oom-killer: gfp_mask=0x280da, order=0, oom_adj=0, oom_score_adj=-17");
  REQUIRE(rhel6);
  CHECK(rhel6->comm == "java");
  CHECK(rhel6->gfp_mask == "0x280da");
  CHECK(rhel6->oom_score_adj == -17);
  auto v26 = parse_invoked("httpd invoked oom-killer: gfp_mask=0x201d2, order=0, oomkilladj=0");
  REQUIRE(v26);
  CHECK(v26->oom_score_adj == 0);
  auto v414 = parse_invoked("python invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null),  order=0, oom_score_adj=0");
  REQUIRE(v414);
  CHECK(v414->gfp_mask == "0x14200ca(GFP_HIGHUSER_MOVABLE)");
  CHECK(v414->nodemask == "(null)");
  CHECK(v414->order == 0);
  auto v6 = parse_invoked("kworker/u256:3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=-1, oom_score_adj=0");
  REQUIRE(v6);
  CHECK(v6->comm == "kworker/u256:3");
  CHECK(v6->order == -1);
  auto spaces = parse_invoked("Web Content (x) invoked oom-killer: invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=100");
  REQUIRE(spaces);
  CHECK(spaces->comm == "Web Content (x) invoked oom-killer:");
  CHECK(spaces->gfp_mask == "0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO)");
  CHECK(spaces->oom_score_adj == 100);
}

TEST_CASE("oom-kill: summary, memcg and global, parsed from both ends", "[kernel_oom_lines]") {
  auto g = parse_oom_summary("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
                             "task_memcg=/user.slice/user-1000.slice/session-3.scope,task=grep,pid=49358,uid=1000");
  REQUIRE(g);
  CHECK(g->constraint == "CONSTRAINT_NONE");
  CHECK(g->global_oom);
  CHECK(g->oom_memcg.empty());
  CHECK(g->cpuset == "/");
  CHECK(g->mems_allowed == "0");
  CHECK(g->task_memcg == "/user.slice/user-1000.slice/session-3.scope");
  CHECK(g->task == "grep");
  CHECK(g->pid == 49358);
  CHECK(g->uid == 1000);

  auto m = parse_oom_summary("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=liz,mems_allowed=0,2-3,"
                             "oom_memcg=/liz,task_memcg=/liz,task=mem,stress,pid=10233,uid=0");
  REQUIRE(m);
  CHECK(m->constraint == "CONSTRAINT_MEMCG");
  CHECK(m->mems_allowed == "0,2-3");
  CHECK(m->oom_memcg == "/liz");
  CHECK(m->task_memcg == "/liz");
  CHECK(m->task == "mem,stress");
  CHECK(m->pid == 10233);
  CHECK(m->uid == 0);
  CHECK_FALSE(parse_oom_summary("oom_reaper: reaped process 1 (x)"));
}

TEST_CASE("memcg counter lines to bytes", "[kernel_oom_lines]") {
  auto c = parse_counter("memory: usage 41943040kB, limit 41943040kB, failcnt 1234");
  REQUIRE(c);
  CHECK(c->name == "memory");
  CHECK(c->usage == 41943040 * kKiB);
  CHECK(c->limit == 41943040 * kKiB);
  CHECK(c->failcnt == 1234);
  auto s = parse_counter("memory+swap: usage 8388608kB, limit 9007199254740988kB, failcnt 0");
  REQUIRE(s);
  CHECK(s->name == "memory+swap");
  CHECK(s->limit == 9007199254740988LL * kKiB);
  CHECK(parse_counter("swap: usage 0kB, limit 0kB, failcnt 0")->name == "swap");
  CHECK(parse_counter("kmem: usage 21432kB, limit 9007199254740988kB, failcnt 0")->usage == 21432 * kKiB);
  CHECK_FALSE(parse_counter("memory pressure high"));
  // fuzz_ingest: a limit past 2^63 bytes overflowed (signed, UBSan); it is unknown now.
  auto big = parse_counter("kmem: usage 112344kB, limit 90507199254740988kB, failcnt 0");
  REQUIRE(big);
  CHECK(big->usage == 112344 * kKiB);
  CHECK_FALSE(big->limit);
  CHECK(big->failcnt == 0);
}

TEST_CASE("cgroup paths name pods and containers", "[kernel_oom_lines]") {
  auto v1 = cgroup_ids("/kubepods/burstable/pod6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b/"
                       "8e1d4c7b2a5f9e3d6c0b8a7f4e2d1c9b5a3f7e6d4c2b0a9f8e7d6c5b4a3f2e1d");
  CHECK(v1.pod_uid == "6f1c2a3b-4d5e-4f60-8a9b-0c1d2e3f4a5b");
  CHECK(v1.container_id == "8e1d4c7b2a5f9e3d6c0b8a7f4e2d1c9b5a3f7e6d4c2b0a9f8e7d6c5b4a3f2e1d");
  auto v2 = cgroup_ids("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podc2f7a8e1_9b3d_4e5f_a6b7_c8d9e0f1a2b3.slice/"
                       "cri-containerd-3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09.scope");
  CHECK(v2.pod_uid == "c2f7a8e1-9b3d-4e5f-a6b7-c8d9e0f1a2b3");
  CHECK(v2.container_id == "3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09");
  auto besteffort = cgroup_ids("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0a1b2c3d_4e5f_6071_8293_a4b5c6d7e8f9.slice");
  CHECK(besteffort.pod_uid == "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9");
  CHECK(besteffort.container_id.empty());
  auto docker = cgroup_ids("/system.slice/docker-3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09.scope");
  CHECK(docker.pod_uid.empty());
  CHECK(docker.container_id == "3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09");
  CHECK(cgroup_ids("/docker/3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d1e8b6a4f2c0d9e7b5a3f1c8d6e4b2a09").container_id.size() == 64);
  auto user = cgroup_ids("/user.slice/user-1000.slice/session-3.scope");
  CHECK(user.pod_uid.empty());
  CHECK(user.container_id.empty());
}

}  // namespace kernel_oom_lines_tests
