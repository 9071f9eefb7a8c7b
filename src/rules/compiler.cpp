// Validate + compile stage: turns drafts into an immutable RuleSet. Regexes are compiled once,
// every sample is run through the same SignalSet the scanner uses (prefilter on), and diagnosis
// messages and queries are checked, so a broken rule is reported at load, not mid-incident.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>

#include "culprit/core/event.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/spelling.hpp"
#include "draft.hpp"
#include "precomputed_literals.hpp"

namespace culprit::rules::detail {

namespace {

constexpr std::array kStandardColumns = {
    "host",       "ts",         "culprit_host", "culprit_pid", "culprit_name", "culprit_role",
    "confidence", "evidence",   "detail",       "victim_pid",  "victim_name",  "event_id"};

/// Values the engine gives every template (rules/README.md, "Message phrases").
constexpr std::array kEngineValues = {"on_host", "ledger_sentence", "culprit_action"};

/// Field names whose values ingest stores as integers (and every `*_pid`).
constexpr std::array kIntegerFields = {"pid", "rank", "gpu", "xid", "exitcode", "signal"};

bool valid_id(std::string_view id) {
  if (id.empty() || !(std::islower(static_cast<unsigned char>(id[0])) ||
                      std::isdigit(static_cast<unsigned char>(id[0]))))
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

bool valid_kind(std::string_view kind) {
  return !kind.empty() && std::islower(static_cast<unsigned char>(kind[0])) &&
         std::all_of(kind.begin(), kind.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '_';
         });
}

bool is_integer(std::string_view v) {
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

/// A size as tools print it: `2.00 GiB`, `11990MiB`, `1234 bytes`, `62Gi`, `4096kB`, `16.00GiB`,
/// `512. MiB` (NumPy), `1,024 bytes` (CuPy).
bool is_size(std::string_view v) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == ',')) ++i;
    return i > start;
  };
  if (!digits()) return false;
  if (i < v.size() && v[i] == '.') {
    ++i;
    digits();  // NumPy prints `512. MiB`
  }
  while (i < v.size() && v[i] == ' ') ++i;
  static constexpr std::array kUnits = {"", "B", "bytes", "byte", "K", "KB", "kB", "KiB", "Ki",
                                        "M", "MB", "MiB", "Mi", "G", "GB", "GiB", "Gi", "T",
                                        "TB", "TiB", "Ti", "PiB", "PB"};
  const std::string_view unit = v.substr(i);
  return std::find(kUnits.begin(), kUnits.end(), unit) != kUnits.end();
}

std::string capture_list(const std::vector<text::Capture>& caps) {
  if (caps.empty()) return "no fields";
  std::vector<std::string> parts;
  for (const auto& c : caps) parts.push_back(fmt::format("{} = \"{}\"", c.name, c.value));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string shorten(std::string_view s, std::size_t max = 100) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "...";
}

const std::string* capture_value(const std::vector<text::Capture>& caps, std::string_view name) {
  for (const auto& c : caps)
    if (c.name == name) return &c.value;
  return nullptr;
}

/// The words (identifiers) in a SQL text, lower-cased.
std::set<std::string> sql_words(std::string_view sql) {
  std::set<std::string> out;
  std::string word;
  for (char c : sql) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!word.empty()) {
      out.insert(word);
      word.clear();
    }
  }
  if (!word.empty()) out.insert(word);
  return out;
}

void check_signal_ids(Drafts& drafts, core::Diagnostics& problems) {
  std::map<std::string, const SignalDraft*> seen;
  for (auto& d : drafts.signals) {
    const auto& rule = d.rule;
    if (d.where.keys.count("id") && !valid_id(rule.id)) {
      d.broken = true;
      problems.push_back(problem(code::kBadValue, d.where.at("id"),
                                 fmt::format("signal id `{}` is not valid: use lower-case "
                                             "letters, digits, `_`, `-` and `.` (e.g. "
                                             "`torch_cuda_oom`)",
                                             rule.id)));
    }
    if (d.where.keys.count("kind") && !valid_kind(rule.kind)) {
      d.broken = true;
      problems.push_back(problem(code::kBadValue, d.where.at("kind"),
                                 fmt::format("signal kind `{}` is not valid: use a snake_case "
                                             "name such as `cuda_oom` or `signal_exit`",
                                             rule.kind)));
    }
    if (rule.id.empty()) continue;
    auto [it, inserted] = seen.emplace(rule.id, &d);
    if (!inserted) {
      d.broken = true;
      problems.push_back(problem(code::kDuplicateId, d.where.at("id"),
                                 fmt::format("signal id `{}` is already defined at {}; ids must "
                                             "be unique across all rule files: rename one",
                                             rule.id, it->second->where.at("id").str())));
    }
  }
}

