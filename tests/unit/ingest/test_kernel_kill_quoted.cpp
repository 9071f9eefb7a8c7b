// A kernel kill line quoted inside other text (node-problem-detector's OOMKilling event, a
// `kubectl get events` row) keeps the kernel's reason, so a memcg kill stays a memcg kill.
#include <catch2/catch.hpp>
#include "ingest/formats/kernel_oom_report.hpp"

TEST_CASE("a kill line quoted in an event table keeps the kernel's reason", "[kernel_oom_lines]") {
  auto k = culprit::ingest::kernel::parse_kill_line(
      "4m51s       Warning   OOMKilling   node/gpu-node-17   Memory cgroup out of memory: Killed process 51207 "
      "(pt_main_thread) total-vm:392493824kB, anon-rss:123950848kB, file-rss:40960kB, shmem-rss:16384kB, UID:1000 "
      "pgtables:242000kB oom_score_adj:985");
  REQUIRE(k.has_value());
  CHECK(k->reason == "Memory cgroup out of memory");
  CHECK(k->pid == 51207);
  CHECK(k->comm == "pt_main_thread");
}
