// not_in_sql: `column NOT IN (…)` as the ranges between the values, so that an index leading with
// the column reads only the rows outside them (issue 38: `kind <> 'log'` read every event of a log
// where a tenth of the lines are `log` events). The rows must be the NOT IN's, whatever the values.
// distinct_sql: a DISTINCT as one index search per value, the same values.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "culprit/store/database.hpp"

using culprit::store::Database;
using culprit::store::not_in_sql;

namespace {

std::set<std::string> ids(Database& db, const std::string& where) {
  std::set<std::string> out;
  const auto r = db.query("SELECT id FROM t WHERE " + where);
  REQUIRE(r.error.empty());
  for (const auto& row : r.rows) out.insert(row["id"].as_text());
  return out;
}

/// An in-memory database with table t(id, kind) and its index t_kind(kind, id); `kind_type` the
/// column's declaration (`TEXT NOT NULL`, as the events' kind, or `TEXT`, NULLs allowed).
std::unique_ptr<Database> kind_table(const std::string& kind_type) {
  std::string error;
  auto db = Database::open("", error);
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, kind " + kind_type + ");"
                   "CREATE INDEX t_kind ON t(kind, id);").empty());
  return db;
}

}  // namespace

TEST_CASE("not_in_sql: the rows of NOT IN, read by the column's index", "[store]") {
  auto db = kind_table("TEXT NOT NULL");
  // Kinds around the values and between them: empty, a prefix, a longer one, quotes, bytes above ASCII.
  const std::vector<std::string> kinds = {"",    "a",      "command", "command_x", "comman", "log",  "log ",
                                          "lo",  "logs",   "xid",     "it's",      "allocator_site",
                                          "Log", "\xc3\xa9t\xc3\xa9", "zz"};
  std::mt19937 rng(38);
  for (int i = 0; i < 400; ++i)
    REQUIRE(db->exec("INSERT INTO t(kind) VALUES(" + culprit::store::sql_literal(kinds[rng() % kinds.size()]) + ")")
                .empty());
  const std::vector<std::vector<std::string_view>> lists = {
      {"log"}, {"log", "command", "allocator_site"}, {"allocator_site", "log", "log"}, {""}, {"it's", "zz"}, {}};
  for (const auto& values : lists) {
    std::string in;
    for (const auto v : values) in += (in.empty() ? "" : ", ") + culprit::store::sql_literal(v);
    const std::string where = not_in_sql("kind", values);
    INFO(where);
    CHECK(ids(*db, where) == ids(*db, values.empty() ? "1" : "kind NOT IN (" + in + ")"));
  }
  // The point of it: the index serves it (a NOT IN scans every row).
  const auto plan = db->query("EXPLAIN QUERY PLAN SELECT count(*) FROM t WHERE " + not_in_sql("kind", {"log"}));
  std::string details;
  for (const auto& row : plan.rows) details += row["detail"].as_text() + "\n";
  INFO(details);
  CHECK(details.find("SEARCH t USING COVERING INDEX t_kind") != std::string::npos);
  CHECK(details.find("SCAN") == std::string::npos);
}

TEST_CASE("distinct_sql: the values of DISTINCT, each found by one search of the column's index", "[store]") {
  auto db = kind_table("TEXT");
  const auto distinct = [&db](const std::string& sql) {
    std::vector<std::string> out;
    const auto r = db->query(sql);
    REQUIRE(r.error.empty());
    for (const auto& row : r.rows) out.push_back(row["kind"].as_text());
    return out;
  };
  const std::string sql = culprit::store::distinct_sql("t", "kind");
  const std::string plain = "SELECT DISTINCT kind FROM t WHERE kind IS NOT NULL ORDER BY kind";
  CHECK(distinct(sql).empty());  // an empty table
  const std::vector<std::string> kinds = {"", "log", "log ", "Log", "it's", "xid", "\xc3\xa9t\xc3\xa9", "a"};
  std::mt19937 rng(38);
  for (int i = 0; i < 2000; ++i) {
    const std::string value = i % 97 == 0 ? "NULL" : culprit::store::sql_literal(kinds[rng() % kinds.size()]);
    REQUIRE(db->exec("INSERT INTO t(kind) VALUES(" + value + ")").empty());
  }
  CHECK(distinct(sql) == distinct(plain));
  // The point of it: index searches, no scan (a DISTINCT scans the whole index).
  std::string details;
  for (const auto& row : db->query("EXPLAIN QUERY PLAN " + sql).rows) details += row["detail"].as_text() + "\n";
  INFO(details);
  CHECK(details.find("SCAN t") == std::string::npos);
}