void check_diagnosis_ids(Drafts& drafts, core::Diagnostics& problems) {
  std::map<std::string, const DiagnosisDraft*> seen;
  for (auto& d : drafts.diagnoses) {
    const auto& rule = d.rule;
    if (d.where.keys.count("id") && !valid_id(rule.id)) {
      d.broken = true;
      problems.push_back(problem(code::kBadValue, d.where.at("id"),
                                 fmt::format("diagnosis id `{}` is not valid: use lower-case "
                                             "letters, digits, `_`, `-` and `.`",
                                             rule.id)));
    }
    if (rule.id.empty()) continue;
    auto [it, inserted] = seen.emplace(rule.id, &d);
    if (!inserted) {
      d.broken = true;
      problems.push_back(problem(code::kDuplicateId, d.where.at("id"),
                                 fmt::format("diagnosis id `{}` is already defined at {}; ids "
                                             "must be unique across all rule files: rename one",
                                             rule.id, it->second->where.at("id").str())));
    }
  }
}

/// A signal's kind must be read by something, else its events are recorded that nothing uses (a
/// typo such as `cuda_oomm` would pass silently): a kind the code reads (core::kind::kAll) or a
/// word of some diagnosis query, built-in or the user's (a rule set may bring its own kind and
/// the diagnosis that reads it).
void check_signal_kinds(Drafts& drafts, core::Diagnostics& problems) {
  std::set<std::string> read;
  for (const auto kind : core::kind::kAll) read.emplace(kind);
  for (const auto& d : drafts.diagnoses) {
    if (d.broken) continue;
    const auto words = sql_words(d.rule.query);
    read.insert(words.begin(), words.end());
  }
  std::vector<std::string> known;
  for (const auto kind : core::kind::kAll) known.emplace_back(kind);
  for (const auto& d : drafts.signals)
    if (!d.broken && read.count(d.rule.kind)) known.push_back(d.rule.kind);
  for (auto& d : drafts.signals) {
    if (d.broken || !d.where.keys.count("kind") || read.count(d.rule.kind)) continue;
    d.broken = true;
    const auto near = text::near_word(d.rule.kind, known);
    problems.push_back(problem(code::kBadValue, d.where.at("kind"),
                               fmt::format("signal kind `{}` of `{}` is read by no diagnosis{}; name a kind a "
                                           "diagnosis reads (`cuda_oom`, `signal_exit`, `log` for context…) or add "
                                           "the [[diagnosis]] whose query reads it",
                                           d.rule.kind, d.rule.id,
                                           near ? fmt::format(" (did you mean `{}`?)", *near) : std::string())));
  }
}

/// A diagnosis's `kinds` must be kinds an event can have, else the engine would never run it (a
/// typo such as `cuda_oomm` would silence the diagnosis): a kind the code reads, a signal's kind
/// or a word of the diagnosis's own query (kinds its parsers write, such as `gpu_snapshot`).
void check_diagnosis_kinds(Drafts& drafts, core::Diagnostics& problems) {
  std::vector<std::string> known;
  for (const auto kind : core::kind::kAll) known.emplace_back(kind);
  for (const auto& d : drafts.signals)
    if (!d.broken) known.push_back(d.rule.kind);
  for (auto& d : drafts.diagnoses) {
    if (d.broken || d.rule.kinds.empty()) continue;
    const auto words = sql_words(d.rule.query);
    for (const auto& kind : d.rule.kinds) {
      if (words.count(kind) || std::find(known.begin(), known.end(), kind) != known.end()) continue;
      d.broken = true;
      const auto near = text::near_word(kind, known);
      problems.push_back(problem(code::kBadValue, d.where.at("kinds"),
                                 fmt::format("kind `{}` in the `kinds` of `{}` is no kind an event can have{}; the "
                                             "diagnosis runs only when the timeline holds one of its kinds, so name "
                                             "the kinds its query starts from (`cuda_oom`, `signal_exit`…)",
                                             kind, d.rule.id,
                                             near ? fmt::format(" (did you mean `{}`?)", *near) : std::string())));
    }
  }
}

