// Rule loading as short stories: a rule file with one mistake, and the exact diagnostic (stable
// code, file:line:column) a rule author gets for it. Never an exception, every problem collected.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "culprit/rules/loader.hpp"

namespace loader_tests {

using namespace culprit;
using rules::RuleText;

namespace {

rules::LoadResult load(std::string text, const rules::QueryChecker& checker = {}) {
  return rules::load_rules({RuleText{"my.toml", std::move(text)}}, checker);
}

std::string dump(const core::Diagnostics& problems) {
  std::string all;
  for (const auto& p : problems) all += p.to_string() + "\n";
  return all;
}

/// The single problem with `code`; fails the test when there is not exactly one.
core::Diagnostic only(const core::Diagnostics& problems, std::string_view code) {
  INFO(dump(problems));
  std::vector<core::Diagnostic> found;
  for (const auto& p : problems)
    if (p.code == code) found.push_back(p);
  REQUIRE(found.size() == 1);
  return found.front();
}

constexpr const char* kGood = R"(
[[signal]]
id = "torch_oom"
kind = "cuda_oom"
severity = "error"
pattern = 'CUDA out of memory\. Tried to allocate (?P<requested_size>\d+(?:\.\d+)? \w+)'
  [[signal.sample]]
  line = "CUDA out of memory. Tried to allocate 20.00 MiB"
  fields = { requested_size = "20.00 MiB" }
)";

}  // namespace

TEST_CASE("a good rule loads and compiles", "[rules]") {
  auto r = load(kGood);
  INFO(dump(r.problems));
  CHECK(r.problems.empty());
  CHECK(r.ok());
  REQUIRE(r.rules.signal_rules.size() == 1);
  const auto& rule = r.rules.signal_rules[0];
  CHECK(rule.id == "torch_oom");
  CHECK(rule.severity == core::Severity::error);
  CHECK(rule.file == "my.toml");
  CHECK(rule.line == 2);
  CHECK(rule.column == 1);
  REQUIRE(rule.samples.size() == 1);
  CHECK(rule.samples[0].fields.at("requested_size") == "20.00 MiB");
  auto ms = r.rules.signals.match("CUDA out of memory. Tried to allocate 1.00 GiB", "");
  REQUIRE(ms.size() == 1);
  CHECK(ms[0].signal->kind == "cuda_oom");
}

TEST_CASE("story: a TOML syntax error names the file, line and column", "[rules]") {
  // The author forgot the closing quote on line 4.
  auto r = load(R"([[signal]]
id = "a"
kind = "log"
pattern = "abc
)");
  const auto d = only(r.problems, rules::code::kTomlSyntax);
  CHECK(d.level == core::DiagLevel::error);
  CHECK(d.where == "my.toml:4:15");
  CHECK(d.message.find("TOML syntax error") != std::string::npos);
  CHECK_FALSE(r.ok());
  CHECK(r.rules.signal_rules.empty());
}

TEST_CASE("story: a missing pattern points at the [[signal]] header", "[rules]") {
  auto r = load(R"(
[[signal]]
id = "no_pattern"
kind = "log"
)");
  const auto d = only(r.problems, rules::code::kMissingKey);
  CHECK(d.where == "my.toml:2:1");
  CHECK(d.message.find("`pattern`") != std::string::npos);
  CHECK(r.rules.signal_rules.empty());
}

TEST_CASE("story: a bad regex points at the pattern value", "[rules]") {
  auto r = load(R"([[signal]]
id = "bad_regex"
kind = "log"
pattern = 'Tried to allocate (?P<size>\d+'
)");
  const auto d = only(r.problems, rules::code::kBadRegex);
  CHECK(d.where == "my.toml:4:11");
  CHECK(d.message.find("missing )") != std::string::npos);
  CHECK(r.rules.signal_rules.empty());
}

TEST_CASE("story: lookahead is Perl, not RE2", "[rules]") {
  auto r = load(R"([[signal]]
id = "lookahead"
kind = "log"
pattern = 'out of memory(?!\.)'
)");
  CHECK(only(r.problems, rules::code::kBadRegex).where == "my.toml:4:11");
}

TEST_CASE("story: an unknown severity is a bad value", "[rules]") {
  auto r = load(R"([[signal]]
id = "sev"
kind = "log"
severity = "fatal"
pattern = 'x'
)");
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:4:12");
  CHECK(d.message.find("`fatal`") != std::string::npos);
  CHECK(d.message.find("critical") != std::string::npos);
}

