// Clock alignment (store/clock.cpp) through a real in-memory timeline: years across New Year,
// the fallback year, zones from --tz and from a host's own stamps, boot stamps placed by each
// kind of anchor (and not placed without one), suspends, --boot-time, and what `hosts` records.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>

#include "culprit/core/time.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"
#include "unit/test_text.hpp"

namespace clock_tests {

using culprit::core::Event;
using culprit::core::TsKind;
namespace store = culprit::store;

namespace {

double utc(int y, int mo, int d, int h, int mi, double s) { return culprit::core::civil_to_epoch(y, mo, d, h, mi, s); }

/// Seconds since Jan 1 counted as in a leap year (what parsers store for stamps without a year).
double no_year(int mo, int d, int h, int mi, double s) {
  static const int kCum[] = {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335};
  return (kCum[mo - 1] + d - 1) * 86400.0 + h * 3600.0 + mi * 60.0 + s;
}

struct Timeline {
  std::unique_ptr<store::Database> db;
  std::unique_ptr<store::TimelineWriter> writer;
  std::int64_t source = 0;
  std::int64_t line = 0;

  explicit Timeline(const std::string& host = "", const std::string& format = "kernel_log") {
    std::string err;
    db = store::Database::open(":memory:", err);
    REQUIRE(db);
    REQUIRE(db->ensure_schema().empty());
    writer = std::make_unique<store::TimelineWriter>(*db);
    new_source(host, format);
  }
  void new_source(const std::string& host, const std::string& format) {
    culprit::core::SourceInfo s;
    s.name = "src" + std::to_string(source + 1);
    s.host = host;
    s.format = format;
    source = writer->add_source(s);
  }
  /// Adds an event; returns its id.
  std::int64_t add(const std::string& host, TsKind kind, std::optional<double> ts, std::optional<double> value,
                   std::string raw, std::string what = "xid", std::vector<culprit::core::Field> fields = {}) {
    Event e;
    e.source_id = source;
    e.line = e.line_end = ++line;
    e.host = host;
    e.ts_kind = kind;
    e.ts = ts;
    e.ts_value = value;
    e.ts_raw = std::move(raw);
    e.kind = what;
    e.rule = what == "log" ? "kernel_clock_anchor" : "test";
    e.message = "m" + std::to_string(line);
    e.fields = std::move(fields);
    return writer->add_event(e);
  }
  std::int64_t anchor(const std::string& host, const std::string& source_kind, TsKind kind, std::optional<double> ts,
                      std::optional<double> value, std::string raw, double boot_ts, int records = 1) {
    Event e;
    e.set_number("boot_ts", boot_ts);
    e.set("anchor", source_kind);
    e.set_int("records", records);
    return add(host, kind, ts, value, std::move(raw), "log", e.fields);
  }
  std::string align(const store::ClockOptions& o = {}) {
    REQUIRE(writer->finish().empty());
    writer.reset();
    return store::align_clocks(*db, o);
  }
  std::optional<double> ts(std::int64_t id) {
    auto r = db->query("SELECT ts FROM events WHERE id = " + std::to_string(id));
    REQUIRE(r.rows.size() == 1);
    return r.rows[0]["ts"].as_double();
  }
  std::string host_of(std::int64_t id) {
    return db->query("SELECT host FROM events WHERE id = " + std::to_string(id)).rows.at(0)["host"].as_text();
  }
  std::string method(const std::string& host) {
    return db->query("SELECT clock_method FROM hosts WHERE name = '" + host + "'").rows.at(0)["clock_method"].as_text();
  }
  std::string confidence(const std::string& host) {
    return db->query("SELECT clock_confidence FROM hosts WHERE name = '" + host + "'").rows.at(0)["clock_confidence"].as_text();
  }
};

using culprit::test::contains;

}  // namespace

TEST_CASE("clock: syslog years come from the dated stamps, across New Year", "[clock]") {
  Timeline t("gpu-1");
  auto dec = t.add("gpu-1", TsKind::wall_no_year, std::nullopt, no_year(12, 31, 23, 59, 58), "Dec 31 23:59:58");
  auto jan = t.add("gpu-1", TsKind::wall_no_year, std::nullopt, no_year(1, 1, 0, 0, 3), "Jan  1 00:00:03");
  auto mar = t.add("gpu-1", TsKind::wall_no_year, std::nullopt, no_year(3, 1, 0, 0, 0), "Mar  1 00:00:00");
  t.new_source("gpu-1", "app_log");
  t.add("gpu-1", TsKind::wall, utc(2027, 1, 1, 0, 0, 5), std::nullopt, "2027-01-01T00:00:05Z", "cuda_oom");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(dec) == Approx(utc(2026, 12, 31, 23, 59, 58)));
  CHECK(*t.ts(jan) == Approx(utc(2027, 1, 1, 0, 0, 3)));
  CHECK(*t.ts(mar) == Approx(utc(2027, 3, 1, 0, 0, 0)));  // 2027 is not a leap year: Mar 1 is day 59
  CHECK(contains(t.method("gpu-1"), "years from the host's dated stamps"));
}