/// A diagnosis's `event_rules` must each be quoted in its own query (`e.rule = 'x'`), else the
/// engine would skip it over a timeline whose events it reads (a typo would silence it).
void check_diagnosis_event_rules(Drafts& drafts, core::Diagnostics& problems) {
  for (auto& d : drafts.diagnoses) {
    if (d.broken) continue;
    for (const auto& rule : d.rule.event_rules) {
      if (!rule.empty() && d.rule.query.find("'" + rule + "'") != std::string::npos) continue;
      d.broken = true;
      problems.push_back(problem(code::kBadValue, d.where.at("event_rules"),
                                 fmt::format("rule `{}` in the `event_rules` of `{}` is not quoted in its query; the "
                                             "diagnosis runs only when the timeline holds an event of one of its "
                                             "`event_rules`, so name the rules its query starts from ('{}')",
                                             rule, d.rule.id, rule)));
      break;
    }
  }
}

/// Checks one sample against the compiled set; returns false on a problem.
bool check_sample(const SignalDraft& d, const SampleDraft& s, const text::Pattern& pattern,
                  const text::SignalSet& set, core::Diagnostics& problems) {
  const auto& sample = s.sample;
  std::vector<text::Capture> caps;
  const bool matched = pattern.match(sample.line, caps);
  if (!sample.should_match) {
    if (matched) {
      problems.push_back(problem(code::kSampleMismatch, s.where.table,
                                 fmt::format("signal `{}` matches a sample marked `match = "
                                             "false`: `{}` (it yields {}). Tighten the pattern "
                                             "so this look-alike does not match",
                                             d.rule.id, shorten(sample.line),
                                             capture_list(caps))));
      return false;
    }
    return true;
  }
  if (!matched) {
    problems.push_back(problem(code::kSampleMismatch, s.where.table,
                               fmt::format("signal `{}` does not match its sample `{}`; fix the "
                                           "pattern or the sample line (patterns see the "
                                           "message after prefixes and ANSI codes are removed)",
                                           d.rule.id, shorten(sample.line))));
    return false;
  }
  // The scanner goes through the prefilter: a declared literal that the line lacks drops it.
  const std::string_view format =
      d.rule.formats.empty() ? std::string_view() : std::string_view(d.rule.formats.front());
  bool via_set = false;
  for (const auto& m : set.match(sample.line, format))
    if (m.signal->id == d.rule.id) via_set = true;
  if (!via_set) {
    std::vector<std::string> literals;
    for (const auto& sig : set.signals())
      if (sig.id == d.rule.id) literals = sig.literals;
    problems.push_back(problem(code::kSampleMismatch, s.where.table,
                               fmt::format("signal `{}` matches its sample by pattern but the "
                                           "prefilter drops it: the line contains none of the "
                                           "literals [{}]. Every matching line must contain one "
                                           "literal: fix `literals` or remove it",
                                           d.rule.id, fmt::join(literals, ", "))));
    return false;
  }
  bool ok = true;
  for (const auto& [name, expected] : sample.fields) {
    const Where& at = s.where.at("fields." + name);
    const auto& groups = pattern.group_names();
    if (std::find(groups.begin(), groups.end(), name) == groups.end()) {
      problems.push_back(problem(code::kSampleField, at,
                                 fmt::format("sample expects field `{}` but the pattern of `{}` "
                                             "has no group `(?P<{}>...)`",
                                             name, d.rule.id, name)));
      ok = false;
      continue;
    }
    const std::string* got = capture_value(caps, name);
    if (!got) {
      problems.push_back(problem(code::kSampleField, at,
                                 fmt::format("sample expects field `{}` = \"{}\" but the group "
                                             "did not take part in the match (got {})",
                                             name, expected, capture_list(caps))));
      ok = false;
    } else if (*got != expected) {
      problems.push_back(problem(code::kSampleField, at,
                                 fmt::format("sample field `{}`: expected \"{}\", the pattern "
                                             "captured \"{}\"",
                                             name, expected, *got)));
      ok = false;
    }
  }
  // Naming conventions the ingest layer relies on.
  for (const auto& c : caps) {
    const bool integer_field =
        std::find(kIntegerFields.begin(), kIntegerFields.end(), c.name) != kIntegerFields.end() ||
        (c.name.size() > 4 && c.name.compare(c.name.size() - 4, 4, "_pid") == 0);
    if (integer_field && !is_integer(c.value)) {
      problems.push_back(problem(code::kSampleField, s.where.table,
                                 fmt::format("field `{}` must capture an integer (ingest stores "
                                             "it as a number) but captured \"{}\"",
                                             c.name, c.value)));
      ok = false;
    }
    if (c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, "_size") == 0 &&
        !is_size(c.value)) {
      problems.push_back(problem(code::kSampleField, s.where.table,
                                 fmt::format("field `{}` ends in `_size`, so it must capture a "
                                             "size such as `2.00 GiB` or `11990MiB`, but "
                                             "captured \"{}\"",
                                             c.name, c.value)));
      ok = false;
    }
  }
  return ok;
}

