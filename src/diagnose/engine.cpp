// The diagnosis: roles, every [[diagnosis]] query, findings, then the verdict — the root
// failure (earliest cause on aligned clocks, priority breaking ties), its echoes on other
// hosts and ranks, the culprit and the memory ledger a diagnosis names (`ledger = "gpu"` /
// `"host"`); messages are rendered from the query's columns and the engine's phrases.
#include "culprit/diagnose/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "culprit/text/exception_line.hpp"
#include "advice.hpp"
#include "host_ledger.hpp"
#include "load.hpp"
#include "phrases.hpp"
#include "placement_load.hpp"

namespace culprit::diagnose {
namespace {

/// Rules whose findings are consequences of another failure unless nothing else failed.
bool echo_rule(const Finding& f) { return f.priority < 40; }

std::vector<std::int64_t> parse_ids(const std::string& text) {
  std::vector<std::int64_t> ids;
  std::int64_t cur = 0;
  bool any = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + (c - '0');
      any = true;
    } else if (any) {
      ids.push_back(cur);
      cur = 0;
      any = false;
    }
  }
  if (any) ids.push_back(cur);
  return ids;
}

std::vector<Evidence> load_evidence(store::Database& db, const std::vector<std::int64_t>& ids) {
  std::vector<Evidence> out;
  for (auto id : ids) {
    auto r = db.query_bound(
        // Evidence cites the line its text is: a block's event (a kernel OOM report) names it in
        // `message_line`, a traceback is cited at its exception line. One statement for every id
        // (bound, so it is prepared once).
        "SELECT e.id, s.name, coalesce(json_extract(e.fields, '$.message_line'), CASE WHEN e.kind = 'traceback'"
        " THEN json_extract(e.fields, '$.exc_line') END, e.line) AS line, e.message, e.host, e.ts"
        " FROM events e JOIN sources s ON s.id = e.source_id"
        " WHERE e.id = CAST(?1 AS INTEGER)",
        {std::to_string(id)});
    if (r.rows.empty()) continue;
    const auto& row = r.rows[0];
    out.push_back({row["name"].as_text(), row["line"].as_int().value_or(0), row["message"].as_text(),
                   row["host"].as_text(), row["ts"].as_double(), id});
  }
  return out;
}

/// What was considered and why it is not the answer: each other verdict either had no evidence
/// (say what was looked for) or only findings that follow the root.
void add_ruled_out(Verdict& v) {
  struct Kind {
    const char* verdict;
    const char* name;
    const char* looked_for;
  };
  static const Kind kKinds[] = {
      {verdict::kCudaOom, "CUDA OOM", "no allocator or CUDA out-of-memory error, no failed start-up memory check"},
      {verdict::kKernelOom, "host kernel OOM", "no kernel OOM report or kill line, no unexplained SIGKILL"},
      {verdict::kCgroupOom, "cgroup / container OOM", "no memory cgroup OOM, no OOMKilled container or Slurm oom_kill"},
      {verdict::kUserspaceOomKill, "user-space OOM killer", "no systemd-oomd, earlyoom or Ray memory-monitor kill"},
      {verdict::kHostAllocFail, "host allocation failure", "no refused host allocation (ENOMEM, MemoryError, /dev/shm)"},
      {verdict::kNotOom, "not an OOM (GPU fault, communication failure, crash)",
       "no Xid, CUDA error, NCCL timeout, fatal signal or uncaught exception"},
  };
  for (const auto& k : kKinds) {
    if (v.verdict == k.verdict) continue;
    const Finding* seen = nullptr;
    for (const auto& f : v.findings)
      if (f.verdict == k.verdict) { seen = &f; break; }
    if (!seen) {
      v.ruled_out.push_back(fmt::format("{}: {} in the inputs", k.name, k.looked_for));
    } else {
      const bool echo = std::any_of(v.echoes.begin(), v.echoes.end(),
                                    [&](const Finding& e) { return e.event_id == seen->event_id; });
      v.ruled_out.push_back(fmt::format("{}: {} on {} {}", k.name, seen->title, seen->host.empty() ? "?" : seen->host,
                                        echo ? "follows the root failure (an echo)"
                                             : "is weaker or later evidence than the root failure"));
    }
  }
}