TEST_CASE("clock: another host's dated stamps give the year", "[clock]") {
  Timeline t("node-a");
  auto a = t.add("node-a", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 0, 47, 22), "Apr  9 00:47:22");
  t.new_source("node-b", "app_log");
  t.add("node-b", TsKind::wall, utc(2025, 4, 9, 0, 47, 30), std::nullopt, "2025-04-09 00:47:30", "cuda_oom");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(a) == Approx(utc(2025, 4, 9, 0, 47, 22)));
  CHECK(contains(t.method("node-a"), "years from other inputs' dated stamps"));
  CHECK(t.confidence("node-a") == "medium");
}

TEST_CASE("clock: without dated stamps, --year or the latest year not in the future", "[clock]") {
  SECTION("--year, the last line in that year, earlier December lines in the year before") {
    Timeline t("h");
    auto dec = t.add("h", TsKind::wall_no_year, std::nullopt, no_year(12, 30, 10, 0, 0), "Dec 30 10:00:00");
    auto jan = t.add("h", TsKind::wall_no_year, std::nullopt, no_year(1, 2, 10, 0, 0), "Jan  2 10:00:00");
    store::ClockOptions o;
    o.default_year = 2024;
    REQUIRE(t.align(o).empty());
    CHECK(*t.ts(jan) == Approx(utc(2024, 1, 2, 10, 0, 0)));
    CHECK(*t.ts(dec) == Approx(utc(2023, 12, 30, 10, 0, 0)));
    CHECK(contains(t.method("h"), "year 2024 from --year"));
  }
  SECTION("no year at all: a date after today is last year's") {
    Timeline t("h");
    auto a = t.add("h", TsKind::wall_no_year, std::nullopt, no_year(4, 11, 8, 0, 0), "Apr 11 08:00:00");
    store::ClockOptions o;
    o.now = utc(2026, 4, 1, 12, 0, 0);
    REQUIRE(t.align(o).empty());
    CHECK(*t.ts(a) == Approx(utc(2025, 4, 11, 8, 0, 0)));
    CHECK(t.confidence("h") == "low");
    CHECK(contains(t.method("h"), "year 2025 assumed"));
  }
}

TEST_CASE("clock: time-of-day stamps take the nearest date", "[clock]") {
  Timeline t("spark");
  auto late = t.add("spark", TsKind::time_of_day, std::nullopt, 23 * 3600.0 + 59 * 60 + 50, "[23:59:50]", "log");
  t.add("spark", TsKind::wall, utc(2026, 4, 9, 0, 0, 20), std::nullopt, "2026-04-09T00:00:20Z", "cuda_oom");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(late) == Approx(utc(2026, 4, 8, 23, 59, 50)));  // yesterday, 30 s before the dated stamp
}

TEST_CASE("clock: --tz shifts stamps that carry no zone, and only those", "[clock]") {
  Timeline t("gpu-2");
  auto syslog = t.add("gpu-2", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 2, 47, 22), "Apr  9 02:47:22");
  auto local = t.add("gpu-2", TsKind::wall, utc(2026, 4, 9, 2, 47, 25), std::nullopt, "2026-04-09 02:47:25,123", "cuda_oom");
  auto zoned = t.add("gpu-2", TsKind::wall, utc(2026, 4, 9, 0, 47, 26), std::nullopt, "2026-04-09T02:47:26+02:00", "xid");
  auto zulu = t.add("gpu-2", TsKind::wall, utc(2026, 4, 9, 0, 47, 27), std::nullopt, "2026-04-09T00:47:27.5Z", "xid");
  auto epoch = t.add("gpu-2", TsKind::wall, 1775695648.0, std::nullopt, "1775695648000000", "xid");
  store::ClockOptions o;
  o.tz = "+02:00";
  REQUIRE(t.align(o).empty());
  CHECK(*t.ts(syslog) == Approx(utc(2026, 4, 9, 0, 47, 22)));
  CHECK(*t.ts(local) == Approx(utc(2026, 4, 9, 0, 47, 25)));
  CHECK(*t.ts(zoned) == Approx(utc(2026, 4, 9, 0, 47, 26)));
  CHECK(*t.ts(zulu) == Approx(utc(2026, 4, 9, 0, 47, 27)));
  CHECK(*t.ts(epoch) == Approx(1775695648.0));
  CHECK(contains(t.method("gpu-2"), "zoneless stamps in UTC+02:00 (--tz)"));
  auto off = t.db->query("SELECT clock_offset FROM hosts WHERE name = 'gpu-2'").rows.at(0)["clock_offset"].as_double();
  CHECK(off == Approx(-7200));
}

TEST_CASE("clock: a stamp carries its zone where it ends with one or is an epoch number", "[clock]") {
  // Zoned (left alone by --tz): `Z` / `z`, `+02:00`, `-0500`, ` UTC`, ` GMT`, digits and dots.
  // Zoneless (shifted): everything else, however close.
  Timeline t("gpu-3");
  const double at = utc(2026, 4, 9, 2, 47, 0);
  const std::vector<std::pair<std::string, bool>> stamps = {
      {"2026-04-09T02:47:00Z", true},           {"2026-04-09t02:47:00z", true},
      {"2026-04-09T02:47:00.5+02:00", true},    {"2026-04-09 02:47:00 -0500", true},
      {"Thu Apr  9 02:47:00 UTC 2026 UTC", true}, {"09 Apr 2026 02:47:00 GMT", true},
      {"1775702820.25", true},                  {"1775702820", true},
      {"2026-04-09 02:47:00", false},           {"2026-04-09 02:47:00 CET", false},
      {"02:47:00.5", false},                    {"2026-04-09T02:47:00+2:00", false},
      {"2026-04-09T02:47:00+020", false},       {"+0200 2026-04-09 02:47:00", false},
      {"1775702820e3", false},                  {"2026-04-09 02:47:00 utc", false},
      {"2026-04-09T02:47:00+02:0a", false},     {"1775702820 Z", true}};
  std::vector<std::int64_t> ids;
  for (const auto& [raw, zoned] : stamps) ids.push_back(t.add("gpu-3", TsKind::wall, at, std::nullopt, raw));
  store::ClockOptions o;
  o.tz = "+02:00";
  REQUIRE(t.align(o).empty());
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    INFO(stamps[i].first);
    CHECK(*t.ts(ids[i]) == Approx(stamps[i].second ? at : at - 7200));
  }
}

