// Prefilter literals of the built-in signals, derived at build time (src/tools/
// rule_literals_gen.cpp) so start-up does not run RE2's FilteredRE2 on every regex.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace culprit::rules::detail {

struct PrecomputedLiterals {
  std::string regex;
  std::vector<std::string> literals;  ///< empty: the regex has no safe literal (always tried)
  std::vector<std::vector<std::string>> clauses;  ///< text::DerivedPrefilter::clauses
};

/// The generated table, sorted by regex.
const std::vector<PrecomputedLiterals>& precomputed_literals();

/// What text::derive_prefilter gives for `regex`, when the build computed it; nullptr for any
/// other regex (a user's rule, or one edited since the build).
const PrecomputedLiterals* find_precomputed_literals(std::string_view regex);

}  // namespace culprit::rules::detail
