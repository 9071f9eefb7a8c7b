// `free` parser: every fixtures/formats/free/<variant>.txt against its .expect.json, plus focused
// cases for unit inference, the old `-/+ buffers/cache` row, `free -L`, and bad input.
#include <simdjson.h>

#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::test::RecordingSink;

namespace {

struct FreeRun {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
};

void run_free(std::string_view text, FreeRun& r, const std::string& host = "h1") {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.diagnostics = &r.diags;
  ctx.source_id = 3;
  ctx.source_name = "free.txt";
  ctx.host = host;
  ctx.format = "free";
  culprit::ingest::parse_free(text, ctx);
}

std::optional<std::int64_t> member(const culprit::core::HostMemory& m, std::string_view k) {
  if (k == "total") return m.total;
  if (k == "used") return m.used;
  if (k == "free") return m.free;
  if (k == "shared") return m.shared;
  if (k == "buff_cache") return m.buff_cache;
  if (k == "available") return m.available;
  if (k == "swap_total") return m.swap_total;
  if (k == "swap_used") return m.swap_used;
  if (k == "swap_free") return m.swap_free;
  FAIL("unknown key " << k);
  return std::nullopt;
}

}  // namespace

TEST_CASE("free fixtures parse as their .expect.json says", "[free][fixtures]") {
  auto files = culprit::test::format_fixtures("free");
  REQUIRE(files.size() >= 8);
  for (const auto& txt : files) {
    SECTION(txt.filename().string()) {
      auto expect_path = txt;
      expect_path.replace_extension(".expect.json");
      simdjson::dom::parser jp;
      simdjson::dom::element doc = jp.load(expect_path.string());
      FreeRun r;
      std::string host(std::string_view(doc["context"]["host"].get_string().value()));
      run_free(culprit::test::read_fixture(txt), r, host);
      auto snaps = doc["snapshots"].get_array();
      REQUIRE(r.sink.host_memory.size() == snaps.size());
      REQUIRE(r.sink.of_kind("log").size() == snaps.size());
      CHECK(std::int64_t(r.diags.size()) == doc["notes"].get_int64().value());
      std::size_t i = 0;
      for (auto want : snaps) {
        const auto& m = r.sink.host_memory[i];
        const auto& ev = r.sink.events[i];
        ++i;
        CHECK(m.host == host);
        CHECK(m.source_id == 3);
        CHECK(ev.rule == "free");
        for (auto [key, v] : want.get_object()) {
          std::string k(key);
          INFO(txt.filename().string() << " snapshot " << i << " key " << k);
          if (k == "line") { CHECK(m.line == v.get_int64().value()); continue; }
          auto got = member(m, k);
          if (v.is_null()) { CHECK_FALSE(got.has_value()); continue; }
          REQUIRE(got.has_value());
          CHECK(*got == v.get_int64().value());
        }
      }
    }
  }
}

TEST_CASE("free: bare numbers without a command line take their unit from the Mem total", "[free]") {
  SECTION("KiB totals (the default) need no note") {
    FreeRun r;
    run_free("               total        used        free      shared  buff/cache   available\n"
             "Mem:        65719036    21874524     1734196      512064    42110316    42585112\n", r);
    REQUIRE(r.sink.host_memory.size() == 1);
    CHECK(r.sink.host_memory[0].total == 65719036LL * 1024);
    CHECK(r.diags.empty());
  }
  SECTION("MiB totals of a 512 GiB host are read as MiB, with a note") {
    FreeRun r;
    run_free("               total        used        free      shared  buff/cache   available\n"
             "Mem:          515614      402113        3021         512      110480      109876\n"
             "Swap:             0           0           0\n", r);
    REQUIRE(r.sink.host_memory.size() == 1);
    CHECK(r.sink.host_memory[0].total == 515614LL << 20);
    REQUIRE(r.diags.size() == 1);
    CHECK(r.diags[0].code == "free_unit_guessed");
    CHECK(r.sink.events[0].field_or("unit_guessed") == "1");
  }
  SECTION("GiB totals of a 2 TiB host are read as GiB") {
    FreeRun r;
    run_free("              total        used        free      shared  buff/cache   available\n"
             "Mem:           2015        1980           3           0          31          12\n", r);
    CHECK(r.sink.host_memory.at(0).total == 2015LL << 30);
  }
  SECTION("bytes (free -b) are read as bytes") {
    FreeRun r;
    run_free("               total        used        free      shared  buff/cache   available\n"
             "Mem:     67296292864 22399512576  1775816704   524353536 43120963584 43607154688\n", r);
    CHECK(r.sink.host_memory.at(0).total == 67296292864LL);
  }
}

TEST_CASE("free: a command line names the unit", "[free]") {
  FreeRun r;
  run_free("aurora@spark-b:~$ free --mega\n"
           "               total        used        free      shared  buff/cache   available\n"
           "Mem:          128000       18000        2000          64      108000      110000\n", r);
  REQUIRE(r.sink.host_memory.size() == 1);
  CHECK(r.sink.host_memory[0].total == 128000LL * 1000000);
  CHECK(r.diags.empty());
}

TEST_CASE("free: old procps -/+ buffers/cache row gives the cache-excluded used", "[free]") {
  FreeRun r;
  run_free("             total       used       free     shared    buffers     cached\n"
           "Mem:      65719036   63984840    1734196     512064    1234568   40875748\n"
           "-/+ buffers/cache:   21874524   43844512\n"
           "Swap:      8388604     262144    8126460\n", r);
  REQUIRE(r.sink.host_memory.size() == 1);
  const auto& m = r.sink.host_memory[0];
  CHECK(m.used == 21874524LL * 1024);
  CHECK(m.buff_cache == (1234568LL + 40875748) * 1024);
  CHECK_FALSE(m.available.has_value());
  CHECK(r.sink.events[0].field_or("mem_used_incl_cache_bytes") == std::to_string(63984840LL * 1024));
}

TEST_CASE("free -L prints one line per snapshot", "[free]") {
  FreeRun r;
  run_free("SwapUse           0 CachUse    41.1Gi  MemUse    20.5Gi MemFree     1.6Gi\n", r);
  REQUIRE(r.sink.host_memory.size() == 1);
  const auto& m = r.sink.host_memory[0];
  CHECK(m.swap_used == 0);
  CHECK(m.used == std::int64_t(20.5 * 1024 * 1024 * 1024));
  CHECK(m.free == std::int64_t(1.6 * 1024 * 1024 * 1024 + 0.5));
}

TEST_CASE("free: text before the table, garbage and CRLF never break the parse", "[free]") {
  FreeRun r;
  run_free("Wed Apr  8 22:10:01 2026\r\n"
           "               total        used        free      shared  buff/cache   available\r\n"
           "Mem:           119Gi        17Gi       1.9Gi        61Mi       100Gi       102Gi\r\n"
           "Swap:           16Gi       1.6Gi        14Gi\r\n", r);
  REQUIRE(r.sink.host_memory.size() == 1);
  CHECK(r.sink.host_memory[0].swap_total == 16LL << 30);
  CHECK(r.sink.host_memory[0].line == 3);
  FreeRun g;
  run_free("total used free\nMem: x y z\nSwap:\n\xff\xfe total used\n:::::\n", g);
  run_free(std::string(100000, 'x'), g);
  run_free("", g);
  SUCCEED();
}
