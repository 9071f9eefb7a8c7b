// The saved-timeline API (include/culprit/timeline.hpp): analyses of in-memory texts kept in a
// temporary timeline file, then queried, read as `culprit timeline` reads them, written into
// scan databases and merged; each function's typed error for what it refuses.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "culprit/culprit.hpp"
#include "unit/api/api_samples.hpp"
#include "unit/temp_dir.hpp"
#include "culprit/timeline.hpp"

namespace fs = std::filesystem;

namespace {

using culprit::test::kHealthy;
using culprit::test::TempDir;
using culprit::test::kTorchOom;
using culprit::test::builtin_rules;

/// `text` analysed (host `host`) into the timeline file `db_path`.
culprit::Analysis kept(const std::string& db_path, const char* text, const char* host) {
  culprit::Options options;
  options.db_path = db_path;
  auto analysis = culprit::analyze({culprit::Input::memory(text, host, "train.log")}, options, builtin_rules());
  REQUIRE(analysis);
  return std::move(analysis).value();
}

std::int64_t count_of(const std::string& db_path, const std::string& sql) {
  auto t = culprit::query(db_path, sql);
  REQUIRE(t);
  REQUIRE(t->rows.size() == 1);
  REQUIRE(std::holds_alternative<std::int64_t>(t->rows[0][0]));
  return std::get<std::int64_t>(t->rows[0][0]);
}

}  // namespace

TEST_CASE("api: query reads a kept timeline, SQLite's types kept as plain cells") {
  TempDir dir;
  const auto db = dir.file("oom.db");
  kept(db, kTorchOom, "gpu-node-7");

  auto kinds = culprit::query(db, "SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY kind");
  REQUIRE(kinds);
  CHECK(kinds->columns == std::vector<std::string>{"kind", "n"});
  bool oom = false;
  for (const auto& row : kinds->rows) {
    REQUIRE(row.size() == 2);
    oom |= culprit::cell_text(row[0]) == "cuda_oom";
    CHECK(std::holds_alternative<std::int64_t>(row[1]));
  }
  CHECK(oom);

  auto cells = culprit::query(db, "SELECT 1.5 AS r, NULL AS n, 'it''s' AS s, 42 AS i");
  REQUIRE(cells);
  REQUIRE(cells->rows.size() == 1);
  const auto& row = cells->rows[0];
  CHECK(std::get<double>(row[0]) == 1.5);
  CHECK(std::holds_alternative<std::monostate>(row[1]));
  CHECK(std::get<std::string>(row[2]) == "it's");
  CHECK(std::get<std::int64_t>(row[3]) == 42);
  CHECK(culprit::cell_text(row[0]) == "1.5");
  CHECK(culprit::cell_text(row[1]).empty());
  CHECK(culprit::cell_text(row[3]) == "42");

  // A blob stays bytes (redteam finding 3: `fts3_tokenizer()` gives a raw heap pointer), told
  // apart from text, and is shown as SQLite's blob literal.
  auto blobs = culprit::query(db, "SELECT x'1bff00' AS b, zeroblob(0) AS e, CAST(x'41' AS TEXT) AS t");
  REQUIRE(blobs);
  REQUIRE(blobs->rows.size() == 1);
  const auto& blob_row = blobs->rows[0];
  REQUIRE(std::holds_alternative<culprit::Blob>(blob_row[0]));
  CHECK(std::get<culprit::Blob>(blob_row[0]).bytes == std::string("\x1b\xff\x00", 3));
  CHECK(std::get<culprit::Blob>(blob_row[0]).hex() == "1bff00");
  CHECK(culprit::cell_text(blob_row[0]) == "x'1bff00'");
  CHECK(culprit::cell_text(blob_row[1]) == "x''");
  CHECK(std::get<std::string>(blob_row[2]) == "A");

  // No row is a table with its columns and no rows, not an error.
  auto none = culprit::query(db, "SELECT id FROM events WHERE kind = 'no_such_kind'");
  REQUIRE(none);
  CHECK(none->columns == std::vector<std::string>{"id"});
  CHECK(none->rows.empty());
}

