// The timeline writer counts, instead of storing, an event that restates a fact its input already
// stated kRestatedKept times alike (store/restated_facts.hpp): a serving engine's status line that
// echoes its memory share every few seconds. What it stores of them, what it never folds (an
// event that says something new, a failure, a routine line that carries no fact) and which
// events count together.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"
#include "store/restated_facts.hpp"
#include "unit/store/empty_timeline.hpp"

namespace core = culprit::core;
namespace store = culprit::store;
using culprit::test::empty_timeline;

namespace {

std::int64_t add_source(store::TimelineWriter& w, const std::string& name, const std::string& origin = "logs") {
  core::SourceInfo s;
  s.name = name;
  s.origin = origin;
  s.host = "node-00";
  s.format = "app_log";
  return w.add_source(s);
}

/// vLLM's echo of its memory share, as the signal job_memory_setting_arg makes it (its fields,
/// the fact it provides), on line `line`; its message says something else each time.
core::Event setting_echo(std::int64_t source, std::int64_t line, const std::string& value = "0.90") {
  core::Event e;
  e.source_id = source;
  e.line = e.line_end = line;
  e.ts_raw = "04-09 00:47:22";
  e.ts_kind = core::TsKind::wall_no_year;
  e.host = "node-00";
  e.pid = 3301;
  e.kind = "log";
  e.severity = core::Severity::info;
  e.rule = "job_memory_setting_arg";
  e.message = "GPU KV cache usage: " + std::to_string(line % 100) + ".0%, gpu_memory_utilization=" + value;
  e.set(std::string(core::fact::kField), core::fact::field_value({std::string(core::fact::kMemorySetting)}));
  e.set("setting", "gpu_memory_utilization");
  e.set("value", value);
  return e;
}

std::vector<std::int64_t> stored_lines(store::Database& db, const std::string& where = "1") {
  std::vector<std::int64_t> out;
  auto rows = db.query("SELECT line FROM events WHERE " + where + " ORDER BY id");
  REQUIRE(rows.error.empty());
  for (const auto& r : rows.rows) out.push_back(r["line"].as_int().value_or(-1));
  return out;
}

}  // namespace

TEST_CASE("restated facts: past the first 64 alike, an input's echoes of a setting are counted, not stored",
          "[store]") {
  auto db = empty_timeline();
  store::TimelineWriter w(*db);
  const auto src = add_source(w, "node-00/vllm.log");
  for (std::int64_t line = 1; line <= 200; ++line) {
    const auto id = w.add_event(setting_echo(src, line * 10));
    CHECK((id != 0) == (line <= store::kRestatedKept));
  }
  REQUIRE(w.finish().empty());
  const auto lines = stored_lines(*db);
  REQUIRE(lines.size() == static_cast<std::size_t>(store::kRestatedKept));
  CHECK(lines.front() == 10);
  CHECK(lines.back() == 640);
  REQUIRE(w.restated_events().size() == 1);
  const auto& r = w.restated_events()[0];
  CHECK(r.input == "node-00/vllm.log");
  CHECK(r.first_line == 650);
  CHECK(r.events == 200 - store::kRestatedKept);
  CHECK(r.rules == std::vector<std::string>{"job_memory_setting_arg"});
}

