// The build-time literal table (src/tools/rule_literals_gen.cpp) must say exactly what run-time
// derivation says (literals and clauses) for every built-in signal, and the loaded rule set must use it: otherwise the
// prefilter of a short paste would differ from that of `rules check`.
#include <catch2/catch.hpp>

#include "culprit/rules/loader.hpp"
#include "rules/precomputed_literals.hpp"
#include "text/literal_index.hpp"

namespace precomputed_literals_tests {

using namespace culprit;

TEST_CASE("precomputed literals equal derived ones for every built-in signal", "[rules][literals]") {
  const auto table = rules::detail::precomputed_literals();
  REQUIRE(table.size() >= 100);
  for (std::size_t i = 1; i < table.size(); ++i) CHECK(table[i - 1].regex < table[i].regex);  // bisectable
  for (const auto& entry : table) {
    INFO(entry.regex);
    const text::DerivedPrefilter derived = text::derive_prefilter(entry.regex);
    CHECK(entry.literal_strings() == derived.literals);
    CHECK(entry.clause_strings() == derived.clauses);
  }
  const auto loaded = rules::load_rules(rules::builtin_rules());
  int precomputed = 0;
  for (const auto& rule : loaded.rules.signal_rules) {
    if (!rule.literals.empty()) continue;  // declared in the rule
    INFO(rule.id);
    REQUIRE(rules::detail::find_precomputed_literals(rule.pattern) != nullptr);
    ++precomputed;
  }
  CHECK(precomputed > 100);
  CHECK(rules::detail::find_precomputed_literals("not (a built-in) regex") == nullptr);
}

}  // namespace precomputed_literals_tests
