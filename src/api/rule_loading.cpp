// Rule loading: queries are prepared against a scratch in-memory timeline.
#include "culprit/api/rule_loading.hpp"

#include <memory>

#include "api/prebuilt_databases.hpp"
#include "culprit/store/database.hpp"

namespace culprit::api {

rules::LoadResult load_rule_set(const std::vector<std::string>& dirs, bool builtin, RuleChecks checks) {
  install_prebuilt_databases();  // before any scanner is built; keyed by list, so any rules may use it
  // The built-in rules alone, unchecked: the compact form the build loaded them into (the same
  // rule set, without parsing their TOML at every start-up).
  if (builtin && dirs.empty() && checks == RuleChecks::user_rules) return rules::load_builtin_rules();
  std::vector<rules::RuleText> texts;
  if (builtin) texts = rules::builtin_rules();
  core::Diagnostics read_problems;
  for (const auto& dir : dirs) {
    auto more = rules::read_rule_dir(dir, read_problems);
    texts.insert(texts.end(), more.begin(), more.end());
  }
  // The built-in rules' samples and queries are checked by `culprit rules check` and the test
  // suite, so a run on them alone skips both (most of the start-up time); a user's rule directory
  // is checked on every run, so a broken rule of theirs is named and left out.
  const bool user_rules = !dirs.empty() || checks == RuleChecks::all;
  std::unique_ptr<store::Database> scratch;
  if (user_rules) {
    std::string error;
    scratch = store::Database::open(":memory:", error);
    if (scratch) scratch->ensure_schema();
  }
  rules::QueryChecker checker;
  if (scratch) checker = [&](const std::string& sql) -> std::string { return scratch->check_read_only(sql); };
  auto result = rules::load_rules(texts, checker, user_rules ? rules::SampleCheck::run : rules::SampleCheck::skip);
  result.problems.insert(result.problems.begin(), read_problems.begin(), read_problems.end());
  return result;
}

}  // namespace culprit::api