/// Both name one process: the same host and pid.
bool same_process(const std::optional<ProcessRef>& a, const std::optional<ProcessRef>& b) {
  return a && b && a->pid && a->pid == b->pid && a->host == b->host;
}

double ts_or_max(const Finding& f) { return f.ts ? *f.ts : std::numeric_limits<double>::infinity(); }

/// `b`'s first evidence line is a reprint of one of `a`'s lines: equal, or inside it (a logger's or
/// a check macro's prefix around the same message), once the label a re-raise puts before it is
/// set aside (`Error: `, `RuntimeError: `: Ollama's client prints the server's error so). 30
/// bytes at least, so that a short common phrase is no reprint.
bool reprinted(const Finding& a, const Finding& b) {
  if (b.evidence.empty()) return false;
  std::string type, message;
  const std::string& text = text::split_exception_line(b.evidence[0].text, type, message) ? message : b.evidence[0].text;
  if (text.size() < 30) return false;
  return std::any_of(a.evidence.begin(), a.evidence.end(),
                     [&](const Evidence& e) { return e.text.find(text) != std::string::npos; });
}

/// Both findings' first evidence (their own event) lies in the same source.
bool same_source(const Finding& a, const Finding& b) {
  return !a.evidence.empty() && !b.evidence.empty() && a.evidence[0].source == b.evidence[0].source;
}

/// The event kinds the timeline holds.
std::set<std::string> event_kinds(store::Database& db) {
  std::set<std::string> kinds;
  for (const auto& row : db.query(store::distinct_sql("events", "kind")).rows) kinds.insert(row.values[0].as_text());
  return kinds;
}

/// The (kind, rule) pairs of the timeline's events: one scan of events_kind (it holds both).
std::set<std::pair<std::string, std::string>> event_kind_rules(store::Database& db) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& row : db.query("SELECT DISTINCT kind, rule FROM events").rows)
    pairs.emplace(row.values[0].as_text(), row.values[1].as_text());
  return pairs;
}

/// What a diagnosis starts from that the timeline holds: its kinds, and the kinds' rules.
class Present {
 public:
  explicit Present(store::Database& db) : db_(db), kinds_(event_kinds(db)) {}
  /// Whether a diagnosis can yield a row: an event of one of the kinds it starts from (any where
  /// it names none) is there, from one of its `event_rules` where it names them.
  bool may_fire(const rules::DiagnosisRule& rule) {
    const auto kind_held = [this](const std::string& k) { return kinds_.count(k) > 0; };
    if (!rule.kinds.empty() && std::none_of(rule.kinds.begin(), rule.kinds.end(), kind_held)) return false;
    if (rule.event_rules.empty()) return true;
    if (!pairs_) pairs_ = event_kind_rules(db_);  // read once, and only for a diagnosis that asks
    return std::any_of(pairs_->begin(), pairs_->end(), [&rule](const auto& pair) {
      return (rule.kinds.empty() || std::count(rule.kinds.begin(), rule.kinds.end(), pair.first) > 0) &&
             std::count(rule.event_rules.begin(), rule.event_rules.end(), pair.second) > 0;
    });
  }

 private:
  store::Database& db_;
  std::set<std::string> kinds_;
  std::optional<std::set<std::pair<std::string, std::string>>> pairs_;
};

/// The enrichment the diagnosis `id` declares (`ledger = ...`), empty for none.
std::string ledger_of(const rules::RuleSet& rules, const std::string& id) {
  for (const auto& d : rules.diagnoses)
    if (d.id == id) return d.ledger;
  return {};
}

}  // namespace

