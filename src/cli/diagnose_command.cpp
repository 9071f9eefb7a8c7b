// `culprit diagnose`: read inputs -> ingest into the timeline -> align clocks -> diagnose ->
// render. Bad inputs are reported on stderr and skipped; the run goes on with the rest.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/rule_loading.hpp"
#include "culprit/diagnose/engine.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/input/reader.hpp"
#include "culprit/report/renderer.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/timeline.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace {

constexpr const char* kHelpHeader = R"(Usage: culprit [diagnose] [options] INPUT...

INPUT is a log file, a folder (recursive; a folder of per-node folders such as spark-a/ and
spark-b/ gives each folder's files that host), an archive or compressed file (.tar, .tar.gz,
.tgz, .tar.zst, .zip, .gz, .zst, .xz), or - for standard input (a terminal paste: it is split at
shell prompts like `user@host:~$ cmd`, and `ssh user@host …` names the host of the output).

Exit codes: 0 a verdict was reached, 1 nothing known was found, 2 errors.

)";

struct Options {
  std::vector<std::string> inputs, rule_dirs, excludes;
  std::string format = "text", db, host, output, color = "auto";
  bool json = false, no_prefilter = false, quiet = false;
  int year = 0;
};

bool use_color(const Options& o) {
  if (o.color == "always") return true;
  if (o.color == "never" || !o.output.empty()) return false;
  if (std::getenv("NO_COLOR")) return false;
  return ::isatty(STDOUT_FILENO) != 0;
}

void add_sources(store::Database& db, diagnose::Verdict& v) {
  auto rows = db.query(
      "SELECT s.name, s.host, group_concat(DISTINCT s.format) AS format, sum(s.lines) AS lines, sum(s.bytes) AS bytes,"
      " coalesce(h.clock_method, '') AS clock FROM sources s LEFT JOIN hosts h ON h.name = s.host"
      " GROUP BY s.name, s.host ORDER BY min(s.id)");
  for (const auto& r : rows.rows)
    v.sources.push_back({r["name"].as_text(), r["host"].as_text(), r["format"].as_text(), r["clock"].as_text(),
                         r["lines"].as_int().value_or(0), r["bytes"].as_int().value_or(0)});
}

void save_findings(store::Database& db, const diagnose::Verdict& v) {
  std::string error;
  auto st = db.prepare(
      "INSERT INTO findings(rule,verdict,confidence,host,ts,culprit_host,culprit_pid,culprit_name,culprit_role,"
      "summary,evidence) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
      error);
  if (!st) return;
  for (const auto& f : v.findings) {
    st->reset();
    st->bind(1, f.rule);
    st->bind(2, f.verdict);
    st->bind(3, std::string_view(diagnose::to_string(f.confidence)));
    st->bind(4, f.host);
    st->bind_opt(5, f.ts);
    if (f.culprit) {
      st->bind(6, f.culprit->host);
      st->bind_opt(7, f.culprit->pid);
      st->bind(8, f.culprit->name);
      st->bind(9, f.culprit->role);
    } else {
      for (int i = 6; i <= 9; ++i) st->bind_null(i);
    }
    st->bind(10, f.summary);
    std::string ev = "[";
    for (size_t i = 0; i < f.evidence.size(); ++i) {
      if (i) ev += ",";
      ev += fmt::format("{{\"source\":\"{}\",\"line\":{}}}", f.evidence[i].source, f.evidence[i].line);
    }
    st->bind(11, ev + "]");
    st->step();
  }
}

}  // namespace

