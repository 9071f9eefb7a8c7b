// libculprit's public API (target `culprit::culprit`): diagnose an incident from paths or texts
// held in memory, and render the verdict. This is the stable surface; the module headers beside
// it (culprit/<module>/…) are the implementation's and may change. No SQLite, RE2, Boost or
// other third-party type appears here: a `Verdict` (culprit/diagnose/finding.hpp) is plain data,
// the same the JSON contract (schema/culprit-report.schema.json) carries.
//
//   culprit::Options options;
//   auto analysis = culprit::analyze({culprit::Input::memory(paste)}, options);
//   if (!analysis) return fail(analysis.error().message);      // a typed culprit::Error
//   std::cout << culprit::render(*analysis, culprit::Format::text);
//
// Every function is thread-safe; analyses run concurrently share one `Rules`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "culprit/core/core_share.hpp"
#include "culprit/core/diagnostic.hpp"
#include "culprit/diagnose/finding.hpp"

namespace culprit {

/// What stopped an analysis (the message says which input or option).
enum class Errc {
  invalid_option,  ///< an option out of its range or choices (`tz`, `boot_times`, `year`, …)
  no_input,        ///< nothing given, or nothing given could be read
  database,        ///< the timeline could not be created or written (`db_path`)
  rules,           ///< a rule file (`rule_dirs`) has errors (analyze without a `Rules`)
  not_found,       ///< a saved timeline (culprit/timeline.hpp) that does not exist
  not_a_timeline,  ///< a file that is not a culprit timeline of this version
  query,           ///< an SQL statement refused (not one read-only statement), failed or stopped
};
/// `invalid_option`, `no_input`, `database`, `rules`, `not_found`, `not_a_timeline`, `query`
std::string_view to_string(Errc code);

struct Error {
  Errc code = Errc::no_input;
  std::string message;            ///< one line, e.g. `no input could be read`
  core::Diagnostics diagnostics;  ///< what was noted before it stopped (unreadable inputs, …)
};

/// A value or the Error that prevented it (std::expected's shape; C++20 has none).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

/// One input: a path (file, folder, archive; `-` is standard input) or a text in memory.
struct Input {
  std::string path;                 ///< '' when `text` is set
  std::optional<std::string> text;  ///< the bytes of an in-memory input (a paste, a traceback)
  /// The text's source name in the report; `<stdin>` by default, the name the CLI gives
  /// standard input, so `analyze({Input::memory(paste)})` reports what `culprit - < paste` does.
  std::string name = "<stdin>";
  std::string host;                 ///< the host of this input ('' : Options::host)

