// `culprit scan PATH...`: batch diagnosis. Each archive, or each folder / archive directly inside
// a folder PATH, is one incident; incidents run in parallel (--jobs), each in its own timeline.
// Output: a table (one line per incident), a Markdown table (--format markdown) or JSON Lines
// (--format json / --jsonl: the diagnose JSON contract plus "incident"), on stdout or to -o FILE;
// --redact, --host and --tz act on each incident as they do on diagnose's one. `--shard I/N` takes a stable share of the incidents (by path hash), and
// `--db FILE` keeps every incident's timeline in one SQLite file (culprit::write_scan_database).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/shared_options.hpp"
#include "cli/option_checks.hpp"
#include "cli/prometheus_metrics.hpp"
#include "cli/interrupt.hpp"
#include "culprit/core/diagnostic.hpp"
#include "culprit/core/huge_pages.hpp"
#include "culprit/core/utf8.hpp"
#include "culprit/culprit.hpp"
#include "culprit/report/redact.hpp"
#include "cli/scan_support.hpp"
#include "culprit/timeline.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct ScanOptions {
  std::vector<std::string> paths, rule_dirs, excludes;
  std::string shard_text, db_path, format = "text", output, host, tz, prometheus;
  bool jsonl = false, each_path = false, progress = false, redact = false;
  std::int64_t jobs = std::max(1u, std::thread::hardware_concurrency());
  bool quiet = false;
  int year = 0;
};

/// Scan's options, bound to `o`; those it shares with diagnose (--format, -o, --redact, --host,
/// --tz, --rules, --exclude, --year) come from their one definition (shared_options.hpp).
void add_scan_options(po::options_description& opts, ScanOptions& o) {
  opts.add_options()("help,h", "show this help");
  add_format_option(opts, o.format, {"text", "markdown", "json"});
  opts.add_options()
      ("jsonl", po::bool_switch(&o.jsonl), "print one JSON object per incident (the diagnose contract + \"incident\"); "
                                           "shorthand for --format json")
      ("db", po::value(&o.db_path)->value_name("FILE"), "keep every incident's timeline in this SQLite FILE (column `incident`)")
      ("shard", po::value(&o.shard_text)->value_name("I/N"), "take shard I of N (0 <= I < N) of the incidents, by a stable hash of their path")
      ("jobs,j", po::value(&o.jobs)->value_name("N"), "incidents diagnosed at once (default: the number of cores)")
      ("each-path", po::bool_switch(&o.each_path), "make every PATH one incident (e.g. a node's /var/log)")
      ("prometheus", po::value(&o.prometheus)->value_name("FILE"),
       "also write the incidents counted per verdict and per culprit role to FILE, in Prometheus' text format "
       "(replaced atomically: for node_exporter's textfile collector)");
  add_output_option(opts, o.output);
  add_redact_option(opts, o.redact);
  add_host_option(opts, o.host);
  add_tz_option(opts, o.tz);
  add_rules_option(opts, o.rule_dirs);
  add_exclude_option(opts, o.excludes);
  add_year_option(opts, o.year);
  opts.add_options()("progress", po::bool_switch(&o.progress), "show progress on stderr even when it is not a terminal")
      ("quiet,q", po::bool_switch(&o.quiet), "do not print skipped-input notes on stderr");
}

}  // namespace

void scan_option_table(po::options_description& out) {
  static ScanOptions unused;  // the table's values point here; it is only read for documentation
  add_scan_options(out, unused);
}

