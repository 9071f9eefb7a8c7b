// A database file culprit did not write (redteam findings 7, 8, 13, 14): it is culprit's only with
// its application_id, this schema version and the schema's tables as tables; it is read without
// changing a byte of it or beside it; and SQL over it ends within a deadline.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "culprit/store/database.hpp"
#include "unit/temp_dir.hpp"

using culprit::store::Database;

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A timeline file written as culprit writes one (ensure_schema), then `sql` run on it.
std::string timeline_file(const culprit::test::TempDir& dir, const char* name, const std::string& sql = {}) {
  const std::string path = dir.file(name);
  std::string error;
  auto db = Database::open(path, error);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  if (!sql.empty()) REQUIRE(db->exec(sql).empty());
  return path;
}

}  // namespace

TEST_CASE("a timeline carries culprit's application_id and passes check_timeline", "[store]") {
  const culprit::test::TempDir dir;
  const std::string path = timeline_file(dir, "t.db");
  std::string error;
  auto db = Database::open_read_only(path, error);
  REQUIRE(db);
  CHECK(Database::application_id() == 0x43554C50);
  CHECK(db->query("PRAGMA application_id").rows.at(0).values.at(0).as_int() == Database::application_id());
  CHECK(db->check_timeline().empty());
}

TEST_CASE("another application's database with culprit's user_version is no timeline", "[store][redteam]") {
  // Finding 7: user_version alone made `--db app.db` replace an application's database.
  const culprit::test::TempDir dir;
  const std::string path = dir.file("app.db");
  std::string error;
  {
    auto db = Database::open(path, error);
    REQUIRE(db);
    // culprit's own schema version (schema.sql's), so that only the application id tells them apart.
    REQUIRE(db->exec("PRAGMA user_version = " + std::to_string(Database::schema_version()) +
                     "; CREATE TABLE precious(x); INSERT INTO precious VALUES (42)")
                .empty());
  }
  auto db = Database::open_read_only(path, error);
  REQUIRE(db);
  CHECK(db->check_timeline("main", Database::TimelineUse::write) == "no culprit application_id");
  CHECK_FALSE(db->check_timeline().empty());  // nor read: it lacks the schema's tables
}

// A timeline written before culprit marked its files (application_id 0, this schema version,
// the schema's tables) is still read — `query` and `timeline --db` on last month's files — but
// never written into: `--db` asks for the mark.
TEST_CASE("a timeline from before the application_id is read, never written", "[store][redteam]") {
  const culprit::test::TempDir dir;
  const std::string path = timeline_file(dir, "old.db", "PRAGMA application_id = 0");
  std::string error;
  auto db = Database::open_read_only(path, error);
  REQUIRE(db);
  CHECK(db->check_timeline().empty());
  CHECK(db->check_timeline("main", Database::TimelineUse::write) == "no culprit application_id");
}

TEST_CASE("a view in place of a timeline's table is refused", "[store][redteam]") {
  // Findings 13 and 14: an endless recursive view named `events` hung merge, timeline and query.
  const culprit::test::TempDir dir;
  const std::string path = timeline_file(
      dir, "view.db",
      "DROP VIEW event_lines; DROP TABLE events; CREATE VIEW events AS WITH RECURSIVE r(n) AS "
      "(SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 0 AS incident, n AS id FROM r");
  std::string error;
  auto db = Database::open_read_only(path, error);
  REQUIRE(db);
  CHECK(db->check_timeline() ==
        "`events` is not the schema's table (a view, a virtual table, altered, or missing)");
  // A schema view changed to run something else is refused too.
  const std::string altered = timeline_file(dir, "altered.db",
                                            "DROP VIEW event_lines; CREATE VIEW event_lines AS SELECT * FROM events");
  auto other = Database::open_read_only(altered, error);
  REQUIRE(other);
  CHECK(other->check_timeline().rfind("`event_lines` is not the schema's view", 0) == 0);
}

TEST_CASE("reading a database leaves it and its journal as they were", "[store][redteam]") {
  // Finding 8: opening read-write ran `journal_mode`, rolled back a hot journal and merged a WAL.
  const culprit::test::TempDir dir;
  const std::string path = timeline_file(dir, "t.db", "INSERT INTO hosts(name) VALUES ('a')");
  std::ofstream(path + "-journal", std::ios::binary) << std::string(512, 'j');  // a journal SQLite would roll back
  const std::string before = bytes_of(path);
  std::string error;
  {
    auto db = Database::open_read_only(path, error);
    REQUIRE(db);
    CHECK(db->check_timeline().empty());
    CHECK(db->query("SELECT count(*) FROM hosts").rows.at(0).values.at(0).as_int() == 1);
  }
  CHECK(bytes_of(path) == before);
  CHECK(bytes_of(path + "-journal") == std::string(512, 'j'));
  CHECK_FALSE(std::filesystem::exists(path + "-shm"));
  CHECK_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST_CASE("a path with URI characters opens as that path", "[store]") {
  const culprit::test::TempDir dir;
  const std::string path = timeline_file(dir, "a?mode=rw#%20.db");
  std::string error;
  auto db = Database::open_read_only(path, error);
  REQUIRE(db);
  CHECK(db->check_timeline().empty());
  CHECK(culprit::store::sqlite_uri("/x/a b?.db", "mode=ro") == "file:///x/a%20b%3F.db?mode=ro");
}

TEST_CASE("a connection's deadline stops a query that never ends", "[store][redteam]") {
  std::string error;
  auto db = Database::open("", error);
  REQUIRE(db);
  db->set_deadline(0.2);
  const auto r = db->query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r");
  CHECK(r.error == "interrupted");
  db->set_deadline(0);
  CHECK(db->query("SELECT 1").error.empty());
}

TEST_CASE("a guarded query stops at kGuardedRowLimit rows, and query_each streams past it", "[store][redteam]") {
  // Findings 19 and 18: a --rules diagnosis of 2·10^7 rows held 5 GB; `culprit query` held its
  // whole result (30 M rows: 11 GB).
  std::string error;
  auto db = Database::open("", error);
  REQUIRE(db);
  const std::string sql = fmt::format(
      "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT {}) SELECT n FROM r",
      culprit::store::kGuardedRowLimit + 5);
  const auto capped = db->query(sql, culprit::store::QueryGuard{true, 30});
  CHECK(capped.stopped);
  CHECK(capped.error == fmt::format("stopped after {} rows, its row limit", culprit::store::kGuardedRowLimit));
  CHECK(static_cast<std::int64_t>(capped.rows.size()) == culprit::store::kGuardedRowLimit);
  std::int64_t seen = 0, last = 0;
  const auto why = db->query_each(
      sql, culprit::store::QueryGuard{true, 30, 0}, [](const std::vector<std::string>&) {},
      [&](const culprit::store::Row& row) {
        ++seen;
        last = row.values.at(0).i;
        return true;
      });
  CHECK(why.empty());
  CHECK(seen == culprit::store::kGuardedRowLimit + 5);
  CHECK(last == seen);
}
