// Reports known only from a fragment (issue 35): a kernel OOM task table pasted without its head
// or kill line says the OOM killer ran, at low; a listing of the same shape from another tool
// (top) says nothing; a whole report is the report's. Rows written from mm/oom_kill.c dump_tasks
// (4.19+ columns).
#include <catch2/catch.hpp>

#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

using culprit::test::diagnose_texts;
using culprit::test::has_rule;

const std::string kTaskTable =
    "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
    "[    812]     0   812    12345     2345   110592        0             0 systemd-journal\n"
    "[  51822]  1000 51822 12582912  8126464 66277376        0             0 python3\n";

}  // namespace

TEST_CASE("A task table without its head or kill line: the OOM killer ran, at low", "[diagnose][fragments]") {
  const auto v = diagnose_texts({{"paste.txt", "", "here is what dmesg showed:\n" + kTaskTable}});
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.root);
  CHECK(v.root->rule == "oom-task-table-only");
  CHECK(v.root->confidence == culprit::diagnose::Confidence::low);
}

TEST_CASE("top's listing is no task table, a whole report is the report's", "[diagnose][fragments]") {
  const auto top = diagnose_texts(
      {{"top.txt", "",
        "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        "51822 alice     20   0   48.0g  31.0g  12345 R 100.0  98.1  12:01.33 python3\n"}});
  CHECK_FALSE(has_rule(top, "oom-task-table-only"));
  CHECK(top.verdict == "unknown");
  std::string stamped;
  for (const char* l : {"[ 8823.118300] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name",
                        "[ 8823.118320] [  51822]  1000 51822 12582912  8126464 66277376        0             0 python3",
                        "[ 8823.118350] Out of memory: Killed process 51822 (python3) total-vm:50331648kB, "
                        "anon-rss:32505856kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:64724kB oom_score_adj:0"})
    stamped += std::string(l) + "\n";
  const auto whole = diagnose_texts({{"kern.log", "gpu-3", stamped}});
  CHECK(whole.verdict == "kernel_oom");
  CHECK_FALSE(has_rule(whole, "oom-task-table-only"));
}