int run_scan(const std::vector<std::string>& args) {
  ScanOptions o;
  po::options_description opts("Options");
  add_scan_options(opts, o);
  po::options_description hidden;
  hidden.add_options()("path", po::value(&o.paths)->composing(), "paths");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("path", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit scan: {}\n", e.what());
    return kExitError;
  }
  if (vm.count("help") || o.paths.empty()) {
    std::cout << "Usage: culprit scan [options] PATH...\n\n"
                 "Each archive PATH is one incident; inside a folder PATH, each archive or folder is one\n"
                 "incident and the loose files together are one more. Prints one line per incident: a table,\n"
                 "a Markdown table (--format markdown) or JSON Lines (--format json).\n\n"
                 "Exit codes: 0 every incident was read, 2 errors.\n\n"
              << opts;
    return o.paths.empty() && !vm.count("help") ? kExitError : 0;
  }
  if (o.jsonl) o.format = "json";
  culprit::Options clock;
  clock.tz = o.tz;
  const auto clock_error = culprit::check_options(clock);
  for (const std::string& why : {check_range("--jobs", o.jobs, 1, 4096, "incidents diagnosed at once"),
                                 check_year("--year", o.year), check_choice("--format", o.format, {"text", "markdown", "json"}),
                                 clock_error ? clock_error->message : std::string()}) {
    if (!why.empty()) {
      fmt::print(stderr, "culprit scan: {}\n", why);
      return kExitError;
    }
  }
  if (!o.output.empty()) {
    if (auto why = check_output_target(o.output, o.paths); !why.empty()) {
      fmt::print(stderr, "culprit scan: {}; choose another -o\n", why);
      return kExitError;
    }
  }
  if (!o.prometheus.empty()) {
    if (auto why = check_output_target(o.prometheus, o.paths); !why.empty()) {
      fmt::print(stderr, "culprit scan: --prometheus: {}; choose another FILE\n", why);
      return kExitError;
    }
  }
  const auto jobs = static_cast<unsigned>(o.jobs);
  Shard shard;
  if (!o.shard_text.empty()) {
    auto parsed = parse_shard(o.shard_text);
    if (!parsed) {
      fmt::print(stderr, "culprit scan: --shard wants I/N with 0 <= I < N (e.g. 0/4), not '{}'\n", o.shard_text);
      return kExitError;
    }
    shard = *parsed;
  }
  const auto rules = culprit::Rules::load(o.rule_dirs);
  for (const auto& p : rules.problems()) fmt::print(stderr, "{}\n", p.to_string());
  if (rules.has_errors()) return kExitError;

  core::Diagnostics problems;
  auto incidents = find_incidents(o.paths, o.each_path, problems);
  bool path_errors = false;  // a PATH that does not exist: the scan is not of what was asked
  for (const auto& p : problems) {
    fmt::print(stderr, "{}\n", p.to_string());
    path_errors |= p.level == core::DiagLevel::error;
  }
  std::vector<Incident> mine;
  for (auto& inc : incidents)
    if (shard.takes(inc.name)) mine.push_back(std::move(inc));

  std::vector<ScanRow> rows(mine.size());
  std::vector<culprit::Analysis> analyses(o.redact ? mine.size() : 0);  // --redact: every incident's, until the end
  std::atomic<size_t> next{0}, done{0};
  std::atomic<std::int64_t> bytes_done{0};
  const bool show_progress = o.progress || ::isatty(STDERR_FILENO);
  std::vector<std::int64_t> bytes(mine.size(), 0);  // each incident's, for progress
  std::int64_t bytes_total = 0;
  if (show_progress)
    for (size_t i = 0; i < mine.size(); ++i) bytes_total += bytes[i] = incident_bytes(mine[i]);
  std::mutex print_mutex;
  const auto started = std::chrono::steady_clock::now();
  // Interrupted, the run removes every part and the merged temporary file (cli/interrupt.hpp).
  std::optional<TempFileGuard> parts_guard, tmp_guard;
  if (!o.db_path.empty()) {
    parts_guard.emplace(fmt::format("{}.part-{}-", o.db_path, ::getpid()), mine.size());
    tmp_guard.emplace(fmt::format("{}.tmp-{}", o.db_path, ::getpid()));
  }
  // The rows' JSON reports: printed by --format json, stored by --db; nothing else reads them.
  const bool with_json = o.format == "json" || !o.db_path.empty();
  const unsigned workers = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(mine.size())));
  // The --jobs cores: each worker reads on one, and gives it back when no incident is left for
  // it; an incident's big pieces are parsed beside its reading on the free ones (a scan's last
  // incident takes up those the others freed).
  const auto cores = std::make_shared<core::CoreShare>(static_cast<int>(jobs));
  for (unsigned t = 0; t < workers; ++t) cores->try_take();
  auto worker = [&] {
    core::ask_thread_heap_huge_pages();  // each incident's reading and parse start on this thread
    struct CoreFreed {  // however the worker ends
      core::CoreShare& cores;
      ~CoreFreed() { cores.give_back(); }
    } const freed{*cores};
    for (size_t i = next++; i < mine.size(); i = next++) {
      culprit::Options options;
      options.excludes = o.excludes;
      options.year = o.year;
      options.host = o.host;
      options.tz = o.tz;
      options.empty_is_error = false;  // an unreadable incident is a row saying so
      options.input_folder_is_host = false;  // an incident folder is named after the incident, not a node
      options.report_details = with_json;      // the table and Markdown print the verdict's headline only
      options.shared_cores = cores;  // threads 1: the worker's own, and the free ones
      if (!o.db_path.empty()) options.db_path = fmt::format("{}.part-{}-{}", o.db_path, ::getpid(), i);
      std::vector<culprit::Input> inputs;
      for (const auto& path : mine[i].inputs) inputs.push_back(culprit::Input::file(path));
      auto result = culprit::analyze(inputs, options, rules);
      // What was skipped or noted is said on stderr, as diagnose says it (one line each,
      // terminal-safe: core::Diagnostic::to_string), not only in the JSON's `skipped`.
      std::string said;
      if (!result) said = fmt::format("culprit scan: {}: {}\n", core::utf8::visible(mine[i].name),
                                      core::utf8::visible(result.error().message));
      else
        for (const auto& p : result->diagnostics)
          if (!o.quiet || p.level == core::DiagLevel::error) said += p.to_string() + "\n";
      culprit::Analysis analysis = result ? std::move(result).value() : culprit::Analysis{};
      // Redacted, the rows are made once every incident is in (below), so that one name is one
      // placeholder across the whole scan.
      if (o.redact) analyses[i] = std::move(analysis);
      else rows[i] = make_row(mine[i], analysis, with_json);
      bytes_done += bytes[i];
      ++done;
      if (show_progress || !said.empty()) {
        std::lock_guard lock(print_mutex);
        if (!said.empty()) fmt::print(stderr, "{}{}", show_progress ? "\r\x1b[K" : "", said);
        if (show_progress) print_progress(done, mine.size(), bytes_done, bytes_total, started);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < workers; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (show_progress) fmt::print(stderr, "\n");
  if (o.redact) {
    // One numbering for the whole scan, in incident order (the same for any --jobs): a node that
    // fails again and again is the same host-N on every row.
    report::Redactor redactor;
    for (const auto& a : analyses) redactor.collect(a.verdict);
    for (size_t i = 0; i < mine.size(); ++i) {
      analyses[i].verdict = redactor.apply(analyses[i].verdict);
      rows[i] = make_row(mine[i], analyses[i], with_json);
      analyses[i] = {};
    }
  }

  int status = 0;
  if (!o.db_path.empty()) {
    std::vector<culprit::ScanIncident> parts;
    for (size_t i = 0; i < mine.size(); ++i)
      parts.push_back({fmt::format("{}.part-{}-{}", o.db_path, ::getpid(), i), mine[i].name, rows[i].verdict, rows[i].json});
    const std::string tmp = fmt::format("{}.tmp-{}", o.db_path, ::getpid());
    std::remove(tmp.c_str());
    if (auto err = culprit::write_scan_database(tmp, parts)) {
      fmt::print(stderr, "culprit scan: {}: {}\n", o.db_path, err->message);
      status = kExitError;
      std::remove(tmp.c_str());
    } else {
      std::error_code ec;
      fs::rename(tmp, o.db_path, ec);
      if (ec) {
        fmt::print(stderr, "culprit scan: {}: {}\n", o.db_path, ec.message());
        status = kExitError;
      }
    }
    for (const auto& p : parts) std::remove(p.db_path.c_str());
  }
  const std::string text = o.format == "json"       ? format_jsonl(rows)
                           : o.format == "markdown" ? format_markdown(rows)
                                                    : format_table(rows);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (auto err = write_file_atomically(o.output, text); !err.empty()) {
    fmt::print(stderr, "culprit scan: {}\n", err);
    return kExitError;
  }
  if (!o.prometheus.empty()) {
    if (auto err = write_file_atomically(o.prometheus, prometheus_text(rows)); !err.empty()) {
      fmt::print(stderr, "culprit scan: {}\n", err);
      return kExitError;
    }
  }
  for (const auto& r : rows)
    if (!r.readable) status = kExitError;
  return path_errors ? kExitError : status;
}

}  // namespace culprit::cli
