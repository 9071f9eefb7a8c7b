// The cgroup memory listing culprit writes (src/cli/snapshot.cpp kCgroupShell: each file under
// `==> PATH <==`, as `head` prints several) -> one `cgroup_memory` event with usage and limit.
// Samples: fixtures/formats/cgroup_memory/ (v2 files per Documentation/admin-guide/cgroup-v2.rst,
// v1 per cgroup-v1/memory.rst, where "no limit" is PAGE_COUNTER_MAX pages in bytes).
#include <catch2/catch.hpp>

#include <cmath>

#include "culprit/core/time.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::test::RecordingSink;

namespace {

std::vector<culprit::core::Event> run_cgroup(std::string_view text) {
  RecordingSink sink;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.source_id = 5;
  ctx.source_name = "cgroup.txt";
  ctx.host = "gpu-7";
  ctx.format = "cgroup_memory";
  culprit::ingest::parse_cgroup_memory(text, ctx);
  return sink.events;
}

std::string cgroup_memory_fixture(const char* name) {
  return culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/cgroup_memory" / name);
}

}  // namespace

TEST_CASE("cgroup memory: a v2 listing gives usage, limit, events, path and its time", "[cgroup_memory]") {
  const auto evs = run_cgroup(cgroup_memory_fixture("culprit-v2.txt"));
  REQUIRE(evs.size() == 1);
  const auto& e = evs[0];
  CHECK(e.rule == "cgroup_memory");
  CHECK(e.kind == "log");  // load_memory_series finds them by this kind (events_kind)
  CHECK(e.host == "gpu-7");
  CHECK(e.line == 1);
  CHECK(e.field_or("cgroup") == "/system.slice/slurmstepd.scope/job_4711");
  CHECK(e.field_or("cgroup_version") == "2");
  CHECK(e.field_or("usage_bytes") == "68718428160");
  CHECK(e.field_or("limit_bytes") == "68719476736");
  CHECK(e.field_or("peak_bytes") == "68719476736");
  CHECK(e.field_or("high_bytes").empty());  // `max`: no high limit
  CHECK(e.field_or("swap_limit_bytes") == "0");
  CHECK(e.field_or("events_max") == "1893");
  CHECK(e.field_or("events_oom_kill") == "2");
  CHECK(e.field_or("limit_unlimited").empty());
  REQUIRE(e.ts.has_value());
  CHECK(std::fabs(*e.ts - culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 19.501234567)) < 1e-6);
  CHECK(e.ts_kind == culprit::core::TsKind::wall);
  CHECK(e.message == "cgroup /system.slice/slurmstepd.scope/job_4711: usage 64.0 GiB, limit 64.0 GiB");
}

TEST_CASE("cgroup memory: v1 with no limit, its path from the memory controller", "[cgroup_memory]") {
  const auto evs = run_cgroup(cgroup_memory_fixture("culprit-v1.txt"));
  REQUIRE(evs.size() == 1);
  const auto& e = evs[0];
  CHECK(e.field_or("cgroup") == "/docker/3f2a9c0d1e4b");
  CHECK(e.field_or("cgroup_version") == "1");
  CHECK(e.field_or("usage_bytes") == "1073741824");
  CHECK(e.field_or("limit_bytes").empty());
  CHECK(e.field_or("limit_unlimited") == "1");
  CHECK(e.field_or("peak_bytes") == "2147483648");
  CHECK(e.field_or("events_oom_kill") == "0");
  CHECK_FALSE(e.ts.has_value());
}

TEST_CASE("cgroup memory: head's listing, without /proc/self/cgroup: two listings", "[cgroup_memory]") {
  auto evs = run_cgroup(cgroup_memory_fixture("head-memory.txt"));
  REQUIRE(evs.size() == 1);
  CHECK(evs[0].field_or("cgroup") == "/user.slice");
  CHECK(evs[0].field_or("limit_unlimited") == "1");
  const std::string two = "2026-04-09T00:47:10Z\n==> /sys/fs/cgroup/a/memory.current <==\n100\n"
                          "2026-04-09T00:47:20Z\n==> /sys/fs/cgroup/a/memory.current <==\n200\n";
  evs = run_cgroup(two);
  REQUIRE(evs.size() == 2);
  CHECK(evs[0].field_or("usage_bytes") == "100");
  CHECK(evs[1].field_or("usage_bytes") == "200");
  CHECK(*evs[1].ts - *evs[0].ts == 10);
  // Only the path: nothing about memory, no event.
  CHECK(run_cgroup("==> /proc/self/cgroup <==\n0::/\n").empty());
}

TEST_CASE("cgroup memory: sniffed with its stamp: other head output is not it", "[cgroup_memory]") {
  CHECK(culprit::ingest::sniff_format(cgroup_memory_fixture("culprit-v2.txt")) == "cgroup_memory");
  CHECK(culprit::ingest::sniff_format(cgroup_memory_fixture("culprit-v1.txt")) == "cgroup_memory");
  CHECK(culprit::ingest::segment_text(cgroup_memory_fixture("culprit-v2.txt")).size() == 1);
  // `head` of other files, a tail -f banner, a log line naming the file.
  CHECK(culprit::ingest::sniff_format("==> /var/log/train.log <==\nstep 3 loss 0.2\n") != "cgroup_memory");
  CHECK(culprit::ingest::sniff_format("==> /sys/fs/cgroup/cpu.max <==\nmax 100000\n") != "cgroup_memory");
  CHECK(culprit::ingest::sniff_format("reading /sys/fs/cgroup/memory.max failed: No such file\n") != "cgroup_memory");
}
