// The incident pipeline. The timeline is closed before returning, so a --db file is complete.
#include "api/incident.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "api/job_end.hpp"
#include "culprit/api/snapshot_manifest.hpp"
#include "culprit/core/job_evidence.hpp"

#include "culprit/diagnose/engine.hpp"
#include "culprit/diagnose/report_data.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/input/reader.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/store/hosts.hpp"
#include "culprit/store/timeline.hpp"

namespace culprit::api {
namespace {

/// The name a source is listed under: `culprit run`'s samples of one item (`dir/sample-0007-
/// meminfo.txt`, one file per sample, hundreds in a long run) as one, `dir/sample-*-meminfo.txt`.
std::string listed_name(const std::string& name) {
  const auto base = name.find_last_of('/') + 1;  // npos + 1 == 0: no folder
  const std::string_view file = std::string_view(name).substr(base);
  if (file.size() > 12 && file.substr(0, 7) == "sample-" && file[11] == '-' &&
      std::all_of(file.begin() + 7, file.begin() + 11, [](char c) { return c >= '0' && c <= '9'; }))
    return name.substr(0, base) + "sample-*-" + std::string(file.substr(12));
  return name;
}

/// One entry per source name and host (a paste's segments together), in input order: its
/// formats in order of appearance and the one with the most lines as `format`; the clock id of
/// its largest stamped segment (store/clock.cpp); the host's clock sentence as `clock_note`.
void add_sources(store::Database& db, diagnose::Verdict& v) {
  // The columns by place (kName…): a folder of small files is thousands of rows, and reading
  // each cell by name and copying it was most of what this cost.
  auto rows = db.query(
      "SELECT s.name, s.host, s.format, s.lines, s.bytes, s.clock, s.host_from,"
      " coalesce(h.clock_method, '') AS clock_note FROM sources s LEFT JOIN hosts h ON h.name = s.host ORDER BY s.id");
  enum Column : std::size_t { kName, kHost, kFormat, kLines, kBytes, kClock, kHostFrom, kClockNote, kColumns };
  struct Largest {
    std::int64_t format_lines = -1, clock_lines = -1;
  };
  std::unordered_map<std::string, std::size_t> index;  // listed name '\n' host -> v.sources
  std::vector<Largest> largest;
  const std::size_t first = v.sources.size();
  std::unordered_set<std::string> file_names;  // file '\n' host seen: a sample series counts its files
  std::string key;
  for (auto& r : rows.rows) {
    if (r.values.size() != kColumns) continue;
    const std::string& file = r.values[kName].s;
    const std::string& host = r.values[kHost].s;
    const std::string name = listed_name(file);
    key.assign(name).append(1, '\n').append(host);
    auto [it, fresh] = index.try_emplace(key, v.sources.size());
    if (fresh) {
      diagnose::SourceSummary s;
      s.name = name;
      s.host = host;
      s.clock_note = std::move(r.values[kClockNote].s);
      v.sources.push_back(std::move(s));
      largest.emplace_back();
    }
    auto& s = v.sources[it->second];
    if (name != file && file_names.insert(file + '\n' + host).second && !fresh) ++s.files;
    auto& big = largest[it->second - first];
    const std::int64_t lines = r.values[kLines].as_int().value_or(0);
    s.lines += lines;
    s.bytes += r.values[kBytes].as_int().value_or(0);
    std::string& format = r.values[kFormat].s;
    if (std::find(s.formats.begin(), s.formats.end(), format) == s.formats.end()) s.formats.push_back(format);
    if (lines > big.format_lines) s.format = std::move(format), big.format_lines = lines;
    std::string& clock = r.values[kClock].s;
    if (!clock.empty() && clock != store::kNoSourceClock && lines > big.clock_lines) s.clock = std::move(clock), big.clock_lines = lines;
    // Segments of one paste that got their hosts differently: `launcher line, prompt`.
    const std::string& from = r.values[kHostFrom].s;
    if (!from.empty() && (", " + s.host_from + ", ").find(", " + from + ", ") == std::string::npos)
      s.host_from += (s.host_from.empty() ? "" : ", ") + from;
  }
  // A host nothing of the source's own named was the incident's one host (align_clocks).
  for (std::size_t i = first; i < v.sources.size(); ++i) {
    auto& s = v.sources[i];
    if (!s.host.empty() && s.host_from.empty()) s.host_from = std::string(input::host_from::kOnlyHost);
  }
}

/// The findings go into the timeline too, for `culprit query`.
void save_findings(store::Database& db, const diagnose::Verdict& v) {
  std::string error;
  auto st = db.prepare(
      "INSERT INTO findings(rule,verdict,confidence,host,ts,culprit_host,culprit_pid,culprit_name,culprit_role,"
      "summary,evidence,echo) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
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
      ev += fmt::format("{{\"source\":{},\"line\":{},\"text\":{}}}", report::json_quote(f.evidence[i].source),
                        f.evidence[i].line, report::json_quote(f.evidence[i].text));
    }
    st->bind(11, ev + "]");
    st->bind(12, std::int64_t{f.echo ? 1 : 0});
    st->step();
  }
}

/// The hook that takes culprit's own snapshot manifests out of the input: the job `culprit run`
/// started is a `job` process, and how it ended a `job_end` event in a source of its own (the
/// manifest, cited at the job's record); the commands that did not answer are kept for the sources.
struct ManifestReader {
  std::vector<diagnose::SourceSummary> unanswered;