TEST_CASE("story: a wrong type is a bad value at the value", "[rules]") {
  auto r = load(R"([[signal]]
id = "t"
kind = "log"
pattern = 'x'
formats = "dmesg"
)");
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:5:11");
  CHECK(d.message.find("an array of strings") != std::string::npos);
}

TEST_CASE("story: the same id in two files", "[rules]") {
  const std::string rule = R"([[signal]]
id = "dup"
kind = "log"
pattern = 'x'
)";
  auto r = rules::load_rules({RuleText{"a.toml", rule}, RuleText{"b.toml", "\n" + rule}});
  const auto d = only(r.problems, rules::code::kDuplicateId);
  CHECK(d.where == "b.toml:3:6");
  CHECK(d.message.find("a.toml:2:6") != std::string::npos);
  CHECK(r.rules.signal_rules.size() == 1);
  CHECK(r.rules.signal_rules[0].file == "a.toml");
}

TEST_CASE("story: a sample that does not match", "[rules]") {
  auto r = load(R"([[signal]]
id = "nccl_oom"
kind = "cuda_oom"
pattern = '''Cuda failure 'out of memory''''

  [[signal.sample]]
  line = "NCCL WARN Cuda failure 2 'out of memory'"
)");
  const auto d = only(r.problems, rules::code::kSampleMismatch);
  CHECK(d.where == "my.toml:6:3");
  CHECK(d.message.find("does not match its sample") != std::string::npos);
  CHECK(r.rules.signal_rules.empty());
}

TEST_CASE("story: a look-alike sample that matches", "[rules]") {
  auto r = load(R"([[signal]]
id = "too_loose"
kind = "cuda_oom"
pattern = 'memory'
  [[signal.sample]]
  line = "CUDA error: out of memory"
  [[signal.sample]]
  line = "CUDA error: an illegal memory access was encountered"
  match = false
)");
  const auto d = only(r.problems, rules::code::kSampleMismatch);
  CHECK(d.where == "my.toml:7:3");
  CHECK(d.message.find("match = false") != std::string::npos);
}

TEST_CASE("story: a sample with a wrong field value", "[rules]") {
  auto r = load(R"([[signal]]
id = "xid"
kind = "xid"
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-f:]+)\): (?P<xid>\d+)'
  [[signal.sample]]
  line = "NVRM: Xid (PCI:0000:03:00): 31, pid=12083, name=python3"
  fields = { pci = "0000:03:00", xid = "13" }
)");
  const auto d = only(r.problems, rules::code::kSampleField);
  CHECK(d.where == "my.toml:7:40");
  CHECK(d.message.find("expected \"13\"") != std::string::npos);
  CHECK(d.message.find("captured \"31\"") != std::string::npos);
}

TEST_CASE("story: a sample expects a field the pattern does not have", "[rules]") {
  auto r = load(R"([[signal]]
id = "xid"
kind = "xid"
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-f:]+)\): (?P<xid>\d+)'
  [[signal.sample]]
  line = "NVRM: Xid (PCI:0000:03:00): 31, pid=12083, name=python3"
  fields = { pid = "12083" }
)");
  const auto d = only(r.problems, rules::code::kSampleField);
  CHECK(d.where == "my.toml:7:20");
  CHECK(d.message.find("no group `(?P<pid>...)`") != std::string::npos);
}

TEST_CASE("story: a pid that is not an integer breaks the field convention", "[rules]") {
  auto r = load(R"([[signal]]
id = "p"
kind = "log"
pattern = 'pid=(?P<pid>\S+)'
  [[signal.sample]]
  line = "pid='<unknown>'"
)");
  const auto d = only(r.problems, rules::code::kSampleField);
  CHECK(d.where == "my.toml:5:3");
  CHECK(d.message.find("integer") != std::string::npos);
}

TEST_CASE("story: a _size field must capture a size", "[rules]") {
  auto r = load(R"([[signal]]
id = "s"
kind = "log"
pattern = 'allocate (?P<requested_size>\S+)'
  [[signal.sample]]
  line = "Tried to allocate lots"
)");
  CHECK(only(r.problems, rules::code::kSampleField).message.find("`requested_size`") !=
        std::string::npos);
}

