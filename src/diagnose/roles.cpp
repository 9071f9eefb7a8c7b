// Role assignment. A pid the job's own logs name is `job`. A GPU holder that is not is
// `foreign` only on positive evidence — it runs another framework than the job, its container
// predates the job, a `ps` listing shows it runs as another user, is stopped, or started before
// the job, or a snapshot lists it still holding after the job's processes died — and `unknown`
// otherwise (confidence drops rather than guessing); its pid missing from the job's known pids is
// never evidence. role_why carries every reason. A holder that is a leftover (leftover.hpp:
// defunct, stopped, an orphaned engine worker, a name nvidia-smi cannot read) is foreign for that
// reason too, and processes.leftover says why. A container runtime or orchestration daemon
// (infrastructure.hpp) is never the job's workload: `foreign`, its why saying what it is.
#include "roles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "culprit/core/job_evidence.hpp"
#include "culprit/core/size.hpp"
#include "culprit/core/time.hpp"
#include "infrastructure.hpp"
#include "leftover.hpp"

namespace culprit::diagnose {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string human_framework(const std::string& f) {
  if (f == "sglang") return "SGLang";
  if (f == "vllm") return "vLLM";
  if (f == "torchrun") return "torchrun";
  if (f == "deepspeed") return "DeepSpeed";
  if (f == "jax") return "JAX";
  if (f == "tensorflow") return "TensorFlow";
  if (f == "ray") return "Ray";
  if (f == "ollama") return "Ollama";
  if (f == "llama.cpp") return "llama.cpp";
  return f;
}

std::string duration(double seconds) {
  if (seconds >= 86400 * 2) return fmt::format("{} days", static_cast<long>(seconds / 86400));
  if (seconds >= 7200) return fmt::format("{} hours", static_cast<long>(seconds / 3600));
  if (seconds >= 120) return fmt::format("{} minutes", static_cast<long>(seconds / 60));
  return fmt::format("{} seconds", static_cast<long>(seconds));
}

/// The job's first sign of life (UTC seconds): the earliest stamped line of the job's own logs
/// (app-log sources), else the earliest event of any kind but plain log lines.
std::optional<double> job_first_ts(store::Database& db) {
  auto own = db.query(
      "SELECT min(e.ts) AS t0 FROM events e JOIN sources s ON s.id = e.source_id "
      "WHERE e.ts IS NOT NULL AND s.format = 'app_log'");
  if (!own.rows.empty() && !own.rows[0]["t0"].is_null()) return own.rows[0]["t0"].as_double();
  auto any = db.query("SELECT min(ts) AS t0 FROM events WHERE ts IS NOT NULL AND kind <> 'log'");
  if (any.rows.empty() || any.rows[0]["t0"].is_null()) return std::nullopt;
  return any.rows[0]["t0"].as_double();
}

/// Reasons from `ps` for holder row `h`: another user than every job process on the host, a
/// stopped state (`T`, `t`), or a start well before the job (its first event, or its processes'
/// own start / elapsed times in ps). Appends human-readable reasons.
void ps_reasons(store::Database& db, const store::Row& h, const std::string& host, std::optional<double> job_t0,
                std::vector<std::string>& reasons) {
  constexpr double kMargin = 300;  // a job's processes start up to minutes before they log
  // The job `culprit run` started has an exact start; ps's lstart is cut to the second, so a
  // holder listed more than a second before it started before it.
  constexpr double kExactMargin = 1;
  const std::string user = h["user"].as_text();
  const std::string state = h["state"].as_text();
  const auto started = h["started"].as_double();
  const auto elapsed = h["elapsed"].as_double();
  auto jobs = db.query_bound("SELECT user, started, elapsed, job_evidence FROM processes WHERE host = ?1 AND role = 'job'",
                             {host});
  std::set<std::string> job_users;
  std::optional<double> job_start, job_elapsed, exact_start;
  for (const auto& j : jobs.rows) {
    if (!j["user"].as_text().empty()) job_users.insert(j["user"].as_text());
    if (auto s = j["started"].as_double(); s && j["job_evidence"].as_text() == core::job_evidence::kCulpritRun)
      exact_start = exact_start ? std::min(*exact_start, *s) : *s;
    if (auto s = j["started"].as_double(); s && (!job_start || *s < *job_start)) job_start = s;
    if (auto e = j["elapsed"].as_double(); e && (!job_elapsed || *e > *job_elapsed)) job_elapsed = e;
  }
  // `ps aux` cuts long user names to 7 characters and a `+` (`svc-infe+`): compare the prefix.
  auto same_user = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    const bool cut_a = !a.empty() && a.back() == '+', cut_b = !b.empty() && b.back() == '+';
    if (cut_a && b.compare(0, a.size() - 1, a, 0, a.size() - 1) == 0) return true;
    return cut_b && a.compare(0, b.size() - 1, b, 0, b.size() - 1) == 0;
  };
  bool known_user = false;
  for (const auto& j : job_users) known_user = known_user || same_user(user, j);
  if (!user.empty() && !job_users.empty() && !known_user)
    reasons.push_back(fmt::format("runs as user {}, the job's processes as {} (ps)", user, fmt::join(job_users, ", ")));
  if (!state.empty() && (state[0] == 'T' || state[0] == 't'))
    reasons.push_back(fmt::format("stopped (ps state {}) while holding GPU memory", state));
  std::optional<double> job_begin = job_t0;
  if (job_start && (!job_begin || *job_start < *job_begin)) job_begin = job_start;
  if (started && exact_start && *started < *exact_start - kExactMargin) {
    reasons.push_back(fmt::format("started at {} (ps), {} before the job `culprit run` started",
                                  core::format_iso(*started).substr(0, 19), duration(*exact_start - *started)));
  } else if (started && job_begin && *started < *job_begin - kMargin) {
    reasons.push_back(fmt::format("started by {} (ps), {} before the job's first sign of life",
                                  core::format_iso(*started).substr(0, 16), duration(*job_begin - *started)));
  } else if (elapsed && job_elapsed && *elapsed > *job_elapsed + kMargin) {
    reasons.push_back(fmt::format("had run {} when ps listed it, the job's processes {} — it predates the job",
                                  duration(*elapsed), duration(*job_elapsed)));
  }
}