TEST_CASE("clock: a host's own zoned stamps give the zone of its other stamps", "[clock]") {
  Timeline t("berlin-1");
  auto iso = t.add("berlin-1", TsKind::wall, utc(2026, 4, 9, 0, 47, 20), std::nullopt, "2026-04-09T02:47:20,331207+02:00", "xid");
  auto glog = t.add("berlin-1", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 2, 47, 21), "I0409 02:47:21.000000");
  Timeline u("utc-1");  // no zoned stamp: read as UTC, and said so
  auto plain = u.add("utc-1", TsKind::wall, utc(2026, 4, 9, 2, 47, 21), std::nullopt, "2026-04-09 02:47:21", "xid");
  REQUIRE(t.align().empty());
  REQUIRE(u.align().empty());
  CHECK(*t.ts(iso) == Approx(utc(2026, 4, 9, 0, 47, 20)));
  CHECK(*t.ts(glog) == Approx(utc(2026, 4, 9, 0, 47, 21)));
  CHECK(contains(t.method("berlin-1"), "zoneless stamps in UTC+02:00 (the host's zoned stamps)"));
  CHECK(*u.ts(plain) == Approx(utc(2026, 4, 9, 2, 47, 21)));
  CHECK(contains(u.method("utc-1"), "zoneless stamps read as UTC"));
  CHECK(u.confidence("utc-1") == "medium");
}

TEST_CASE("clock: an IANA zone follows daylight saving time", "[clock]") {
  if (!store::zone_offset("Europe/Berlin", 0)) return;  // no zoneinfo on this machine
  CHECK(*store::zone_offset("Europe/Berlin", utc(2026, 7, 1, 12, 0, 0)) == 7200);
  CHECK(*store::zone_offset("Europe/Berlin", utc(2026, 1, 15, 12, 0, 0)) == 3600);
  Timeline t("h");
  auto a = t.add("h", TsKind::wall, utc(2026, 7, 1, 14, 0, 0), std::nullopt, "2026-07-01 14:00:00", "xid");
  store::ClockOptions o;
  o.tz = "Europe/Berlin";
  REQUIRE(t.align(o).empty());
  CHECK(*t.ts(a) == Approx(utc(2026, 7, 1, 12, 0, 0)));
}

TEST_CASE("clock: boot stamps placed by syslog anchors, per host", "[clock]") {
  Timeline t("node-a");
  // kern.log: `Apr  9 00:47:20 node-a kernel: [ 7001.1] …` (year from the worker log below).
  t.anchor("node-a", "syslog", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 0, 47, 20), "Apr  9 00:47:20", 7001.1, 9);
  t.new_source("node-a", "kernel_log");
  auto raw = t.add("node-a", TsKind::boot, std::nullopt, 7002.5, "[ 7002.500000]", "kernel_oom");
  t.new_source("node-b", "kernel_log");
  auto other = t.add("node-b", TsKind::boot, std::nullopt, 7002.5, "[ 7002.500000]", "kernel_oom");
  t.new_source("node-a", "app_log");
  t.add("node-a", TsKind::wall, utc(2026, 4, 9, 0, 47, 30), std::nullopt, "2026-04-09T00:47:30Z", "signal_exit");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(raw) == Approx(utc(2026, 4, 9, 0, 47, 21.4)));
  CHECK_FALSE(t.ts(other).has_value());  // node-b has no anchor: it still counts, undated
  CHECK(contains(t.method("node-a"), "boot stamps via syslog lines quoting them (9 records)"));
  CHECK(t.confidence("node-a") == "medium");
  CHECK(contains(t.method("node-b"), "boot stamps unplaced"));
  CHECK(t.confidence("node-b") == "low");
  CHECK(t.db->query("SELECT count(*) AS n FROM events WHERE kind = 'kernel_oom'").rows[0]["n"].as_int() == 2);
  auto boot = t.db->query("SELECT boot_wall_ts FROM hosts WHERE name = 'node-a'").rows.at(0)["boot_wall_ts"].as_double();
  CHECK(*boot == Approx(utc(2026, 4, 9, 0, 47, 20) - 7001.1));
}

