// `culprit rules check [DIR...]`: loads the built-in rules (and DIR's), checks every pattern,
// sample and query, prints each problem as `file:line:column: error[code]: message`.
// `culprit rules literals [DIR...]`: the prefilter's literal set, one per line.
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <iostream>
#include <set>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "culprit/api/rule_loading.hpp"

namespace culprit::cli {
using api::load_rule_set;
using api::RuleChecks;
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage =
    "Usage: culprit rules check [DIR...]   |   culprit rules literals [DIR...]\n"
    "`check` validates the built-in rules and the *.toml rule files under each DIR: TOML syntax,\n"
    "required keys, RE2 patterns, every sample line, and each diagnosis query against the\n"
    "timeline schema (exit code 0 when all rules are valid, 2 otherwise). A DIR's file at a\n"
    "built-in file's own path (the source tree's rules/) is read in place of the built-in copy.\n"
    "`literals` prints the prefilter's literal set of those rules, one per line.\n";

}  // namespace

void rules_option_table(po::options_description& out) { out.add_options()("help,h", "show this help"); }

int run_rules(const std::vector<std::string>& args) {
  po::options_description opts("Options");
  rules_option_table(opts);
  std::vector<std::string> words;
  po::options_description hidden;
  hidden.add_options()("word", po::value(&words)->composing(), "check|literals and DIRs");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("word", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit rules: {}\n", e.what());
    return kExitError;
  }
  const bool help = vm.count("help") > 0;
  if (help || words.empty() || (words[0] != "check" && words[0] != "literals")) {
    (help ? std::cout : std::cerr) << kUsage << "\n" << opts;
    return help ? 0 : kExitError;
  }
  const std::vector<std::string> dirs(words.begin() + 1, words.end());
  if (words[0] == "literals") {
    // tests/bench/run.sh gives the set to `rg -F -f`.
    auto result = load_rule_set(dirs);
    std::set<std::string> seen;
    for (const auto& s : result.rules.signals.signals())
      for (const auto& l : s.literals)
        if (seen.insert(l).second) fmt::print("{}\n", l);
    return 0;
  }
  auto result = load_rule_set(dirs, true, RuleChecks::all);
  for (const auto& p : result.problems) fmt::print(stderr, "{}\n", p.to_string());
  std::size_t samples = 0;
  for (const auto& s : result.rules.signal_rules) samples += s.samples.size();
  fmt::print("{} signals ({} samples checked), {} diagnoses: {}\n", result.rules.signal_rules.size(), samples,
             result.rules.diagnoses.size(), result.ok() ? "ok" : "errors found");
  return result.ok() ? 0 : kExitError;
}

}  // namespace culprit::cli
