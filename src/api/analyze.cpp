// culprit::analyze and its checks: the public options become the pipeline's (api/incident.hpp),
// and what stops a run becomes a typed Error.
#include <fmt/format.h>

#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "api/incident.hpp"
#include "api/inputs.hpp"
#include "culprit/api/rule_loading.hpp"
#include "culprit/culprit.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/database.hpp"

namespace culprit {

struct Rules::Impl {
  rules::RuleSet rules;
  core::Diagnostics problems;
  bool errors = false;
};

namespace {

static_assert(kDefaultRuleTimeoutSeconds == diagnose::kRuleQuerySeconds, "the public default is the engine's");

bool has_error(const core::Diagnostics& problems) {
  for (const auto& p : problems)
    if (p.level == core::DiagLevel::error) return true;
  return false;
}

/// `what` and, when there is one, the first error-level problem that explains it.
std::string with_first_error(std::string what, const core::Diagnostics& problems) {
  for (const auto& p : problems)
    if (p.level == core::DiagLevel::error) return what + ": " + p.to_string();
  return what;
}

}  // namespace

std::string_view to_string(Errc code) {
  switch (code) {
    case Errc::invalid_option: return "invalid_option";
    case Errc::no_input: return "no_input";
    case Errc::database: return "database";
    case Errc::rules: return "rules";
    case Errc::not_found: return "not_found";
    case Errc::not_a_timeline: return "not_a_timeline";
    case Errc::query: return "query";
  }
  return "unknown";
}

Input Input::file(std::string path, std::string host) {
  Input in;
  in.path = std::move(path);
  in.host = std::move(host);
  return in;
}

Input Input::memory(std::string text, std::string host, std::string name) {
  Input in;
  in.text = std::move(text);
  in.host = std::move(host);
  in.name = std::move(name);
  return in;
}

bool Analysis::has_errors() const { return has_error(diagnostics); }

namespace {

/// Rule sets loaded before, by what they were loaded from: a long-lived caller (the Python
/// module's `rules=`, a service calling analyze) loads a folder once, not at every call —
/// parsing the TOML and checking every sample and query is most of a small run's time.
struct LoadedRules {
  std::string key;  ///< the prefilter flag, the folders, then each rule file's path and bytes
  std::shared_ptr<const Rules::Impl> impl;
};
struct RulesCache {
  static constexpr std::size_t kKept = 4;
  std::mutex mutex;
  std::deque<LoadedRules> entries;  ///< most recent last
};
RulesCache& rules_cache() {
  static RulesCache cache;
  return cache;
}

/// Everything a load of these folders depends on, read now: the same key means the same rules.
/// (The files' bytes themselves, not their times: an edit within a second is seen.)
std::string rules_key(const std::vector<std::string>& rule_dirs, bool prefilter) {
  std::string key(prefilter ? "prefilter;" : "no prefilter;");
  const auto field = [&key](std::string_view bytes) {  // length-prefixed: no two lists read alike
    key.append(std::to_string(bytes.size())).append(":").append(bytes);
  };
  core::Diagnostics unused;
  for (const auto& dir : rule_dirs) {
    field(dir);
    const auto files = rules::read_rule_dir(dir, unused);
    key.append(std::to_string(files.size())).append(" files;");
    for (const auto& file : files) {
      field(file.path);
      field(file.text);
    }
  }
  return key;
}

}  // namespace

Rules Rules::load(const std::vector<std::string>& rule_dirs, bool prefilter) {
  const std::string key = rules_key(rule_dirs, prefilter);
  RulesCache& cache = rules_cache();
  Rules r;
  {
    const std::lock_guard<std::mutex> lock(cache.mutex);
    for (const LoadedRules& entry : cache.entries)
      if (entry.key == key) {
        r.impl_ = entry.impl;
        return r;
      }
  }
  auto loaded = api::load_rule_set(rule_dirs);
  auto impl = std::make_shared<Impl>();
  impl->rules = std::move(loaded.rules);
  if (!prefilter) impl->rules.signals.set_prefilter(false);
  impl->errors = has_error(loaded.problems);
  impl->problems = std::move(loaded.problems);
  r.impl_ = impl;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.entries.size() == RulesCache::kKept) cache.entries.pop_front();
  cache.entries.push_back({key, std::move(impl)});
  return r;
}