void check_template(DiagnosisDraft& d, const char* key, const std::string& tmpl, core::Diagnostics& problems) {
  if (!d.where.keys.count(key)) return;
  std::vector<std::string> names;
  const std::string error = template_names(tmpl, names);
  if (!error.empty()) {
    d.broken = true;
    problems.push_back(problem(code::kBadValue, d.where.at(key),
                               fmt::format("{} is not a valid template: {}. Use "
                                           "`{{column}}` for values and `{{{{`/`}}}}` for "
                                           "literal braces",
                                           key, error)));
    return;
  }
  const std::set<std::string> words = sql_words(d.rule.query);
  for (const auto& name : names) {
    const bool standard =
        std::find(kStandardColumns.begin(), kStandardColumns.end(), name) != kStandardColumns.end() ||
        std::find(kEngineValues.begin(), kEngineValues.end(), name) != kEngineValues.end();
    if (standard || words.count(name)) continue;
    d.broken = true;
    problems.push_back(problem(code::kBadValue, d.where.at(key),
                               fmt::format("{} names `{{{}}}`, which is neither a standard "
                                           "column ({}), an engine phrase ({}) nor a column of the "
                                           "query; select it in the query or fix the name",
                                           key, name, fmt::join(kStandardColumns, ", "),
                                           fmt::join(kEngineValues, ", "))));
  }
}

}  // namespace

std::string template_names(std::string_view message, std::vector<std::string>& names) {
  names.clear();
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (c == '}') {
      if (i + 1 < message.size() && message[i + 1] == '}') {
        ++i;
        continue;
      }
      return fmt::format("unmatched `}}` at offset {}", i);
    }
    if (c != '{') continue;
    if (i + 1 < message.size() && message[i + 1] == '{') {
      ++i;
      continue;
    }
    const std::size_t close = message.find('}', i + 1);
    if (close == std::string_view::npos) return fmt::format("unclosed `{{` at offset {}", i);
    std::string_view inner = message.substr(i + 1, close - i - 1);
    const std::size_t colon = inner.find(':');
    const std::string_view name = inner.substr(0, colon);
    if (name.empty()) return fmt::format("positional `{{}}` at offset {}: name the column", i);
    if (!std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        }) ||
        std::isdigit(static_cast<unsigned char>(name[0])))
      return fmt::format("`{{{}}}` at offset {} is not a column name", inner, i);
    if (colon != std::string_view::npos && inner.find('{') != std::string_view::npos)
      return fmt::format("nested braces in `{{{}}}` are not supported", inner);
    names.emplace_back(name);
    i = close;
  }
  return {};
}