Verdict diagnose(store::Database& db, const rules::RuleSet& rules, core::Diagnostics& problems,
                 double rule_query_seconds) {
  Verdict v;
  if (auto err = assign_roles(db); !err.empty())
    problems.push_back({core::DiagLevel::error, "diagnose-roles", "", err});

  std::vector<Finding> findings;
  HostReads host_reads(db);  // the findings' per-host reads, each made once
  // Preparing a query costs more than running it over a paste's timeline (SQLite parses and
  // plans each one: 0.7 M instructions on average, 25 of them); a diagnosis whose kinds the
  // timeline lacks would yield nothing, so it is not prepared (nor one whose `event_rules` it
  // lacks: such a query reads every `log` event, 10^4 where a tenth of the lines are). The
  // prefilter switch (--no-prefilter) runs them all, and the equivalence test requires the same
  // report both ways.
  const bool skip = rules.signals.prefilter();
  std::optional<Present> present;
  if (skip) present.emplace(db);
  for (const auto& rule : rules.diagnoses) {
    if (skip && !present->may_fire(rule)) continue;
    auto result = db.query(rule.query, store::QueryGuard{true, rule_query_seconds});
    if (!result.error.empty()) {
      // A query stopped on its time budget is a warning: the run goes on with the other rules.
      problems.push_back({result.stopped ? core::DiagLevel::warning : core::DiagLevel::error, "diagnose-query",
                          fmt::format("{}:{}", rule.file, rule.line),
                          fmt::format("diagnosis {} failed: {}", rule.id, result.error)});
      continue;
    }
    for (const auto& row : result.rows) {
      Finding f;
      f.rule = rule.id;
      f.verdict = rule.verdict;
      f.title = rule.title;
      f.priority = rule.priority;
      f.host = row["host"].as_text();
      f.ts = row["ts"].as_double();
      f.confidence = parse_confidence(row["confidence"].as_text());
      f.event_id = row["event_id"].as_int().value_or(0);
      // A culprit with a role and no pid or name ("the job itself": a refused allocation, a
      // limit the job hit; "another process") is kept: the role is the answer, the missing pid
      // is not a reason to drop it (ARCHITECTURE.md's policy table, "role without pid"). A role
      // of `unknown` with nothing named is no culprit at all (a GPU fault blames no process).
      const std::string role_only = row["culprit_role"].as_text();
      if (!row["culprit_pid"].is_null() || !row["culprit_name"].as_text().empty() || role_only == "job" ||
          role_only == "foreign")
        f.culprit = ProcessRef{row["culprit_host"].is_null() ? f.host : row["culprit_host"].as_text(),
                               row["culprit_pid"].as_int(), row["culprit_name"].as_text(),
                               row["culprit_role"].is_null() ? "unknown" : row["culprit_role"].as_text(),
                               row["culprit_why"].as_text(), ""};
      if (!row["victim_pid"].is_null())
        f.victim = ProcessRef{f.host, row["victim_pid"].as_int(), row["victim_name"].as_text(), "", "", ""};
      auto ids = parse_ids(row["evidence"].as_text());
      if (ids.empty() && f.event_id) ids.push_back(f.event_id);
      f.evidence = load_evidence(db, ids);
      // The engine's phrases (rules/README.md, "Message phrases"), always given so that every
      // template renders; the ledger's own only for a diagnosis that asks for it.
      TemplateArgs extra{{"on_host", on_host_phrase(f.host)}, {"ledger_sentence", ""}, {"culprit_action", ""}};
      const auto set_extra = [&extra](const std::string& key, std::string value) {
        for (auto& [k, v] : extra)
          if (k == key) {
            v = std::move(value);
            return;
          }
        extra.emplace_back(key, std::move(value));
      };
      if (rule.ledger == rules::ledger::kGpu) {
        std::optional<Budget> budget;  // this finding's ledger
        if (f.event_id) {
          auto ledger = build_ledger(host_reads, f.event_id);
          budget = ledger.budget;
          f.culprit_by_default = ledger.by_default;
          if (ledger.culprit) {
            f.culprit = ledger.culprit;
            f.confidence = std::max(f.confidence, ledger.confidence);
          }
          if (!f.victim && ledger.victim) f.victim = ledger.victim;  // the process whose allocation failed
          for (auto& e : ledger.evidence) f.evidence.push_back(e);
          set_extra("ledger_sentence", sentence_phrase(ledger.reason));
          if (ledger.budget.total || ledger.budget.requested || ledger.share_only) {
            // Keep the budget of the first (root) GPU ledger; later ones are echoes.
            if (!v.budget) v.budget = ledger.budget;
          }
        }
        if (f.culprit) attach_place(db, *f.culprit);  // the advice names the container or pod to stop
        const bool job = !f.culprit || f.culprit->role == "job";
        set_extra("culprit_action",
                  culprit_action(f.culprit, job ? job_settings_advice(host_reads.job_settings(f.culprit ? f.culprit->host : f.host))
                                                : std::string(),
                                 job ? footprint_advice(load_footprint_facts(db, f.event_id)) : std::string(), budget ? &*budget : nullptr));
      }
      if (f.culprit && !f.culprit->place) attach_place(db, *f.culprit);
      if (f.victim) attach_place(db, *f.victim);
      if (f.culprit) {
        set_extra("culprit_pid", f.culprit->pid ? std::to_string(*f.culprit->pid) : "?");
        set_extra("culprit_name", f.culprit->name.empty() ? "(unnamed)" : f.culprit->name);
        set_extra("culprit_role", f.culprit->role);
        set_extra("culprit_host", f.culprit->host);
      }
      // The engine's values override same-named query columns.
      TemplateArgs args;
      for (const auto& c : result.columns) {
        bool overridden = false;
        for (const auto& [k, val] : extra) overridden |= (k == c);
        if (!overridden) args.emplace_back(c, template_value(c, row[c].as_text()));
      }
      args.insert(args.end(), extra.begin(), extra.end());
      f.summary = render_template(rule.message, args);
      f.advice = render_template(rule.advice, args);
      findings.push_back(std::move(f));
    }
  }

  // Merge repeats of one failure (the same rule, host and process within a minute): a CUDA OOM
  // is often logged by the traceback, the logger and the launcher.
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return ts_or_max(a) < ts_or_max(b); });
  std::vector<Finding> merged;
  for (auto& f : findings) {
    bool folded = false;
    for (auto& m : merged) {
      const bool same_proc = (!m.culprit && !f.culprit) ||
                             (m.culprit && f.culprit && m.culprit->pid == f.culprit->pid);
      // Without a time on one side, the same error text is a reprint of it (a logged traceback
      // and the stderr copy multiprocessing or a launcher prints without a stamp), also inside
      // a longer line of the other's evidence (TensorFlow's `OP_REQUIRES failed at …:
      // RESOURCE_EXHAUSTED: OOM when allocating …` and the exception's own `OOM when allocating …`).
      const bool same_text = (!m.evidence.empty() && !f.evidence.empty() && m.evidence[0].text == f.evidence[0].text) ||
                             reprinted(m, f) || reprinted(f, m);
      const bool near = (!m.ts || !f.ts) ? m.event_id == f.event_id || (m.verdict == f.verdict && m.host == f.host && !m.ts && !f.ts) ||
                                               (m.verdict == f.verdict && same_text)
                                         : std::fabs(*m.ts - *f.ts) < 60;
      // A reprint without a time or a pid of its own (a client printing its server's error) is
      // that failure, whichever process the other copy names.
      const bool pid_unknown = !m.culprit || !f.culprit || !m.culprit->pid || !f.culprit->pid;
      const bool unplaced_reprint = (!m.ts || !f.ts) && pid_unknown && same_text;
      if (m.rule == f.rule && m.host == f.host && ((same_proc && near) || unplaced_reprint)) {
        // The repeat whose ledger knows more (a first-use frame beside one copy of the error, a
        // snapshot beside another) speaks for the failure; the other's evidence joins it.
        if (m.culprit_by_default && !f.culprit_by_default) std::swap(m, f);
        for (auto& e : f.evidence) {
          bool dup = false;
          for (auto& x : m.evidence) dup |= (x.source == e.source && x.line == e.line);
          if (!dup) m.evidence.push_back(e);
        }
        folded = true;
        break;
      }
    }
    if (!folded) merged.push_back(std::move(f));
  }
  findings = std::move(merged);

  if (findings.empty()) {
    v.verdict = verdict::kUnknown;
    v.summary = "No known failure was found in the inputs.";
    v.confidence = Confidence::low;
    return v;
  }

  // The root: among causes (not echoes), the earliest; priority breaks ties and decides when
  // times are missing.
  std::vector<size_t> causes;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!echo_rule(findings[i])) causes.push_back(i);
  if (causes.empty())
    for (size_t i = 0; i < findings.size(); ++i) causes.push_back(i);
  // Stable: findings the order cannot tell apart keep their query's order (its rule's ranking).
  std::stable_sort(causes.begin(), causes.end(), [&](size_t a, size_t b) {
    const auto& fa = findings[a];
    const auto& fb = findings[b];
    // A finding of verdict unknown names no failure (a leftover GPU holder): any failure outranks it.
    if ((fa.verdict == verdict::kUnknown) != (fb.verdict == verdict::kUnknown)) return fb.verdict == verdict::kUnknown;
    if (fa.ts && fb.ts && std::fabs(*fa.ts - *fb.ts) > 1.0) return *fa.ts < *fb.ts;
    // Without a time on one side, lines of one source are in the order they were written.
    if ((!fa.ts || !fb.ts) && same_source(fa, fb) && fa.evidence[0].line != fb.evidence[0].line)
      return fa.evidence[0].line < fb.evidence[0].line;
    if (fa.priority != fb.priority) return fa.priority > fb.priority;
    return ts_or_max(fa) < ts_or_max(fb);
  });
  Finding root = findings[causes.front()];
  // A finding is an echo or not in one place: its own `echo` flag, set here on `findings`
  // itself; `echoes` is a copy of the flagged ones, so the two lists never disagree.
  std::vector<bool> folded(findings.size(), false);  // said again by the root: leaves the findings
  for (size_t i = 0; i < findings.size(); ++i) {
    if (i == causes.front()) continue;
    Finding& f = findings[i];
    const bool later_or_unknown = !f.ts || !root.ts || *f.ts >= *root.ts - 1.0;
    // Inferred (low-confidence) failures weaker than the root are its consequences too: a
    // container that exited 137 after its process hit a CUDA OOM was torn down, not OOM-killed.
    const bool weaker_guess = f.confidence == Confidence::low && f.priority < root.priority;
    if (echo_rule(f) || (later_or_unknown && f.host != root.host) ||
        (later_or_unknown && f.verdict == root.verdict) || (later_or_unknown && weaker_guess)) {
      f.echo = true;
      // A standing condition (verdict unknown: a leftover holder) about the root's own culprit
      // says again what the root says: its evidence joins the root's, and it leaves the findings.
      if (f.verdict == verdict::kUnknown && same_process(f.culprit, root.culprit)) {
        for (const auto& e : f.evidence)
          if (std::none_of(root.evidence.begin(), root.evidence.end(),
                           [&](const Evidence& x) { return x.source == e.source && x.line == e.line; }))
            root.evidence.push_back(e), findings[causes.front()].evidence.push_back(e);
        folded[i] = true;
        continue;
      }
      v.echoes.push_back(f);
    }
  }
  for (size_t i = findings.size(); i-- > 0;)
    if (folded[i]) findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(i));
  v.verdict = root.verdict;
  v.confidence = root.confidence;
  v.culprit = root.culprit;
  v.victim = root.victim;
  v.summary = root.summary;
  v.evidence = root.evidence;
  if (!root.advice.empty()) v.advice.push_back(root.advice);
  // The budget is the root's ledger: the GPU one kept above, or the host / cgroup ledger of the
  // root's kernel report (host_ledger.hpp), as the root's diagnosis declares.
  const std::string root_ledger = ledger_of(rules, root.rule);
  if (root_ledger != rules::ledger::kGpu) v.budget.reset();
  if (root_ledger == rules::ledger::kHost && root.event_id)
    if (auto rec = load_host_oom(db, root.event_id)) {
      if (root.culprit) adopt_culprit_role(*rec, *root.culprit);
      v.budget = build_host_budget(*rec);
    }
  v.root = root;
  std::sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
    if ((a.event_id == root.event_id) != (b.event_id == root.event_id)) return a.event_id == root.event_id;
    return ts_or_max(a) < ts_or_max(b);
  });
  v.findings = findings;
  add_ruled_out(v);
  return v;
}

}  // namespace culprit::diagnose
