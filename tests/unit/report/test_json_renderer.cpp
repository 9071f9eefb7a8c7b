// The JSON contract (schema_version 3): the renderer's output of the sample verdicts against
// schema/culprit-report.schema.json — every key, in the schema's order, with its type and
// enumeration — read here by a small validator of the subset the schema uses (type, const,
// enum, oneOf, $ref, properties, items); null where the contract says so; and valid JSON
// whatever the logs contained. tests/schema validates real output with python3-jsonschema.
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <vector>

#include "culprit/diagnose/finding.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/report/renderer.hpp"
#include "diagnose/ledger_model.hpp"
#include "ingest/format_table.hpp"
#include "unit/report/sample_verdicts.hpp"

namespace json_renderer_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;
using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

/// The schema file, parsed once.
struct Schema {
  simdjson::dom::parser parser;
  element root;
  Schema() {
    const std::string path = std::string(CULPRIT_SOURCE_DIR) + "/schema/culprit-report.schema.json";
    REQUIRE(parser.load(path).get(root) == simdjson::SUCCESS);
  }
  element def(std::string_view name) { return root["$defs"][name].value(); }
  element deref(element node) {
    const std::string_view ref = node["$ref"].get_string().value();
    REQUIRE(ref.rfind("#/$defs/", 0) == 0);
    return def(ref.substr(8));
  }
};

Schema& schema() {
  static Schema s;
  return s;
}

bool has(element node, std::string_view key) { return node[key].error() == simdjson::SUCCESS; }

std::vector<std::string> strings_of(element array) {
  std::vector<std::string> out;
  for (element e : array.get_array()) out.emplace_back(std::string_view(e.get_string().value()));
  return out;
}

bool type_is(element value, std::string_view type) {
  const auto t = value.type();
  if (type == "string") return t == element_type::STRING;
  if (type == "integer") return t == element_type::INT64 || t == element_type::UINT64;
  if (type == "boolean") return t == element_type::BOOL;
  if (type == "array") return t == element_type::ARRAY;
  if (type == "object") return t == element_type::OBJECT;
  if (type == "null") return t == element_type::NULL_VALUE;
  return false;  // a type this validator does not know fails
}

using Problems = std::vector<std::string>;

/// `value` against schema `node`: one line per violation, at JSON path `where`.
void check_value(element value, element node, const std::string& where, Problems& out) {
  Schema& s = schema();
  // An object's keys: its own properties, then its $ref's, in order.
  std::vector<std::string> keys;
  std::vector<element> subs;
  for (element n = node;;) {
    if (has(n, "oneOf")) {  // the schema's oneOf: one shape or null
      if (value.is_null()) return;
      for (element branch : n["oneOf"].get_array())
        if (!has(branch, "type") || std::string_view(branch["type"].get_string().value()) != "null")
          return check_value(value, branch, where, out);
      return out.push_back(where + ": no branch of oneOf");
    }
    if (has(n, "type") && !type_is(value, n["type"].get_string().value()))
      return out.push_back(where + ": not of type " + std::string(std::string_view(n["type"].get_string().value())));
    if (has(n, "const") && (value.type() != element_type::INT64 || int64_t(value) != int64_t(n["const"])))
      return out.push_back(where + ": not the constant");
    if (has(n, "enum")) {
      const auto allowed = strings_of(n["enum"].value());
      if (value.type() != element_type::STRING ||
          std::find(allowed.begin(), allowed.end(), std::string(std::string_view(value.get_string().value()))) ==
              allowed.end())
        return out.push_back(where + ": not one of the enumeration");
    }
    if (has(n, "minimum") && value.type() == element_type::INT64 && int64_t(value) < int64_t(n["minimum"]))
      out.push_back(where + ": below the minimum");
    if (has(n, "properties"))
      for (auto field : n["properties"].get_object()) keys.emplace_back(field.key), subs.push_back(field.value);
    if (has(n, "items") && value.type() == element_type::ARRAY) {
      std::size_t i = 0;
      for (element item : value.get_array())
        check_value(item, n["items"].value(), where + "[" + std::to_string(i++) + "]", out);
    }
    if (!has(n, "$ref")) break;
    n = s.deref(n);
  }
  if (keys.empty()) return;
  if (value.type() != element_type::OBJECT) return out.push_back(where + ": not an object");
  std::vector<std::string> got;
  for (auto field : value.get_object()) {
    got.emplace_back(field.key);
    const auto it = std::find(keys.begin(), keys.end(), got.back());
    if (it == keys.end()) {
      out.push_back(where + ": key " + got.back() + " is not in the schema");
      continue;
    }
    check_value(field.value, subs[static_cast<std::size_t>(it - keys.begin())], where + "." + got.back(), out);
  }
  if (got != keys) out.push_back(where + ": keys missing or not in the schema's order");
}