/// Whether holder `pid` on `host` was listed holding GPU memory by a snapshot taken after the
/// job's processes on that host had died, and if so the reason, appended to `reasons`. The end
/// is positive evidence only, from the job's own output (app-log sources): an `engine_failure`
/// (an engine's process died; SGLang's launcher got SIGQUIT from its scheduler), a `signal_exit`,
/// or a launcher's record of a worker's exit code or of the signal it sent it (fields `exitcode`,
/// `signal_name`: torchrun's `failed (exitcode: 1)` and `closing signal SIGTERM`), dated, the
/// latest such end at least kSettle before the snapshot (a dying process frees its memory within
/// seconds). Compute holders only (type C / C+G): a display server outlives every job and is
/// nobody's culprit.
bool outlived_job(store::Database& db, const std::string& host, std::int64_t pid, std::vector<std::string>& reasons) {
  constexpr double kSettle = 5;
  auto r = db.query_bound(
      "WITH seen AS (SELECT max(g.ts) AS ts, max(gp.mem_used) AS bytes FROM gpu_snapshots g"
      "  JOIN gpu_processes gp ON gp.snapshot_id = g.id WHERE g.host = ?1 AND gp.pid = CAST(?2 AS INTEGER)"
      "  AND g.ts IS NOT NULL AND instr(gp.type, 'C') > 0),"
      " ended AS (SELECT e.ts, s.name AS source, e.line FROM events e JOIN sources s ON s.id = e.source_id, seen"
      "  WHERE e.host = ?1 AND e.ts IS NOT NULL AND e.ts + " + std::to_string(kSettle) + " <= seen.ts"
      "  AND s.format = 'app_log' AND (e.pid IS NULL OR e.pid <> CAST(?2 AS INTEGER))"
      "  AND (e.kind IN ('engine_failure', 'signal_exit') OR json_extract(e.fields, '$.exitcode') IS NOT NULL"
      "       OR json_extract(e.fields, '$.signal_name') IS NOT NULL)"
      "  ORDER BY e.ts DESC LIMIT 1)"
      " SELECT seen.ts AS seen_ts, seen.bytes AS bytes, ended.ts AS end_ts, ended.source, ended.line"
      " FROM seen, ended",
      {host, std::to_string(pid)});
  if (r.rows.empty()) return false;
  const auto& row = r.rows[0];
  // The end is cited where the job's output says it (file:line), not quoted: its line may be long.
  reasons.push_back(fmt::format("still held {} at {}, after the job's processes had died ({}, {}:{})",
                                row["bytes"].as_int() ? core::format_size(*row["bytes"].as_int()) : std::string("GPU memory"),
                                core::format_iso(*row["seen_ts"].as_double()).substr(11, 8),
                                core::format_iso(*row["end_ts"].as_double()).substr(11, 8), row["source"].as_text(),
                                row["line"].as_int().value_or(0)));
  return true;
}

}  // namespace

