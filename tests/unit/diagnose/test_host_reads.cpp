// HostReads: the findings' per-host reads (the job's memory settings, whether a host's events
// name several ranks), made once per diagnosis, answer as the reads they memoise do, host by
// host, over a timeline with settings of several hosts and values (issue 38).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "diagnose/load.hpp"
#include "unit/diagnose/diagnose_support.hpp"

namespace host_reads_tests {

namespace {

using namespace culprit;

std::unique_ptr<store::Database> timeline(const std::vector<test::TextInput>& logs) {
  core::Diagnostics problems;
  return test::timeline_of_texts(logs, problems);
}

bool same(const std::vector<diagnose::JobSetting>& a, const std::vector<diagnose::JobSetting>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].setting != b[i].setting || a[i].value != b[i].value || a[i].place != b[i].place) return false;
  return true;
}

}  // namespace

TEST_CASE("host reads: each host's settings and ranks, as the uncached reads give them", "[diagnose][settings]") {
  const auto db = timeline({
      {"a/serve.log", "node-a",
       "INFO 04-09 00:47:20 [arg_utils.py:1] non-default args: {'gpu_memory_utilization': 0.9}\n"
       "INFO 04-09 00:47:21 [worker.py:2] gpu_memory_utilization=0.90, free memory 2.43 GiB\n"
       "INFO 04-09 00:47:22 [worker.py:2] gpu_memory_utilization=0.95, free memory 2.40 GiB\n"
       "INFO 04-09 00:47:23 [worker.py:2] gpu_memory_utilization=0.90, free memory 2.41 GiB\n"},
      {"b/train.log", "node-b",
       "[rank0]: + export XLA_PYTHON_CLIENT_MEM_FRACTION=0.75\n"
       "[rank1]: + export XLA_PYTHON_CLIENT_PREALLOCATE=false\n"},
      {"c/train.log", "node-c",
       "[rank3]: + export TF_FORCE_GPU_ALLOW_GROWTH=true\n[rank3]: + export TF_FORCE_GPU_ALLOW_GROWTH=true\n"},
  });
  diagnose::HostReads reads(*db);
  for (const std::string host : {"node-a", "node-b", "node-c", "node-x"}) {
    CAPTURE(host);
    const auto uncached = diagnose::load_job_settings(*db, host);
    CHECK(same(reads.job_settings(host), uncached));
    CHECK(same(reads.job_settings(host), uncached));  // the kept answer, asked again
    CHECK(reads.multi_rank(host) == diagnose::load_multi_rank(*db, host));
    CHECK(reads.multi_rank(host) == diagnose::load_multi_rank(*db, host));
  }
  // What they are: each host's own, first seen first, a repeated value once.
  const auto& a = reads.job_settings("node-a");
  REQUIRE(a.size() == 3);
  CHECK(a[0].value == "0.9");
  CHECK(a[0].place == "a/serve.log:1");
  CHECK(a[1].value == "0.90");
  CHECK(a[1].place == "a/serve.log:2");
  CHECK(a[2].value == "0.95");
  const auto& b = reads.job_settings("node-b");
  REQUIRE(b.size() == 2);
  CHECK(b[0].setting == "XLA_PYTHON_CLIENT_MEM_FRACTION");
  CHECK(b[1].setting == "XLA_PYTHON_CLIENT_PREALLOCATE");
  const auto& c = reads.job_settings("node-c");
  REQUIRE(c.size() == 1);
  CHECK(c[0].place == "c/train.log:1");
  CHECK(reads.job_settings("node-x").empty());
  CHECK(reads.multi_rank("node-b"));
  CHECK_FALSE(reads.multi_rank("node-c"));  // one rank, twice
  CHECK_FALSE(reads.multi_rank("node-a"));
}

// A setting is placed at its first line, not at the smallest `file:line` as text (`log:10` sorts
// before `log:9`): the advice named a line far down a long log for a setting its start printed.
TEST_CASE("host reads: a setting's place is its first line", "[diagnose][settings]") {
  std::string log;
  for (int k = 1; k <= 12; ++k)
    log += k < 9 ? "INFO 04-09 00:47:20 [metrics.py:1] Avg prompt throughput: 1.0 tokens/s\n"
                 : "INFO 04-09 00:47:21 [worker.py:2] gpu_memory_utilization=0.90, free memory 2.43 GiB\n";
  const auto db = timeline({{"a/serve.log", "node-a", log}});
  const auto settings = diagnose::load_job_settings(*db, "node-a");
  REQUIRE(settings.size() == 1);
  CHECK(settings[0].value == "0.90");
  CHECK(settings[0].place == "a/serve.log:9");
}

// Events whose fields differ by another field (SGLang's TP rank) name one setting, placed at
// the first of them whichever rank printed it; five settings give the earliest four, in the
// order of their first lines.
TEST_CASE("host reads: one setting across ranks, the earliest four settings", "[diagnose][settings]") {
  const auto db = timeline({{"a/sglang.log", "node-a",
                             "[2026-04-09 00:47:22 TP3] KV Cache is allocated. mem_fraction_static=0.88\n"
                             "[2026-04-09 00:47:22 TP1] KV Cache is allocated. mem_fraction_static=0.88\n"
                             "[2026-04-09 00:47:23 TP3] KV Cache is allocated. mem_fraction_static=0.88\n"
                             "[2026-04-09 00:47:24 TP0] KV Cache is allocated. mem_fraction_static=0.80\n"
                             "[2026-04-09 00:47:25 TP0] + export XLA_PYTHON_CLIENT_MEM_FRACTION=0.75\n"
                             "[2026-04-09 00:47:26 TP0] + export TF_FORCE_GPU_ALLOW_GROWTH=true\n"
                             "[2026-04-09 00:47:27 TP2] KV Cache is allocated. mem_fraction_static=0.70\n"}});
  const auto settings = diagnose::load_job_settings(*db, "node-a");
  REQUIRE(settings.size() == 4);
  CHECK(settings[0].setting == "mem_fraction_static");
  CHECK(settings[0].value == "0.88");
  CHECK(settings[0].place == "a/sglang.log:1");
  CHECK(settings[1].value == "0.80");
  CHECK(settings[1].place == "a/sglang.log:4");
  CHECK(settings[2].setting == "XLA_PYTHON_CLIENT_MEM_FRACTION");
  CHECK(settings[3].setting == "TF_FORCE_GPU_ALLOW_GROWTH");
  CHECK(settings[3].place == "a/sglang.log:6");
}

}  // namespace host_reads_tests
