// Rule loading for the CLI: queries are prepared against a scratch in-memory timeline.
#include "cli/rule_loading.hpp"

#include "culprit/store/database.hpp"

namespace culprit::cli {

rules::LoadResult load_rule_set(const std::vector<std::string>& dirs, bool builtin) {
  std::vector<rules::RuleText> texts;
  if (builtin) texts = rules::builtin_rules();
  core::Diagnostics read_problems;
  for (const auto& dir : dirs) {
    auto more = rules::read_rule_dir(dir, read_problems);
    texts.insert(texts.end(), more.begin(), more.end());
  }
  std::string error;
  auto scratch = store::Database::open(":memory:", error);
  if (scratch) scratch->ensure_schema();
  rules::QueryChecker checker = [&](const std::string& sql) -> std::string {
    return scratch ? scratch->check(sql) : std::string();
  };
  auto result = rules::load_rules(texts, checker);
  result.problems.insert(result.problems.begin(), read_problems.begin(), read_problems.end());
  return result;
}

}  // namespace culprit::cli