TEST_CASE("story: a group named *_bytes collides with what ingest derives", "[rules]") {
  auto r = load(R"([[signal]]
id = "b"
kind = "log"
pattern = 'allocate (?P<requested_bytes>\d+) bytes'
)");
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:4:11");
  CHECK(d.message.find("`requested_size`") != std::string::npos);
}

TEST_CASE("story: a declared literal the matching line lacks", "[rules]") {
  auto r = load(R"([[signal]]
id = "lit"
kind = "log"
pattern = 'exit(?:code)?: (?P<exitcode>-?\d+)'
literals = ["exitcode"]
  [[signal.sample]]
  line = "exit: -9"
)");
  const auto d = only(r.problems, rules::code::kSampleMismatch);
  CHECK(d.where == "my.toml:6:3");
  CHECK(d.message.find("prefilter drops it") != std::string::npos);
}

TEST_CASE("story: a typo in a key is a warning with a suggestion", "[rules]") {
  auto r = load(R"([[signal]]
id = "typo"
kind = "log"
pattern = 'x'
severty = "error"
)");
  const auto d = only(r.problems, rules::code::kUnknownKey);
  CHECK(d.level == core::DiagLevel::warning);
  CHECK(d.where == "my.toml:5:1");
  CHECK(d.message.find("did you mean `severity`?") != std::string::npos);
  CHECK(r.ok());
  CHECK(r.rules.signal_rules.size() == 1);
}

TEST_CASE("story: [signal] instead of [[signal]]", "[rules]") {
  auto r = load(R"([signal]
id = "single"
kind = "log"
pattern = 'x'
)");
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:1:1");
  CHECK(d.message.find("[[signal]]") != std::string::npos);
}

TEST_CASE("story: many problems are all collected", "[rules]") {
  auto r = load(R"([[signal]]
id = "Bad Id"
kind = "log"
pattern = '('

[[signal]]
kind = "log"
pattern = 'ok'

[[diagnosis]]
id = "d"
verdict = "maybe_oom"
title = "t"
query = "SELECT 1"
message = "x"
)");
  INFO(dump(r.problems));
  CHECK(r.problems.size() == 4);  // bad id, bad regex, missing id, bad verdict
  CHECK_FALSE(r.ok());
}

constexpr const char* kDiagnosis = R"([[diagnosis]]
id = "cuda_oom_foreign"
verdict = "cuda_oom"
title = "A foreign process held the GPU"
query = """
SELECT host, ts, culprit_pid, culprit_name, 0.9 AS confidence, mem_used AS held_bytes
FROM events
"""
message = "{culprit_name} (pid {culprit_pid}) held {held_bytes} bytes on {host}"
advice = "Stop the other process."
priority = 10
fixtures.fire = ["foreign_holder"]
fixtures.quiet = ["job_itself"]
)";

TEST_CASE("a diagnosis loads with its fixtures and priority", "[rules]") {
  std::string seen_sql;
  auto r = load(kDiagnosis, [&](const std::string& sql) {
    seen_sql = sql;
    return std::string();
  });
  INFO(dump(r.problems));
  CHECK(r.problems.empty());
  REQUIRE(r.rules.diagnoses.size() == 1);
  const auto& d = r.rules.diagnoses[0];
  CHECK(d.verdict == "cuda_oom");
  CHECK(d.priority == 10);
  CHECK(d.fixtures_fire == std::vector<std::string>{"foreign_holder"});
  CHECK(d.fixtures_quiet == std::vector<std::string>{"job_itself"});
  CHECK(seen_sql.find("FROM events") != std::string::npos);
}

TEST_CASE("story: a query the checker rejects", "[rules]") {
  auto r = load(kDiagnosis, [](const std::string&) { return std::string("no such column: mem_used"); });
  const auto d = only(r.problems, rules::code::kBadQuery);
  CHECK(d.where == "my.toml:5:9");
  CHECK(d.message.find("no such column: mem_used") != std::string::npos);
  CHECK(r.rules.diagnoses.empty());
}

TEST_CASE("story: a message names a column nobody selects", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("{held_bytes}"), 12, "{victim_rss}");
  auto r = load(text);
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:9:11");
  CHECK(d.message.find("`{victim_rss}`") != std::string::npos);
}

