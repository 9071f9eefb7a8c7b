// `culprit diagnose`: read inputs -> ingest into the timeline -> align clocks -> diagnose ->
// render. Bad inputs are reported on stderr and skipped; the run goes on with the rest.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/shared_options.hpp"
#include "cli/option_checks.hpp"
#include "cli/interrupt.hpp"
#include "cli/process_end.hpp"
#include "culprit/culprit.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace {

constexpr const char* kDiagnoseHelpHeader = R"(Usage: culprit [diagnose] [options] INPUT...

INPUT is a log file, a folder (recursive; a folder of per-node folders such as spark-a/ and
spark-b/ gives each folder's files that host), an archive or compressed file (.tar, .tar.gz,
.tgz, .tar.zst, .zip, .gz, .zst, .xz), or - for standard input (a terminal paste: it is split at
shell prompts like `user@host:~$ cmd`, and `ssh user@host …` names the host of the output).
With no INPUT, standard input is read when it is a pipe or a file (`pbpaste | culprit`).

Exit codes: 0 a verdict was reached, 1 nothing known was found, 2 errors (no readable input:
an empty file or folder, blank lines, binary data or documentation only; the report is still
printed).

)";

/// The text report's widest line, and its width where nothing says the terminal's.
constexpr int kReportColumns = 100;

struct DiagnoseOptions {
  std::vector<std::string> inputs, rule_dirs, excludes;
  std::string format = "text", db, host, output, color = "auto";
  bool json = false, no_prefilter = false, quiet = false, redact = false;
  int year = 0;
  std::int64_t max_events = 0;
  std::int64_t max_line_bytes = 1 << 20;
  std::string tz;
  std::vector<std::string> boot_times;
  std::int64_t jobs = std::max(1u, std::thread::hardware_concurrency());
  double rule_timeout = culprit::kDefaultRuleTimeoutSeconds;
};

bool use_color(const DiagnoseOptions& o) { return color_wanted(o.color, !o.output.empty(), ::isatty(STDOUT_FILENO) != 0); }

/// The first option out of its range or choices, as a one-line reason; empty when all hold.
std::string check_options(const DiagnoseOptions& o) {
  for (std::string why : {check_choice("--color", o.color, {"auto", "always", "never"}), check_year("--year", o.year),
                          check_range("--jobs", o.jobs, 1, 4096, "inputs parsed at once"),
                          check_range("--max-events", o.max_events, 0, INT64_MAX, "events (0: no limit)"),
                          check_range("--max-line-bytes", o.max_line_bytes, 0, std::int64_t{1} << 30,
                                      "bytes (0: no limit)")})
    if (!why.empty()) return why;
  if (!(o.rule_timeout > 0)) return fmt::format("--rule-timeout {} must be a positive number of seconds", o.rule_timeout);
  return {};
}

/// Diagnose's options, bound to `o`: the parser's table, and what --help, the man page and the
/// completions show (command_table.hpp).
void add_diagnose_options(po::options_description& opts, DiagnoseOptions& o) {
  opts.add_options()("help,h", "show this help");
  add_format_option(opts, o.format, {"text", "markdown", "json", "html"});
  opts.add_options()("json", po::bool_switch(&o.json), "shorthand for --format json");
  add_redact_option(opts, o.redact);
  add_output_option(opts, o.output);
  opts.add_options()("db", po::value(&o.db)->value_name("FILE"), "keep the timeline in this SQLite FILE (default: in memory)");
  add_host_option(opts, o.host);
  add_rules_option(opts, o.rule_dirs);
  add_exclude_option(opts, o.excludes);
  add_year_option(opts, o.year);
  add_tz_option(opts, o.tz);
  opts.add_options()
      ("boot-time", po::value(&o.boot_times)->composing()->value_name("HOST=TIME"),
       "HOST=TIME: when HOST booted (`uptime -s`, or seconds since the epoch), to place its dmesg stamps (repeatable)")
      ("color", po::value(&o.color)->default_value("auto")->value_name("WHEN"), "colour the text report: auto | always | never")
      ("max-events", po::value(&o.max_events)->default_value(0)->value_name("N"),
       "record at most N events (0: no limit); later ones are dropped with a note")
      ("max-line-bytes", po::value(&o.max_line_bytes)->default_value(1 << 20)->value_name("N"),
       "cut longer lines to this many bytes for matching, with a note (0: no limit)")
      ("no-prefilter", po::bool_switch(&o.no_prefilter), "run every rule's regex on every line (slower; for checks)")
      ("jobs,j", po::value(&o.jobs)->value_name("N"), "big inputs (1 MiB+) parsed at once (default: the number of cores); "
                                     "the report is the same for any number")
      ("rule-timeout", po::value(&o.rule_timeout)->default_value(culprit::kDefaultRuleTimeoutSeconds)->value_name("SECONDS"),
       "stop a [[diagnosis]] query after SECONDS, with a warning naming the rule (the others still run)")
      ("quiet,q", po::bool_switch(&o.quiet), "do not print skipped-input notes on stderr");
}

}  // namespace

bool stdin_has_input() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode);
}

void diagnose_option_table(po::options_description& out) {
  static DiagnoseOptions unused;  // the table's values point here; it is only read for documentation
  add_diagnose_options(out, unused);
}

