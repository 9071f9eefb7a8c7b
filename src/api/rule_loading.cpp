// Rule loading: queries are prepared against a scratch in-memory timeline.
#include "culprit/api/rule_loading.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string_view>

#include "api/prebuilt_databases.hpp"
#include "culprit/store/database.hpp"

namespace culprit::api {
namespace {

/// A rule file's full path (`signals/…` read in rules/ itself is `/src/culprit/rules/signals/…`),
/// or the path as given where it cannot be made one.
std::string full_path(const std::string& path) {
  std::error_code ec;
  const std::string full = std::filesystem::weakly_canonical(path, ec).generic_string();
  return ec ? path : full;
}

/// Whether the rule file at `full` (full_path) is the built-in file at `builtin`, its path in
/// the source tree (`rules/signals/gpu_memory.toml`): `full` ends in that path.
bool is_builtin_file(std::string_view full, std::string_view builtin) {
  if (full.size() < builtin.size() || full.substr(full.size() - builtin.size()) != builtin) return false;
  return full.size() == builtin.size() || full[full.size() - builtin.size() - 1] == '/';
}

}  // namespace

rules::LoadResult load_rule_set(const std::vector<std::string>& dirs, bool builtin, RuleChecks checks) {
  install_prebuilt_databases();  // before any scanner is built; keyed by list, so any rules may use it
  // The built-in rules alone, unchecked: the compact form the build loaded them into (the same
  // rule set, without parsing their TOML at every start-up).
  if (builtin && dirs.empty() && checks == RuleChecks::user_rules) return rules::load_builtin_rules();
  core::Diagnostics read_problems;
  std::vector<rules::RuleText> read;
  for (const auto& dir : dirs) {
    auto more = rules::read_rule_dir(dir, read_problems);
    read.insert(read.end(), more.begin(), more.end());
  }
  // A folder that holds the built-in files themselves (the source tree's rules/, as edited) is
  // read in their place: `culprit rules check rules` checks the edited rules, instead of
  // finding each id defined twice.
  std::vector<std::string> read_paths;
  for (const auto& file : read) read_paths.push_back(full_path(file.path));
  std::vector<rules::RuleText> texts;
  if (builtin)
    for (const auto& file : rules::builtin_rules())
      if (std::none_of(read_paths.begin(), read_paths.end(),
                       [&file](const std::string& full) { return is_builtin_file(full, file.path); }))
        texts.push_back(file);
  texts.insert(texts.end(), read.begin(), read.end());
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
