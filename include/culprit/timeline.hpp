// libculprit's saved timelines (a file written by `analyze` with Options::db_path, by
// `culprit diagnose --db` or `culprit scan --db`): one read-only SQL query over it, its events
// as `culprit timeline` lists them, and scan databases written and merged. Part of the public
// API beside culprit/culprit.hpp (its Result / Error); no SQLite type appears here: cells are
// plain variants, events the plain TimelineEvent / HostClock of culprit/diagnose/finding.hpp.
//
//   auto table = culprit::query("incident.db", "SELECT kind, count(*) FROM events GROUP BY kind");
//   if (!table) return fail(table.error().message);  // Errc::query, not_found, not_a_timeline, …
//   for (const auto& row : table->rows) std::cout << culprit::cell_text(row[0]) << '\n';
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "culprit/culprit.hpp"
#include "culprit/diagnose/finding.hpp"

namespace culprit {

/// A BLOB's bytes, kept apart from text: a received file's blob is any bytes (a raw pointer from
/// `fts3_tokenizer()`, an escape sequence), so it is shown as hex, never as it is.
struct Blob {
  std::string bytes;
  /// The bytes as lowercase hex, two digits each: "1bff00".
  std::string hex() const;
  bool operator==(const Blob&) const = default;
};

/// One value read back: NULL (monostate), an integer, a real, a text or a blob, SQLite's type kept.
using Cell = std::variant<std::monostate, std::int64_t, double, std::string, Blob>;
/// The cell as `culprit query` prints it in its table: integers and reals formatted, NULL '', a
/// blob as SQLite writes a blob literal (x'1bff00').
std::string cell_text(const Cell& cell);

/// A query's result: the column names and each row's cells, in column order.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

struct QueryOptions {
  /// Stop the query after this long (Errc::query); 0: no limit. A file may hold a query that
  /// never ends (a view in a table's place is refused, but a query's own recursion is not).
  double timeout_seconds = kForeignSqlSeconds;
};

/// Runs one read-only statement over the timeline `db_path`, opened read-only: a write, ATTACH,
/// PRAGMA or a second statement is refused (Errc::query) and nothing on disk changes. No such
/// file is Errc::not_found; a file that is not a culprit timeline of this version (or no
/// SQLite file) is Errc::not_a_timeline or Errc::database.
Result<Table> query(const std::string& db_path, const std::string& sql, const QueryOptions& options = {});

/// query() streamed: `on_columns` gets the column names, then `on_row` each row as SQLite steps it
/// (the cells are reused: copy what is kept), so a result of any size is never held (`culprit
/// query` prints this way). `on_row` returns false to stop early. Returns the number of rows.
Result<std::int64_t> query_each(const std::string& db_path, const std::string& sql, const QueryOptions& options,
                                const std::function<void(const std::vector<std::string>&)>& on_columns,
                                const std::function<bool(const std::vector<Cell>&)>& on_row);

/// Which events read_timeline returns (`culprit timeline`'s filters).
struct TimelineSelection {
  std::vector<std::string> hosts;      ///< only these hosts (empty: every host)
  std::vector<std::string> kinds;      ///< only these kinds (empty: every kind but `log`); a kind that is
                                       ///< neither culprit's nor held by the timeline is Errc::invalid_option
  bool include_log = false;            ///< with empty `kinds`: plain log lines too
  /// Centre on an event id (digits) or a UTC time (`2026-04-09T00:47:13`, `2026-04-09 00:47`,
  /// or a time of day `00:47:13` on the day of the first placed event); '' : around the root.
  /// Neither is Errc::invalid_option, so is an id no event has.
  std::string around;
  double window = 300;                 ///< seconds each side of `around` when it is placed
  std::size_t limit = 500;             ///< at most this many events, centred on the focus (0: all)
  std::optional<std::int64_t> incident;  ///< of a scan database: only incident N
};

struct Timeline {
  std::vector<diagnose::TimelineEvent> events;  ///< time order; mark root / echo / other
  std::vector<diagnose::HostClock> hosts;       ///< each host's clock alignment, by name
  std::int64_t total = 0;                       ///< events that matched before `limit`
};

/// The events of a saved timeline, marked from its saved findings (the first finding's first
/// evidence event is `root`, echoes' are `echo`), centred on the root. Errors as query's.
Result<Timeline> read_timeline(const std::string& db_path, const TimelineSelection& selection = {});
/// The same from an analysis that kept its timeline (Options::db_path), marked from its verdict.
/// An analysis held in memory (db_path '') is Errc::database.
Result<Timeline> read_timeline(const Analysis& analysis, const TimelineSelection& selection = {});

/// One incident of a scan database: its own timeline file (from analyze with Options::db_path),
/// its path, verdict and diagnose JSON (render(…, Format::json)).
struct ScanIncident {
  std::string db_path;
  std::string name;
  std::string verdict;
  std::string report_json;
};

/// Creates `path` (it must not exist) holding every incident's timeline in order, as incidents
/// 1..N (`culprit scan --db`). Errc::database when it cannot.
std::optional<Error> write_scan_database(const std::string& path, const std::vector<ScanIncident>& incidents);

struct MergeSummary {
  std::size_t incidents = 0;  ///< incidents in the merged file
};

/// Joins scan databases (`culprit merge --db OUT`) into `out_path`, which must not exist:
/// incidents ordered by path as one unsharded scan orders them, one each. Written beside it
/// (`OUT.tmp`) and renamed, so `out_path` is complete or absent. An unreadable input is
/// Errc::database naming it; an `out_path` that exists is Errc::invalid_option.
Result<MergeSummary> merge_scan_databases(const std::vector<std::string>& inputs, const std::string& out_path);

}  // namespace culprit
