// Scratch databases: an incident's in-memory timeline is emptied and kept for the next incident
// on the same thread, with its schema and the statements query() prepared. The next incident
// must not be able to tell it from a new database: no rows, rowids from 1, the same answers from
// a kept statement, and a statement's bindings and read state gone.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <thread>

#include "culprit/store/database.hpp"

using culprit::store::Database;

namespace {

std::int64_t count(Database& db, const std::string& table) {
  return db.query("SELECT count(*) AS n FROM " + table).rows.at(0)["n"].as_int().value_or(-1);
}

}  // namespace

TEST_CASE("a kept scratch database comes back empty, with its schema and statements", "[store]") {
  std::string error;
  auto db = Database::open_scratch(error);
  REQUIRE(db);
  REQUIRE(error.empty());
  const Database* first = db.get();
  REQUIRE(db->exec("INSERT INTO hosts(name) VALUES ('node-a'), ('node-b')").empty());
  const std::string event =
      "INSERT INTO events(source_id, line, line_end, ts_raw, ts_kind, host, comm, kind, severity, rule, message, "
      "fields) VALUES (1, 1, 1, '', 'none', 'node-a', '', 'xid', 'error', 'r', 'm', '{}')";
  REQUIRE(db->exec(event + ", (1, 2, 2, '', 'none', 'node-a', '', 'xid', 'error', 'r', 'm', '{}')").empty());
  CHECK(count(*db, "events") == 2);
  CHECK(count(*db, "hosts") == 2);
  CHECK(db->query("SELECT max(rowid) AS r FROM hosts").rows.at(0)["r"].as_int() == 2);

  Database::keep_as_spare(std::move(db));
  auto again = Database::open_scratch(error);
  REQUIRE(again);
  CHECK(again.get() == first);  // the same connection, kept
  CHECK(again->ensure_schema().empty());
  CHECK(count(*again, "hosts") == 0);
  CHECK(count(*again, "events") == 0);
  // Rowids and event ids start at 1 again, as in a new database (event ids appear in reports).
  REQUIRE(again->exec("INSERT INTO hosts(name) VALUES ('node-c')").empty());
  REQUIRE(again->exec(event).empty());
  CHECK(again->query("SELECT id FROM events").rows.at(0)["id"].as_int() == 1);
  CHECK(again->query("SELECT rowid AS r, name FROM hosts").rows.at(0)["r"].as_int() == 1);
  // The kept statement for this SQL answers from the new rows.
  CHECK(count(*again, "hosts") == 1);
  Database::keep_as_spare(std::move(again));
}

TEST_CASE("only a scratch database is kept, and each thread keeps its own", "[store]") {
  std::string error;
  auto file_like = Database::open("", error);  // not from open_scratch(): closed, never handed out again
  REQUIRE(file_like);
  // Known by its table, not its address: a new Database may well take the freed one's.
  REQUIRE(file_like->exec("CREATE TABLE not_scratch(x)").empty());
  Database::keep_as_spare(std::move(file_like));
  auto scratch = Database::open_scratch(error);
  REQUIRE(scratch);
  CHECK(scratch->query("SELECT name FROM sqlite_master WHERE name = 'not_scratch'").rows.empty());
  const Database* mine = scratch.get();
  Database::keep_as_spare(std::move(scratch));

  const Database* theirs = nullptr;
  std::thread([&theirs] {
    std::string e;
    auto db = Database::open_scratch(e);
    theirs = db.get();
    Database::keep_as_spare(std::move(db));
  }).join();
  CHECK(theirs != nullptr);
  CHECK(theirs != mine);  // another thread made its own
  auto back = Database::open_scratch(error);
  CHECK(back.get() == mine);
  Database::keep_as_spare(std::move(back));
}

TEST_CASE("kept statements run again: errors are not kept: the read-only guard holds only while it is up", "[store]") {
  std::string error;
  auto db = Database::open_scratch(error);
  REQUIRE(db);
  for (int round = 0; round < 3; ++round) {
    CHECK(db->query("SELECT 1 AS one").rows.at(0)["one"].as_int() == 1);
    // A statement that does not prepare is not kept: its error comes back every time.
    const auto bad = db->query("SELECT * FROM no_such_table");
    CHECK(bad.error.find("no_such_table") != std::string::npos);
    // A guarded read-only query that writes is refused every time, kept or not.
    const auto write = db->query("DELETE FROM hosts", culprit::store::QueryGuard{true, 0});
    CHECK_FALSE(write.error.empty());
    const auto read = db->query("SELECT count(*) AS n FROM hosts", culprit::store::QueryGuard{true, 0});
    CHECK(read.error.empty());
    // The guard is down again after a guarded query: culprit's own writes go through.
    CHECK(db->query("DELETE FROM hosts").error.empty());
    CHECK(db->exec("INSERT INTO hosts(name) VALUES ('n')").empty());
  }
  Database::keep_as_spare(std::move(db));
}

TEST_CASE("query_bound and exec_bound bind ?1, ?2 … as text, quotes and all", "[store]") {
  std::string error;
  auto db = Database::open_scratch(error);
  REQUIRE(db);
  const std::string tricky = "it's; DROP TABLE hosts; --";  // a name sql_literal had to escape
  CHECK(db->exec_bound("INSERT INTO hosts(name) VALUES (?1)", {tricky}).empty());
  CHECK(db->exec_bound("INSERT INTO hosts(name) VALUES (?1)", {"plain"}).empty());
  for (const std::string& name : {tricky, std::string("plain")}) {
    const auto r = db->query_bound("SELECT count(*) AS n, ?1 AS echo FROM hosts WHERE name = ?1", {name});
    REQUIRE(r.error.empty());
    CHECK(r.rows.at(0)["n"].as_int() == 1);
    CHECK(r.rows.at(0)["echo"].as_text() == name);
  }
  CHECK(db->query_bound("SELECT count(*) AS n FROM hosts WHERE name = ?1", {"absent"}).rows.at(0)["n"].as_int() == 0);
  CHECK_FALSE(db->exec_bound("INSERT INTO no_such_table VALUES (?1)", {"x"}).empty());
  CHECK(count(*db, "hosts") == 2);
  Database::keep_as_spare(std::move(db));
}
