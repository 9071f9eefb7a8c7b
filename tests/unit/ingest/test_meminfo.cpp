// /proc/meminfo parser and sniffing. Samples: fixtures/formats/meminfo/, written from the
// kernel's format strings (fs/proc/meminfo.c show_val_kb: label padded to 16 columns, value to
// 8, ` kB`; hugetlb_report_meminfo `HugePages_Total:   %5lu`; x86 `DirectMap4k:    %8lu kB`),
// one a 6.x listing under culprit's sample stamp, one a 3.10 listing without MemAvailable.
#include <catch2/catch.hpp>

#include <cmath>

#include "culprit/core/time.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "ingest/formats/meminfo.hpp"
#include "ingest/formats/sample_stamp.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/test_units.hpp"

using culprit::test::RecordingSink;

namespace {

using culprit::test::kKiB;

struct MeminfoRun {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
};

void run_meminfo(std::string_view text, MeminfoRun& r) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.diagnostics = &r.diags;
  ctx.source_id = 4;
  ctx.source_name = "meminfo.txt";
  ctx.host = "gpu-7";
  ctx.format = "meminfo";
  culprit::ingest::parse_meminfo(text, ctx);
}

std::string meminfo_fixture(const char* name) {
  return culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/meminfo" / name);
}

}  // namespace

TEST_CASE("meminfo: a 6.x listing under a sample stamp gives free's columns and its time", "[meminfo]") {
  MeminfoRun r;
  run_meminfo(meminfo_fixture("culprit-sample-6x.txt"), r);
  REQUIRE(r.sink.host_memory.size() == 1);
  REQUIRE(r.sink.events.size() == 1);
  const auto& m = r.sink.host_memory[0];
  CHECK(m.host == "gpu-7");
  CHECK(m.line == 2);  // the MemTotal line
  CHECK(*m.total == 527958024 * kKiB);
  CHECK(*m.free == 12345678 * kKiB);
  CHECK(*m.available == 20480000 * kKiB);
  CHECK(*m.used == (527958024 - 20480000) * kKiB);  // procps-ng 4: total - available
  CHECK(*m.shared == 1048576 * kKiB);
  CHECK(*m.buff_cache == (204800 + 10240000 + 1536000) * kKiB);  // Buffers + Cached + SReclaimable
  CHECK(*m.swap_total == 8388604 * kKiB);
  CHECK(*m.swap_free == 8126460 * kKiB);
  CHECK(*m.swap_used == (8388604 - 8126460) * kKiB);
  const double want = culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 19.482913204);
  REQUIRE(m.ts.has_value());
  CHECK(std::fabs(*m.ts - want) < 1e-6);
  const auto& ev = r.sink.events[0];
  CHECK(ev.rule == "meminfo");
  CHECK(ev.kind == "log");
  CHECK(ev.line == 1);
  CHECK(ev.line_end == 58);
  CHECK(ev.ts_kind == culprit::core::TsKind::wall);
  CHECK(ev.field_or("mem_available_bytes") == std::to_string(20480000 * kKiB));
}

TEST_CASE("meminfo: a 3.10 listing has no MemAvailable: used is total - free - buff/cache, no time", "[meminfo]") {
  MeminfoRun r;
  run_meminfo(meminfo_fixture("kernel-3.10-no-available.txt"), r);
  REQUIRE(r.sink.host_memory.size() == 1);
  const auto& m = r.sink.host_memory[0];
  CHECK_FALSE(m.available.has_value());
  CHECK_FALSE(m.ts.has_value());
  CHECK(*m.buff_cache == (2104 + 61340 + 30120) * kKiB);
  CHECK(*m.used == (8009864 - 153452 - 2104 - 61340 - 30120) * kKiB);
  CHECK(*m.swap_used == 0);
  CHECK(r.sink.events[0].ts_kind == culprit::core::TsKind::none);
}

