// An event's fields as the JSON object stored in events.fields (store::fields_to_json): texts
// quoted with JSON's escapes, numbers bare, and what SQLite's json_extract reads back is the
// value written, byte for byte.
#include <catch2/catch.hpp>

#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"

using culprit::core::Field;
namespace store = culprit::store;

TEST_CASE("fields json: texts are escaped, numbers bare", "[store]") {
  CHECK(store::fields_to_json({}) == "{}");
  CHECK(store::fields_to_json({{"pid", "4242", true}, {"name", "python3", false}}) ==
        R"({"pid":4242,"name":"python3"})");
  CHECK(store::fields_to_json({{"q", "say \"hi\" \\ there", false}}) == R"({"q":"say \"hi\" \\ there"})");
  CHECK(store::fields_to_json({{"c", "a\nb\rc\td\x01" "e\x1f", false}}) == R"({"c":"a\nb\rc\td\u0001e\u001f"})");
  CHECK(store::fields_to_json({{"k\"ey", "", false}}) == R"({"k\"ey":""})");
  CHECK(store::fields_to_json({{"n", "", true}}) == R"({"n":""})");  // an empty number is text
  CHECK(store::fields_to_json({{"u", "Getötet 已杀死", false}}) == "{\"u\":\"Getötet 已杀死\"}");  // UTF-8 as is
}

TEST_CASE("fields json: json_extract reads back every value written", "[store]") {
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  const std::string value = std::string("tab\there \"quoted\" back\\slash\nline\x02 end", 38);
  const std::string json = store::fields_to_json({{"v", value, false}});
  auto r = db->query_bound("SELECT json_extract(?1, '$.v') AS v, json_valid(?1) AS ok", {json});
  REQUIRE(r.rows.size() == 1);
  CHECK(r.rows[0]["ok"].as_int() == 1);
  CHECK(r.rows[0]["v"].as_text() == value);
}
