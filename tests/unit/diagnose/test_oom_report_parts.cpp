// A kernel OOM report reassembled from its parts (issue 35 item 4): any part opens a report, the
// parts near each other on one host are one report, and every report says which parts the inputs
// lack and what that leaves unknown — in the JSON, text and Markdown reports alike.
// Reports are written from the kernel's format strings (mm/oom_kill.c dump_header, dump_tasks,
// dump_oom_summary and __oom_kill_process of 4.4, 4.19, 5.10 and 6.8; formats.md Part 1), and the
// fixtures of fixtures/formats/kernel (each names its kernel) are read as `culprit` reads them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "culprit/report/renderer.hpp"
#include "diagnose/oom_report_parts.hpp"
#include "unit/diagnose/diagnose_support.hpp"
#include "unit/test_text.hpp"

namespace oom_report_parts_tests {

namespace d = culprit::diagnose;
namespace fs = std::filesystem;

namespace {

std::string fixture(const char* name) {
  std::ifstream in(fs::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/kernel" / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE_FALSE(ss.str().empty());
  return ss.str();
}

// No wrapping: a sentence is checked whole.
const culprit::report::RenderOptions kWide{.color = false, .width = 0};

using culprit::test::contains;

using Parts = std::vector<std::string>;

}  // namespace

TEST_CASE("oom parts: ids in the kernel's order, unknown ids and partial words dropped", "[diagnose][oom_parts]") {
  CHECK(d::oom_part_list("kill_line,invoker,task_table") == Parts{"invoker", "task_table", "kill_line"});
  CHECK(d::oom_part_list("").empty());
  CHECK(d::oom_part_list("kill,line,table,task_table_x,mem_info") == Parts{"mem_info"});
}

TEST_CASE("oom parts: each missing part says what it leaves unknown, by how the victim was named", "[diagnose][oom_parts]") {
  auto r = d::describe_oom_parts("gpu-a7", "summary", "invoker,mem_info,task_table,kill_line", "summary", false);
  CHECK(r.host == "gpu-a7");
  CHECK(r.seen == Parts{"summary"});
  REQUIRE(r.notes.size() == 4);
  CHECK(contains(r.notes[0], "no invoker line"));
  CHECK(contains(r.notes[1], "no Mem-Info block"));
  CHECK(r.notes[2] == "no task table: the ledger of host processes is unknown");
  CHECK(contains(r.notes[3], "is missing: the victim is named from the oom-kill summary"));

  // A cgroup's report: its usage block stands for Mem-Info, its table lists the cgroup's tasks.
  auto m = d::describe_oom_parts("", "", "mem_info,task_table", "", true);
  REQUIRE(m.notes.size() == 2);
  CHECK(contains(m.notes[0], "the cgroup's usage and limit are unknown"));
  CHECK(contains(m.notes[1], "the cgroup's processes"));

  CHECK(contains(d::describe_oom_parts("", "", "kill_line", "selected", false).notes.at(0), "the process the kernel selected"));
  CHECK(contains(d::describe_oom_parts("", "", "kill_line", "reaper", false).notes.at(0), "OOM reaper"));
  CHECK(contains(d::describe_oom_parts("", "", "kill_line", "", false).notes.at(0), "no victim is named"));
  CHECK(d::describe_oom_parts("", "invoker,kill_line", "", "kill_line", false).notes.empty());
}

TEST_CASE("oom parts: a report whose head was cut opens at its task table and lacks invoker and Mem-Info",
          "[diagnose][oom_parts]") {
  const auto v = culprit::test::diagnose_texts({{"dmesg.txt", "gpu-b3", fixture("head-cut-6.8-table-summary-kill.txt")}}, true);
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 88120);
  REQUIRE(v.data.oom_parts);
  const auto& p = *v.data.oom_parts;
  CHECK(p.host == "gpu-b3");
  CHECK(p.seen == Parts{"task_table", "summary", "kill_line"});
  CHECK(p.missing == Parts{"invoker", "mem_info"});