TEST_CASE("api: query refuses what is not one read-only statement over a culprit timeline") {
  TempDir dir;
  const auto db = dir.file("oom.db");
  kept(db, kTorchOom, "gpu-node-7");
  const auto events = count_of(db, "SELECT count(*) FROM events");

  SECTION("a write is Errc::query and changes nothing") {
    for (const char* sql : {"DELETE FROM events", "SELECT 1; DELETE FROM events", "PRAGMA user_version = 1",
                            "ATTACH DATABASE ':memory:' AS x"}) {
      auto r = culprit::query(db, sql);
      REQUIRE_FALSE(r);
      CHECK(r.error().code == culprit::Errc::query);
      CHECK_FALSE(r.error().message.empty());
    }
    CHECK(count_of(db, "SELECT count(*) FROM events") == events);
  }
  SECTION("a statement that does not compile is Errc::query") {
    auto r = culprit::query(db, "SELECT no_such_column FROM events");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::query);
  }
  SECTION("no such file is Errc::not_found, and none is created") {
    const auto missing = dir.file("missing.db");
    auto r = culprit::query(missing, "SELECT 1");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::not_found);
    CHECK(culprit::to_string(r.error().code) == "not_found");
    CHECK_FALSE(fs::exists(missing));
  }
  SECTION("a file that is no culprit timeline is Errc::not_a_timeline") {
    const auto junk = dir.file("notes.db");
    std::ofstream(junk) << "not a database\n";
    auto r = culprit::query(junk, "SELECT 1");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::not_a_timeline);
    CHECK(r.error().message == junk + " is not a culprit timeline of this version (file is not a database)");
  }
  SECTION("a negative timeout is Errc::invalid_option") {
    culprit::QueryOptions options;
    options.timeout_seconds = -1;
    auto r = culprit::query(db, "SELECT 1", options);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::invalid_option);
  }
}

TEST_CASE("api: read_timeline lists a kept timeline's events, the root failure marked") {
  TempDir dir;
  const auto db = dir.file("oom.db");
  const auto analysis = kept(db, kTorchOom, "gpu-node-7");
  REQUIRE(analysis.verdict.root);
  const auto root_event = analysis.verdict.root->event_id;

  // From the file, the marks come from its saved findings; from the analysis, from its verdict.
  auto saved = culprit::read_timeline(db);
  auto live = culprit::read_timeline(analysis);
  for (const auto* t : {&saved, &live}) {
    REQUIRE(*t);
    const auto& timeline = t->value();
    CHECK(timeline.total == static_cast<std::int64_t>(timeline.events.size()));
    std::size_t roots = 0;
    for (const auto& e : timeline.events) {
      CHECK(e.kind != "log");  // plain log lines only on request
      if (e.mark == "root") {
        ++roots;
        CHECK(e.event_id == root_event);
        CHECK(e.kind == "cuda_oom");
        CHECK(e.host == "gpu-node-7");
      }
    }
    CHECK(roots == 1);
    REQUIRE(timeline.hosts.size() == 1);
    CHECK(timeline.hosts[0].host == "gpu-node-7");
  }

  culprit::TimelineSelection only;
  only.kinds = {"cuda_oom"};
  auto filtered = culprit::read_timeline(db, only);
  REQUIRE(filtered);
  REQUIRE_FALSE(filtered->events.empty());
  for (const auto& e : filtered->events) CHECK(e.kind == "cuda_oom");

  culprit::TimelineSelection elsewhere;
  elsewhere.hosts = {"login-1"};
  auto other_host = culprit::read_timeline(db, elsewhere);
  REQUIRE(other_host);
  CHECK(other_host->events.empty());

  culprit::TimelineSelection around;
  around.around = std::to_string(root_event);
  auto centred = culprit::read_timeline(db, around);
  REQUIRE(centred);
  CHECK_FALSE(centred->events.empty());
}

