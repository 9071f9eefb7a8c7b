// The incidents a diagnosis rule names in `fixtures.fire` / `fixtures.quiet` are checked: each
// fixture is read, ingested with the shipped rules and diagnosed as `culprit` does, and the rule
// must (or must not) produce a finding. This is how "the OOM rules must not fire on an illegal
// memory access" is held, not just the final verdict.
#include <catch2/catch.hpp>
#include <simdjson.h>

#include <filesystem>
#include <set>
#include <string>

#include "culprit/diagnose/engine.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/input/reader.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"

namespace diagnosis_fixtures_tests {

namespace {

namespace fs = std::filesystem;
using namespace culprit;

const rules::LoadResult& shipped() {
  static const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules());
  return loaded;
}

// `--host H` from the fixture's expected.json args, as the golden runner passes it.
std::string fixture_host(const fs::path& dir) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load((dir / "expected.json").string()).get(doc)) return {};
  simdjson::dom::array args;
  if (doc["args"].get(args)) return {};
  bool next = false;
  for (auto a : args) {
    std::string_view s;
    if (a.get(s)) continue;
    if (next) return std::string(s);
    next = s == "--host";
  }
  return {};
}

// The fixture diagnosed as `culprit` does; `with_host` false drops the expected.json `--host`
// (a paste then has no host at all).
diagnose::Verdict diagnose_fixture(const std::string& fixture, bool with_host = true) {
  const fs::path dir = fs::path(CULPRIT_SOURCE_DIR) / "fixtures" / "incidents" / fixture;
  REQUIRE(fs::is_directory(dir));
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  core::Diagnostics problems;
  input::ReadOptions options;
  if (with_host) options.default_host = fixture_host(dir);
  auto sources = input::read_inputs({(dir / "inputs").string()}, options, problems);
  REQUIRE_FALSE(sources.empty());
  {
    store::TimelineWriter writer(*db);
    for (const auto& src : sources) {
      ingest::IngestInput in{src.name, src.host, src.origin, src.text};
      ingest::ingest(in, shipped().rules.signals, writer, problems);
    }
    REQUIRE(writer.finish().empty());
  }
  REQUIRE(store::align_clocks(*db).empty());
  return diagnose::diagnose(*db, shipped().rules, problems);
}

// The rule ids that produced a finding on the fixture.
std::set<std::string> rules_fired(const std::string& fixture) {
  const auto v = diagnose_fixture(fixture);
  std::set<std::string> out;
  for (const auto& f : v.findings) out.insert(f.rule);
  return out;
}

// What a rendered message shows of a malformed template (rules/README.md, "Message phrases"):
// an `on` before no host, a double or stray space, a doubled stop. Quoted log text may hold
// `../path` and `...`.
std::string reads_badly(const std::string& text) {
  if (!text.empty() && (text.front() == ' ' || text.back() == ' ')) return "a leading or trailing space";
  if (text.find("  ") != std::string::npos) return "a double space";
  for (const char* bad : {" on .", " on :", " on ;", " on ,", " on )", ". ."})
    if (text.find(bad) != std::string::npos) return std::string("`") + bad + "`";
  for (std::size_t at = text.find(".."); at != std::string::npos; at = text.find("..", at + 1))
    if (text.compare(at, 3, "...") != 0 && text.compare(at, 3, "../") != 0 && (at == 0 || text[at - 1] != '.'))
      return "a doubled full stop";
  return {};
}

}  // namespace

TEST_CASE("every finding's message and advice read well on every fixture, with and without its host",
          "[rules][fixtures][phrases]") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CULPRIT_SOURCE_DIR) / "fixtures" / "incidents")) {
    if (!entry.is_directory()) continue;
    for (const bool with_host : {true, false}) {
      const auto v = diagnose_fixture(entry.path().filename().string(), with_host);
      for (const auto& f : v.findings) {
        for (const auto* text : {&f.summary, &f.advice}) {
          INFO(entry.path().filename().string() << (with_host ? "" : " (no host)") << " " << f.rule << ": " << *text);
          CHECK(reads_badly(*text).empty());
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("every diagnosis fires on its fixtures.fire incidents and stays quiet on fixtures.quiet", "[rules][fixtures]") {
  int checked = 0;
  for (const auto& rule : shipped().rules.diagnoses) {
    for (const auto& name : rule.fixtures_fire) {
      INFO("rule " << rule.id << " must fire on " << name);
      CHECK(rules_fired(name).count(rule.id) == 1);
      ++checked;
    }
    for (const auto& name : rule.fixtures_quiet) {
      INFO("rule " << rule.id << " must stay quiet on " << name);
      CHECK(rules_fired(name).count(rule.id) == 0);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

}  // namespace diagnosis_fixtures_tests
