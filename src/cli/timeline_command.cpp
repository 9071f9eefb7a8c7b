// `culprit timeline`: the merged cross-host timeline in the terminal, read from the inputs (the
// same pipeline as `diagnose`, so the root failure and its echoes are marked) or from a saved
// timeline (`--db FILE`), read through culprit::read_timeline (culprit/timeline.hpp). Filters
// by host, kind, and a window around an event or a time.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/shared_options.hpp"
#include "cli/option_checks.hpp"
#include "culprit/culprit.hpp"
#include "culprit/diagnose/report_data.hpp"
#include "culprit/report/timeline.hpp"
#include "culprit/timeline.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace {

constexpr const char* kTimelineHelpHeader = R"(Usage: culprit timeline [options] INPUT...
       culprit timeline [options] --db FILE

Prints the merged timeline of every host, one line per event: time (UTC; `boot+93.1s` or
`line N` when the host's clock could not be aligned), host, kind, pid/rank, source:line and the
message. The header says how each host's clock was aligned and how sure that is. Plain log
lines (kind `log`) are left out unless --all or --kind log. When INPUTs are given they are
diagnosed first: `>` marks the root failure, `~` its echoes. --json and --csv print the same
events as data (mark: root / echo).

  culprit timeline logs/                          # everything around the failure
  culprit timeline --host spark-b --kind cuda_oom,nccl_timeout logs/
  culprit timeline --around 2026-04-09T00:47:13 --window 60 logs/
  culprit timeline --db incident.db --around 1234   # around event id 1234 of a saved timeline

Exit codes: 0 events were listed, 1 none matched, 2 errors.

)";

struct TimelineCommandOptions {
  std::vector<std::string> inputs, hosts, kinds, rule_dirs, excludes;
  std::string db, around, default_host, color = "auto";
  double window = 300;
  std::int64_t limit = 500;
  std::int64_t incident = -1;
  int width = -1, year = 0;  // width -1: not given (output_columns)
  std::vector<std::string> kinds_raw, hosts_raw;
  bool all = false, redact = false, quiet = false, json = false, csv = false;
};

/// Timeline's options, bound to `o` (--redact, --rules, --exclude and --year are the shared
/// definitions of shared_options.hpp; --host here filters, so inputs' host is --default-host).
void add_timeline_options(po::options_description& opts, TimelineCommandOptions& o) {
  opts.add_options()
      ("help,h", "show this help")
      ("db", po::value(&o.db)->value_name("FILE"), "read a saved timeline (from `culprit diagnose --db FILE`) instead of INPUTs")
      ("host", po::value(&o.hosts_raw)->composing()->value_name("NAME"), "only events of host H (repeatable, or H1,H2)")
      ("kind", po::value(&o.kinds_raw)->composing()->value_name("KIND"), "only events of kind K (repeatable, or K1,K2), e.g. cuda_oom")
      ("around", po::value(&o.around)->value_name("WHEN"), "centre on an event id, or a UTC time (2026-04-09T00:47:13 or 00:47:13)")
      ("window", po::value(&o.window)->default_value(300)->value_name("SECONDS"), "with --around TIME or a placed event: seconds each side")
      ("limit", po::value(&o.limit)->default_value(500)->value_name("N"), "at most N events, centred on the failure (0: all)")
      ("incident", po::value(&o.incident)->value_name("N"), "with --db of `culprit scan --db`: only incident N")
      ("all", po::bool_switch(&o.all), "include plain log lines (kind `log`)")
      ("json", po::bool_switch(&o.json), "print the events as a JSON array of objects (mark: root / echo)")
      ("csv", po::bool_switch(&o.csv), "print the events as CSV (RFC 4180) under a header");
  add_redact_option(opts, o.redact);
  opts.add_options()
      ("color", po::value(&o.color)->default_value("auto")->value_name("WHEN"), "colour: auto | always | never (NO_COLOR is honoured)")
      ("width", po::value(&o.width)->value_name("COLUMNS"),
       "columns per line (0: do not cut; default: $COLUMNS, else the terminal's width, else 100)")
      ("default-host", po::value(&o.default_host)->value_name("NAME"), "host name for inputs that name none");
  add_rules_option(opts, o.rule_dirs);
  add_exclude_option(opts, o.excludes);
  add_year_option(opts, o.year);
  opts.add_options()("quiet,q", po::bool_switch(&o.quiet), "do not print skipped-input notes on stderr");
}

bool use_color(const TimelineCommandOptions& o) { return color_wanted(o.color, false, ::isatty(STDOUT_FILENO) != 0); }

/// `a,b` and repeated options as one list.
std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      std::size_t end = item.find(',', start);
      if (end == std::string::npos) end = item.size();
      if (end > start) out.push_back(item.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

}  // namespace

void timeline_option_table(po::options_description& out) {
  static TimelineCommandOptions unused;  // the table's values point here; it is only read for documentation
  add_timeline_options(out, unused);
}