std::string framework_of(std::string_view text) {
  const std::string t = lower(text);
  if (t.find("sglang") != std::string::npos) return "sglang";
  if (t.find("vllm") != std::string::npos) return "vllm";
  if (t.find("deepspeed") != std::string::npos) return "deepspeed";
  if (t.find("torchrun") != std::string::npos || t.find("torch.distributed.elastic") != std::string::npos ||
      t.find("torch/distributed/elastic") != std::string::npos)
    return "torchrun";
  if (t.find("jaxlib") != std::string::npos || t.find("xla") != std::string::npos) return "jax";
  if (t.find("tensorflow") != std::string::npos) return "tensorflow";
  if (t.find("ollama") != std::string::npos) return "ollama";
  if (t.find("llama.cpp") != std::string::npos || t.find("llama-server") != std::string::npos) return "llama.cpp";
  if (t.find("ray::") != std::string::npos || t.find("raylet") != std::string::npos) return "ray";
  return {};
}

std::string assign_roles(store::Database& db) {
  if (auto err = db.exec("UPDATE processes SET role='job', role_why='named by the job''s own logs (' || job_evidence || ')'"
                         " WHERE job_evidence <> ''");
      !err.empty())
    return err;

  // Infrastructure by name, in one pass over the names (a task table may add 10^5 processes).
  {
    std::vector<std::string> exact, like;
    for (const auto n : infrastructure_names()) exact.push_back(store::sql_literal(n));
    for (const auto n : infrastructure_prefixes())
      like.push_back(fmt::format("substr(j.value, 1, {}) = {}", n.size(), store::sql_literal(n)));
    auto infra = db.query(fmt::format(
        "SELECT DISTINCT p.host, p.pid, j.value AS name FROM processes p, json_each(p.names) j"
        " WHERE p.role <> 'job' AND (j.value IN ({}) OR {})",
        fmt::join(exact, ", "), fmt::join(like, " OR ")));
    if (!infra.error.empty()) return infra.error;
    for (const auto& row : infra.rows)
      db.exec(fmt::format("UPDATE processes SET role='foreign', role_why={} WHERE host={} AND pid={} AND role <> 'job'",
                          store::sql_literal(fmt::format("infrastructure: {}, not the job's workload",
                                                         infrastructure_what(row["name"].as_text()))),
                          store::sql_literal(row["host"].as_text()), row["pid"].as_int().value_or(0)));
  }

  // The job's frameworks: what the job's own logs and failures talk about, per host.
  std::map<std::string, std::set<std::string>> job_frameworks;  // host -> frameworks ('' = any host)
  // One pass over the events (a join on the numbered first 50 of each source), not a scan per
  // source: a paste of 10^4 prompt segments has 10^4 sources and a command event in each.
  auto sources = db.query(
      "WITH ev AS MATERIALIZED (SELECT source_id, message || ' ' || fields AS t,"
      " row_number() OVER (PARTITION BY source_id ORDER BY id) AS rn FROM events WHERE kind <> 'log')"
      " SELECT s.host, s.name, group_concat(ev.t, ' ') AS text FROM sources s"
      " LEFT JOIN ev ON ev.source_id = s.id AND ev.rn <= 50 WHERE s.format = 'app_log' GROUP BY s.id");
  for (const auto& row : sources.rows) {
    const std::string f = framework_of(row["name"].as_text() + " " + row["text"].as_text());
    if (f.empty()) continue;
    job_frameworks[row["host"].as_text()].insert(f);
    job_frameworks[""].insert(f);
  }
  // Containers that mention a framework, per host.
  auto containers = db.query("SELECT host, name, image, command, status, up_seconds FROM containers");
  // The job's age: from its first event to its last (a container up longer predates it).
  auto span = db.query("SELECT min(ts) AS t0, max(ts) AS t1 FROM events WHERE ts IS NOT NULL AND kind <> 'log'");
  std::optional<double> job_age;
  if (!span.rows.empty() && !span.rows[0]["t0"].is_null())
    job_age = span.rows[0]["t1"].as_double().value_or(0) - span.rows[0]["t0"].as_double().value_or(0);

  const std::optional<double> job_t0 = job_first_ts(db);
  // GPU holders (a snapshot lists them), and processes re-parented to init that may be an engine
  // worker left behind (leftover.hpp: its name says it held a GPU).
  // One scan of processes (a kernel OOM's task table can add 10^5 rows) against the listed pids.
  auto holders = db.query(
      "WITH listed AS (SELECT DISTINCT g.host, gp.pid FROM gpu_snapshots g JOIN gpu_processes gp ON gp.snapshot_id = g.id) "
      "SELECT p.host, p.pid, p.names, p.role, p.container, p.cmdline, p.user, p.state, p.started, p.elapsed, p.ppid, "
      "l.pid IS NOT NULL AS gpu_listed, "
      "(SELECT json_extract(q.names, '$[0]') FROM processes q WHERE q.host = p.host AND q.pid = 1) AS pid1, "
      "(SELECT json_extract(e.fields, '$.driver_frame') FROM events e WHERE e.host = p.host AND e.pid = p.pid "
      " AND e.kind = 'process_stack' AND json_extract(e.fields, '$.driver_frame') IS NOT NULL LIMIT 1) AS driver_frame "
      "FROM processes p LEFT JOIN listed l ON l.host = p.host AND l.pid = p.pid "
      "WHERE p.role <> 'job' AND (l.pid IS NOT NULL OR p.ppid = 1)");
  if (!holders.error.empty()) return holders.error;
  for (const auto& h : holders.rows) {
    const std::string host = h["host"].as_text();
    const auto pid = h["pid"].as_int().value_or(0);
    const std::string names = h["names"].as_text();
    LeftoverFacts facts;
    auto name_rows = db.query_bound("SELECT value AS n FROM json_each(?1)", {names});  // prepared once
    for (const auto& n : name_rows.rows) facts.names.push_back(n["n"].as_text());
    facts.cmdline = h["cmdline"].as_text();
    facts.state = h["state"].as_text();
    facts.ppid = h["ppid"].as_int();
    facts.gpu_listed = h["gpu_listed"].as_int().value_or(0) != 0;
    if (!h["pid1"].is_null()) facts.pid1_name = h["pid1"].as_text();
    facts.driver_frame = h["driver_frame"].as_text();
    const std::vector<std::string> leftover = leftover_reasons(facts);
    if (!facts.gpu_listed && leftover.empty()) continue;  // not a GPU holder: its role stays as it is
    std::vector<std::string> reasons;
    std::string container;
    const std::string fw = framework_of(names + " " + h["cmdline"].as_text());
    const auto& jobs_here = job_frameworks.count(host) ? job_frameworks[host] : job_frameworks[""];
    // Reasons that prove the holder is not the job's; a note (the container it runs in) only
    // says where it is. "Its pid is not among the job's known pids" is never a reason: the
    // inputs rarely name every process of a job.
    bool proven = false;
    if (!fw.empty() && !jobs_here.empty() && !jobs_here.count(fw)) {
      proven = true;
      std::vector<std::string> job_names;
      for (const auto& j : jobs_here) job_names.push_back(human_framework(j));
      reasons.push_back(fmt::format("a {} process, while the job runs {}", human_framework(fw),
                                    fmt::join(job_names, "/")));
    }
    // Link to a container that runs the same framework on this host (exactly one).
    const store::Row* match = nullptr;
    int matches = 0;
    for (const auto& c : containers.rows) {
      if (c["host"].as_text() != host) continue;
      const std::string cf = framework_of(c["name"].as_text() + " " + c["image"].as_text() + " " + c["command"].as_text());
      if (!fw.empty() && cf == fw) {
        match = &c;
        ++matches;
      }
    }
    if (match && matches == 1) {
      container = (*match)["name"].as_text();
      std::string why = fmt::format("runs in container {}", container);
      const auto up = (*match)["up_seconds"].as_double();
      if (up && job_age && *up > *job_age + 60) {
        why += fmt::format(", up {} — it predates the job", duration(*up));
        proven = true;
      } else {
        why += fmt::format(" ({})", (*match)["status"].as_text());
      }
      reasons.push_back(why);
    }
    // What a `ps` listing says (another user, stopped, started before the job): each is a
    // reason on its own.
    const std::size_t before_ps = reasons.size();
    ps_reasons(db, h, host, job_t0, reasons);
    for (const auto& l : leftover)  // defunct, orphaned, unnamed (stopped is one of ps_reasons too)
      if (std::find(reasons.begin(), reasons.end(), l) == reasons.end()) reasons.push_back(l);
    proven = proven || reasons.size() > before_ps;
    // Still holding after the job's processes died (a snapshot taken after the job's end on this
    // host, which the job's own output proves: an engine's process died, a process died by a
    // signal): the job's memory went with them, so what is still held is another program's.
    proven = outlived_job(db, host, pid, reasons) || proven;
    const std::string role = proven ? "foreign" : "unknown";
    const std::string why = proven ? fmt::format("{}", fmt::join(reasons, "; "))
                                   : fmt::format("holds GPU memory; no log says whose it is{}",
                                                 reasons.empty() ? std::string() : fmt::format(" ({})", fmt::join(reasons, "; ")));
    db.exec(fmt::format("UPDATE processes SET role={}, role_why={}, leftover={}, "
                        "container=CASE WHEN container='' THEN {} ELSE container END WHERE host={} AND pid={}",
                        store::sql_literal(role), store::sql_literal(why),
                        store::sql_literal(fmt::format("{}", fmt::join(leftover, "; "))), store::sql_literal(container),
                        store::sql_literal(host), pid));
  }
  return {};
}

}  // namespace culprit::diagnose
