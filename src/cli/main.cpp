// Entry point: dispatches subcommands; `culprit INPUT...` means `culprit diagnose INPUT...`.
// Exceptions are bugs: they are caught here once and reported with exit code 2.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_checks.hpp"
#include "cli/scan_support.hpp"

namespace {

constexpr const char* kUsage = R"(culprit — post-mortem failure diagnosis for GPU and ML jobs

Usage:
  culprit [diagnose] [options] INPUT...   diagnose logs (files, folders, archives, - for stdin)
  culprit scan [options] PATH...          one verdict per incident (archive or folder) of a batch
  culprit merge FILE...                   join `scan` shard outputs (JSON Lines or --db)
  culprit timeline [options] INPUT...     the merged cross-host timeline (or --db FILE)
  culprit query --db FILE "SQL"           run SQL over a saved timeline
  culprit run [options] -- CMD [ARGS...]  run a job; when it fails, snapshot the node and diagnose
  culprit collect [--ssh HOST]... [-o DIR] snapshot this node (or HOSTs over ssh) for diagnosis
  culprit rules check [DIR]               validate the built-in rules (and those in DIR)
  culprit --help | --version

Run `culprit diagnose --help` for the diagnose options.

Exit codes: 0 a verdict was reached, 1 nothing known was found, 2 errors (`culprit run`: the job's).
)";

}  // namespace

int main(int argc, char** argv) {
  culprit::cli::install_interrupt_handlers();
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
      std::fputs(kUsage, stderr);
      return culprit::cli::kExitError;
    }
    const std::string& first = args[0];
    if (first == "--help" || first == "-h" || first == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (first == "--version" || first == "-V") {
      fmt::print("culprit {}\n", CULPRIT_VERSION);
      return 0;
    }
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (first == "diagnose") return culprit::cli::run_diagnose(rest);
    if (first == "timeline") return culprit::cli::run_timeline(rest);
    if (first == "query") return culprit::cli::run_query(rest);
    if (first == "rules") return culprit::cli::run_rules(rest);
    if (first == "scan") return culprit::cli::run_scan(rest);
    if (first == "merge") return culprit::cli::run_merge(rest);
    if (first == "run") return culprit::cli::run_run(rest);
    if (first == "collect") return culprit::cli::run_collect(rest);
    // Not a command: inputs to diagnose — unless it names no file and is a command's typo.
    std::error_code ec;
    if (first != "-" && first[0] != '-' && !std::filesystem::exists(first, ec)) {
      if (auto near = culprit::cli::near_command(first, {"diagnose", "timeline", "query", "rules", "scan", "merge",
                                                         "run", "collect"})) {
        fmt::print(stderr, "culprit: '{}' is neither a command nor an input file (did you mean `culprit {}`?)\n",
                   first, *near);
        return culprit::cli::kExitError;
      }
    }
    return culprit::cli::run_diagnose(args);
  } catch (const std::exception& e) {
    fmt::print(stderr, "culprit: internal error: {}\n", e.what());
    return culprit::cli::kExitError;
  }
}
