// A diagnosis that names the event kinds its query starts from (`kinds`) is prepared only when the
// timeline holds one of them, and one that names their rules too (`event_rules`) only when it
// holds an event of those kinds from one of those rules; with the prefilter off (--no-prefilter)
// every query runs. A query
// that cannot compile shows which ran: its error is a problem only when it was prepared.
#include <catch2/catch.hpp>

#include "culprit/diagnose/engine.hpp"
#include "culprit/store/database.hpp"

namespace diagnosis_kinds_tests {

namespace {

using namespace culprit;

rules::DiagnosisRule rule(std::string id, std::vector<std::string> kinds, std::string query,
                          std::vector<std::string> event_rules = {}) {
  rules::DiagnosisRule r;
  r.event_rules = std::move(event_rules);
  r.id = std::move(id);
  r.verdict = "not_oom";
  r.title = r.id;
  r.priority = 50;
  r.kinds = std::move(kinds);
  r.query = std::move(query);
  r.message = "{detail}";
  return r;
}

/// Runs `rules` over a timeline of one `log` event; returns the ids of the rules whose query was
/// prepared and failed.
std::vector<std::string> failed_queries(const rules::RuleSet& rules) {
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  REQUIRE(db->exec("INSERT INTO sources(name, host, format, bytes, lines, first_line, origin) "
                   "VALUES('a.log', 'n1', 'app_log', 10, 1, 1, 'file');"
                   "INSERT INTO events(source_id, line, line_end, ts_raw, ts_kind, host, comm, kind, severity, rule, message, "
                   "fields) VALUES(1, 1, 1, '', 'none', 'n1', '', 'log', 'info', 'app_log', 'hello', '{}');")
              .empty());
  core::Diagnostics problems;
  (void)diagnose::diagnose(*db, rules, problems);
  std::vector<std::string> failed;
  for (const auto& p : problems)
    if (p.code == "diagnose-query") failed.push_back(p.message.substr(10, p.message.find(' ', 10) - 10));
  return failed;
}

}  // namespace

TEST_CASE("a diagnosis whose kinds the timeline lacks is not prepared", "[diagnose][kinds]") {
  rules::RuleSet rules;
  rules.diagnoses.push_back(rule("absent-kind", {"xid"}, "SELECT * FROM no_such_table"));
  rules.diagnoses.push_back(rule("present-kind", {"xid", "log"}, "SELECT * FROM no_such_table"));
  rules.diagnoses.push_back(rule("no-kinds", {}, "SELECT * FROM no_such_table"));
  CHECK(failed_queries(rules) == std::vector<std::string>{"present-kind", "no-kinds"});

  rules.signals.set_prefilter(false);  // --no-prefilter: every query runs
  CHECK(failed_queries(rules) == std::vector<std::string>{"absent-kind", "present-kind", "no-kinds"});
}

TEST_CASE("a diagnosis whose event rules the timeline lacks is not prepared", "[diagnose][kinds]") {
  // The timeline's one event: kind `log`, rule `app_log`.
  rules::RuleSet rules;
  rules.diagnoses.push_back(rule("absent-rule", {"log"}, "SELECT * FROM no_such_table", {"oom_kill_described"}));
  rules.diagnoses.push_back(rule("present-rule", {"log"}, "SELECT * FROM no_such_table", {"x", "app_log"}));
  rules.diagnoses.push_back(rule("rule-of-another-kind", {"xid", "log"}, "SELECT * FROM no_such_table", {"nvrm_xid"}));
  rules.diagnoses.push_back(rule("any-kind", {}, "SELECT * FROM no_such_table", {"app_log"}));
  rules.diagnoses.push_back(rule("kind-absent", {"xid"}, "SELECT * FROM no_such_table", {"app_log"}));
  CHECK(failed_queries(rules) == std::vector<std::string>{"present-rule", "any-kind"});

  rules.signals.set_prefilter(false);  // --no-prefilter: every query runs
  CHECK(failed_queries(rules) ==
        std::vector<std::string>{"absent-rule", "present-rule", "rule-of-another-kind", "any-kind", "kind-absent"});
}

}  // namespace diagnosis_kinds_tests
