// Loading the rule set the pipeline and `culprit rules` use: the built-in rules plus any --rules folders, with
// diagnosis queries checked against the timeline schema.
#pragma once

#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"

namespace culprit::api {

/// What load_rule_set validates beyond syntax, patterns and templates.
enum class RuleChecks {
  user_rules,  ///< samples and queries only when `dirs` adds rules (a diagnosing run)
  all,         ///< always (`culprit rules check`)
};

/// Loads built-in rules and the rule files under `dirs`. Problems are returned in the result.
rules::LoadResult load_rule_set(const std::vector<std::string>& dirs, bool builtin = true,
                                RuleChecks checks = RuleChecks::user_rules);

}  // namespace culprit::api