Problems problems_of(element doc) {
  Problems out;
  check_value(doc, schema().root, "$", out);
  return out;
}

// The whole contract, recursively, as the schema's root says.
void check_contract(element doc) {
  const auto problems = problems_of(doc);
  CAPTURE(problems);
  CHECK(problems.empty());
}

struct Parsed {
  simdjson::dom::parser parser;
  element doc;
};

void parse(const std::string& json, Parsed& p) {
  INFO(json);
  REQUIRE(!json.empty());
  REQUIRE(json.back() == '\n');
  REQUIRE(json.find('\n') == json.size() - 1);  // one line: JSON Lines ready
  const auto error = p.parser.parse(json).get(p.doc);
  REQUIRE(error == simdjson::SUCCESS);
}

std::string str(simdjson::simdjson_result<element> e) { return std::string(std::string_view(e)); }

}  // namespace

TEST_CASE("json: CUDA OOM with a foreign culprit and a budget", "[report]") {
  const auto v = test::cuda_oom_foreign();
  Parsed p;
  parse(render(v, Format::json), p);
  check_contract(p.doc);
  const element doc = p.doc;
  CHECK(str(doc["verdict"]) == "cuda_oom");
  CHECK(str(doc["confidence"]) == "high");
  CHECK(str(doc["culprit"]["role"]) == "foreign");
  CHECK(int64_t(doc["culprit"]["pid"]) == 48211);
  CHECK(str(doc["culprit"]["container"]) == "vllm-embeddings");
  CHECK(doc["victim"].is_null());
  const auto budget = doc["budget"];
  CHECK(int64_t(budget["gpu"]) == 0);
  CHECK(bool(budget["unified"]));
  CHECK(int64_t(budget["total"]) == *v.budget->total);
  CHECK(int64_t(budget["free"]) == *v.budget->free);
  CHECK(int64_t(budget["shortfall"]) == *v.budget->requested - *v.budget->free);
  CHECK(int64_t(budget["foreign"]) == 84 * test::kGiB);
  CHECK(int64_t(budget["entries"].at(1)["pid"]) == 48211);
  CHECK(str(budget["entries"].at(1)["role"]) == "foreign");
  CHECK(str(budget["arithmetic"].at(0)).rfind("119.70 GiB total = ", 0) == 0);
  CHECK(int64_t(budget["unattributed"]) == 0);
  CHECK(budget["kernel"].is_null());
  CHECK(str(doc["root"]["ts"]) == "2026-04-09T00:47:13.412Z");
  CHECK(str(doc["root"]["rule"]) == "cuda_oom_foreign_holder");
  CHECK(bool(doc["echoes"].at(0)["echo"]));
  CHECK(doc["echoes"].at(0)["culprit"].is_null());
  CHECK(doc["findings"].get_array().size() == 2);
  CHECK(int64_t(doc["evidence"].at(0)["line"]) == 1184);
  CHECK(str(doc["evidence"].at(0)["text"]) == v.evidence[0].text);
  CHECK(doc["evidence"].at(1)["ts"].is_null());
  CHECK(str(doc["sources"].at(1)["format"]) == "nvidia_smi_table");
  CHECK(int64_t(doc["sources"].at(0)["bytes"]) == 183402);
  CHECK(str(doc["skipped"].at(0)) == "spark-b/core.48211: binary file");
}

