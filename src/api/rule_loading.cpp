// Rule loading: queries are prepared against a scratch in-memory timeline.
#include "culprit/api/rule_loading.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

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

namespace {

/// A problem's place: its file, and line and column where `where` ends in `:LINE:COL` or `:LINE`.
struct Place {
  std::string file;
  long line = 0, column = 0;
};

Place place_of(const std::string& where) {
  Place p{where};
  const auto number_after = [](const std::string& s, std::size_t colon, long& out) {
    if (colon == std::string::npos || colon + 1 >= s.size()) return false;
    const std::string digits = s.substr(colon + 1);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return false;
    out = std::stol(digits);
    return true;
  };
  long a = 0, b = 0;
  const std::size_t last = p.file.rfind(':');
  if (!number_after(p.file, last, b)) return p;
  p.file.erase(last);
  const std::size_t before = p.file.rfind(':');
  if (number_after(p.file, before, a)) {
    p.file.erase(before);
    p.line = a, p.column = b;
  } else {
    p.line = b;
  }
  return p;
}

/// Problems in reading order: by file (in the order the files first appear), then line and
/// column; problems of no place keep theirs, first. The loader finds them rule kind by rule kind
/// (signals, then diagnoses, then cross-checks), which a reader fixing a file top down does not.
void sort_by_place(core::Diagnostics& problems) {
  std::map<std::string, std::size_t> file_order;
  std::vector<Place> places;
  for (const auto& p : problems) {
    places.push_back(place_of(p.where));
    file_order.emplace(places.back().file, file_order.size());
  }
  std::vector<std::size_t> order(problems.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const Place &a = places[x], &b = places[y];
    return std::tuple(a.file.empty() ? 0 : 1, file_order[a.file], a.line, a.column) <
           std::tuple(b.file.empty() ? 0 : 1, file_order[b.file], b.line, b.column);
  });
  core::Diagnostics sorted;
  sorted.reserve(problems.size());
  for (const std::size_t i : order) sorted.push_back(std::move(problems[i]));
  problems = std::move(sorted);
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
  sort_by_place(result.problems);
  return result;
}

}  // namespace culprit::api