TEST_CASE("clock: journald's pairs win over syslog and RTC anchors: --boot-time over all", "[clock]") {
  auto build = [](Timeline& t) {
    t.anchor("h", "rtc", TsKind::wall, 1775693500.0, std::nullopt, "1775693500", 1.5);
    t.anchor("h", "syslog", TsKind::wall, utc(2026, 4, 9, 0, 47, 20), std::nullopt, "2026-04-09T00:47:20+00:00", 2100.0);
    t.anchor("h", "journald", TsKind::wall, 1775695621.551414, std::nullopt, "1775695621551414", 2101.551002, 34);
    return t.add("h", TsKind::boot, std::nullopt, 2104.118204, "[ 2104.118204]", "kernel_oom");
  };
  SECTION("journald") {
    Timeline t("h");
    auto raw = build(t);
    REQUIRE(t.align().empty());
    CHECK(*t.ts(raw) == Approx(1775695621.551414 - 2101.551002 + 2104.118204).margin(1e-6));
    CHECK(t.confidence("h") == "high");
    CHECK(contains(t.method("h"), "boot stamps via journald's paired clocks (34 records)"));
  }
  SECTION("--boot-time") {
    Timeline t("h");
    auto raw = build(t);
    store::ClockOptions o;
    o.boot_times = {"h=2026-04-09T02:12:00+02:00"};
    REQUIRE(store::check_clock_options(o).empty());
    REQUIRE(t.align(o).empty());
    CHECK(*t.ts(raw) == Approx(utc(2026, 4, 9, 0, 12, 0) + 2104.118204));
    CHECK(contains(t.method("h"), "boot stamps via --boot-time"));
  }
  SECTION("the RTC line alone") {
    Timeline t("h");
    t.anchor("h", "rtc", TsKind::wall, 1775693500.0, std::nullopt, "1775693500", 1.5);
    auto raw = t.add("h", TsKind::boot, std::nullopt, 2104.118204, "[ 2104.118204]", "kernel_oom");
    REQUIRE(t.align().empty());
    CHECK(*t.ts(raw) == Approx(1775693500.0 - 1.5 + 2104.118204));
    CHECK(contains(t.method("h"), "boot stamps via the kernel's RTC line"));
  }
}

TEST_CASE("clock: after a suspend each run of anchors places the stamps that follow it", "[clock]") {
  Timeline t("laptop");
  const double boot = utc(2026, 4, 9, 0, 0, 0);
  t.anchor("laptop", "syslog", TsKind::wall, boot + 100, std::nullopt, "2026-04-09T00:01:40Z", 100.0);
  // A 600 s suspend at boot+500: the kernel clock stood still, the wall clock did not.
  t.anchor("laptop", "syslog", TsKind::wall, boot + 1700, std::nullopt, "2026-04-09T00:28:20Z", 1100.0);
  auto before = t.add("laptop", TsKind::boot, std::nullopt, 400.0, "[  400.000000]", "xid");
  auto after = t.add("laptop", TsKind::boot, std::nullopt, 1200.0, "[ 1200.000000]", "xid");
  auto early = t.add("laptop", TsKind::boot, std::nullopt, 5.0, "[    5.000000]", "xid");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(before) == Approx(boot + 400));
  CHECK(*t.ts(after) == Approx(boot + 1800));
  CHECK(*t.ts(early) == Approx(boot + 5));
  CHECK(contains(t.method("laptop"), "1 offset jumps"));
}

TEST_CASE("clock: dmesg -T lines paired with raw dmesg lines anchor the raw ones (low confidence)", "[clock]") {
  Timeline t("gpu-9");
  // The same kill line, once from `dmesg -T`, once from `dmesg`.
  auto wall = t.add("gpu-9", TsKind::wall, utc(2026, 3, 3, 4, 15, 9), std::nullopt, "[Tue Mar  3 04:15:09 2026]", "oom_kill");
  t.new_source("gpu-9", "kernel_log");
  auto raw = t.add("gpu-9", TsKind::boot, std::nullopt, 8823.118204, "[ 8823.118204]", "oom_kill");
  auto later = t.add("gpu-9", TsKind::boot, std::nullopt, 8900.0, "[ 8900.000000]", "xid");
  // Same message text: Timeline::add names messages by line, so align the two by hand.
  REQUIRE(t.writer->finish().empty());
  t.writer.reset();
  REQUIRE(t.db->exec("UPDATE events SET message = 'Killed process 51822 (python3)' WHERE id IN (" + std::to_string(wall) +
                     "," + std::to_string(raw) + ")").empty());
  REQUIRE(store::align_clocks(*t.db, {}).empty());
  CHECK(*t.ts(later) == Approx(utc(2026, 3, 3, 4, 15, 9) - 8823.118204 + 8900.0));
  CHECK(t.confidence("gpu-9") == "low");
  CHECK(contains(t.method("gpu-9"), "boot stamps via dmesg -T lines paired with raw ones"));
}

TEST_CASE("clock: sources that name no host belong to the only host there is", "[clock]") {
  Timeline t("");
  auto unnamed = t.add("", TsKind::wall, utc(2026, 3, 3, 4, 15, 9), std::nullopt, "2026-03-03T04:15:09.774603289Z", "container_oom");
  t.new_source("gpu-03", "kernel_log");
  t.add("gpu-03", TsKind::wall_no_year, std::nullopt, no_year(3, 3, 4, 15, 9), "Mar  3 04:15:09", "kernel_oom");
  REQUIRE(t.align().empty());
  CHECK(t.host_of(unnamed) == "gpu-03");
  CHECK(t.db->query("SELECT count(*) AS n FROM sources WHERE host = ''").rows[0]["n"].as_int() == 0);
}