  bool operator()(const input::Source& src, core::EventSink& sink) {
    if (!is_manifest_name(src.name)) return false;
    const auto m = parse_manifest(src.text);
    if (!m) return false;
    const std::string host = src.host.empty() ? m->host : src.host;
    if (auto end = job_end_event(*m, src.name, src.text, host, 0)) {
      core::SourceInfo info;
      info.name = src.name;
      info.host = host;
      info.host_from = src.host.empty() ? std::string(input::host_from::kContent) : src.host_from;
      info.format = ingest::format::kCulpritSnapshot;
      info.bytes = static_cast<std::int64_t>(src.text.size());
      info.lines = static_cast<std::int64_t>(text::count_newlines(src.text));
      info.origin = src.origin;
      end->source_id = sink.add_source(info);
      sink.add_event(*end);
    }
    if (m->job) {
      core::ProcessSighting s;
      s.host = host;
      s.pid = m->job->pid;
      if (!m->job->command.empty()) {
        const std::string& exe = m->job->command[0];
        s.name = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
        for (const auto& a : m->job->command) s.cmdline += (s.cmdline.empty() ? "" : " ") + a;
      }
      s.user = m->job->user;
      if (m->job->started > 0) s.started = s.ts = m->job->started;
      s.job = true;
      s.evidence = core::job_evidence::kCulpritRun;
      sink.add_process(s);
    }
    std::set<std::string> named;  // one entry per tool: its first command that did not answer
    for (const auto& t : m->tools) {
      if (t.status == "ok" || !named.insert(t.tool).second) continue;
      diagnose::SourceSummary u;
      u.name = t.detail.empty() ? t.tool : t.tool + " — " + t.detail;
      u.host = host;
      u.format = t.status;
      u.formats = {t.status};
      u.host_from = src.name;
      unanswered.push_back(std::move(u));
    }
    return true;
  }
};

}  // namespace

IncidentResult run_incident(const SourceReader& read, const rules::RuleSet& rules, const Options& options) {
  IncidentResult result;
  std::string error;
  auto db = options.db_path.empty() ? store::Database::open_scratch(error) : store::Database::open(options.db_path, error);
  if (!db) {
    result.ok = false;
    result.problems.push_back({core::DiagLevel::error, "db", options.db_path, error});
    return result;
  }
  if (auto err = db->ensure_schema(); !err.empty()) {
    result.ok = false;
    result.problems.push_back({core::DiagLevel::error, "db", options.db_path, err});
    return result;
  }
  ManifestReader manifests;
  store::HostsNamed hosts_named;
  {
    // Sources stream: each is ingested as soon as it is read and its text freed, so memory
    // holds one source at a time, or `threads` + 1 big ones (plus the timeline).
    store::TimelineWriter writer(*db);
    ingest::EventBudget budget;
    budget.max = options.max_events;
    ingest::IngestOptions ingest_options;
    ingest_options.year_hint = options.year;
    ingest_options.max_line_bytes = static_cast<std::size_t>(options.max_line_bytes);
    ingest_options.budget = &budget;
    const bool in_order = options.max_events > 0;  // the event budget counts in input order
    const unsigned threads = in_order ? 1u : options.threads;
    core::CoreShare* const share = in_order ? nullptr : options.shared_cores.get();
    result.sources = ingest_sources(read, rules.signals, ingest_options, threads, share, writer, result.problems,
                                    std::ref(manifests));
    if (auto err = writer.finish(); !err.empty())
      result.problems.push_back({core::DiagLevel::error, "store", "", err});
    for (const auto& r : writer.restated_events())
      result.problems.push_back(
          {core::DiagLevel::note, "timeline-restated", fmt::format("{}:{}", r.input, r.first_line),
           fmt::format("{} events from here on restate a fact ({}) already stated {} times alike by the same "
                       "process; counted, not stored in the timeline",
                       r.events, fmt::join(r.rules, ", "), store::kRestatedKept)});
    hosts_named = writer.hosts_named();
  }
  // A folder's name gives way to the one host its own lines name (never another folder's).
  if (auto err = store::settle_folder_hosts(*db, hosts_named); !err.empty())
    result.problems.push_back({core::DiagLevel::error, "hosts", "", err});
  store::ClockOptions clock_options;
  clock_options.default_year = options.year;
  clock_options.tz = options.tz;
  clock_options.boot_times = options.boot_times;
  if (auto err = store::align_clocks(*db, clock_options); !err.empty())
    result.problems.push_back({core::DiagLevel::error, "clock", "", err});
  result.verdict = diagnose::diagnose(*db, rules, result.problems, options.rule_timeout_seconds);
  if (options.report_details) {
    add_sources(*db, result.verdict);
    // Snapshot commands that did not answer come first: the list of sources may be cut.
    result.verdict.sources.insert(result.verdict.sources.begin(), manifests.unanswered.begin(),
                                  manifests.unanswered.end());
    diagnose::add_report_data(*db, result.verdict);
  }
  for (const auto& p : result.problems)
    if (p.code.rfind("input-", 0) == 0) result.verdict.skipped.push_back(p.to_string());
  // Only a timeline kept in a file is queried again; an in-memory one is emptied for the next.
  if (!options.db_path.empty()) save_findings(*db, result.verdict);
  store::Database::keep_as_spare(std::move(db));  // the next incident on this thread starts from it
  return result;
}

}  // namespace culprit::api
