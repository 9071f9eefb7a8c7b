// Prefilter literals of the built-in signals, derived at build time (src/tools/
// rule_literals_gen.cpp) so start-up does not run RE2's FilteredRE2 on every regex.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::rules::detail {

/// One built-in signal's prefilter, as views of the generated table's constant data (the table
/// compiles as data: no code builds it at start-up, and none takes the compiler a minute).
struct PrecomputedLiterals {
  std::string_view regex;
  std::span<const std::string_view> literals;  ///< empty: the regex has no safe literal (always tried)
  std::span<const std::span<const std::string_view>> clauses;  ///< text::DerivedPrefilter::clauses

  /// The literals and the clauses as a text::Signal holds them (copies).
  std::vector<std::string> literal_strings() const { return {literals.begin(), literals.end()}; }
  std::vector<std::vector<std::string>> clause_strings() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& clause : clauses) out.emplace_back(clause.begin(), clause.end());
    return out;
  }
};

/// The generated table, sorted by regex.
std::span<const PrecomputedLiterals> precomputed_literals();

/// What text::derive_prefilter gives for `regex`, when the build computed it; nullptr for any
/// other regex (a user's rule, or one edited since the build).
const PrecomputedLiterals* find_precomputed_literals(std::string_view regex);

}  // namespace culprit::rules::detail
