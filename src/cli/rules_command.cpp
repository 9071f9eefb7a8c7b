// `culprit rules check [DIR]`: loads the built-in rules (and DIR's), checks every pattern,
// sample and query, prints each problem as `file:line:column: error[code]: message`.
#include <fmt/format.h>

#include <set>

#include "cli/commands.hpp"
#include "cli/rule_loading.hpp"

namespace culprit::cli {

int run_rules(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "literals") {
    // The prefilter's literal set, one per line (tests/bench/run.sh gives it to `rg -F -f`).
    auto result = load_rule_set(std::vector<std::string>(args.begin() + 1, args.end()));
    std::set<std::string> seen;
    for (const auto& s : result.rules.signals.signals())
      for (const auto& l : s.literals)
        if (seen.insert(l).second) fmt::print("{}\n", l);
    return 0;
  }
  if (args.empty() || args[0] == "--help" || args[0] != "check") {
    fmt::print("Usage: culprit rules check [DIR...]   |   culprit rules literals [DIR...]\n"
               "Validates the built-in rules and the *.toml rule files under each DIR: TOML syntax,\n"
               "required keys, RE2 patterns, every sample line, and each diagnosis query against the\n"
               "timeline schema. Exit code 0 when all rules are valid, 2 otherwise.\n");
    return args.empty() || args[0] != "--help" ? kExitError : 0;
  }
  std::vector<std::string> dirs(args.begin() + 1, args.end());
  auto result = load_rule_set(dirs, true, RuleChecks::all);
  for (const auto& p : result.problems) fmt::print(stderr, "{}\n", p.to_string());
  std::size_t samples = 0;
  for (const auto& s : result.rules.signal_rules) samples += s.samples.size();
  fmt::print("{} signals ({} samples checked), {} diagnoses: {}\n", result.rules.signal_rules.size(), samples,
             result.rules.diagnoses.size(), result.ok() ? "ok" : "errors found");
  return result.ok() ? 0 : kExitError;
}

}  // namespace culprit::cli