TEST_CASE("story: a message with a stray brace", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("{host}"), 6, "{host");
  auto r = load(text);
  CHECK(only(r.problems, rules::code::kBadValue).message.find("unclosed") != std::string::npos);
}

TEST_CASE("template_names-style checks accept fmt specs and escaped braces", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("{held_bytes}"), 12, "{{literal}} {confidence:.2f} {held_bytes:>10}");
  auto r = load(text);
  INFO(dump(r.problems));
  CHECK(r.problems.empty());
}

TEST_CASE("story: an unreadable directory", "[rules]") {
  core::Diagnostics problems;
  auto texts = rules::read_rule_dir("/nonexistent/culprit-rules", problems);
  CHECK(texts.empty());
  const auto d = only(problems, rules::code::kUnreadable);
  CHECK(d.where == "/nonexistent/culprit-rules");
}

TEST_CASE("read_rule_dir reads *.toml recursively, sorted, and nothing else", "[rules]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "culprit-test-rule-dir";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "b.toml") << "# b\n";
  std::ofstream(dir / "sub" / "a.toml") << "# a\n";
  std::ofstream(dir / "README.md") << "not a rule\n";
  core::Diagnostics problems;
  auto texts = rules::read_rule_dir(dir.string(), problems);
  CHECK(problems.empty());
  REQUIRE(texts.size() == 2);
  CHECK(texts[0].path == (dir / "b.toml").string());
  CHECK(texts[1].path == (dir / "sub" / "a.toml").string());
  CHECK(texts[1].text == "# a\n");
  fs::remove_all(dir);
}

TEST_CASE("check_rules adds lints that load_rules keeps quiet", "[rules]") {
  const std::vector<RuleText> texts{RuleText{"lint.toml", R"([[signal]]
id = "no_samples"
kind = "log"
pattern = '^\d+$'
)"}};
  CHECK(rules::load_rules(texts).problems.empty());
  const auto problems = rules::check_rules(texts);
  CHECK(only(problems, rules::code::kNoSample).where == "lint.toml:1:1");
  CHECK(only(problems, rules::code::kNoLiteral).level == core::DiagLevel::warning);
}

TEST_CASE("bad bytes and junk never throw", "[rules]") {
  for (const char* text : {"\xff\xfe garbage", "[[signal]]\nid = \"a\xff\"\n", "[[", "= 3",
                           "[[signal]]\n[[signal.sample]]\nline = 3\n", ""}) {
    auto r = load(text);
    (void)r;
  }
  SUCCEED();
}

TEST_CASE("a diagnosis names the ledger it needs", "[rules]") {
  auto none = load(kDiagnosis);
  REQUIRE(none.rules.diagnoses.size() == 1);
  CHECK(none.rules.diagnoses[0].ledger.empty());  // no enrichment unless named

  for (const char* kind : {"gpu", "host"}) {
    std::string text = kDiagnosis;
    text.replace(text.find("priority = 10"), 13, std::string("priority = 10\nledger = \"") + kind + "\"");
    auto r = load(text);
    INFO(dump(r.problems));
    CHECK(r.problems.empty());
    REQUIRE(r.rules.diagnoses.size() == 1);
    CHECK(r.rules.diagnoses[0].ledger == kind);
  }
}

TEST_CASE("story: an unknown ledger is a load error at its value", "[rules]") {
  for (const char* bad : {"\"cpu\"", "\"GPU\"", "\"\""}) {
    std::string text = kDiagnosis;
    text.replace(text.find("priority = 10"), 13, std::string("priority = 10\nledger = ") + bad);
    auto r = load(text);
    const auto d = only(r.problems, rules::code::kBadValue);
    CHECK(d.where == "my.toml:12:10");
    CHECK(d.message.find("unknown ledger") != std::string::npos);
    CHECK(d.message.find("gpu, host") != std::string::npos);
    CHECK(r.rules.diagnoses.empty());
  }
  std::string text = kDiagnosis;
  text.replace(text.find("priority = 10"), 13, "priority = 10\nledger = 1");
  auto r = load(text);
  CHECK_FALSE(r.problems.empty());
  CHECK(r.rules.diagnoses.empty());
}

TEST_CASE("a diagnosis names the event kinds its query starts from", "[rules]") {
  CHECK(load(kDiagnosis).rules.diagnoses.at(0).kinds.empty());  // none: it always runs
  std::string text = kDiagnosis;
  text.replace(text.find("priority = 10"), 13, "priority = 10\nkinds = [\"cuda_oom\", \"gpu_snapshot\"]");
  text.replace(text.find("FROM events"), 11, "FROM events WHERE kind IN ('cuda_oom', 'gpu_snapshot')");
  auto r = load(text);
  INFO(dump(r.problems));
  CHECK(r.problems.empty());  // a kind the code reads, and one its own query names
  REQUIRE(r.rules.diagnoses.size() == 1);
  CHECK(r.rules.diagnoses[0].kinds == std::vector<std::string>{"cuda_oom", "gpu_snapshot"});
}

TEST_CASE("a diagnosis names the rules of the events its query starts from, each quoted in its query", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("priority = 10"), 13, "priority = 10\nkinds = [\"log\"]\nevent_rules = [\"oom_kill_described\"]");
  text.replace(text.find("FROM events"), 11, "FROM events WHERE kind = 'log' AND rule = 'oom_kill_described'");
  auto r = load(text);
  INFO(dump(r.problems));
  CHECK(r.problems.empty());
  REQUIRE(r.rules.diagnoses.size() == 1);
  CHECK(r.rules.diagnoses[0].event_rules == std::vector<std::string>{"oom_kill_described"});
  SECTION("a rule its query does not quote would silence it: a load error") {
    std::string typo = text;
    typo.replace(typo.find("[\"oom_kill_described\"]"), 22, "[\"oom_kill_describd\"]");
    auto bad = load(typo);
    const auto d = only(bad.problems, rules::code::kBadValue);
    CHECK(d.message.find("rule `oom_kill_describd` in the `event_rules` of `cuda_oom_foreign` is not quoted in its query") !=
          std::string::npos);
    CHECK(bad.rules.diagnoses.empty());
  }
}