TEST_CASE("clock: where the events name several hosts, unnamed ones stay unnamed", "[clock]") {
  // The hosts named only by events (their sources name none), many events each, interleaved: every
  // one is found (hosts(): one index seek per host), so none is taken for the only host.
  for (const int named : {1, 2, 3}) {
    INFO(named << " named host(s)");
    Timeline t("");
    std::int64_t unnamed = 0;
    for (int i = 0; i < 300; ++i) {
      const std::string host = fmt::format("node-{:02}", i % named);
      t.add(host, TsKind::wall, utc(2026, 3, 3, 4, 15, i % 60), std::nullopt, "2026-03-03T04:15:09Z");
      if (i == 150) unnamed = t.add("", TsKind::wall, utc(2026, 3, 3, 4, 16, 0), std::nullopt, "2026-03-03T04:16:00Z");
    }
    REQUIRE(t.align().empty());
    CHECK(t.host_of(unnamed) == (named == 1 ? "node-00" : ""));
    CHECK(t.db->query("SELECT count(*) AS n FROM hosts WHERE name <> ''").rows[0]["n"].as_int() == named);
  }
}

TEST_CASE("clock: --tz and --boot-time values are checked", "[clock]") {
  store::ClockOptions o;
  o.tz = "Mars/Olympus";
  CHECK_FALSE(store::check_clock_options(o).empty());
  o.tz = "-0530";
  CHECK(store::check_clock_options(o).empty());
  CHECK(*store::zone_offset("-0530", 0) == -19800);
  CHECK(*store::zone_offset("UTC", 0) == 0);
  o.boot_times = {"gpu-1"};
  CHECK_FALSE(store::check_clock_options(o).empty());
  o.boot_times = {"gpu-1=yesterday"};
  CHECK_FALSE(store::check_clock_options(o).empty());
  auto b = store::parse_boot_time("gpu-1=2026-04-09 00:12:03", "");
  REQUIRE(b);
  CHECK(b->host == "gpu-1");
  CHECK(b->boot_wall == Approx(utc(2026, 4, 9, 0, 12, 3)));
  auto local = store::parse_boot_time("gpu-1=2026-04-09 02:12:03", "+02:00");  // `uptime -s` in local time
  REQUIRE(local);
  CHECK(local->boot_wall == Approx(utc(2026, 4, 9, 0, 12, 3)));
  auto epoch = store::parse_boot_time("gpu-1=1775693523.5", "");
  REQUIRE(epoch);
  CHECK(epoch->boot_wall == Approx(1775693523.5));
}

TEST_CASE("clock: a launcher's report of a killed pid roughly places an unanchored dmesg", "[clock]") {
  Timeline t("node-07");
  // dmesg: the kernel killed pid 40287 at boot+190821.45; torchrun reported its -9 at 14:22:05.503.
  auto kill = t.add("node-07", TsKind::boot, std::nullopt, 190821.45, "[190821.450000]", "kernel_oom");
  t.new_source("node-07", "app_log");
  Event e;
  e.source_id = t.source;
  e.line = e.line_end = 18;
  e.host = "node-07";
  e.pid = 40287;
  e.ts = utc(2026, 3, 12, 14, 22, 5.503);
  e.ts_kind = TsKind::wall;
  e.ts_raw = "2026-03-12 14:22:05.503";
  e.kind = "signal_exit";
  e.rule = "torchrun_worker_killed";
  t.writer->add_event(e);
  REQUIRE(t.writer->finish().empty());
  t.writer.reset();
  REQUIRE(t.db->exec("UPDATE events SET pid = 40287 WHERE id = " + std::to_string(kill)).empty());
  REQUIRE(store::align_clocks(*t.db, {}).empty());
  CHECK(*t.ts(kill) == Approx(utc(2026, 3, 12, 14, 22, 5.503)));
  CHECK(t.confidence("node-07") == "low");
  CHECK(contains(t.method("node-07"), "a launcher's report of the killed pid's death"));
}

// Issue 37, finding 16: an unstamped failure before a stamped line of its source takes the time of
// that line, at most 50 lines on; the host's clock says so.
TEST_CASE("clock: an unstamped event takes its source's next stamped event's time", "[clock]") {
  Timeline t("gpu-1", "app_log");
  t.add("gpu-1", TsKind::wall, utc(2024, 5, 15, 10, 21, 20), std::nullopt, "2024-05-15 10:21:20", "nccl_timeout");
  auto oom = t.add("gpu-1", TsKind::none, std::nullopt, std::nullopt, "", "cuda_oom");
  auto next = t.add("gpu-1", TsKind::wall, utc(2024, 5, 15, 10, 22, 33), std::nullopt, "2024-05-15 10:22:33", "signal_exit");
  auto cmd = t.add("gpu-1", TsKind::none, std::nullopt, std::nullopt, "", "command");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(oom) == Approx(*t.ts(next)));
  CHECK_FALSE(t.ts(cmd));  // a typed command dates the job's start: no neighbour places it
  CHECK(contains(t.method("gpu-1"), "1 unstamped line placed at the next stamped line of its source"));
  CHECK(t.confidence("gpu-1") == "medium");
  auto from = t.db->query("SELECT json_extract(fields, '$.ts_from_line') AS l FROM events WHERE id = " + std::to_string(oom));
  CHECK(from.rows.at(0)["l"].as_int() == 3);
}