TEST_CASE("json: kernel OOM carries the victim apart from the culprit, and no budget", "[report]") {
  const auto v = test::kernel_oom_victim_not_hog();
  Parsed p;
  parse(render(v, Format::json), p);
  check_contract(p.doc);
  CHECK(str(p.doc["verdict"]) == "kernel_oom");
  CHECK(int64_t(p.doc["culprit"]["pid"]) == 4242);
  CHECK(str(p.doc["culprit"]["role"]) == "job");
  CHECK(int64_t(p.doc["victim"]["pid"]) == 5151);
  CHECK(str(p.doc["victim"]["name"]) == "postgres");
  CHECK(p.doc["budget"].is_null());
  CHECK(str(p.doc["evidence"].at(1)["text"]) == v.evidence[1].text);  // the block, newlines kept
  CHECK(p.doc["echoes"].get_array().size() == 0);
}

TEST_CASE("json: unknown verdict has nulls and empty arrays, not missing keys", "[report]") {
  Parsed p;
  parse(render(test::unknown_nothing(), Format::json), p);
  check_contract(p.doc);
  CHECK(str(p.doc["verdict"]) == "unknown");
  CHECK(str(p.doc["confidence"]) == "low");
  for (const char* key : {"culprit", "victim", "budget", "root"}) CHECK(p.doc[key].is_null());
  for (const char* key : {"echoes", "findings", "evidence", "advice", "ruled_out"})
    CHECK(p.doc[key].get_array().size() == 0);
  CHECK(p.doc["sources"].get_array().size() == 2);

  Parsed empty;
  parse(render(d::Verdict{}, Format::json), empty);
  check_contract(empty.doc);
  CHECK(str(empty.doc["verdict"]) == "unknown");
}

TEST_CASE("json: budget with unknown sizes writes null, not 0", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.budget->total.reset();
  v.budget->gpu.reset();
  v.budget->torch_reserved.reset();
  v.budget->entries[0].pid.reset();
  Parsed p;
  parse(render(v, Format::json), p);
  check_contract(p.doc);
  CHECK(p.doc["budget"]["total"].is_null());
  CHECK(p.doc["budget"]["gpu"].is_null());
  CHECK(p.doc["budget"]["torch_reserved"].is_null());
  CHECK(p.doc["budget"]["entries"].at(0)["pid"].is_null());
  CHECK(int64_t(p.doc["budget"]["free"]) == *v.budget->free);
}

TEST_CASE("json: quotes, newlines, control characters and invalid UTF-8 stay valid JSON", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.summary = "he said \"OOM\"\nthen \\ left\r\n";
  v.culprit->name = std::string("py\x01thon\x1b[0m\t");
  v.evidence[0].text = "bad \xff\xfe bytes \xe2\x82 and \xed\xa0\x80 surrogate and \xc0\xaf overlong";
  v.evidence[0].source = "dir/\"quoted\".log";
  v.ruled_out.push_back(std::string("nul\0byte", 8));
  v.sources[0].clock_note = "\x7f";
  const std::string json = render(v, Format::json);
  Parsed p;
  parse(json, p);
  check_contract(p.doc);
  CHECK(str(p.doc["summary"]) == v.summary);
  CHECK(str(p.doc["culprit"]["name"]) == v.culprit->name);
  CHECK(str(p.doc["evidence"].at(0)["source"]) == "dir/\"quoted\".log");
  const std::string fffd = "\xef\xbf\xbd";
  CHECK(str(p.doc["evidence"].at(0)["text"]) ==
        "bad " + fffd + fffd + " bytes " + fffd + " and " + fffd + fffd + fffd + " surrogate and " + fffd +
            fffd + " overlong");
  CHECK(str(p.doc["ruled_out"].at(2)) == std::string("nul\0byte", 8));
  CHECK(json.find("\\u0001") != std::string::npos);
  CHECK(json.find("\\u001b[0m\\t") != std::string::npos);
}

TEST_CASE("json schema: the format enumeration is the format table's ids, the skipped ones and snapshot statuses",
          "[report][schema]") {
  namespace f = culprit::ingest::format;
  std::vector<std::string> ids;
  for (const auto& row : culprit::ingest::format_table()) ids.emplace_back(row.id);
  for (auto id : {f::kBinary, f::kEmpty, f::kCulpritReport, f::kCulpritSnapshot}) ids.emplace_back(id);
  // The statuses of a `culprit run` / `collect` command that did not answer (src/cli/snapshot.cpp).
  for (const char* status : {"missing", "refused", "failed", "timed out"}) ids.emplace_back(status);
  auto listed = strings_of(schema().def("format")["enum"].value());
  std::sort(ids.begin(), ids.end());
  std::sort(listed.begin(), listed.end());
  CHECK(listed == ids);  // a new format row needs its id in the schema (and the README's source table)
}

