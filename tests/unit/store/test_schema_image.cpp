// A new timeline copies the build's empty database (Database::ensure_schema): it must be the schema
// that running schema.sql makes, object for object and version for version, and it must take rows.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/store/database.hpp"

using culprit::store::Database;

namespace {

/// Every schema object's definition, and the schema version, as one text.
std::string schema_image_of(Database& db) {
  std::string out;
  for (const auto& row : db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").rows)
    out += row["type"].as_text() + " " + row["name"].as_text() + " " + row["tbl_name"].as_text() + "\n" +
           row["sql"].as_text() + "\n";
  return out + "user_version " + db.query("PRAGMA user_version").rows.at(0).values.at(0).as_text();
}

}  // namespace

TEST_CASE("a new timeline has the schema schema.sql makes", "[store]") {
  std::string error;
  auto copied = Database::open("", error);
  REQUIRE(copied);
  REQUIRE(copied->ensure_schema().empty());
  auto run = Database::open("", error);
  REQUIRE(run);
  REQUIRE(run->exec(Database::schema()).empty());
  const std::string expected = schema_image_of(*run);
  CHECK(expected.find("CREATE TABLE events") != std::string::npos);
  CHECK(schema_image_of(*copied) == expected);
  CHECK(copied->query("PRAGMA integrity_check").rows.at(0).values.at(0).as_text() == "ok");
  // It takes rows like any new database, and ensure_schema() then checks, not copies.
  CHECK(copied->exec("INSERT INTO hosts(name) VALUES('node-1')").empty());
  CHECK(copied->ensure_schema().empty());
  CHECK(copied->query("SELECT count(*) AS n FROM hosts").rows.at(0)["n"].as_int() == 1);
}