TEST_CASE("api: read_timeline's typed errors") {
  TempDir dir;
  const auto db = dir.file("oom.db");
  kept(db, kTorchOom, "gpu-node-7");

  culprit::TimelineSelection bad;
  for (const char* around : {"999999", "99999999999999999999999", "yesterday", "2026-13"}) {
    bad.around = around;
    auto r = culprit::read_timeline(db, bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::invalid_option);
  }
  auto missing = culprit::read_timeline(dir.file("missing.db"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == culprit::Errc::not_found);

  // An analysis held in memory kept no timeline to read.
  auto in_memory = culprit::analyze({culprit::Input::memory(kTorchOom)}, {}, builtin_rules());
  REQUIRE(in_memory);
  auto none = culprit::read_timeline(*in_memory);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == culprit::Errc::database);
}

TEST_CASE("api: scan databases are written and merged, incidents by path, one each") {
  TempDir dir;
  const auto a = kept(dir.file("a.db"), kTorchOom, "gpu-node-7");
  const auto b = kept(dir.file("b.db"), kHealthy, "gpu-node-8");
  const auto incident = [](const culprit::Analysis& an, const char* name) {
    return culprit::ScanIncident{an.db_path, name, an.verdict.verdict, culprit::render(an, culprit::Format::json)};
  };
  // Two shards, listed in the "wrong" order: the merge orders them by incident path.
  REQUIRE_FALSE(culprit::write_scan_database(dir.file("shard1.db"), {incident(b, "runs/b")}));
  REQUIRE_FALSE(culprit::write_scan_database(dir.file("shard0.db"), {incident(a, "runs/a")}));
  const auto out = dir.file("merged.db");
  auto merged = culprit::merge_scan_databases({dir.file("shard1.db"), dir.file("shard0.db"), dir.file("shard1.db")},
                                              out);
  REQUIRE(merged);
  CHECK(merged->incidents == 2);  // shard1 given twice: its incident is kept once
  auto rows = culprit::query(out, "SELECT id, path, verdict FROM incidents ORDER BY id");
  REQUIRE(rows);
  REQUIRE(rows->rows.size() == 2);
  CHECK(culprit::cell_text(rows->rows[0][1]) == "runs/a");
  CHECK(culprit::cell_text(rows->rows[0][2]) == "cuda_oom");
  CHECK(culprit::cell_text(rows->rows[1][1]) == "runs/b");
  CHECK_FALSE(fs::exists(out + ".tmp"));

  // Each incident's events came along: the OOM's timeline is incident 1's.
  culprit::TimelineSelection first;
  first.incident = 1;
  auto timeline = culprit::read_timeline(out, first);
  REQUIRE(timeline);
  bool oom = false;
  for (const auto& e : timeline->events) oom |= e.kind == "cuda_oom";
  CHECK(oom);

  SECTION("an output that exists is refused, untouched") {
    auto again = culprit::merge_scan_databases({dir.file("shard0.db")}, out);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == culprit::Errc::database);
    CHECK(again.error().message.find("exists") != std::string::npos);
    CHECK(count_of(out, "SELECT count(*) FROM incidents") == 2);
  }
  SECTION("an input that is no scan database is Errc::database naming it") {
    const auto junk = dir.file("junk.db");
    std::ofstream(junk) << "not a database\n";
    auto r = culprit::merge_scan_databases({dir.file("shard0.db"), junk}, dir.file("merged2.db"));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::database);
    CHECK(r.error().message.rfind(junk, 0) == 0);
    CHECK_FALSE(fs::exists(dir.file("merged2.db")));
  }
  SECTION("write_scan_database refuses a path that exists") {
    auto err = culprit::write_scan_database(out, {incident(a, "runs/a")});
    REQUIRE(err);
    CHECK(err->code == culprit::Errc::database);
  }
}