TEST_CASE("json schema: the verdict enumeration is the verdict ids", "[report][schema]") {
  namespace v = culprit::diagnose::verdict;
  std::vector<std::string> ids = {v::kCudaOom, v::kKernelOom, v::kCgroupOom, v::kUserspaceOomKill,
                                  v::kHostAllocFail, v::kNotOom, v::kUnknown};
  auto listed = strings_of(schema().def("verdict")["enum"].value());
  std::sort(ids.begin(), ids.end());
  std::sort(listed.begin(), listed.end());
  CHECK(listed == ids);
}

TEST_CASE("json schema: a report that breaks the schema fails this test's validator", "[report][schema]") {
  // A validator that passes everything proves nothing: each broken report must give a problem.
  auto broken = [](auto change) {
    auto v = test::cuda_oom_foreign();
    change(v);
    simdjson::dom::parser parser;
    element doc;
    REQUIRE(parser.parse(render(v, Format::json)).get(doc) == simdjson::SUCCESS);
    return problems_of(doc);
  };
  CHECK(broken([](d::Verdict&) {}).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.sources[0].clock = "zoneless stamps read as UTC"; }).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.sources[0].format = "ps,app_log"; }).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.verdict = "cuda-oom"; }).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.culprit->role = "stranger"; }).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.budget->entries[0].role = "mine"; }).empty());
  CHECK_FALSE(broken([](d::Verdict& v) { v.budget->total = -1; }).empty());
}

// The schema's `budget.rule` enumerates every ledger rule id the code has (and "" for none): a
// new row of the policy table cannot produce a report the schema refuses.
TEST_CASE("json schema: budget.rule lists every ledger rule id", "[report][json][schema]") {
  std::vector<std::string> listed = strings_of(schema().def("budget")["properties"]["rule"]["enum"].value());
  std::vector<std::string> ids{""};
  for (const char* id : d::ledger_rule::kAll) ids.emplace_back(id);
  std::sort(listed.begin(), listed.end());
  std::sort(ids.begin(), ids.end());
  CHECK(listed == ids);
}

TEST_CASE("json: the allocator object, beside the budget, and null without a snapshot", "[report][json][schema]") {
  auto v = test::cuda_oom_foreign();
  {
    Parsed p;
    parse(render(v, Format::json), p);
    check_contract(p.doc);
    CHECK(p.doc["allocator"].is_null());
  }
  d::AllocatorView a;
  a.host = "spark-b";
  a.gpu = 0;
  a.source = "culprit-memory-spark-b-51877.json";
  a.line = 1;
  a.reserved = 52 * test::kGiB;
  a.allocated = 49 * test::kGiB;
  a.active = a.allocated;
  a.unallocated = a.reserved - a.allocated;
  a.largest_free = test::kGiB;
  a.requested = 2 * test::kGiB;
  a.segments = 5;
  a.blocks = 11;
  a.live_blocks = 7;
  a.free_blocks = 4;
  a.site_count = 1;
  a.sites.push_back({"/srv/job/model.py", 88, "attention\x1b[31m", 22 * test::kGiB, 2, 12 * test::kGiB});
  v.data.allocator = a;
  Parsed p;
  parse(render(v, Format::json), p);
  check_contract(p.doc);
  const auto j = p.doc["allocator"];
  CHECK(int64_t(j["unallocated"]) == 3 * test::kGiB);
  CHECK(bool(j["fragmented"]));  // 2 GiB asked, 3 GiB cached, no block over 1 GiB
  CHECK(int64_t(j["requested"]) == 2 * test::kGiB);
  CHECK(str(j["sites"].at(0)["function"]) == "attention\x1b[31m");  // the value, escaped as \u001b on the wire
  a.requested.reset();
  v.data.allocator = a;
  Parsed q;
  parse(render(v, Format::json), q);
  check_contract(q.doc);
  CHECK(q.doc["allocator"]["requested"].is_null());
  CHECK_FALSE(bool(q.doc["allocator"]["fragmented"]));
}

}  // namespace json_renderer_tests
