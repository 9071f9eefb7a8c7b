// Rule loading in three roles: read (TOML -> rules, with file:line:column), validate (required
// keys, samples), compile (RE2 + SQL prepare hook) -> an immutable RuleSet plus every problem.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/diagnostic.hpp"
#include "culprit/rules/rule.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::rules {

/// One rule file's text and the name diagnostics use for it.
struct RuleText {
  std::string path;
  std::string text;
};

/// The largest rule file read: the shipped ones are a few KiB, and a file is parsed whole (a
/// 300 MB one cost 1.5 GB and 27 s); a larger one is an error, named.
inline constexpr std::uintmax_t kMaxRuleFileBytes = std::uintmax_t{4} << 20;

/// The rule files built into the binary (rules/**/*.toml at build time), sorted by path
/// (`rules/signals/gpu_memory.toml`, ...).
const std::vector<RuleText>& builtin_rules();

/// Stable diagnostic codes (tests match them).
namespace code {
inline constexpr std::string_view kTomlSyntax = "rule-toml-syntax";
inline constexpr std::string_view kMissingKey = "rule-missing-key";
inline constexpr std::string_view kBadValue = "rule-bad-value";
inline constexpr std::string_view kBadRegex = "rule-bad-regex";
inline constexpr std::string_view kSampleMismatch = "rule-sample-mismatch";
inline constexpr std::string_view kSampleField = "rule-sample-field";
inline constexpr std::string_view kDuplicateId = "rule-duplicate-id";
inline constexpr std::string_view kBadQuery = "rule-bad-query";
inline constexpr std::string_view kUnknownKey = "rule-unknown-key";    ///< warning: a typo?
inline constexpr std::string_view kUnreadable = "rule-unreadable";     ///< a file or dir could not be read
inline constexpr std::string_view kNotAFile = "rule-not-a-file";       ///< a *.toml that is a FIFO, device, socket
inline constexpr std::string_view kTooLarge = "rule-too-large";        ///< over kMaxRuleFileBytes
inline constexpr std::string_view kNoSample = "rule-no-sample";        ///< check_rules only (warning)
inline constexpr std::string_view kNoLiteral = "rule-no-literal";      ///< check_rules only (warning)
}  // namespace code

struct RuleSet {
  std::vector<SignalRule> signal_rules;
  std::vector<DiagnosisRule> diagnoses;
  text::SignalSet signals;  ///< compiled from signal_rules
};

struct LoadResult {
  RuleSet rules;
  core::Diagnostics problems;
  bool ok() const;  ///< no error-level problems
};

/// Checks a diagnosis query against the schema; returns an error message or empty.
using QueryChecker = std::function<std::string(const std::string& sql)>;

/// Whether load_rules runs every signal's samples. Running them costs most of the start-up time
/// (each sample goes through its pattern and through a trial set with the prefilter), so a run on
/// the built-in rules alone skips them: `culprit rules check` and the test suite check those.
enum class SampleCheck { run, skip };

/// Reads every text, validates, compiles. Problems are collected, never thrown. With
/// SampleCheck::run every sample of every signal is checked (match / no match / fields, with the
/// prefilter on). A rule with an error-level problem is left out of the RuleSet; the others load.
/// Example: auto r = load_rules(builtin_rules()); for (auto& p : r.problems) log(p.to_string());
LoadResult load_rules(const std::vector<RuleText>& texts, const QueryChecker& check_query = {},
                      SampleCheck samples = SampleCheck::run);

/// The built-in rules as a run without --rules loads them: equal to
/// load_rules(builtin_rules(), {}, SampleCheck::skip), but read from the compact form the build
/// made of them (no TOML parse, no validation: the build did both, and failed on an error).
LoadResult load_builtin_rules();

/// What `culprit rules check [DIR]` prints: load_rules()'s problems plus lints that would be noise
/// on every run (a signal without a must-match sample, a signal the prefilter cannot filter).
core::Diagnostics check_rules(const std::vector<RuleText>& texts,
                              const QueryChecker& check_query = {});

/// Reads `*.toml` under `dir` recursively (sorted) into RuleTexts; unreadable files become problems.
std::vector<RuleText> read_rule_dir(const std::string& dir, core::Diagnostics& problems);

}  // namespace culprit::rules