  static Input file(std::string path, std::string host = {});
  static Input memory(std::string text, std::string host = {}, std::string name = "<stdin>");
};

/// The time a [[diagnosis]] query may take by default (--rule-timeout).
inline constexpr double kDefaultRuleTimeoutSeconds = 30;
/// The time budget of the SQL culprit runs over a database file it did not write (a saved
/// timeline read by `culprit timeline --db` or `query`, each shard `culprit merge --db` copies):
/// such a file may hold anything, and reading it must end. `culprit query --timeout`'s default.
inline constexpr double kForeignSqlSeconds = 60;

/// Options::piece_bytes by default: the few pieces parsed at once stay well under 128 MiB, and a
/// piece with its line index stays in the cache its passes read it from (on the 2-core dev VM,
/// an AMD EPYC guest, 4 MiB pieces scanned 1 GiB 7 % faster than 8 MiB ones; 1 MiB ones lose
/// again to per-piece costs).
inline constexpr std::int64_t kDefaultPieceBytes = std::int64_t{4} << 20;

/// The CLI's `diagnose` options (`culprit diagnose --help` says the same).
struct Options {
  std::string host;                      ///< --host: the host of inputs that name none
  std::vector<std::string> excludes;     ///< --exclude: file-name globs skipped
  std::vector<std::string> rule_dirs;    ///< --rules: rule folders beside the built-in rules
  int year = 0;                          ///< --year of stamps without one (0: infer)
  std::string tz;                        ///< --tz of stamps without a zone ('' infer / UTC)
  std::vector<std::string> boot_times;   ///< --boot-time HOST=TIME entries
  std::int64_t max_events = 0;           ///< --max-events (0: no limit)
  std::int64_t max_line_bytes = 1 << 20; ///< --max-line-bytes (0: no limit)
  /// A log file, stream or archive member past this many bytes is read and parsed in pieces of
  /// about this size, each ending where no block is open (ingest::quiet_piece_end), so that
  /// memory stays bounded whatever the input's size (0: every input whole; at least 128 KiB).
  std::int64_t piece_bytes = kDefaultPieceBytes;
  unsigned threads = 1;                  ///< --jobs: big inputs parsed at once (same result for any)
  /// Cores the incidents of one `culprit scan` share (null: `threads` alone): with `threads` 1,
  /// a big piece is parsed beside the reading wherever one is free (same result either way).
  std::shared_ptr<core::CoreShare> shared_cores;
  double rule_timeout_seconds = kDefaultRuleTimeoutSeconds;  ///< --rule-timeout of one query
  bool prefilter = true;                 ///< false: --no-prefilter (every regex on every line)
  /// Keep the timeline (SQLite) in this file, written in place ('' : in memory). The caller
  /// renames or removes it; check_timeline_target says whether a path may be overwritten.
  std::string db_path;
  /// A folder named as an input is the host of its files when its name is no content word
  /// (`culprit spark-b/`); false where the folder is an incident, not a node (`culprit scan`'s
  /// incident folders, named `case-07-…`): its files' hosts come from node subfolders and content.
  bool input_folder_is_host = true;
  /// No readable input is Errc::no_input; false gives the (empty) Analysis instead, with
  /// `sources` 0 (`culprit scan` lists such an incident as unreadable).
  bool empty_is_error = true;
  /// The report's parts beside the verdict: the list of sources (`sources`) and the report's
  /// data (`data`: the cross-host timeline, memory and GPU series, OOM tables). false: the
  /// verdict, its findings and what was skipped only, for a caller that prints no more
  /// (`culprit scan`'s table, where the per-source summary of a folder of small files was a
  /// tenth of the work).
  bool report_details = true;
};

struct Analysis {
  diagnose::Verdict verdict;      ///< the JSON contract's data
  core::Diagnostics diagnostics;  ///< skipped inputs, notes, warnings, in input order
  std::size_t sources = 0;        ///< inputs read that hold a non-blank byte (0: no readable input)
  std::string db_path;            ///< the timeline file (Options::db_path), '' in memory
  bool has_errors() const;        ///< a diagnostic of level error (the CLI exits 2)
};

/// A loaded rule set: the built-in rules plus rule folders. Load once, analyze many times
/// (`culprit scan`); copies share it. Broken rules are left out and named in problems().
/// load() keeps the last few sets it loaded, by the folders' files' bytes: loading the same
/// folders again (analyze(inputs, options) with rule_dirs, Python's `rules=`) reads their
/// files but parses and checks them again only after one changed.
class Rules {
 public:
  static Rules load(const std::vector<std::string>& rule_dirs = {}, bool prefilter = true);
  const core::Diagnostics& problems() const;
  bool has_errors() const;
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  Rules() = default;
  std::shared_ptr<const Impl> impl_;
};

/// Reads `inputs` into a timeline, aligns the clocks and diagnoses; `options.rule_dirs` loads
/// rules (an error in them: Errc::rules). Unreadable inputs are diagnostics, not errors, as
/// long as one input was read.
Result<Analysis> analyze(const std::vector<Input>& inputs, const Options& options = {});
/// The same with rules loaded before (their problems are not repeated; `options.rule_dirs`
/// and `options.prefilter` are ignored).
Result<Analysis> analyze(const std::vector<Input>& inputs, const Options& options, const Rules& rules);

/// Options out of range or choices (what analyze refuses as Errc::invalid_option).
std::optional<Error> check_options(const Options& options);

/// nullopt when `path` may receive a timeline (absent, or a culprit timeline of this version);
/// else Errc::database naming it.
std::optional<Error> check_timeline_target(const std::string& path);

enum class Format { text, markdown, json, html };
/// `text`/`txt`, `markdown`/`md`, `json`, `html`/`htm` (any case); else nullopt.
std::optional<Format> parse_format(std::string_view name);

struct RenderOptions {
  bool color = false;  ///< ANSI colours (text only)
  int width = 100;     ///< terminal columns for text (0: no limit)
  bool redact = false; ///< host names, IPs, users, container ids become placeholders
};

/// The report as the CLI prints it (`culprit --format …`), ending with a newline.
std::string render(const Analysis& analysis, Format format, const RenderOptions& options = {});
/// The verdict with names redacted (what RenderOptions::redact renders).
diagnose::Verdict redacted(const diagnose::Verdict& verdict);

/// The library's version (`0.1.0`).
std::string_view version();

}  // namespace culprit