TEST_CASE("story: a misspelt kind would silence a diagnosis, so it is a load error", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("priority = 10"), 13, "priority = 10\nkinds = [\"cuda_oomm\"]");
  auto r = load(text);
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:12:9");
  CHECK(d.message.find("kind `cuda_oomm` in the `kinds` of `cuda_oom_foreign` is no kind an event can have "
                       "(did you mean `cuda_oom`?)") == 0);
  CHECK(r.rules.diagnoses.empty());
}

TEST_CASE("story: an advice names a column nobody selects", "[rules]") {
  std::string text = kDiagnosis;
  text.replace(text.find("Stop the other process."), 23, "Stop {other_pid}.");
  auto r = load(text);
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:10:10");
  CHECK(d.message.find("advice names `{other_pid}`") != std::string::npos);
  // The engine's phrases need no column.
  text = kDiagnosis;
  text.replace(text.find("Stop the other process."), 23, "Stop it{on_host}.{ledger_sentence} {culprit_action}");
  CHECK(load(text).problems.empty());
}

TEST_CASE("story: a signal kind no diagnosis reads is an error with a suggestion", "[rules]") {
  // rules/README.md: `rule-bad-value` for a bad kind. `cuda_oomm` would record events nothing reads.
  auto r = load(R"([[signal]]
id = "acme_oom"
kind = "cuda_oomm"
pattern = 'acme ran out of GPU memory'
)");
  const auto d = only(r.problems, rules::code::kBadValue);
  CHECK(d.where == "my.toml:3:8");
  CHECK(d.message.find("`cuda_oomm` of `acme_oom` is read by no diagnosis") != std::string::npos);
  CHECK(d.message.find("did you mean `cuda_oom`?") != std::string::npos);
  CHECK(r.rules.signal_rules.empty());
  // A kind of the user's own, read by the user's own diagnosis, is fine.
  auto own = load(R"([[signal]]
id = "acme_stall"
kind = "acme_stall"
pattern = 'acme stalled'

[[diagnosis]]
id = "acme-stall"
verdict = "not_oom"
priority = 50
query = "SELECT host, ts FROM events WHERE kind = 'acme_stall'"
title = "acme stalled"
message = "acme stalled"
)");
  INFO(dump(own.problems));
  CHECK(own.rules.signal_rules.size() == 1);
  for (const auto& p : own.problems) CHECK(p.code != rules::code::kBadValue);
}

}  // namespace loader_tests