TEST_CASE("clock: only a plain stamped line before, too far, or in another source: no neighbour", "[clock]") {
  Timeline t("gpu-1", "app_log");
  Event mark;  // a stamped line kept only for its time (the parser's clock mark)
  mark.source_id = t.source;
  mark.line = mark.line_end = ++t.line;
  mark.host = "gpu-1";
  mark.ts_kind = TsKind::wall;
  mark.ts = utc(2024, 5, 15, 10, 0, 0);
  mark.ts_raw = "2024-05-15 10:00:00";
  mark.kind = "log";
  mark.rule = "clock_mark";
  t.writer->add_event(mark);
  auto oom = t.add("gpu-1", TsKind::none, std::nullopt, std::nullopt, "", "cuda_oom");
  t.line += 60;
  t.add("gpu-1", TsKind::wall, utc(2024, 5, 15, 10, 5, 0), std::nullopt, "2024-05-15 10:05:00", "xid");
  auto rest = t.add("gpu-1", TsKind::none, std::nullopt, std::nullopt, "", "userspace_oom_kill");
  t.new_source("gpu-1", "app_log");
  t.line = 0;
  auto other = t.add("gpu-1", TsKind::none, std::nullopt, std::nullopt, "", "xid");
  REQUIRE(t.align().empty());
  CHECK_FALSE(t.ts(oom));  // a plain line before it bounds it from below only; the next is 61 lines on
  CHECK(*t.ts(rest) == Approx(utc(2024, 5, 15, 10, 5, 0)));  // the rest of the stamped failure's record
  CHECK_FALSE(t.ts(other));  // another source's stamps never date it
}

// Issue 37, finding 6: year-less stamps their parser placed from the source's own dated lines
// (year_from_line) keep their year and date the host's other year-less stamps.
TEST_CASE("clock: stamps dated from their own source's lines keep that year", "[clock]") {
  Timeline t("node-a", "app_log");
  culprit::core::Event f;
  f.set_int("year_from_line", 1);
  auto glog = t.add("node-a", TsKind::wall_no_year, utc(2024, 5, 15, 10, 32, 14), no_year(5, 15, 10, 32, 14),
                    "E515 10:32:14", "nccl_timeout", f.fields);
  t.new_source("node-a", "kernel_log");
  auto sys = t.add("node-a", TsKind::wall_no_year, std::nullopt, no_year(5, 15, 10, 32, 20), "May 15 10:32:20");
  store::ClockOptions o;
  o.now = utc(2026, 12, 5, 0, 0, 0);
  REQUIRE(t.align(o).empty());
  CHECK(*t.ts(glog) == Approx(utc(2024, 5, 15, 10, 32, 14)));
  CHECK(*t.ts(sys) == Approx(utc(2024, 5, 15, 10, 32, 20)));
  CHECK(contains(t.method("node-a"), "years from the source's own dated lines"));
}

// align_clocks answers a host's questions from one scan of the events (its census) until an
// UPDATE moves the host's times; years() and dates() keep the census true with the times they
// place. These cases go through the steps that follow them with placed stamps.
TEST_CASE("clock: time-only stamps placed by date then take the host's zone", "[clock]") {
  Timeline t("berlin-2");
  t.add("berlin-2", TsKind::wall, utc(2026, 4, 9, 10, 0, 0), std::nullopt, "2026-04-09T12:00:00+02:00", "xid");
  auto tod = t.add("berlin-2", TsKind::time_of_day, std::nullopt, 12 * 3600.0 + 5, "[12:00:05]", "log");
  REQUIRE(t.align().empty());
  // The date nearest the dated stamp (12:00:05 on April 9), then the host's +02:00.
  CHECK(*t.ts(tod) == Approx(utc(2026, 4, 9, 10, 0, 5)));
  CHECK(contains(t.method("berlin-2"), "dates of time-only stamps"));
  CHECK(contains(t.method("berlin-2"), "zoneless stamps in UTC+02:00 (the host's zoned stamps)"));
}

TEST_CASE("clock: past the 5000 zoned stamps the vote reads, the zone is still the host's most common", "[clock]") {
  Timeline t("tokyo-1");
  for (int i = 0; i < 5003; ++i)
    t.add("tokyo-1", TsKind::wall, utc(2026, 4, 9, 0, 0, i % 60), std::nullopt, "2026-04-09T09:00:00+09:00", "xid");
  auto glog = t.add("tokyo-1", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 9, 0, 30), "I0409 09:00:30.000000");
  REQUIRE(t.align().empty());
  CHECK(*t.ts(glog) == Approx(utc(2026, 4, 9, 0, 0, 30)));
  CHECK(contains(t.method("tokyo-1"), "zoneless stamps in UTC+09:00 (the host's zoned stamps)"));
}