TEST_CASE("meminfo: a loop of stamped listings gives one record each, in order", "[meminfo]") {
  std::string text;
  for (int i = 0; i < 3; ++i)
    text += "2026-04-09T00:47:1" + std::to_string(i) + "Z\nMemTotal:       16318412 kB\nMemFree:         " +
            std::to_string(900000 - i * 1000) + " kB\nMemAvailable:    " + std::to_string(4000000 - i * 100000) + " kB\n";
  MeminfoRun r;
  run_meminfo(text, r);
  REQUIRE(r.sink.host_memory.size() == 3);
  for (int i = 0; i < 3; ++i) {
    const auto& m = r.sink.host_memory[static_cast<std::size_t>(i)];
    CHECK(*m.ts == culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 10 + i));
    CHECK(*m.available == (4000000 - i * 100000) * kKiB);
  }
  // `grep MemTotal /proc/meminfo` alone: the total.
  MeminfoRun one;
  run_meminfo("MemTotal:       16318412 kB\n", one);
  REQUIRE(one.sink.host_memory.size() == 1);
  CHECK(*one.sink.host_memory[0].total == 16318412 * kKiB);
  CHECK_FALSE(one.sink.host_memory[0].used.has_value());
}

TEST_CASE("meminfo: the line shape, and look-alikes that are not it", "[meminfo]") {
  using culprit::ingest::meminfo::is_anchor;
  using culprit::ingest::meminfo::parse_line;
  CHECK(is_anchor("MemTotal:       527958024 kB"));
  CHECK(is_anchor("MemTotal:        8009864 kB"));
  auto l = parse_line("HugePages_Total:       0");
  REQUIRE(l);
  CHECK(l->key == "HugePages_Total");
  CHECK_FALSE(l->kb);
  REQUIRE(parse_line("Active(anon):  470000000 kB"));
  // Per-NUMA-node meminfo (drivers/base/node.c `Node %d MemTotal:`), /proc/PID/status, a log
  // line quoting a value, a size in other units, a stamp-prefixed log line.
  CHECK_FALSE(is_anchor("Node 0 MemTotal:       65842624 kB"));
  CHECK_FALSE(parse_line("Node 0 MemFree:        1234 kB"));
  CHECK_FALSE(is_anchor("MemTotal: 16 GB"));
  CHECK_FALSE(is_anchor("MemTotal:16318412 kB"));
  CHECK_FALSE(is_anchor("INFO MemTotal:       16318412 kB"));
  CHECK_FALSE(parse_line("step 3: loss 0.25"));
  CHECK_FALSE(parse_line("Error: 12 workers failed"));
  CHECK(culprit::ingest::sniff_format("Name:\tpython3\nVmPeak:\t 1234 kB\nVmRSS:\t  1000 kB\n") != "meminfo");
  CHECK(culprit::ingest::sniff_format("Node 0 MemTotal:       65842624 kB\nNode 0 MemFree:        1234 kB\n") != "meminfo");
  CHECK(culprit::ingest::sniff_format("2026-04-09 00:47:19 host has MemTotal:       16318412 kB\n") != "meminfo");
}

TEST_CASE("meminfo: sniffed with its stamp: a paste keeps the prompt's host", "[meminfo]") {
  const std::string text = meminfo_fixture("culprit-sample-6x.txt");
  CHECK(culprit::ingest::sniff_format(text) == "meminfo");
  const auto segs = culprit::ingest::segment_text(text);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].first_line == 1);  // the stamp line is the listing's
  const auto paste = culprit::ingest::segment_text("aurora@gpu-7:~$ cat /proc/meminfo\n" + meminfo_fixture("kernel-3.10-no-available.txt"));
  bool found = false;
  for (const auto& s : paste) {
    if (s.format != "meminfo") continue;
    found = true;
    CHECK(s.host == "gpu-7");
  }
  CHECK(found);
}

TEST_CASE("sample stamp: an ISO date-time with a zone alone on its line", "[meminfo]") {
  using culprit::ingest::sample_stamp::parse;
  CHECK(*parse("2026-04-09T00:47:19Z") == culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 19));
  CHECK(*parse("2026-04-09T02:47:19+02:00") == culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 19));
  CHECK(std::fabs(*parse(" 2026-04-09T00:47:19.250000000Z ") - culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 19.25)) < 1e-6);
  CHECK_FALSE(parse("2026-04-09T00:47:19"));           // no zone
  CHECK_FALSE(parse("2026-04-09 00:47:19Z"));          // not ISO's T
  CHECK_FALSE(parse("2026-04-09T00:47:19Z step 3"));   // a log line
  CHECK_FALSE(parse("2026-04-09T00:47:19.%NZ"));       // a date without %N
  CHECK_FALSE(parse("2026-13-09T00:47:19Z"));
}
