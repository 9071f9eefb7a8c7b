// QueryResult: rows read their values by column name after the result is moved or copied, and
// after it is gone (a row kept from a temporary result). Rows once pointed into their result's
// own column vector, so a move-assignment left them reading freed memory.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "culprit/store/database.hpp"

using culprit::store::Database;
using culprit::store::QueryResult;
using culprit::store::Row;

TEST_CASE("query rows survive moving, copying and dropping their result", "[store]") {
  std::string error;
  auto db = Database::open("", error);
  REQUIRE(db);
  QueryResult kept = db->query("SELECT 1 AS a, 'x' AS b");
  REQUIRE(kept.rows.size() == 1);
  kept = db->query("SELECT 7 AS a, 'seven' AS b UNION ALL SELECT 8, 'eight'");  // move-assigned
  REQUIRE(kept.rows.size() == 2);
  CHECK(kept.rows[0]["a"].as_int() == 7);
  CHECK(kept.rows[1]["b"].as_text() == "eight");

  QueryResult copy = kept;
  kept = QueryResult{};
  CHECK(copy.rows[0]["b"].as_text() == "seven");

  const Row row = db->query("SELECT 42 AS answer").rows.at(0);  // its result is a temporary
  CHECK(row["answer"].as_int() == 42);
  CHECK(row["missing"].is_null());
}
