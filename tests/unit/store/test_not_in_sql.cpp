// not_in_sql: `column NOT IN (…)` as the ranges between the values, so that an index leading with
// the column reads only the rows outside them (issue 38: `kind <> 'log'` read every event of a log
// where a tenth of the lines are `log` events). The rows must be the NOT IN's, whatever the values.
#include <catch2/catch.hpp>

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

}  // namespace

TEST_CASE("not_in_sql: the rows of NOT IN, read by the column's index", "[store]") {
  std::string error;
  auto db = Database::open("", error);
  REQUIRE(db);
  REQUIRE(db->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, kind TEXT NOT NULL);"
                   "CREATE INDEX t_kind ON t(kind, id);").empty());
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
