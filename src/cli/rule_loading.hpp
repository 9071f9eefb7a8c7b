// Loading the rule set the commands use: the built-in rules plus any --rules folders, with
// diagnosis queries checked against the timeline schema.
#pragma once

#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"

namespace culprit::cli {

/// Loads built-in rules and the rule files under `dirs`. Problems are returned in the result.
rules::LoadResult load_rule_set(const std::vector<std::string>& dirs, bool builtin = true);

}  // namespace culprit::cli
