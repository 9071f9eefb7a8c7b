// Rules as data: line signals and SQL diagnoses, loaded from TOML (rules/ and --rules DIR).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "culprit/core/event.hpp"

namespace culprit::rules {

/// A sample line a signal must (or must not) match, with the fields it must yield.
struct SignalSample {
  std::string line;
  bool should_match = true;
  std::map<std::string, std::string> fields;
  bool operator==(const SignalSample&) const = default;
};

struct SignalRule {
  std::string id, kind, description;
  core::Severity severity = core::Severity::info;
  std::string pattern;
  std::vector<std::string> formats;
  std::vector<std::string> literals;
  /// What the signal declares its events are (core/facts.hpp): facts the code reads, the
  /// framework that printed the line, the kind of killer it names (`limit` or `pressure`).
  std::vector<std::string> provides;
  std::string framework;
  std::string killer;
  std::vector<SignalSample> samples;
  std::string file;
  int line = 0;
  int column = 0;  ///< of the `[[signal]]` header
  bool operator==(const SignalRule&) const = default;
};

/// The enrichments a diagnosis can name (`ledger = "gpu"`): what the engine adds to its findings.
namespace ledger {
/// The GPU memory ledger of the finding's OOM event: culprit, victim, budget, `{ledger_sentence}`
/// and `{culprit_action}` (diagnose/ledger.hpp).
inline constexpr const char* kGpu = "gpu";
/// The host / cgroup ledger of the finding's kernel OOM report, as the verdict's budget when the
/// finding is the root (diagnose/host_ledger.hpp).
inline constexpr const char* kHost = "host";
}  // namespace ledger

/// A correlation rule: SQL over the timeline returning the standard columns
/// (host, ts, culprit_host, culprit_pid, culprit_name, culprit_role, confidence, evidence, detail).
struct DiagnosisRule {
  std::string id, verdict, title, query, message, advice;
  int priority = 0;  ///< higher wins when several verdicts compete for the incident's answer
  std::string ledger;  ///< the enrichment it needs: ledger::kGpu, ledger::kHost, or empty for none
  /// The event kinds its query starts from: it yields a row only where the timeline holds an
  /// event of one of them, so the engine prepares it only then (empty: it always runs).
  std::vector<std::string> kinds;
  /// The `rule` of the events its query starts from (a signal's id, or a parser's own rule):
  /// it yields a row only where the timeline holds an event of one of its kinds from one of
  /// these, so the engine runs it only then (empty: any rule). A diagnosis of `log` events names
  /// them: every timeline holds `log` events, and such a query reads all of them.
  std::vector<std::string> event_rules;
  std::vector<std::string> fixtures_fire, fixtures_quiet;
  std::string file;
  int line = 0;
  int column = 0;  ///< of the `[[diagnosis]]` header
  bool operator==(const DiagnosisRule&) const = default;
};

}  // namespace culprit::rules