const core::Diagnostics& Rules::problems() const { return impl_->problems; }
bool Rules::has_errors() const { return impl_->errors; }

std::optional<Error> check_options(const Options& o) {
  auto invalid = [](std::string message) { return Error{Errc::invalid_option, std::move(message), {}}; };
  if (o.year != 0 && (o.year < 1970 || o.year > 2200))
    return invalid(fmt::format("year {} is not a four-digit year culprit can place (1970 … 2200, or 0)", o.year));
  if (o.max_events < 0) return invalid(fmt::format("max_events {} is negative (0: no limit)", o.max_events));
  if (o.piece_bytes < 0) return invalid(fmt::format("piece_bytes {} is negative (0: every input whole)", o.piece_bytes));
  if (o.max_line_bytes < 0 || o.max_line_bytes > (std::int64_t{1} << 30))
    return invalid(fmt::format("max_line_bytes {} is outside 0 … {} (0: no limit)", o.max_line_bytes,
                               std::int64_t{1} << 30));
  if (o.threads < 1 || o.threads > 4096) return invalid(fmt::format("threads {} is outside 1 … 4096", o.threads));
  if (!(o.rule_timeout_seconds > 0))
    return invalid(fmt::format("rule timeout {} must be a positive number of seconds", o.rule_timeout_seconds));
  store::ClockOptions clock;
  clock.tz = o.tz;
  clock.boot_times = o.boot_times;
  if (auto err = store::check_clock_options(clock); !err.empty()) return invalid(err);
  return std::nullopt;
}

std::optional<Error> check_timeline_target(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return std::nullopt;
  // Read-only and immutable: a file that is not ours is refused exactly as it was found.
  std::string why;
  auto existing = store::Database::open_read_only(path, why);
  if (existing) why = existing->check_timeline("main", store::Database::TimelineUse::write);
  if (why.empty()) return std::nullopt;
  return Error{Errc::database,
               fmt::format("{} exists and is not a culprit timeline of this version ({}); refusing to overwrite it",
                           path, why),
               {}};
}

Result<Analysis> analyze(const std::vector<Input>& inputs, const Options& options) {
  const Rules rules = Rules::load(options.rule_dirs, options.prefilter);
  if (rules.has_errors())
    return Error{Errc::rules, with_first_error("rules with errors", rules.problems()), rules.problems()};
  auto result = analyze(inputs, options, rules);
  if (result) {
    auto& d = result->diagnostics;
    d.insert(d.begin(), rules.problems().begin(), rules.problems().end());
  }
  return result;
}

Result<Analysis> analyze(const std::vector<Input>& inputs, const Options& options, const Rules& rules) {
  if (auto why = check_options(options)) return *why;
  if (inputs.empty()) return Error{Errc::no_input, "no input given (a path, a folder, or a text)", {}};
  auto result = api::run_incident(api::reader_for(inputs, options), rules.impl().rules, options);
  if (!result.ok)
    return Error{Errc::database, with_first_error("the timeline could not be written", result.problems),
                 std::move(result.problems)};
  if (result.sources == 0 && options.empty_is_error)
    return Error{Errc::no_input, with_first_error("no input could be read", result.problems),
                 std::move(result.problems)};
  Analysis analysis;
  analysis.verdict = std::move(result.verdict);
  analysis.diagnostics = std::move(result.problems);
  analysis.sources = result.sources;
  analysis.db_path = options.db_path;
  return analysis;
}

}  // namespace culprit