void compile_drafts(Drafts& drafts, const QueryChecker& check_query, bool check_samples, RuleSet& out,
                    core::Diagnostics& problems) {
  check_signal_ids(drafts, problems);
  check_diagnosis_ids(drafts, problems);
  check_signal_kinds(drafts, problems);
  check_diagnosis_kinds(drafts, problems);
  check_diagnosis_event_rules(drafts, problems);

  // Regexes.
  std::vector<std::shared_ptr<const text::Pattern>> patterns(drafts.signals.size());
  for (std::size_t i = 0; i < drafts.signals.size(); ++i) {
    auto& d = drafts.signals[i];
    if (!d.where.keys.count("pattern")) continue;
    // Without the sample checks (the built-in set, already checked) a regex is compiled the first
    // time a line reaches it, and its validity is not re-checked here.
    auto pattern = std::make_shared<const text::Pattern>(
        d.rule.pattern, check_samples ? text::Compile::now : text::Compile::on_first_use);
    if (!check_samples) {
      patterns[i] = std::move(pattern);
      continue;
    }
    if (!pattern->ok() && pattern->error().find("pattern too large") != std::string::npos) {
      d.broken = true;  // RE2's max_mem: see text::kPatternMemoryBytes
      problems.push_back(problem(code::kBadRegex, d.where.at("pattern"),
                                 fmt::format("pattern of `{}` needs more memory than a rule's regex may use "
                                             "({} MiB); split it or bound its repetitions",
                                             d.rule.id, text::kPatternMemoryBytes >> 20)));
      continue;
    }
    if (!pattern->ok()) {
      d.broken = true;
      problems.push_back(problem(code::kBadRegex, d.where.at("pattern"),
                                 fmt::format("pattern of `{}` is not a valid RE2 regex: {}. RE2 "
                                             "has no lookaround and no backreferences; name "
                                             "groups as `(?P<name>...)`",
                                             d.rule.id, pattern->error())));
      continue;
    }
    for (const auto& name : pattern->group_names()) {
      if (name.size() > 6 && name.compare(name.size() - 6, 6, "_bytes") == 0) {
        d.broken = true;
        problems.push_back(problem(code::kBadValue, d.where.at("pattern"),
                                   fmt::format("group `{}` of `{}`: ingest derives `<base>_bytes` "
                                               "from a `<base>_size` group, so a pattern must not "
                                               "name one itself; call it `{}_size` (a bare number "
                                               "reads as bytes)",
                                               name, d.rule.id,
                                               name.substr(0, name.size() - 6))));
      }
    }
    if (d.broken) continue;
    patterns[i] = std::move(pattern);
  }

  auto to_signal = [&](std::size_t i) {
    const auto& r = drafts.signals[i].rule;
    text::Signal s;
    s.id = r.id;
    s.kind = r.kind;
    s.severity = r.severity;
    s.formats = r.formats;
    s.literals = r.literals;
    if (s.literals.empty()) {
      if (const auto* pre = find_precomputed_literals(r.pattern)) {
        s.literals = pre->literal_strings();
        s.clauses = pre->clause_strings();
        s.literals_precomputed = true;
      }
    }
    s.pattern = patterns[i];
    if (!r.provides.empty()) s.fields.emplace_back(core::fact::kField, core::fact::field_value(r.provides));
    if (!r.framework.empty()) s.fields.emplace_back(core::framework::kField, r.framework);
    if (!r.killer.empty()) s.fields.emplace_back(core::killer::kField, r.killer);
    return s;
  };

  // Samples run through a set holding every signal that compiled, as the scanner would.
  text::SignalSet trial;
  if (check_samples) {
    for (std::size_t i = 0; i < drafts.signals.size(); ++i)
      if (!drafts.signals[i].broken && patterns[i]) trial.add(to_signal(i));
    trial.build();
    for (std::size_t i = 0; i < drafts.signals.size(); ++i) {
      auto& d = drafts.signals[i];
      if (d.broken || !patterns[i]) continue;
      for (const auto& s : d.samples) {
        if (s.broken) {
          d.broken = true;
          continue;
        }
        if (!check_sample(d, s, *patterns[i], trial, problems)) d.broken = true;
      }
    }
  }

  for (std::size_t i = 0; i < drafts.signals.size(); ++i) {
    auto& d = drafts.signals[i];
    if (d.broken || !patterns[i]) continue;
    out.signal_rules.push_back(d.rule);
    out.signals.add(to_signal(i));
  }
  out.signals.build();

  for (auto& d : drafts.diagnoses) {
    check_template(d, "message", d.rule.message, problems);
    check_template(d, "advice", d.rule.advice, problems);
    if (check_query && d.where.keys.count("query") && !d.rule.query.empty()) {
      const std::string error = check_query(d.rule.query);
      if (!error.empty()) {
        d.broken = true;
        problems.push_back(problem(code::kBadQuery, d.where.at("query"),
                                   fmt::format("query of `{}` cannot run over the timeline: {}. "
                                               "Try it with `culprit query`",
                                               d.rule.id, error)));
      }
    }
    if (!d.broken) out.diagnoses.push_back(d.rule);
  }
}

}  // namespace culprit::rules::detail