TEST_CASE("restated facts: an event that says something new, a failure, or a routine line without a fact is "
          "always stored",
          "[store]") {
  auto db = empty_timeline();
  store::TimelineWriter w(*db);
  const auto src = add_source(w, "node-00/vllm.log");
  std::int64_t line = 0;
  for (int i = 0; i < 100; ++i) {
    // A new value each time: not alike.
    w.add_event(setting_echo(src, ++line, "0." + std::to_string(10 + i)));
    // The same setting from another process, another rank, another host: each its own.
    auto other_pid = setting_echo(src, ++line);
    other_pid.pid = 4000 + i;
    w.add_event(other_pid);
    auto ranked = setting_echo(src, ++line);
    ranked.rank = i;
    w.add_event(ranked);
    auto elsewhere = setting_echo(src, ++line);
    elsewhere.host = "node-" + std::to_string(i);
    w.add_event(elsewhere);
    // The same fact said as a warning, or by a failure: never folded.
    auto warning = setting_echo(src, ++line);
    warning.severity = core::Severity::warning;
    w.add_event(warning);
    auto failure = setting_echo(src, ++line);
    failure.kind = "cuda_oom";
    w.add_event(failure);
    // A routine line that states no fact (a clock mark's kind: a debug `log` event, no fields).
    core::Event mark;
    mark.source_id = src;
    mark.line = mark.line_end = ++line;
    mark.host = "node-00";
    mark.pid = 3301;
    mark.kind = "log";
    mark.severity = core::Severity::debug;
    mark.rule = "clock_mark";
    mark.message = "step " + std::to_string(i);
    w.add_event(mark);
  }
  REQUIRE(w.finish().empty());
  CHECK(stored_lines(*db).size() == 700);
  CHECK(w.restated_events().empty());
}

TEST_CASE("restated facts: the pieces of one input count together, another input counts on its own", "[store]") {
  auto db = empty_timeline();
  store::TimelineWriter w(*db);
  // A big log is read in pieces, each a source of the same name and origin.
  const auto piece1 = add_source(w, "node-00/vllm.log");
  const auto piece2 = add_source(w, "node-00/vllm.log");
  const auto other = add_source(w, "node-00/vllm.log", "elsewhere");
  std::int64_t line = 0;
  for (int i = 0; i < 50; ++i) w.add_event(setting_echo(piece1, ++line));
  for (int i = 0; i < 50; ++i) w.add_event(setting_echo(piece2, ++line));
  for (int i = 0; i < 70; ++i) w.add_event(setting_echo(other, ++line));
  REQUIRE(w.finish().empty());
  CHECK(stored_lines(*db, "source_id IN (" + std::to_string(piece1) + "," + std::to_string(piece2) + ")").size() ==
        static_cast<std::size_t>(store::kRestatedKept));
  CHECK(stored_lines(*db, "source_id = " + std::to_string(other)).size() ==
        static_cast<std::size_t>(store::kRestatedKept));
  REQUIRE(w.restated_events().size() == 2);
  CHECK(w.restated_events()[0].first_line == store::kRestatedKept + 1);
  CHECK(w.restated_events()[0].events == 100 - store::kRestatedKept);
  CHECK(w.restated_events()[1].events == 70 - store::kRestatedKept);
}

TEST_CASE("restated facts: an event too long to follow is stored", "[store]") {
  auto db = empty_timeline();
  store::TimelineWriter w(*db);
  const auto src = add_source(w, "node-00/vllm.log");
  for (std::int64_t line = 1; line <= 100; ++line) {
    auto e = setting_echo(src, line);
    e.set("detail", std::string(store::RestatedFacts::kMaxKeyBytes, 'x'));
    w.add_event(e);
  }
  REQUIRE(w.finish().empty());
  CHECK(stored_lines(*db).size() == 100);
  CHECK(w.restated_events().empty());
}

TEST_CASE("restated facts: past the kinds it follows, an event of a new kind is stored", "[store]") {
  store::RestatedFacts facts;
  core::SourceInfo s;
  s.name = "node-00/vllm.log";
  facts.add_source(1, s);
  for (std::size_t i = 0; i < store::RestatedFacts::kMaxGroups; ++i) {
    const auto e = setting_echo(1, static_cast<std::int64_t>(i), "0." + std::to_string(i));
    REQUIRE_FALSE(facts.restated(e));
  }
  // One kind more is not followed: all its events are stored.
  const auto late = setting_echo(1, 1 << 20, "1.0");  // no value above
  for (int i = 0; i < 100; ++i) CHECK_FALSE(facts.restated(late));
  // A followed kind is still counted past its first 64.
  const auto early = setting_echo(1, 1 << 21, "0.0");
  int counted = 0;
  for (int i = 0; i < 100; ++i) counted += facts.restated(early) ? 1 : 0;
  CHECK(counted == 100 - (store::kRestatedKept - 1));
  CHECK(facts.counted().size() == 1);
}
