// Rules as read from TOML, before validation and compilation, with the file:line:column of every
// key so that later stages can point at the exact spot. Private to the rules module.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/diagnostic.hpp"
#include "culprit/rules/rule.hpp"

namespace culprit::rules::detail {

/// A position in a rule file; `str()` is `path:line:column` as diagnostics print it.
struct Where {
  std::string file;
  int line = 0;
  int column = 0;
  std::string str() const;
};

/// Positions of a table and of its keys' values.
struct Positions {
  Where table;
  std::map<std::string, Where, std::less<>> keys;
  /// The value's position, else the table's.
  const Where& at(std::string_view key) const;
};

struct SampleDraft {
  SignalSample sample;
  Positions where;
  bool broken = false;  ///< a read error: do not check it
};

struct SignalDraft {
  SignalRule rule;
  Positions where;
  std::vector<SampleDraft> samples;
  bool broken = false;  ///< an error makes the rule unusable; it is left out of the RuleSet
};

struct DiagnosisDraft {
  DiagnosisRule rule;
  Positions where;
  bool broken = false;
};

struct Drafts {
  std::vector<SignalDraft> signals;
  std::vector<DiagnosisDraft> diagnoses;
};

/// Builds a Diagnostic (error unless `level` says otherwise).
core::Diagnostic problem(std::string_view code, const Where& where, std::string message,
                         core::DiagLevel level = core::DiagLevel::error);

/// Parses one file (TOML syntax errors become one rule-toml-syntax problem) and appends its
/// [[signal]] and [[diagnosis]] tables to `out`, with type and required-key checks.
void read_rule_text(const std::string& path, std::string_view text, Drafts& out,
                    core::Diagnostics& problems);

}  // namespace culprit::rules::detail

namespace culprit::rules {
struct RuleSet;
using QueryChecker = std::function<std::string(const std::string& sql)>;
}  // namespace culprit::rules

namespace culprit::rules::detail {

/// Validate and compile stage: ids, kinds, regexes, samples (with the prefilter on), message
/// templates, queries. Fills `out` with the rules that have no error. Samples only when
/// `check_samples`.
void compile_drafts(Drafts& drafts, const QueryChecker& check_query, bool check_samples, RuleSet& out,
                    core::Diagnostics& problems);

/// Names of the `{name}` / `{name:spec}` arguments of a fmt template; an error text when the
/// template is malformed (unbalanced braces, a positional `{}`).
std::string template_names(std::string_view message, std::vector<std::string>& names);

}  // namespace culprit::rules::detail