  const std::string text = culprit::report::render(v, culprit::report::Format::text, kWide);
  CHECK(contains(text, "Kernel OOM report on gpu-b3: parts missing"));
  CHECK(contains(text, "no Mem-Info block"));
  const std::string md = culprit::report::render(v, culprit::report::Format::markdown);
  CHECK(contains(md, "## Kernel OOM report on gpu-b3: parts missing"));
  const std::string json = culprit::report::render(v, culprit::report::Format::json);
  CHECK(contains(json, R"("oom_parts":{"host":"gpu-b3","seen":["task_table","summary","kill_line"],"missing":["invoker","mem_info"])"));
}

TEST_CASE("oom parts: a lone oom-kill summary opens a report and names the victim without a kill line",
          "[diagnose][oom_parts]") {
  const auto v = culprit::test::diagnose_texts({{"syslog", "", fixture("summary-only-5.10.txt")}}, true);
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 41022);
  REQUIRE(v.data.oom_parts);
  CHECK(v.data.oom_parts->missing == Parts{"invoker", "mem_info", "task_table", "kill_line"});
  const std::string text = culprit::report::render(v, culprit::report::Format::text, kWide);
  CHECK(contains(text, "the victim is named from the oom-kill summary"));
  CHECK(contains(text, "no task table: the ledger of the cgroup's processes is unknown"));
}

TEST_CASE("oom parts: a 4.4 report without its task table misses only the table (no summary before 5.0)",
          "[diagnose][oom_parts]") {
  const auto v = culprit::test::diagnose_texts({{"dmesg.txt", "node-9", fixture("no-task-table-4.4.txt")}}, true);
  CHECK(v.verdict == "kernel_oom");
  REQUIRE(v.data.oom_parts);
  CHECK(v.data.oom_parts->missing == Parts{"task_table"});
  CHECK(v.data.oom_parts->notes == Parts{"no task table: the ledger of host processes is unknown"});
}

TEST_CASE("oom parts: a whole report lacks nothing and the reports add no section", "[diagnose][oom_parts]") {
  const auto v = culprit::test::diagnose_texts({{"dmesg.txt", "node-3", fixture("dmesg-raw-6.8-global.txt")}}, true);
  REQUIRE(v.data.oom_parts);
  CHECK(v.data.oom_parts->missing.empty());
  CHECK_FALSE(contains(culprit::report::render(v, culprit::report::Format::text, kWide), "parts missing"));
  CHECK_FALSE(contains(culprit::report::render(v, culprit::report::Format::markdown), "parts missing"));
}

TEST_CASE("oom parts: a lone kill line is a report of one part", "[diagnose][oom_parts]") {
  const std::string log =
      "[ 9125.004411] Out of memory: Killed process 9101 (python) total-vm:41234567kB, anon-rss:30023456kB, "
      "file-rss:1204kB, shmem-rss:0kB, UID:0 pgtables:60212kB oom_score_adj:0\n";
  const auto v = culprit::test::diagnose_texts({{"dmesg.txt", "n1", log}}, true);
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 9101);
  REQUIRE(v.data.oom_parts);
  CHECK(v.data.oom_parts->seen == Parts{"kill_line"});
  // 5.4+ kill line (pgtables): the kernel printed an oom-kill summary before it, which is missing too.
  CHECK(v.data.oom_parts->missing == Parts{"invoker", "mem_info", "task_table", "summary"});
}

TEST_CASE("oom parts look-alike: a CUDA OOM's report has no kernel OOM parts", "[diagnose][oom_parts]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "n1", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free.\n"}},
      true);
  CHECK_FALSE(v.data.oom_parts);
  CHECK(culprit::report::render(v, culprit::report::Format::json).find(R"("oom_parts":null)") != std::string::npos);
}

}  // namespace oom_report_parts_tests
