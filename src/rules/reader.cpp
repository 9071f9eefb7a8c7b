// Read stage: TOML text -> drafts. Every type error, missing key and unknown key becomes a
// Diagnostic pointing at the value (or the table) with file:line:column; nothing throws out.
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/spelling.hpp"
#include "draft.hpp"

namespace culprit::rules::detail {

std::string Where::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

const Where& Positions::at(std::string_view key) const {
  auto it = keys.find(key);
  return it == keys.end() ? table : it->second;
}

core::Diagnostic problem(std::string_view code, const Where& where, std::string message,
                         core::DiagLevel level) {
  core::Diagnostic d;
  d.level = level;
  d.code = std::string(code);
  d.where = where.str();
  d.message = std::move(message);
  return d;
}

namespace {

constexpr std::array kSignalKeys = {"id",          "kind",   "severity", "pattern",  "formats", "literals",
                                    "description", "sample", "provides", "framework", "killer"};
constexpr std::array kSampleKeys = {"line", "match", "fields"};
constexpr std::array kDiagnosisKeys = {"id",     "verdict",  "title",  "query", "message",    "advice",
                                       "priority", "fixtures", "ledger", "kinds", "event_rules"};
constexpr std::array kLedgers = {ledger::kGpu, ledger::kHost};
constexpr std::array kFixtureKeys = {"fire", "quiet"};
constexpr std::array kVerdicts = {"cuda_oom", "kernel_oom", "cgroup_oom", "userspace_oom_kill",
                                  "host_alloc_fail", "not_oom", "unknown"};

Where where_of(const std::string& file, const toml::source_region& region) {
  return Where{file, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
}


std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date/time";
    default: return "nothing";
  }
}

/// Walks one table: records positions, reports unknown keys, reads typed values.
class TableReader {
 public:
  TableReader(const std::string& file, const toml::table& table, std::string_view what,
              core::Diagnostics& problems)
      : file_(file), table_(table), what_(what), problems_(problems) {
    where_.table = where_of(file, table.source());
    for (const auto& [key, value] : table)
      where_.keys.emplace(std::string(key.str()), where_of(file, value.source()));
  }

  template <std::size_t N>
  void check_keys(const std::array<const char*, N>& known) {
    for (const auto& [key, value] : table_) {
      const std::string_view k = key.str();
      if (std::find(known.begin(), known.end(), k) != known.end()) continue;
      std::string hint;
      if (const auto near = text::near_word(k, {known.begin(), known.end()}))
        hint = fmt::format(" (did you mean `{}`?)", *near);
      problems_.push_back(problem(
          code::kUnknownKey, where_of(file_, key.source()),
          fmt::format("unknown key `{}` in {}{}; it is ignored. Known keys: {}", k, what_, hint,
                      fmt::join(known, ", ")),
          core::DiagLevel::warning));
    }
  }

  /// A string value; `required` reports a missing key.
  bool string(std::string_view key, std::string& out, bool required) {
    const toml::node* node = table_.get(key);
    if (!node) {
      if (required) missing(key, "a string");
      return false;
    }
    if (const auto* v = node->as_string()) {
      out = v->get();
      return true;
    }
    wrong_type(key, *node, "a string");
    return false;
  }

  bool strings(std::string_view key, std::vector<std::string>& out) {
    const toml::node* node = table_.get(key);
    if (!node) return false;
    const auto* arr = node->as_array();
    if (!arr) {
      wrong_type(key, *node, "an array of strings");
      return false;
    }
    out.clear();
    bool ok = true;
    for (const auto& item : *arr) {
      if (const auto* s = item.as_string()) {
        out.push_back(s->get());
      } else {
        problems_.push_back(problem(code::kBadValue, where_of(file_, item.source()),
                                    fmt::format("`{}` must hold strings only, found {}; quote it",
                                                key, type_name(item))));
        ok = false;
      }
    }
    return ok;
  }

  bool boolean(std::string_view key, bool& out) {
    const toml::node* node = table_.get(key);
    if (!node) return false;
    if (const auto* v = node->as_boolean()) {
      out = v->get();
      return true;
    }
    wrong_type(key, *node, "a boolean (true or false, unquoted)");
    return false;
  }

  bool integer(std::string_view key, int& out) {
    const toml::node* node = table_.get(key);
    if (!node) return false;
    if (const auto* v = node->as_integer()) {
      const std::int64_t value = v->get();
      if (value < -1000000 || value > 1000000) {
        problems_.push_back(problem(code::kBadValue, where_.at(key),
                                    fmt::format("`{}` = {} is out of range (-1000000..1000000)",
                                                key, value)));
        return false;
      }
      out = static_cast<int>(value);
      return true;
    }
    wrong_type(key, *node, "an integer");
    return false;
  }

  const Positions& where() const { return where_; }
  bool failed() const { return failed_; }
  void fail() { failed_ = true; }