int run_diagnose(const std::vector<std::string>& args) {
  DiagnoseOptions o;
  po::options_description opts("Options");
  add_diagnose_options(opts, o);
  po::options_description hidden;
  hidden.add_options()("input", po::value(&o.inputs)->composing(), "inputs");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit: {}\nRun `culprit diagnose --help` for the options.\n", e.what());
    return kExitError;
  }
  if (vm.count("help")) {
    std::cout << kDiagnoseHelpHeader << opts;
    return 0;
  }
  if (auto why = check_options(o); !why.empty()) {
    fmt::print(stderr, "culprit: {}\n", why);
    return kExitError;
  }
  if (o.json) o.format = "json";
  const auto format = culprit::parse_format(o.format);
  if (!format) {
    fmt::print(stderr, "culprit: unknown --format '{}' (text, markdown, json or html)\n", o.format);
    return kExitError;
  }
  if (o.inputs.empty() && stdin_has_input()) o.inputs.push_back("-");
  if (o.inputs.empty()) {
    fmt::print(stderr, "culprit: no INPUT given (a file, a folder, or - for standard input)\n");
    return kExitError;
  }

  if (!o.output.empty()) {
    if (auto why = check_output_target(o.output, o.inputs); !why.empty()) {
      fmt::print(stderr, "culprit: {}; choose another -o\n", why);
      return kExitError;
    }
  }

  culprit::Options options;
  options.excludes = o.excludes;
  options.host = o.host;
  options.year = o.year;
  options.max_events = o.max_events;
  options.max_line_bytes = o.max_line_bytes;
  options.tz = o.tz;
  options.boot_times = o.boot_times;
  options.threads = static_cast<unsigned>(o.jobs);
  options.rule_timeout_seconds = o.rule_timeout;
  // No readable input still gives a report (stdout, --json included) beside the line below.
  options.empty_is_error = false;
  if (auto why = culprit::check_options(options)) {
    fmt::print(stderr, "culprit: {}\n", why->message);
    return kExitError;
  }
  // Kept to the end of the process (process_end.hpp), as is the analysis below.
  const auto& rules = keep_until_exit(culprit::Rules::load(o.rule_dirs, !o.no_prefilter));
  for (const auto& p : rules.problems()) fmt::print(stderr, "{}\n", p.to_string());
  // A broken rule is named above and left out; the others still diagnose, and the exit code
  // says there were errors.
  const bool rule_errors = rules.has_errors();
  if (rule_errors)
    fmt::print(stderr, "culprit: rules with errors (above) are left out; `culprit rules check DIR` checks them\n");

  // The timeline: in memory, or a temporary file renamed into place at the end (an
  // interrupted run leaves an existing file intact; another version's file is refused).
  if (!o.db.empty()) {
    if (auto refused = culprit::check_timeline_target(o.db)) {
      fmt::print(stderr, "culprit: {} — choose another --db\n", refused->message);
      return kExitError;
    }
    options.db_path = fmt::format("{}.tmp-{}", o.db, ::getpid());
    std::remove(options.db_path.c_str());
  }
  std::optional<TempFileGuard> db_guard;
  if (!options.db_path.empty()) db_guard.emplace(options.db_path);
  std::vector<culprit::Input> inputs;
  for (const auto& path : o.inputs) inputs.push_back(culprit::Input::file(path));
  const auto& result = keep_until_exit(culprit::analyze(inputs, options, rules));
  core::Diagnostics problems = result ? result->diagnostics : result.error().diagnostics;
  if (!o.db.empty()) {
    // The timeline is kept whenever it was written, also when no input could be read.
    std::error_code ec;
    if (result) std::filesystem::rename(options.db_path, o.db, ec);
    if (ec) problems.push_back({core::DiagLevel::error, "db", o.db, ec.message()});
    std::remove(options.db_path.c_str());
    db_guard.reset();
  }

  bool errors = false;
  for (const auto& p : problems) {
    if (p.level == core::DiagLevel::error) errors = true;
    if (!o.quiet || p.level == core::DiagLevel::error) fmt::print(stderr, "{}\n", p.to_string());
  }
  if (!result) return kExitError;
  // No readable input (an empty file or folder, blank lines, binary data or documentation only)
  // is one exit code and one line, whatever the input's kind. The report says the same on stdout;
  // an existing -o file is left as it was.
  const bool nothing_read = result->sources == 0;
  if (nothing_read) {
    std::string names;
    for (std::size_t i = 0; i < o.inputs.size() && i < 3; ++i)
      names += (i ? ", " : "") + (o.inputs[i] == "-" ? std::string("standard input") : o.inputs[i]);
    if (o.inputs.size() > 3) names += fmt::format(" and {} more", o.inputs.size() - 3);
    fmt::print(stderr, "culprit: no readable input in {} (empty, blank, binary or documentation only); "
                       "nothing to diagnose\n", names);
    if (!o.output.empty()) {
      fmt::print(stderr, "culprit: {} not written\n", o.output);
      return kExitError;
    }
  }
  culprit::RenderOptions render_options;
  render_options.color = *format == culprit::Format::text && use_color(o);
  render_options.redact = o.redact;
  // The terminal's width ($COLUMNS, else the terminal's), at most the report's own 100 columns; a
  // file gets 100 (a report written with -o is read later, elsewhere).
  render_options.width = o.output.empty() ? output_columns(kReportColumns, kReportColumns) : kReportColumns;
  const std::string text = culprit::render(*result, *format, render_options);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (auto err = write_file_atomically(o.output, text); !err.empty()) {
    fmt::print(stderr, "culprit: {}\n", err);
    return kExitError;
  }
  if (rule_errors || nothing_read) return kExitError;
  if (result->verdict.verdict == diagnose::verdict::kUnknown) return errors ? kExitError : kExitNothing;
  return kExitVerdict;
}

}  // namespace culprit::cli