TEST_CASE("clock: a source's first and last times and its clock: the most common kind, ties to the earlier line", "[clock]") {
  Timeline t("n1");
  t.add("n1", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 0, 0, 10), "Apr  9 00:00:10", "log");
  t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 20), std::nullopt, "2026-04-09T00:00:20Z", "xid");
  t.add("n1", TsKind::none, std::nullopt, std::nullopt, "", "log");  // not a stamp: not counted
  t.new_source("n1", "kernel_log");
  t.add("n1", TsKind::boot, std::nullopt, 93.5, "[   93.500000]", "xid");  // no anchor: unplaced
  t.add("n1", TsKind::boot, std::nullopt, 94.5, "[   94.500000]", "xid");
  t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 5), std::nullopt, "2026-04-09T00:00:05Z", "xid");
  t.new_source("n1", "free");  // no events
  REQUIRE(t.align().empty());
  auto r = t.db->query("SELECT name, first_ts, last_ts, clock FROM sources ORDER BY id");
  REQUIRE(r.rows.size() == 3);
  // One year-less and one wall stamp: a tie, to the kind of the earlier line.
  CHECK(r.rows[0]["clock"].as_text() == "no-year");
  CHECK(*r.rows[0]["first_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 10)));
  CHECK(*r.rows[0]["last_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 20)));
  CHECK(r.rows[1]["clock"].as_text() == "unplaced");  // two unplaced boot stamps outnumber one wall
  CHECK(*r.rows[1]["first_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 5)));
  CHECK(*r.rows[1]["last_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 5)));
  CHECK(r.rows[2]["clock"].as_text() == "none");
  CHECK(r.rows[2]["first_ts"].is_null());
  CHECK(r.rows[2]["last_ts"].is_null());
}

// Where no step moves an event's time, the sources' rows come from the census' one read of the
// events, not a second: the same first and last times and clock, with events of several sources
// interleaved (a folder's inputs read on several threads).
TEST_CASE("clock: where no time moves, a source's times and clock are the census'", "[clock]") {
  Timeline t("n1");
  const std::int64_t a = t.source;
  t.new_source("n1", "kernel_log");
  const std::int64_t b = t.source;
  t.new_source("n1", "kernel_log");
  const std::int64_t c = t.source;
  const auto in = [&t](std::int64_t source) { t.source = source; };
  in(a), t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 20), std::nullopt, "2026-04-09 00:00:20", "xid");
  in(b), t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 5), std::nullopt, "2026-04-09 00:00:05", "xid");
  in(a), t.add("n1", TsKind::boot, std::nullopt, 93.5, "[   93.500000]", "xid");  // no anchor: unplaced
  in(c), t.add("n1", TsKind::boot, std::nullopt, 90.0, "[   90.000000]", "xid");
  in(b), t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 30), std::nullopt, "2026-04-09 00:00:30", "xid");
  in(a), t.add("n1", TsKind::boot, std::nullopt, 94.5, "[   94.500000]", "xid");
  in(c), t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 1), std::nullopt, "2026-04-09 00:00:01", "xid");
  in(a), t.add("n1", TsKind::none, std::nullopt, std::nullopt, "", "log");  // not a stamp: not counted
  REQUIRE(t.align().empty());
  auto r = t.db->query("SELECT first_ts, last_ts, clock FROM sources ORDER BY id");
  REQUIRE(r.rows.size() == 3);
  CHECK(r.rows[0]["clock"].as_text() == "unplaced");  // two unplaced boot stamps outnumber one wall
  CHECK(*r.rows[0]["first_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 20)));
  CHECK(*r.rows[0]["last_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 20)));
  CHECK(r.rows[1]["clock"].as_text() == "wall");
  CHECK(*r.rows[1]["first_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 5)));
  CHECK(*r.rows[1]["last_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 30)));
  CHECK(r.rows[2]["clock"].as_text() == "unplaced");  // a tie: the kind of the earlier line
  CHECK(*r.rows[2]["first_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 1)));
  CHECK(*r.rows[2]["last_ts"].as_double() == Approx(utc(2026, 4, 9, 0, 0, 1)));
}

// A batch of small files is mostly sources without a stamped event: align_clocks writes a
// source's row only where its first_ts, last_ts or clock change (issue 38), and a row that came
// in with another clock (an older writer's '') is still set.
TEST_CASE("clock: only the sources whose clock or times change are written", "[clock]") {
  Timeline t("n1");
  t.add("n1", TsKind::wall, utc(2026, 4, 9, 0, 0, 20), std::nullopt, "2026-04-09T00:00:20Z", "xid");
  for (int i = 0; i < 50; ++i) t.new_source("n1", "free");  // no events
  REQUIRE(t.db->exec("UPDATE sources SET clock = '' WHERE id = 3").empty());
  REQUIRE(t.db->exec("CREATE TEMP TABLE written(id INTEGER);"
                     "CREATE TEMP TRIGGER log_write AFTER UPDATE ON sources BEGIN"
                     " INSERT INTO written VALUES(new.id); END;").empty());
  REQUIRE(t.align().empty());
  auto w = t.db->query("SELECT id FROM written ORDER BY id");
  REQUIRE(w.rows.size() == 2);
  CHECK(w.rows[0]["id"].as_int() == 1);  // its wall stamp
  CHECK(w.rows[1]["id"].as_int() == 3);  // '' to none
  auto r = t.db->query("SELECT count(*) AS n FROM sources WHERE clock = 'none' AND first_ts IS NULL AND last_ts IS NULL");
  CHECK(r.rows.at(0)["n"].as_int() == 50);
  CHECK(t.db->query("SELECT clock FROM sources WHERE id = 1").rows.at(0)["clock"].as_text() == "wall");
}

namespace {

/// The SQL that placed year-less and time-only stamps before culprit_nearest() (issue 38): the
/// CASE of abs() differences over three candidates, written out; the test's oracle.
std::string case_nearest(const std::string& a, const std::string& b, const std::string& c, double ref) {
  const std::string r = fmt::format("{:.6f}", ref);
  return fmt::format("CASE WHEN abs({0} - {3}) <= abs({1} - {3}) AND abs({0} - {3}) <= abs({2} - {3}) THEN {0}"
                     " WHEN abs({1} - {3}) <= abs({2} - {3}) THEN {1} ELSE {2} END",
                     a, b, c, r);
}
std::string case_in_year(int y) {
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return fmt::format("({:.6f} + ts_value - CASE WHEN {} AND ts_value >= 5184000 THEN 86400 ELSE 0 END)",
                     culprit::core::civil_to_epoch(y, 1, 1, 0, 0, 0), leap ? 0 : 1);
}

}  // namespace

TEST_CASE("clock: year-less and time-only stamps take, to the bit, the instant the CASE chose", "[clock]") {
  Timeline t("syslog-1");
  // A stamp for every day counted as in a leap year (Feb 29 and Mar 1 among them), at a time with
  // a fraction, around a reference on New Year's morning: the year before, of, and after (2028 is
  // a leap year, 2027 not).
  for (int day = 0; day < 366; ++day) t.add("syslog-1", TsKind::wall_no_year, std::nullopt, day * 86400.0 + 45296.789, "x");
  const double ref = utc(2027, 1, 1, 0, 0, 5.25);
  t.new_source("syslog-1", "app_log");
  t.add("syslog-1", TsKind::wall, ref, std::nullopt, "2027-01-01T00:00:05.25Z", "cuda_oom");
  t.new_source("spark-1", "app_log");
  for (int s = 0; s < 86400; s += 997) t.add("spark-1", TsKind::time_of_day, std::nullopt, s + 0.125, "x", "log");
  const double spark_ref = utc(2026, 4, 9, 13, 0, 20.5);
  t.add("spark-1", TsKind::wall, spark_ref, std::nullopt, "2026-04-09T13:00:20.5Z", "cuda_oom");
  REQUIRE(t.align().empty());
  const auto differ = [&](const std::string& host, const std::string& kind, const std::string& expected) {
    auto r = t.db->query(fmt::format("SELECT count(*) AS n, sum(ts IS NOT ({0})) AS differ FROM events"
                                     " WHERE host = '{1}' AND ts_kind = '{2}'",
                                     expected, host, kind));
    REQUIRE(r.error.empty());
    CHECK(r.rows.at(0)["n"].as_int().value_or(0) > 80);
    return r.rows.at(0)["differ"].as_int().value_or(-1);
  };
  CHECK(differ("syslog-1", "wall_no_year", case_nearest(case_in_year(2026), case_in_year(2027), case_in_year(2028), ref)) == 0);
  const double day = std::floor(spark_ref / 86400) * 86400;
  CHECK(differ("spark-1", "time_of_day",
               case_nearest(fmt::format("{:.6f} + ts_value", day - 86400), fmt::format("{:.6f} + ts_value", day),
                            fmt::format("{:.6f} + ts_value", day + 86400), spark_ref)) == 0);
}

TEST_CASE("clock: the zone of --tz is the one at the latest stamp the year placement placed", "[clock]") {
  if (!store::zone_offset("Europe/Berlin", 0)) return;  // no zoneinfo on this machine
  // Only year-less stamps: before their years are placed the host has no stamp at all, so the
  // instant --tz's offset is taken at is the latest they were placed at (summer: +02:00), not
  // today's (winter: +01:00).
  Timeline t("h");
  auto jan = t.add("h", TsKind::wall_no_year, std::nullopt, no_year(1, 10, 12, 0, 0), "Jan 10 12:00:00");
  auto jul = t.add("h", TsKind::wall_no_year, std::nullopt, no_year(7, 1, 12, 0, 0), "Jul  1 12:00:00");
  store::ClockOptions o;
  o.default_year = 2026;
  o.now = utc(2027, 1, 15, 12, 0, 0);
  o.tz = "Europe/Berlin";
  REQUIRE(t.align(o).empty());
  CHECK(*t.ts(jul) == Approx(utc(2026, 7, 1, 10, 0, 0)));
  CHECK(*t.ts(jan) == Approx(utc(2026, 1, 10, 10, 0, 0)));  // one offset per host
  CHECK(contains(t.method("h"), "zoneless stamps in UTC+02:00 (--tz)"));
}

TEST_CASE("clock: aligning a kept timeline again leaves its prepared statements prepared", "[clock]") {
  // A scan aligns each incident in its thread's spare timeline: registering the SQL functions
  // again would expire every statement the connection keeps, and SQLite would prepare each again.
  Timeline t("h");
  t.add("h", TsKind::wall_no_year, std::nullopt, no_year(4, 9, 0, 47, 22), "Apr  9 00:47:22");
  REQUIRE(t.align().empty());
  std::string err;
  auto st = t.db->prepare("SELECT count(*) FROM events WHERE ts IS NOT NULL", err);
  REQUIRE(st);
  REQUIRE(st->step());
  REQUIRE(store::align_clocks(*t.db).empty());
  st->reset();
  REQUIRE(st->step());
  CHECK(sqlite3_column_int(st->handle(), 0) == 1);
  CHECK(sqlite3_stmt_status(st->handle(), SQLITE_STMTSTATUS_REPREPARE, 0) == 0);
}

}  // namespace clock_tests
