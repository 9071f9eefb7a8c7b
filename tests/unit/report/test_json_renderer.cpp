// The JSON contract (schema_version 2): every documented key, in order, with its type; null
// where the contract says so; and valid JSON whatever the logs contained.
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <string>
#include <utility>
#include <vector>

#include "culprit/report/renderer.hpp"
#include "unit/report/sample_verdicts.hpp"

using namespace culprit::report;
namespace d = culprit::diagnose;
using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

enum class T { str, integer, boolean, object, array, str_or_null, int_or_null, object_or_null };

using Shape = std::vector<std::pair<std::string, T>>;

const Shape kTop = {
    {"schema_version", T::integer}, {"verdict", T::str},         {"confidence", T::str},
    {"summary", T::str},            {"culprit", T::object_or_null}, {"victim", T::object_or_null},
    {"budget", T::object_or_null},  {"root", T::object_or_null}, {"echoes", T::array},
    {"findings", T::array},         {"evidence", T::array},      {"advice", T::array},
    {"ruled_out", T::array},        {"sources", T::array},       {"skipped", T::array},
};
const Shape kCulprit = {{"host", T::str}, {"pid", T::int_or_null}, {"name", T::str},
                        {"role", T::str}, {"why", T::str},          {"container", T::str}};
const Shape kVictim = {{"host", T::str}, {"pid", T::int_or_null}, {"name", T::str}};
const Shape kBudget = {
    {"host", T::str},          {"gpu", T::int_or_null},         {"unified", T::boolean},
    {"domain", T::str},        {"rule", T::str},
    {"total", T::int_or_null}, {"free", T::int_or_null},        {"requested", T::int_or_null},
    {"shortfall", T::int_or_null}, {"job", T::int_or_null},     {"foreign", T::int_or_null},
    {"unexplained", T::int_or_null}, {"torch_allocated", T::int_or_null},
    {"torch_reserved", T::int_or_null}, {"context_bound", T::int_or_null}, {"holders", T::array},
    {"entries", T::array},  {"arithmetic", T::array},
};
const Shape kHolder = {{"group", T::str}, {"role", T::str}, {"pids", T::array}, {"bytes", T::integer}};
const Shape kEntry = {{"label", T::str}, {"role", T::str}, {"pid", T::int_or_null}, {"bytes", T::integer}};
const Shape kFinding = {
    {"rule", T::str},    {"verdict", T::str}, {"confidence", T::str}, {"title", T::str},
    {"host", T::str},    {"ts", T::str_or_null}, {"summary", T::str}, {"advice", T::str},
    {"culprit", T::object_or_null}, {"victim", T::object_or_null}, {"echo", T::boolean},
    {"evidence", T::array},
};
const Shape kEvidence = {{"source", T::str}, {"line", T::integer}, {"text", T::str}, {"host", T::str},
                         {"ts", T::str_or_null}};
const Shape kSource = {{"name", T::str},    {"host", T::str},  {"host_from", T::str}, {"format", T::str},
                       {"lines", T::integer}, {"bytes", T::integer}, {"clock", T::str}};

bool has_type(element e, T t) {
  const auto type = e.type();
  switch (t) {
    case T::str: return type == element_type::STRING;
    case T::integer: return type == element_type::INT64;
    case T::boolean: return type == element_type::BOOL;
    case T::object: return type == element_type::OBJECT;
    case T::array: return type == element_type::ARRAY;
    case T::str_or_null: return type == element_type::STRING || type == element_type::NULL_VALUE;
    case T::int_or_null: return type == element_type::INT64 || type == element_type::NULL_VALUE;
    case T::object_or_null: return type == element_type::OBJECT || type == element_type::NULL_VALUE;
  }
  return false;
}

// The object has exactly these keys, in this order, with these types.
void check_shape(element e, const Shape& shape, const std::string& where) {
  INFO(where);
  REQUIRE(e.type() == element_type::OBJECT);
  std::vector<std::string> keys;
  const simdjson::dom::object object = e.get_object();
  for (auto field : object) {
    keys.emplace_back(field.key);
    const auto it = std::find_if(shape.begin(), shape.end(),
                                 [&](const auto& p) { return p.first == field.key; });
    INFO("key " << field.key);
    REQUIRE(it != shape.end());
    CHECK(has_type(field.value, it->second));
  }
  std::vector<std::string> expected;
  for (const auto& [k, t] : shape) expected.push_back(k);
  CHECK(keys == expected);
}

void check_array_of(element e, const Shape& shape, const std::string& where) {
  REQUIRE(e.type() == element_type::ARRAY);
  const simdjson::dom::array array = e.get_array();
  for (element item : array) check_shape(item, shape, where);
}

void check_strings(element e) {
  REQUIRE(e.type() == element_type::ARRAY);
  const simdjson::dom::array array = e.get_array();
  for (element item : array) CHECK(item.type() == element_type::STRING);
}

void check_finding(element f, const std::string& where) {
  check_shape(f, kFinding, where);
  if (f["culprit"].type() == element_type::OBJECT) check_shape(f["culprit"].value(), kCulprit, where + ".culprit");
  if (f["victim"].type() == element_type::OBJECT) check_shape(f["victim"].value(), kVictim, where + ".victim");
  check_array_of(f["evidence"].value(), kEvidence, where + ".evidence");
}

// The whole contract, recursively.
void check_contract(element doc) {
  check_shape(doc, kTop, "top");
  CHECK(int64_t(doc["schema_version"]) == 2);
  if (doc["culprit"].type() == element_type::OBJECT) check_shape(doc["culprit"].value(), kCulprit, "culprit");
  if (doc["victim"].type() == element_type::OBJECT) check_shape(doc["victim"].value(), kVictim, "victim");
  if (doc["budget"].type() == element_type::OBJECT) {
    check_shape(doc["budget"].value(), kBudget, "budget");
    check_array_of(doc["budget"]["entries"].value(), kEntry, "budget.entries");
    check_array_of(doc["budget"]["holders"].value(), kHolder, "budget.holders");
    check_strings(doc["budget"]["arithmetic"].value());
  }
  if (doc["root"].type() == element_type::OBJECT) check_finding(doc["root"].value(), "root");
  const simdjson::dom::array echoes = doc["echoes"].get_array();
  for (element f : echoes) check_finding(f, "echoes[]");
  const simdjson::dom::array findings = doc["findings"].get_array();
  for (element f : findings) check_finding(f, "findings[]");
  check_array_of(doc["evidence"].value(), kEvidence, "evidence");
  check_strings(doc["advice"].value());
  check_strings(doc["ruled_out"].value());
  check_array_of(doc["sources"].value(), kSource, "sources");
  check_strings(doc["skipped"].value());
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
  v.sources[0].clock = "\x7f";
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