 private:
  void missing(std::string_view key, std::string_view type) {
    failed_ = true;
    problems_.push_back(problem(code::kMissingKey, where_.table,
                                fmt::format("{} is missing the required key `{}`: add `{} = ...` "
                                            "({})",
                                            what_, key, key, type)));
  }
  void wrong_type(std::string_view key, const toml::node& node, std::string_view expected) {
    failed_ = true;
    problems_.push_back(problem(code::kBadValue, where_.at(key),
                                fmt::format("`{}` must be {}, found {}", key, expected,
                                            type_name(node))));
  }

  const std::string& file_;
  const toml::table& table_;
  std::string what_;
  core::Diagnostics& problems_;
  Positions where_;
  bool failed_ = false;
};

/// The tables of an array-of-tables key (`[[signal]]`), reporting other shapes.
std::vector<const toml::table*> tables_of(const std::string& file, const toml::node& node,
                                          std::string_view key, std::string_view header,
                                          core::Diagnostics& problems) {
  std::vector<const toml::table*> out;
  if (const auto* arr = node.as_array()) {
    for (const auto& item : *arr) {
      if (const auto* t = item.as_table()) {
        out.push_back(t);
      } else {
        problems.push_back(problem(code::kBadValue, where_of(file, item.source()),
                                   fmt::format("`{}` must be a list of tables ({}), found {}",
                                               key, header, type_name(item))));
      }
    }
    return out;
  }
  problems.push_back(problem(code::kBadValue, where_of(file, node.source()),
                             fmt::format("`{}` must be an array of tables: write `{}` (double "
                                         "brackets), found {}",
                                         key, header, type_name(node))));
  return out;
}

void read_sample(const std::string& file, const toml::table& table, SignalDraft& signal,
                 core::Diagnostics& problems) {
  SampleDraft draft;
  TableReader r(file, table, "a [[signal.sample]]", problems);
  r.check_keys(kSampleKeys);
  r.string("line", draft.sample.line, true);
  r.boolean("match", draft.sample.should_match);
  if (const toml::node* fields = table.get("fields")) {
    if (const auto* ft = fields->as_table()) {
      for (const auto& [key, value] : *ft) {
        const Where at = where_of(file, value.source());
        draft.where.keys.emplace("fields." + std::string(key.str()), at);
        if (const auto* s = value.as_string()) {
          draft.sample.fields[std::string(key.str())] = s->get();
        } else if (const auto* i = value.as_integer()) {
          draft.sample.fields[std::string(key.str())] = std::to_string(i->get());
        } else {
          r.fail();
          problems.push_back(problem(code::kBadValue, at,
                                     fmt::format("sample field `{}` must be a string or an "
                                                 "integer, found {}",
                                                 key.str(), type_name(value))));
        }
      }
    } else {
      r.fail();
      problems.push_back(problem(code::kBadValue, r.where().at("fields"),
                                 fmt::format("`fields` must be a table such as "
                                             "`fields = {{ pid = \"1234\" }}`, found {}",
                                             type_name(*fields))));
    }
  }
  const auto& keys = r.where().keys;
  draft.where.table = r.where().table;
  draft.where.keys.insert(keys.begin(), keys.end());
  draft.broken = r.failed();
  signal.samples.push_back(std::move(draft));
}

void read_signal(const std::string& file, const toml::table& table, Drafts& out,
                 core::Diagnostics& problems) {
  SignalDraft draft;
  TableReader r(file, table, "a [[signal]]", problems);
  r.check_keys(kSignalKeys);
  SignalRule& rule = draft.rule;
  rule.file = file;
  rule.line = static_cast<int>(table.source().begin.line);
  rule.column = static_cast<int>(table.source().begin.column);
  r.string("id", rule.id, true);
  r.string("kind", rule.kind, true);
  r.string("pattern", rule.pattern, true);
  r.string("description", rule.description, false);
  std::string severity;
  if (r.string("severity", severity, false)) {
    if (auto s = core::parse_severity(severity)) {
      rule.severity = *s;
    } else {
      r.fail();
      problems.push_back(problem(code::kBadValue, r.where().at("severity"),
                                 fmt::format("unknown severity `{}`: use one of debug, info, "
                                             "warning, error, critical",
                                             severity)));
    }
  }
  if (!r.strings("formats", rule.formats) && table.get("formats")) r.fail();
  if (!r.strings("literals", rule.literals) && table.get("literals")) r.fail();
  // What the signal declares (core/facts.hpp): only words the code reads, so that a fact no
  // code asks for, or a misspelt one, is an error here rather than a silent no-op.
  const auto known = [](const auto& list, std::string_view v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  const auto refuse = [&](std::string_view key, const std::string& value, const auto& list) {
    r.fail();
    problems.push_back(problem(code::kBadValue, r.where().at(key),
                               fmt::format("`{}` = \"{}\" is not a word the code reads: use one of {}", key, value,
                                           fmt::join(list, ", "))));
  };
  if (!r.strings("provides", rule.provides) && table.get("provides")) r.fail();
  for (const auto& f : rule.provides)
    if (!known(core::fact::kAll, f)) refuse("provides", f, core::fact::kAll);
  if (r.string("framework", rule.framework, false) && !known(core::framework::kAll, rule.framework))
    refuse("framework", rule.framework, core::framework::kAll);
  if (r.string("killer", rule.killer, false) && !known(core::killer::kAll, rule.killer))
    refuse("killer", rule.killer, core::killer::kAll);
  draft.where = r.where();
  draft.broken = r.failed();
  if (const toml::node* samples = table.get("sample")) {
    for (const toml::table* t : tables_of(file, *samples, "sample", "[[signal.sample]]", problems))
      read_sample(file, *t, draft, problems);
  }
  for (const auto& s : draft.samples) rule.samples.push_back(s.sample);
  out.signals.push_back(std::move(draft));
}

void read_diagnosis(const std::string& file, const toml::table& table, Drafts& out,
                    core::Diagnostics& problems) {
  DiagnosisDraft draft;
  TableReader r(file, table, "a [[diagnosis]]", problems);
  r.check_keys(kDiagnosisKeys);
  DiagnosisRule& rule = draft.rule;
  rule.file = file;
  rule.line = static_cast<int>(table.source().begin.line);
  rule.column = static_cast<int>(table.source().begin.column);
  r.string("id", rule.id, true);
  if (r.string("verdict", rule.verdict, true) &&
      std::find(kVerdicts.begin(), kVerdicts.end(), rule.verdict) == kVerdicts.end()) {
    r.fail();
    problems.push_back(problem(code::kBadValue, r.where().at("verdict"),
                               fmt::format("unknown verdict `{}`: use one of {}", rule.verdict,
                                           fmt::join(kVerdicts, ", "))));
  }
  r.string("title", rule.title, true);
  r.string("query", rule.query, true);
  r.string("message", rule.message, true);
  r.string("advice", rule.advice, false);
  r.integer("priority", rule.priority);
  if (r.string("ledger", rule.ledger, false) &&
      std::find(kLedgers.begin(), kLedgers.end(), rule.ledger) == kLedgers.end()) {
    r.fail();
    problems.push_back(problem(code::kBadValue, r.where().at("ledger"),
                               fmt::format("unknown ledger `{}`: use one of {}", rule.ledger,
                                           fmt::join(kLedgers, ", "))));
  }
  if (!r.strings("kinds", rule.kinds) && table.get("kinds")) r.fail();
  if (!r.strings("event_rules", rule.event_rules) && table.get("event_rules")) r.fail();
  draft.where = r.where();
  if (const toml::node* fixtures = table.get("fixtures")) {
    if (const auto* ft = fixtures->as_table()) {
      TableReader fr(file, *ft, "`fixtures`", problems);
      fr.check_keys(kFixtureKeys);
      if (!fr.strings("fire", rule.fixtures_fire) && ft->get("fire")) r.fail();
      if (!fr.strings("quiet", rule.fixtures_quiet) && ft->get("quiet")) r.fail();
      for (const auto& [k, w] : fr.where().keys) draft.where.keys.emplace("fixtures." + k, w);
    } else {
      r.fail();
      problems.push_back(problem(code::kBadValue, r.where().at("fixtures"),
                                 fmt::format("`fixtures` must be a table with `fire` and `quiet` "
                                             "lists, found {}",
                                             type_name(*fixtures))));
    }
  }
  draft.broken = r.failed();
  out.diagnoses.push_back(std::move(draft));
}

}  // namespace

void read_rule_text(const std::string& path, std::string_view text, Drafts& out,
                    core::Diagnostics& problems) {
  toml::table doc;
  try {
    doc = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    problems.push_back(problem(code::kTomlSyntax,
                               Where{path, static_cast<int>(at.line), static_cast<int>(at.column)},
                               fmt::format("TOML syntax error: {}. The whole file is skipped; "
                                           "fix the syntax (https://toml.io) and check again",
                                           e.description())));
    return;
  }
  for (const auto& [key, value] : doc) {
    const std::string_view k = key.str();
    if (k == "signal") {
      for (const toml::table* t : tables_of(path, value, "signal", "[[signal]]", problems))
        read_signal(path, *t, out, problems);
    } else if (k == "diagnosis") {
      for (const toml::table* t : tables_of(path, value, "diagnosis", "[[diagnosis]]", problems))
        read_diagnosis(path, *t, out, problems);
    } else {
      std::string hint;
      if (const auto near = text::near_word(k, {"signal", "diagnosis"}))
        hint = fmt::format(" (did you mean `[[{}]]`?)", *near);
      problems.push_back(problem(code::kUnknownKey, where_of(path, key.source()),
                                 fmt::format("unknown top-level key `{}`{}; a rule file holds "
                                             "[[signal]] and [[diagnosis]] tables only",
                                             k, hint),
                                 core::DiagLevel::warning));
    }
  }
}

}  // namespace culprit::rules::detail