int run_diagnose(const std::vector<std::string>& args) {
  Options o;
  po::options_description opts("Options");
  opts.add_options()
      ("help,h", "show this help")
      ("format,f", po::value(&o.format)->default_value("text"), "output format: text | markdown | json")
      ("json", po::bool_switch(&o.json), "shorthand for --format json")
      ("output,o", po::value(&o.output), "write the report to FILE (atomically) instead of stdout")
      ("db", po::value(&o.db), "keep the timeline in this SQLite FILE (default: in memory)")
      ("host", po::value(&o.host), "host name for inputs that name none")
      ("rules", po::value(&o.rule_dirs)->composing(), "also load the *.toml rules under DIR (repeatable)")
      ("exclude", po::value(&o.excludes)->composing(), "skip files whose name matches GLOB (repeatable)")
      ("year", po::value(&o.year), "year for time stamps that carry none, when no input gives one")
      ("color", po::value(&o.color)->default_value("auto"), "colour the text report: auto | always | never")
      ("no-prefilter", po::bool_switch(&o.no_prefilter), "run every rule's regex on every line (slower; for checks)")
      ("quiet,q", po::bool_switch(&o.quiet), "do not print skipped-input notes on stderr");
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
    std::cout << kHelpHeader << opts;
    return 0;
  }
  if (o.json) o.format = "json";
  const auto format = report::parse_format(o.format);
  if (!format) {
    fmt::print(stderr, "culprit: unknown --format '{}' (text, markdown or json)\n", o.format);
    return kExitError;
  }
  if (o.inputs.empty()) {
    fmt::print(stderr, "culprit: no INPUT given (a file, a folder, or - for standard input)\n");
    return kExitError;
  }

  auto loaded = load_rule_set(o.rule_dirs);
  bool rule_errors = false;
  for (const auto& p : loaded.problems) {
    fmt::print(stderr, "{}\n", p.to_string());
    rule_errors |= p.level == core::DiagLevel::error;
  }
  if (rule_errors) {
    fmt::print(stderr, "culprit: the rules have errors (see above); fix them or run `culprit rules check`\n");
    return kExitError;
  }
  if (o.no_prefilter) loaded.rules.signals.set_prefilter(false);

  // The timeline: in memory, or a temporary file renamed into place at the end.
  std::string db_target = o.db.empty() ? ":memory:" : fmt::format("{}.tmp-{}", o.db, ::getpid());
  if (!o.db.empty() && std::filesystem::exists(o.db)) {
    std::string err;
    auto existing = store::Database::open(o.db, err);
    if (existing) {
      auto v = existing->query("PRAGMA user_version");
      const auto version = v.rows.empty() ? 0 : v.rows[0].values[0].as_int().value_or(0);
      if (version != store::Database::schema_version()) {
        fmt::print(stderr, "culprit: {} exists and is not a culprit timeline of this version (schema {}); "
                           "refusing to overwrite it — choose another --db\n", o.db, version);
        return kExitError;
      }
    }
  }
  std::remove(db_target.c_str());
  std::string error;
  auto db = store::Database::open(db_target, error);
  if (!db) {
    fmt::print(stderr, "culprit: cannot open the timeline {}: {}\n", o.db, error);
    return kExitError;
  }
  if (auto err = db->ensure_schema(); !err.empty()) {
    fmt::print(stderr, "culprit: {}\n", err);
    return kExitError;
  }

  core::Diagnostics problems;
  input::ReadOptions read_options;
  read_options.default_host = o.host;
  read_options.excludes = o.excludes;
  auto sources = input::read_inputs(o.inputs, read_options, problems);
  diagnose::Verdict verdict;
  {
    store::TimelineWriter writer(*db);
    ingest::IngestOptions ingest_options;
    ingest_options.year_hint = o.year;
    for (const auto& src : sources) {
      ingest::IngestInput in{src.name, src.host, src.origin, src.text};
      ingest::ingest(in, loaded.rules.signals, writer, problems, ingest_options);
    }
    if (auto err = writer.finish(); !err.empty()) problems.push_back({core::DiagLevel::error, "store", "", err});
  }
  store::ClockOptions clock_options;
  clock_options.default_year = o.year;
  if (auto err = store::align_clocks(*db, clock_options); !err.empty())
    problems.push_back({core::DiagLevel::error, "clock", "", err});
  verdict = diagnose::diagnose(*db, loaded.rules, problems);
  add_sources(*db, verdict);
  for (const auto& p : problems)
    if (p.code.rfind("input-", 0) == 0) verdict.skipped.push_back(p.to_string());
  save_findings(*db, verdict);
  db.reset();
  if (!o.db.empty()) {
    std::error_code ec;
    std::filesystem::rename(db_target, o.db, ec);
    if (ec) problems.push_back({core::DiagLevel::error, "db", o.db, ec.message()});
  }

  bool errors = false;
  for (const auto& p : problems) {
    if (p.level == core::DiagLevel::error) errors = true;
    if (!o.quiet || p.level == core::DiagLevel::error) fmt::print(stderr, "{}\n", p.to_string());
  }
  report::RenderOptions render_options;
  render_options.color = *format == report::Format::text && use_color(o);
  const std::string text = report::render(verdict, *format, render_options);
  if (o.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (auto err = write_file_atomically(o.output, text); !err.empty()) {
    fmt::print(stderr, "culprit: {}\n", err);
    return kExitError;
  }
  if (sources.empty()) return kExitError;
  if (verdict.verdict == diagnose::verdict::kUnknown) return errors ? kExitError : kExitNothing;
  return kExitVerdict;
}

}  // namespace culprit::cli
