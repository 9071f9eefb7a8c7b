// What a signal declares it provides (core/facts.hpp): the code and the rules agree in both
// directions — every fact and framework the code reads is declared by a built-in signal, and a
// rule declaring a word no code reads is refused — and the declaration reaches every event the
// signal makes, whatever the line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/rules/loader.hpp"

namespace provides_tests {

using namespace culprit;

namespace {

const rules::LoadResult& builtin() {
  static const rules::LoadResult result = rules::load_rules(rules::builtin_rules(), {}, rules::SampleCheck::skip);
  return result;
}

std::string problems_of(const rules::LoadResult& r) {
  std::string all;
  for (const auto& p : r.problems) all += p.to_string() + "\n";
  return all;
}

rules::LoadResult load_one(const std::string& declaration) {
  return rules::load_rules({rules::RuleText{"mine.toml", "[[signal]]\nid = \"my_signal\"\nkind = \"log\"\n"
                                                         "pattern = 'my marker'\n" +
                                                             declaration + "\n"}});
}

}  // namespace

TEST_CASE("every fact and framework the code reads is declared by a built-in signal", "[rules][provides]") {
  const auto& signal_rules = builtin().rules.signal_rules;
  for (const auto fact : core::fact::kAll) {
    INFO(fact);
    CHECK(std::any_of(signal_rules.begin(), signal_rules.end(), [&](const rules::SignalRule& s) {
      return std::find(s.provides.begin(), s.provides.end(), fact) != s.provides.end();
    }));
  }
  for (const auto framework : core::framework::kAll) {
    INFO(framework);
    CHECK(std::any_of(signal_rules.begin(), signal_rules.end(),
                      [&](const rules::SignalRule& s) { return s.framework == framework; }));
  }
  for (const auto killer : core::killer::kAll) {
    INFO(killer);
    CHECK(std::any_of(signal_rules.begin(), signal_rules.end(),
                      [&](const rules::SignalRule& s) { return s.killer == killer; }));
  }
  // Every user-space killer says which kind it is: the diagnosis reads it for the role and the why.
  for (const auto& s : signal_rules) {
    INFO(s.id);
    if (s.kind == "userspace_oom_kill") CHECK_FALSE(s.killer.empty());
  }
}

TEST_CASE("a signal declaring a word no code reads is refused", "[rules][provides]") {
  const auto fact = load_one("provides = [\"failing_pid\", \"failng_pid\"]");
  CHECK_FALSE(fact.ok());
  CHECK_THAT(problems_of(fact), Catch::Contains("failng_pid") && Catch::Contains("not a word the code reads"));
  CHECK_FALSE(load_one("framework = \"pytorch\"").ok());
  CHECK_FALSE(load_one("killer = \"oom\"").ok());

  const auto good = load_one("provides = [\"failing_pid\"]\nframework = \"jax\"\nkiller = \"limit\"");
  INFO(problems_of(good));
  CHECK(good.ok());
}

TEST_CASE("a signal's declarations reach every event it makes", "[rules][provides]") {
  const auto loaded = load_one("provides = [\"failing_pid\", \"device_memory\"]\nframework = \"jax\"\nkiller = \"limit\"");
  REQUIRE(loaded.ok());
  const auto matches = loaded.rules.signals.match("a line with my marker in it", "app_log");
  REQUIRE(matches.size() == 1);
  core::Event e;
  for (const auto& [key, value] : matches[0].signal->fields) e.set(key, value);
  CHECK(core::fact::provides(e, core::fact::kFailingPid));
  CHECK(core::fact::provides(e, core::fact::kDeviceMemory));
  CHECK_FALSE(core::fact::provides(e, core::fact::kStartupCheck));
  CHECK(e.field_or(core::framework::kField) == "jax");
  CHECK(e.field_or("killer") == "limit");

  SECTION("the built-in rules' compact form carries them too") {
    const auto& set = builtin().rules.signals.signals();
    const auto xid = std::find_if(set.begin(), set.end(), [](const text::Signal& s) { return s.id == "nvrm_xid"; });
    REQUIRE(xid != set.end());
    core::Event x;
    for (const auto& [key, value] : xid->fields) x.set(key, value);
    CHECK(core::fact::provides(x, core::fact::kXidLine));
  }
}

}  // namespace provides_tests