int run_timeline(const std::vector<std::string>& args) {
  TimelineCommandOptions o;
  po::options_description opts("Options");
  add_timeline_options(opts, o);
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
    fmt::print(stderr, "culprit timeline: {}\nRun `culprit timeline --help` for the options.\n", e.what());
    return kExitError;
  }
  if (vm.count("help")) {
    std::cout << kTimelineHelpHeader << opts;
    return 0;
  }
  if (o.width < 0 && !vm.count("width")) o.width = output_columns(100, 0);
  o.hosts = split_list(o.hosts_raw);
  o.kinds = split_list(o.kinds_raw);
  if (o.json && o.csv) {
    fmt::print(stderr, "culprit timeline: give --json or --csv, not both\n");
    return kExitError;
  }
  if (o.inputs.empty() == o.db.empty()) {
    fmt::print(stderr, "culprit timeline: give either INPUTs or --db FILE (not both)\n");
    return kExitError;
  }
  for (const std::string& why : {check_choice("--color", o.color, {"auto", "always", "never"}),
                                 check_year("--year", o.year),
                                 check_range("--limit", o.limit, 0, INT64_MAX, "events (0: all)"),
                                 check_range("--width", o.width, 0, 100000, "columns (0: do not cut)")}) {
    if (!why.empty()) {
      fmt::print(stderr, "culprit timeline: {}\n", why);
      return kExitError;
    }
  }
  if (!(o.window >= 0)) {
    fmt::print(stderr, "culprit timeline: --window {} must be seconds, 0 or more\n", o.window);
    return kExitError;
  }

  culprit::TimelineSelection selection;
  selection.hosts = o.hosts;
  selection.kinds = o.kinds;
  selection.include_log = o.all;
  selection.limit = static_cast<std::size_t>(o.limit);
  if (o.incident >= 0) selection.incident = o.incident;
  selection.around = o.around;
  selection.window = o.window;

  // The timeline: a saved file, or the inputs run through the pipeline into a scratch file.
  diagnose::Verdict verdict;
  std::optional<culprit::Result<culprit::Timeline>> timeline;
  if (o.db.empty()) {
    const auto rules = culprit::Rules::load(o.rule_dirs);
    for (const auto& p : rules.problems()) fmt::print(stderr, "{}\n", p.to_string());
    if (rules.has_errors()) return kExitError;
    culprit::Options options;
    options.excludes = o.excludes;
    options.host = o.default_host;
    options.year = o.year;
    const std::string scratch =
        (std::filesystem::temp_directory_path() / fmt::format("culprit-timeline-{}.db", ::getpid())).string();
    std::remove(scratch.c_str());
    options.db_path = scratch;
    std::vector<culprit::Input> inputs;
    for (const auto& path : o.inputs) inputs.push_back(culprit::Input::file(path));
    auto result = culprit::analyze(inputs, options, rules);
    for (const auto& p : result ? result->diagnostics : result.error().diagnostics)
      if (!o.quiet || p.level == core::DiagLevel::error) fmt::print(stderr, "{}\n", p.to_string());
    if (result) timeline.emplace(culprit::read_timeline(*result, selection));
    std::remove(scratch.c_str());
    if (!result) return kExitError;
    verdict = std::move(result->verdict);
  } else {
    timeline.emplace(culprit::read_timeline(o.db, selection));
  }
  if (!*timeline) {
    if (timeline->error().code == culprit::Errc::not_found)
      fmt::print(stderr, "culprit timeline: {}: no such file (write one with `culprit diagnose --db {} …`)\n", o.db,
                 o.db);
    else
      fmt::print(stderr, "culprit timeline: {}\n", timeline->error().message);
    return kExitError;
  }

  diagnose::Verdict shown = std::move(verdict);
  shown.data.timeline = std::move((*timeline)->events);
  shown.data.hosts = std::move((*timeline)->hosts);
  const std::int64_t total = (*timeline)->total;
  // More events than the loader holds (kTimelineRowLimit, kTimelineTextBytes) were asked for:
  // said, with the way to list them all.
  if (const auto shown_n = static_cast<std::int64_t>(shown.data.timeline.size());
      shown_n < total && (o.limit == 0 || o.limit > shown_n))
    fmt::print(stderr,
               "culprit timeline: {} of the {} matching events are shown (at most {} events or {} MiB of text are "
               "read; `culprit query` lists any number)\n",
               shown_n, total, diagnose::kTimelineRowLimit, diagnose::kTimelineTextBytes >> 20);
  if (o.redact) shown = culprit::redacted(shown);
  report::TimelineOptions render_options;
  render_options.color = use_color(o);
  render_options.width = o.width;
  const std::string text = o.json  ? report::render_timeline_json(shown.data.timeline)
                           : o.csv ? report::render_timeline_csv(shown.data.timeline)
                                   : report::render_timeline(shown.data.timeline, shown.data.hosts, total, render_options);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return shown.data.timeline.empty() ? kExitNothing : 0;
}

}  // namespace culprit::cli
