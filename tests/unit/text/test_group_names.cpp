// Named groups given to RE2 unnamed (text/group_names.cpp): the rewrite on the syntax that could
// mislead it, and, for every built-in signal, the same names at the same indices as RE2 itself
// gives for the pattern as written.
#include <catch2/catch.hpp>
#include <re2/re2.h>

#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"
#include "culprit/text/pattern.hpp"
#include "text/group_names.hpp"

using culprit::text::unname_groups;

namespace {

/// The names RE2 gives the pattern as written, by group index ("" for an unnamed group).
std::vector<std::string> re2_names(const std::string& regex) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingLatin1);
  RE2 re(regex, options);
  REQUIRE(re.ok());
  std::vector<std::string> names(static_cast<std::size_t>(re.NumberOfCapturingGroups()));
  for (const auto& [name, index] : re.NamedCapturingGroups()) names[static_cast<std::size_t>(index) - 1] = name;
  return names;
}

}  // namespace

TEST_CASE("unname_groups: groups, escapes, classes and quoting read as RE2 reads them", "[group_names]") {
  struct Case {
    std::string regex;
    std::string unnamed;
  };
  const std::vector<Case> cases = {
      {R"(a(?P<x>\d+)b)", R"(a(\d+)b)"},
      {R"((?P<a>x)(y)(?:z)(?i)(?P<b>w))", R"((x)(y)(?:z)(?i)(w))"},
      {R"(\((?P<x>[^)]*)\))", R"(\(([^)]*)\))"},
      {R"([(?P<x>](?P<y>.))", R"([(?P<x>](.))"},          // a class holds no group
      {R"([]](?P<y>.))", R"([]](.))"},                     // `]` first in a class is literal
      {R"([^]x](?P<y>.))", R"([^]x](.))"},
      {R"([[:alpha:]](?P<y>.))", R"([[:alpha:]](.))"},     // `]` of [:alpha:] does not close it
      {R"([\]](?P<y>.))", R"([\]](.))"},
      {R"(\Q(?P<x>\E(?P<y>.))", R"(\Q(?P<x>\E(.))"},       // quoted text is text
      {R"(x\\(?P<y>.))", R"(x\\(.))"},                     // an escaped backslash, then a group
      {R"((?i:(?P<x>a)|b)(?=c)?)", R"((?i:(a)|b)(?=c)?)"},
  };
  for (const auto& c : cases) {
    INFO(c.regex);
    const auto out = unname_groups(c.regex);
    REQUIRE(out);
    CHECK(out->regex == c.unnamed);
  }
  CHECK(unname_groups(R"(a(?P<x>\d+)(b)(?P<y_2>c))")->names == std::vector<std::string>{"x", "", "y_2"});
  // Left to RE2, which names or refuses them itself.
  CHECK_FALSE(unname_groups(R"((?P<bad-name>x))"));
  CHECK_FALSE(unname_groups(R"((?P<>a))"));
  CHECK_FALSE(unname_groups(R"((?<x>a))"));
}

TEST_CASE("Pattern: names and errors as RE2 gives them for the pattern as written", "[group_names]") {
  const culprit::text::Pattern p(R"((?P<pid>\d+) (\w+) (?P<name>\S+))");
  CHECK(p.group_names() == std::vector<std::string>{"pid", "", "name"});
  std::vector<culprit::text::Capture> captures;
  REQUIRE(p.match("at 42 killed python3", captures));
  REQUIRE(captures.size() == 2);
  CHECK(captures[0].name == "pid");
  CHECK(captures[0].value == "42");
  CHECK(captures[1].name == "name");
  CHECK(captures[1].value == "python3");
  const culprit::text::Pattern bad_name(R"((?P<no-dash>a))");
  CHECK_FALSE(bad_name.ok());
  CHECK(bad_name.error().find("no-dash") != std::string::npos);  // RE2's error, on the name as written
  const culprit::text::Pattern unclosed(R"((?P<x>a)(b)");
  CHECK_FALSE(unclosed.ok());
  CHECK(unclosed.error().find("(?P<x>") != std::string::npos);
}

TEST_CASE("Pattern: every built-in signal's groups named as RE2 names them", "[group_names]") {
  const auto loaded = culprit::rules::load_builtin_rules();
  REQUIRE_FALSE(loaded.rules.signal_rules.empty());
  int named = 0;
  for (const auto& signal : loaded.rules.signals.signals()) {
    if (!signal.pattern) continue;
    const std::string& regex = signal.pattern->source();
    INFO(signal.id << ": " << regex);
    const auto expected = re2_names(regex);
    CHECK(signal.pattern->group_names() == expected);
    const auto unnamed = unname_groups(regex);
    REQUIRE(unnamed);  // every built-in pattern takes the fast path
    CHECK(unnamed->names == expected);
    for (const auto& n : expected) named += n.empty() ? 0 : 1;
  }
  CHECK(named > 100);
}

// Issue 37, finding 32: a group name given twice is refused by culprit itself, whatever RE2's
// version does with it (Debian 12's RE2 takes it and names the first group only), because the
// groups reach RE2 unnamed and RE2 never sees the names (rules/README.md forbids it).
TEST_CASE("Pattern: a group name given twice is refused", "[group_names][rules_check]") {
  const auto twice = unname_groups(R"(hello (?P<x>\w+) (?P<x>\w+))");
  REQUIRE(twice);
  CHECK(twice->duplicate == "x");
  CHECK(unname_groups(R"((?P<x>a)(?P<y>b))")->duplicate.empty());
  const culprit::text::Pattern p(R"(hello (?P<x>\w+) (?P<x>\w+))");
  CHECK_FALSE(p.ok());
  CHECK(p.error().find("`x` is given twice") != std::string::npos);
}
