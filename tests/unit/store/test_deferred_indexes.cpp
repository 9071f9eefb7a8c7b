// TimelineWriter builds the events table's indexes once its rows are in, past a few thousand
// events (issue 38): a finished timeline has the schema a new one has, object for object, and its
// indexes answer the queries that read by them with the rows a table scan finds — a second
// writer's rows and the first's; a writer that never finishes leaves the schema as it was.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/event.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"
#include "unit/store/empty_timeline.hpp"

namespace store = culprit::store;
using culprit::test::empty_timeline;

namespace {

std::string schema_of(store::Database& db) {
  std::string out;
  for (const auto& row : db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").rows)
    out += row["type"].as_text() + " " + row["name"].as_text() + " " + row["sql"].as_text() + "\n";
  return out;
}

/// Events of two hosts, kinds and sources, in an order no index keeps.
void write_events(store::TimelineWriter& w, int n) {
  culprit::core::SourceInfo s;
  s.name = "a.log";
  s.host = "node-a";
  s.format = "app_log";
  const std::int64_t a = w.add_source(s);
  s.name = "b.log";
  s.host = "node-b";
  const std::int64_t b = w.add_source(s);
  for (int i = 0; i < n; ++i) {
    culprit::core::Event e;
    e.source_id = i % 3 == 0 ? b : a;
    e.line = e.line_end = n - i;
    e.host = i % 3 == 0 ? "node-b" : "node-a";
    if (i % 5 != 0) e.pid = 100 + i % 7;
    e.kind = i % 10 == 0 ? "cuda_oom" : "log";
    e.rule = i % 4 == 0 ? "job_memory_setting_arg" : "other";
    e.message = "m" + std::to_string(i);
    w.add_event(e);
  }
}

/// The rows of `where` read through `index`, and read by a scan of the table: the same.
void same_rows(store::Database& db, const std::string& index, const std::string& where, std::size_t expected) {
  CAPTURE(index, where);
  auto by_index = db.query("SELECT id FROM events INDEXED BY " + index + " WHERE " + where + " ORDER BY id");
  auto by_scan = db.query("SELECT id FROM events NOT INDEXED WHERE " + where + " ORDER BY id");
  REQUIRE(by_index.error.empty());
  REQUIRE(by_scan.error.empty());
  CHECK(by_index.rows.size() == expected);
  REQUIRE(by_index.rows.size() == by_scan.rows.size());
  for (std::size_t i = 0; i < by_index.rows.size(); ++i)
    CHECK(by_index.rows[i]["id"].as_int() == by_scan.rows[i]["id"].as_int());
}

}  // namespace

TEST_CASE("timeline writer: the events' indexes are built at finish and hold every row", "[store]") {
  auto fresh = empty_timeline();
  auto db = empty_timeline();
  {
    store::TimelineWriter w(*db);
    write_events(w, 3000);
    REQUIRE(w.finish().empty());
  }
  CHECK(schema_of(*db) == schema_of(*fresh));
  same_rows(*db, "events_kind", "kind = 'log' AND rule = 'job_memory_setting_arg'", 600);
  same_rows(*db, "events_host_pid", "host = 'node-b' AND pid = 103", 114);
  same_rows(*db, "events_source_line", "source_id = 2 AND line BETWEEN 100 AND 400", 100);
  CHECK(db->query("PRAGMA integrity_check").rows.at(0).values.at(0).as_text() == "ok");
}

TEST_CASE("timeline writer: unfinished, the indexes stay, and a second writer's rows are indexed with the first's", "[store]") {
  auto fresh = empty_timeline();
  auto db = empty_timeline();
  {
    store::TimelineWriter w(*db);
    write_events(w, 3000);
    CHECK(db->query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")
              .rows.at(0)["n"].as_int() == 0);  // dropped while it writes
  }  // never finished: rolled back, indexes and all
  CHECK(schema_of(*db) == schema_of(*fresh));
  CHECK(db->query("SELECT count(*) AS n FROM events").rows.at(0)["n"].as_int() == 0);
  {
    store::TimelineWriter w(*db);
    write_events(w, 10);
    REQUIRE(w.finish().empty());
  }
  {
    store::TimelineWriter w(*db);  // a second writer over the first one's events
    write_events(w, 2100);
    REQUIRE(w.finish().empty());
  }
  CHECK(schema_of(*db) == schema_of(*fresh));
  same_rows(*db, "events_host_pid", "host = 'node-a'", 6 + 1400);
  same_rows(*db, "events_source_line", "source_id IN (1, 3) AND line <= 10", 6 + 7);
  CHECK(db->query("PRAGMA integrity_check").rows.at(0).values.at(0).as_text() == "ok");
}
