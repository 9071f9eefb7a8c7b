// Clock alignment: SQL passes per host, each placing what the one before made possible.
//  0. hosts: when the inputs name exactly one host, sources that named none belong to it;
//  1. years (wall_no_year): a parser that saw full dates in the same source placed the stamps
//     after them already (app_log: `year_from_line`, the nearest year to the source's latest
//     date); the rest take the year that puts the stamp nearest the host's dated stamps (else
//     any host's, else --year, else the latest year not in the future) — so a log that runs
//     from December into January gets both years right;
//  2. dates (time_of_day): the day that puts the time nearest the same reference;
//  3. zones: stamps that carried no zone are local time: shifted by --tz, else by the offset the
//     host's own zoned stamps show (dmesg --time-format iso, journalctl short-iso), else read
//     as UTC. Stamps with a zone (or epoch numbers) are left alone;
//  4. boot stamps: per host, wall = boot_wall + seconds since boot, with boot_wall from (best
//     first) --boot-time, journald's paired stamps, syslog lines quoting the kernel stamp, the
//     kernel's RTC line, dmesg -T lines paired with raw ones, or (roughly) a launcher's dated
//     report of a pid's death paired with the kernel's kill of it. The parsers record the pairs
//     as clock-anchor events (core::parser_rule::kKernelClockAnchor) (one per run of equal offsets); when the offset moves
//     (a suspend, a clock step) each run places the stamps after it;
//  5. neighbours: an event without a stamp takes the time of the next stamped event of its
//     source, at most kNeighbourLines on (ts_from_line names it): by then it had happened;
//     else that of a stamped failure just before it, whose record it continues;
//  6. the record: hosts.clock_method (what each part rested on) and clock_confidence (the
//     weakest part), oom_reports.ts, sources.first_ts / last_ts / clock (an id: kSourceClocks).
// Events that cannot be placed keep ts NULL and still count, ordered by source and line.
// What the passes ask of a host's events (its stamp kinds, counts, latest stamps, zone votes) is
// read in one scan after step 0 (HostCensus), kept true by the UPDATEs of steps 1 and 2, and asked
// of SQL again only for a host a later UPDATE moved; step 6 reads the events once, in id order.
#include "culprit/store/clock.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "culprit/core/parser_rules.hpp"
#include "culprit/core/time.hpp"

namespace culprit::store {
namespace {

/// sources.clock: how most of the source's stamped lines were placed on UTC, as one id of the
/// JSON contract (`sources[].clock`): `wall` (full dates), `no-year` (syslog stamps, year
/// inferred), `time-of-day` (times without a date, day inferred), `boot+offset` (seconds since
/// boot, placed by an anchor), `unplaced` (stamps no alignment could place), `none` (no stamps).
/// Ties go to the kind of the earlier line (the smaller event id). Index into kSourceClocks.
constexpr const char* kSourceClocks[] = {"unplaced", "no-year", "time-of-day", "boot+offset", "wall"};
constexpr std::size_t kClockCount = std::size(kSourceClocks);
std::size_t source_clock(bool placed, std::string_view ts_kind) {
  if (!placed) return 0;
  if (ts_kind == "wall_no_year") return 1;
  if (ts_kind == "time_of_day") return 2;
  if (ts_kind == "boot") return 3;
  return 4;
}

enum Level { kNone = 0, kLow = 1, kMedium = 2, kHigh = 3 };

/// How far (in lines of its source) a stamped event after an unstamped one may be to date it,
/// and a stamped failure before it (the rest of its record).
constexpr int kNeighbourLines = 50;
constexpr int kRecordLines = 10;

const char* level_name(int level) {
  switch (level) {
    case kHigh: return "high";
    case kMedium: return "medium";
    case kLow: return "low";
    default: return "none";
  }
}

struct Part {
  std::string text;
  int level = kNone;
};

std::string num(double v) { return fmt::format("{:.6f}", v); }

int year_of(double epoch) {
  const std::string iso = core::format_iso(epoch);
  return iso.size() >= 4 ? std::stoi(iso.substr(0, 4)) : 1970;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// The epoch of a no-year stamp `v` (ts_value: seconds from Jan 1 counted as in a leap year, so
/// Mar 1 is day 60) placed in year `y`.
double in_year(int y, double v) {
  return core::civil_to_epoch(y, 1, 1, 0, 0, 0) + v - (!leap(y) && v >= 5184000 ? 86400 : 0);
}

/// What one UPDATE of place_events() placed: the latest instant culprit_nearest() chose.
struct Placed {
  std::optional<double> latest;
};
constexpr const char* kPlacedPointer = "culprit_placed";

/// The result of culprit_nearest() and its kin: of `a`, `b`, `c`, the one nearest `r` (a tie to
/// the earlier), also made the latest of `placed` (a Placed pointer, or NULL).
void place_nearest(sqlite3_context* ctx, double a, double b, double c, double r, sqlite3_value* placed_arg) {
  const double t = std::fabs(a - r) <= std::fabs(b - r) && std::fabs(a - r) <= std::fabs(c - r) ? a
                   : std::fabs(b - r) <= std::fabs(c - r)                                          ? b
                                                                                                   : c;
  if (auto* placed = static_cast<Placed*>(sqlite3_value_pointer(placed_arg, kPlacedPointer)))
    placed->latest = placed->latest ? std::max(*placed->latest, t) : t;
  sqlite3_result_double(ctx, t);
}

/// SQL `culprit_nearest(a, b, c, ref, placed)`: of three candidate instants, the one nearest
/// `ref` (a tie to the earlier), as the CASE of abs() differences it replaces chose it (the same
/// IEEE operations on the same doubles: the same value), each candidate evaluated once, not up to
/// three times. The instant chosen goes into `placed`, a Placed bound as a pointer
/// (sqlite3_bind_pointer: no SQL text can forge one), so that no second scan of the host's events
/// asks for the latest. NULL when a candidate is NULL.
void nearest_sql_fn(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  for (int i = 0; i < 4; ++i)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const double a = sqlite3_value_double(argv[0]), b = sqlite3_value_double(argv[1]),
               c = sqlite3_value_double(argv[2]), r = sqlite3_value_double(argv[3]);
  place_nearest(ctx, a, b, c, r, argv[4]);
}

/// SQL `culprit_nearest_year(v, y, ref, placed)`: culprit_nearest() of the no-year stamp `v`
/// placed in years y - 1, y and y + 1 (in_year: the same IEEE operations as the SQL expressions
/// it replaces, which cost ~30 VM steps a row; a serving engine's log may hold 10^4 such
/// stamps). NULL when an argument is.
void nearest_year_sql_fn(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  for (int i = 0; i < 3; ++i)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const double v = sqlite3_value_double(argv[0]), r = sqlite3_value_double(argv[2]);
  const int y = sqlite3_value_int(argv[1]);
  place_nearest(ctx, in_year(y - 1, v), in_year(y, v), in_year(y + 1, v), r, argv[3]);
}

/// SQL choosing, of three candidate expressions, the one nearest `ref` (nearest_sql_fn; ?2 the
/// Placed pointer).
std::string nearest_sql(const std::string& a, const std::string& b, const std::string& c, double ref) {
  return fmt::format("culprit_nearest({}, {}, {}, {}, ?2)", a, b, c, num(ref));
}

/// A year-less stamp its parser placed from the dated lines of its own source (issue 37, finding
/// 6; the field names the dated line): as good a reference for the host's other year-less and
/// time-only stamps as a full date.
constexpr const char* kYearFromSource = "json_extract(fields, '$.year_from_line') IS NOT NULL";
/// The stamps that carry (or were given from their own source) a full date. The placed ones
/// first: a year-less stamp not yet placed is not parsed for its fields.
constexpr const char* kDatedSql =
    "ts IS NOT NULL AND (ts_kind = 'wall' OR (ts_kind = 'wall_no_year'"
    " AND json_extract(fields, '$.year_from_line') IS NOT NULL))";

/// A stamp that carried its own zone (`Z`, `+02:00`, `+0200`, ` UTC`, ` GMT`) or was an epoch
/// number (digits and dots only). Read by stamp_zoned() through the SQL function below: the six
/// GLOBs it replaces were a quarter of a many-events scan (each `*…` pattern walks the text).
bool stamp_zoned(std::string_view raw) {
  const std::size_t n = raw.size();
  auto d = [&](std::size_t i) { return raw[i] >= '0' && raw[i] <= '9'; };
  auto sign = [&](std::size_t i) { return raw[i] == '+' || raw[i] == '-'; };
  if (n >= 1 && (raw[n - 1] == 'Z' || raw[n - 1] == 'z')) return true;
  if (n >= 6 && sign(n - 6) && d(n - 5) && d(n - 4) && raw[n - 3] == ':' && d(n - 2) && d(n - 1)) return true;
  if (n >= 5 && sign(n - 5) && d(n - 4) && d(n - 3) && d(n - 2) && d(n - 1)) return true;
  if (raw.ends_with(" UTC") || raw.ends_with(" GMT")) return true;
  return n > 0 && raw.find_first_not_of("0123456789.") == std::string_view::npos;
}

/// SQL `culprit_stamp_zoned(ts_raw)`: stamp_zoned() of the text up to its first NUL (as GLOB
/// read it), 0 for NULL.
void stamp_zoned_sql(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  sqlite3_result_int(ctx, text && stamp_zoned(std::string_view(text)) ? 1 : 0);
}

constexpr const char* kZoned = "culprit_stamp_zoned(ts_raw)";

/// The offset (seconds east) a zoned stamp text ends with; nullopt for `Z`, epochs, names.
std::optional<double> stamp_offset(std::string_view raw) {
  if (raw.size() < 6) return std::nullopt;
  auto d = [&](std::size_t i) { return raw[i] >= '0' && raw[i] <= '9'; };
  std::size_t n = raw.size();
  int hh = 0, mm = 0;
  std::size_t sign_at = 0;
  if (raw[n - 3] == ':' && d(n - 1) && d(n - 2) && d(n - 4) && d(n - 5) && (raw[n - 6] == '+' || raw[n - 6] == '-')) {
    hh = (raw[n - 5] - '0') * 10 + (raw[n - 4] - '0');
    mm = (raw[n - 2] - '0') * 10 + (raw[n - 1] - '0');
    sign_at = n - 6;
  } else if (d(n - 1) && d(n - 2) && d(n - 3) && d(n - 4) && (raw[n - 5] == '+' || raw[n - 5] == '-') &&
             n >= 6 && d(n - 6)) {
    hh = (raw[n - 4] - '0') * 10 + (raw[n - 3] - '0');
    mm = (raw[n - 2] - '0') * 10 + (raw[n - 1] - '0');
    sign_at = n - 5;
  } else {
    return std::nullopt;
  }
  if (hh > 14 || mm > 59) return std::nullopt;
  double off = hh * 3600.0 + mm * 60.0;
  return raw[sign_at] == '-' ? -off : off;
}

std::string offset_text(double off) {
  const int total = static_cast<int>(std::lround(std::fabs(off) / 60));
  return fmt::format("UTC{}{:02}:{:02}", off < 0 ? '-' : '+', total / 60, total % 60);
}

/// The first value of `sql`'s first row, with ?1 bound to `host` (a kept statement: these run
/// once per host of every incident).
std::optional<double> scalar(Database& db, const std::string& sql, std::string_view host = {}) {
  auto r = db.query_bound(sql, {host});
  if (!r.error.empty() || r.rows.empty() || r.rows[0].values.empty()) return std::nullopt;
  return r.rows[0].values[0].as_double();
}

std::int64_t count(Database& db, const std::string& sql, std::string_view host = {}) {
  auto v = scalar(db, sql, host);
  return v ? static_cast<std::int64_t>(*v) : 0;
}

struct Anchor {
  double boot = 0;  ///< kernel seconds since boot
  double wall = 0;  ///< UTC seconds at that boot stamp
  std::int64_t records = 1;
};

/// The anchors of one host from one kind of evidence, sorted by boot stamp.
std::vector<Anchor> anchors_of(Database& db, const std::string& host, std::string_view source) {
  std::vector<Anchor> out;
  auto r = db.query_bound(
      "SELECT json_extract(fields, '$.boot_ts') AS boot, ts, coalesce(json_extract(fields, '$.records'), 1) AS n"
      " FROM events WHERE host = ?1 AND rule = ?3 AND ts IS NOT NULL"
      " AND json_extract(fields, '$.anchor') = ?2 AND json_extract(fields, '$.boot_ts') IS NOT NULL ORDER BY boot",
      {host, source, core::parser_rule::kKernelClockAnchor});
  for (const auto& row : r.rows) {
    auto boot = row["boot"].as_double();
    auto wall = row["ts"].as_double();
    if (boot && wall) out.push_back({*boot, *wall, row["n"].as_int().value_or(1)});
  }
  return out;
}

/// dmesg -T (or iso) records paired with the same records in a raw dmesg of the host.
std::vector<Anchor> paired_dmesg_anchors(Database& db, const std::string& host) {
  std::vector<Anchor> out;
  auto r = db.query_bound(
      "SELECT b.ts_value AS boot, min(w.ts) AS ts FROM events w JOIN events b"
      " ON b.host = w.host AND b.message = w.message AND b.kind = w.kind AND b.source_id <> w.source_id"
      " WHERE w.host = ?1 AND w.ts_kind = 'wall' AND w.ts IS NOT NULL AND w.rule <> ?2"
      " AND b.ts_kind = 'boot' AND b.ts IS NULL AND b.ts_value IS NOT NULL"
      " AND EXISTS (SELECT 1 FROM sources s WHERE s.id = w.source_id AND s.format = 'kernel_log')"
      " GROUP BY b.id ORDER BY boot LIMIT 10000",
      {host, core::parser_rule::kKernelClockAnchor});
  for (const auto& row : r.rows) {
    auto boot = row["boot"].as_double();
    auto wall = row["ts"].as_double();
    if (boot && wall) out.push_back({*boot, *wall, 1});
  }
  return out;
}

/// A launcher's dated report of a pid's death (torchrun's `failed (exitcode: -9) … (pid: P)`,
/// a Slurm or shell exit) paired with the kernel's undated kill of the same pid on the host:
/// the kill came first, so the earliest report bounds the boot time from above. Rough (the
/// launcher notices the death later, and some stamps are cut to the second).
std::vector<Anchor> launcher_anchors(Database& db, const std::string& host) {
  std::vector<Anchor> out;
  auto r = db.query_bound(
      "SELECT k.ts_value AS boot, min(x.ts) AS ts FROM events k JOIN events x"
      " ON x.pid = k.pid AND x.host = k.host AND x.kind = 'signal_exit' AND x.ts IS NOT NULL AND x.ts_kind <> 'boot'"
      " WHERE k.host = ?1 AND k.kind IN ('kernel_oom', 'oom_kill') AND k.ts_kind = 'boot' AND k.ts IS NULL"
      " AND k.ts_value IS NOT NULL AND k.pid IS NOT NULL GROUP BY k.id ORDER BY boot",
      {host});
  for (const auto& row : r.rows) {
    auto boot = row["boot"].as_double();
    auto wall = row["ts"].as_double();
    if (boot && wall) out.push_back({*boot, *wall, 1});
  }
  return out;
}

/// Merges anchors into runs of (nearly) equal offset; each run keeps its smallest offset.
std::vector<Anchor> runs_of(const std::vector<Anchor>& anchors) {
  std::vector<Anchor> runs;
  for (const auto& a : anchors) {
    if (!runs.empty() && std::fabs((a.wall - a.boot) - (runs.back().wall - runs.back().boot)) <= 3.0) {
      if (a.wall - a.boot < runs.back().wall - runs.back().boot) {
        const auto n = runs.back().records;
        runs.back() = a;
        runs.back().records += n;
      } else {
        runs.back().records += a.records;
      }
      continue;
    }
    runs.push_back(a);
  }
  return runs;
}

/// What record_sources writes of one source: the first and last instant of its placed events,
/// and how many of its stamped events each of kSourceClocks counts, with the first of each (least
/// id).
struct SourceTally {
  std::optional<double> first, last;
  std::int64_t count[kClockCount] = {};
  std::int64_t first_id[kClockCount] = {};
};
using SourceTallies = std::map<std::int64_t, SourceTally>;

/// Adds events, read in any order (the least id is kept), to their sources' tallies; an input's
/// events come source by source, so the last source's entry is kept at hand.
class TallyCursor {
 public:
  explicit TallyCursor(SourceTallies& tallies) : tallies_(tallies) {}
  void add(std::int64_t source, std::int64_t id, bool placed, double ts, std::string_view ts_kind) {
    if (t_ == nullptr || source != source_) {
      source_ = source;
      t_ = &tallies_[source];
    }
    if (placed) {
      t_->first = t_->first ? std::min(*t_->first, ts) : ts;
      t_->last = t_->last ? std::max(*t_->last, ts) : ts;
    }
    if (ts_kind == "none") return;
    const std::size_t c = source_clock(placed, ts_kind);
    if (t_->count[c]++ == 0 || id < t_->first_id[c]) t_->first_id[c] = id;
  }

 private:
  SourceTallies& tallies_;
  SourceTally* t_ = nullptr;
  std::int64_t source_ = 0;
};

/// What one scan of the events says of a host's stamps, read once after hosts() has named the
/// unnamed rows: each of the queries it answers was a scan of the events of its own (a tenth of
/// a many-events scan). Valid for a host until an UPDATE of its events (Aligner::touched_), and
/// then its queries run as SQL again.
struct HostCensus {
  std::int64_t rows = 0;
  std::vector<std::string> kinds;          ///< the ts_kind values of its events
  std::int64_t placed = 0;                 ///< ts IS NOT NULL
  std::optional<double> max_ts, dated_max;  ///< max(ts); max(ts) of the kDatedSql rows
  std::int64_t zoneless = 0, zoned = 0;     ///< placed stamps without / with a zone (zone())
  std::map<double, int> votes;              ///< the zoned wall stamps' non-zero offsets (inferred_offset())
  /// years(): its wall_no_year stamps placed, those of them placed from their own source
  /// (year_from_line), and those to place (ts NULL, ts_value known); dates(): time_of_day ones to place.
  std::int64_t no_year_placed = 0, no_year_from_source = 0, no_year_unplaced = 0, time_placed = 0, time_unplaced = 0;
  bool dated_stale = false;  ///< years() placed stamps: dated_max is asked of SQL again
};

class Aligner {
 public:
  Aligner(Database& db, const ClockOptions& o) : db_(db), o_(o) {
    now_ = o.now > 0 ? o.now : static_cast<double>(std::time(nullptr));
  }

  std::string run() {
    if (auto err = functions(); !err.empty()) return err;
    if (auto err = hosts(); !err.empty()) return err;
    if (auto err = take_census(); !err.empty()) return err;
    if (census_.count("") > 0) hosts_.push_back("");
    reference_times();
    for (const auto& h : hosts_) {
      if (auto err = years(h); !err.empty()) return err;
      if (auto err = dates(h); !err.empty()) return err;
      if (auto err = zone(h); !err.empty()) return err;
      if (auto err = boot(h); !err.empty()) return err;
    }
    for (const auto& h : hosts_)  // once every host's stamps are placed: a neighbour may be another's
      if (auto err = neighbours(h); !err.empty()) return err;
    return record();
  }

 private:
  /// The SQL functions the passes use, registered once per connection: registering one again
  /// makes SQLite expire every statement the connection has prepared, and a scan keeps its
  /// statements in its spare timeline from incident to incident (each of them was prepared again
  /// per incident: 7 M instructions). A statement that calls both compiles once they are there
  /// (kept: the next incident's check finds it prepared).
  std::string functions() {
    std::string missing;
    if (db_.prepare_kept("SELECT culprit_stamp_zoned(''), culprit_nearest(0, 0, 0, 0, NULL),"
                         " culprit_nearest_year(0, 0, 0, NULL)",
                         missing))
      return {};
    if (sqlite3_create_function_v2(db_.handle(), "culprit_stamp_zoned", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nullptr,
                                   stamp_zoned_sql, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_create_function_v2(db_.handle(), "culprit_nearest", 5, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr,
                                   nearest_sql_fn, nullptr, nullptr, nullptr) != SQLITE_OK ||
        sqlite3_create_function_v2(db_.handle(), "culprit_nearest_year", 4, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr,
                                   nearest_year_sql_fn, nullptr, nullptr, nullptr) != SQLITE_OK)
      return sqlite3_errmsg(db_.handle());
    return {};
  }

  std::string hosts() {
    // One named host: unnamed sources (a docker inspect, a worker log) are its. The events' hosts
    // by one seek of events_host_pid each (distinct_sql): a DISTINCT read every event's entry of
    // the index, a many-events log's 10^5 for its one host.
    auto named = db_.query(
        fmt::format("SELECT host FROM ({}) WHERE host <> '' UNION SELECT DISTINCT host FROM sources WHERE host <> ''",
                    distinct_sql("events", "host")));
    if (!named.error.empty()) return named.error;
    if (named.rows.size() == 1) {
      const std::string h = sql_literal(named.rows[0]["host"].as_text());
      if (auto err = db_.exec(fmt::format(
              "UPDATE events SET host = {0} WHERE host = '';"
              "UPDATE sources SET host = {0} WHERE host = '';"
              "UPDATE containers SET host = {0} WHERE host = '';"
              "UPDATE host_memory SET host = {0} WHERE host = '';"
              "UPDATE gpu_snapshots SET host = {0} WHERE host = '';"
              "UPDATE oom_reports SET host = {0} WHERE host = '';"
              "UPDATE OR IGNORE process_records SET host = {0} WHERE host = '';",
              h));
          !err.empty())
        return err;
    }
    // Every named host has its row: those just read (moving the unnamed rows to the one named
    // host named none anew).
    for (const auto& r : named.rows)
      if (auto err = db_.exec_bound("INSERT OR IGNORE INTO hosts(name) VALUES(?1)", {r["host"].as_text()}); !err.empty())
        return err;
    auto all = db_.query("SELECT name FROM hosts ORDER BY name");
    for (const auto& r : all.rows) hosts_.push_back(r["name"].as_text());
    return {};  // the unnamed rows' host ('') is added by run(), from the census
  }

  /// One scan of the events (after hosts() has moved the unnamed rows): per host, which kinds of
  /// stamp (ts_kind) its events carry — a step finds nothing to do on a host without its kind,
  /// and skips its queries; ts_kind never changes here — and the HostCensus.
  std::string take_census() {
    std::string err;
    auto st = db_.prepare(
        "SELECT host, ts_kind, ts, ts_raw, CASE WHEN ts IS NOT NULL AND ts_kind = 'wall_no_year' THEN "
        + std::string(kYearFromSource) + " ELSE 0 END, ts_value IS NOT NULL, source_id, id FROM events",
        err);
    if (!st) return err;
    sqlite3_stmt* s = st->handle();
    auto text = [s](int c) {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
      return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(s, c))) : std::string_view();
    };
    HostCensus* c = nullptr;
    std::string host;
    TallyCursor sources(census_sources_);
    while (st->step()) {
      if (c == nullptr || text(0) != host) {
        host = text(0);
        c = &census_[host];
      }
      const std::string_view kind = text(1);
      if (census_tallied_)
        sources.add(sqlite3_column_int64(s, 6), sqlite3_column_int64(s, 7), sqlite3_column_type(s, 2) != SQLITE_NULL,
                    sqlite3_column_double(s, 2), kind);
      ++c->rows;
      if (std::find(c->kinds.begin(), c->kinds.end(), kind) == c->kinds.end()) c->kinds.emplace_back(kind);
      if (sqlite3_column_type(s, 2) == SQLITE_NULL) {
        if (sqlite3_column_int(s, 5) != 0) {
          // years() places it (a reference exists whenever one is to place): record_sources will
          // read the events again, so the tallies stop here (a vLLM log's every stamp is one).
          if (kind == "wall_no_year") {
            census_tallied_ = false;
            ++c->no_year_unplaced;
          }
          if (kind == "time_of_day") ++c->time_unplaced;
        }
        continue;
      }
      const double ts = sqlite3_column_double(s, 2);
      ++c->placed;
      if (kind == "wall_no_year") {
        ++c->no_year_placed;
        if (sqlite3_column_int(s, 4) != 0) ++c->no_year_from_source;
      }
      if (kind == "time_of_day") ++c->time_placed;
      c->max_ts = c->max_ts ? std::max(*c->max_ts, ts) : ts;
      if (kind == "wall" || (kind == "wall_no_year" && sqlite3_column_int(s, 4) != 0)) {
        c->dated_max = c->dated_max ? std::max(*c->dated_max, ts) : ts;
        any_dated_ = any_dated_ ? std::max(*any_dated_, ts) : ts;
      }
      if (kind == "wall_no_year" || kind == "time_of_day") {
        ++c->zoneless;
      } else if (kind == "wall") {
        // As culprit_stamp_zoned() reads it: the text up to its first NUL.
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, 3));
        if (p == nullptr || !stamp_zoned(std::string_view(p))) {
          ++c->zoneless;
        } else {
          ++c->zoned;
          if (auto off = stamp_offset(text(3)); off && *off != 0) ++c->votes[*off];
        }
      }
    }
    for (const auto& [h, hc] : census_)
      for (const auto& k : hc.kinds) kinds_.emplace(h, k);
    return st->error();
  }
  bool has_kind(const std::string& h, const char* kind) const { return kinds_.count({h, kind}) > 0; }
  /// The host's census while no UPDATE has moved its events' times (but those of years() and
  /// dates(), which keep it); else null.
  HostCensus* census(const std::string& h) {
    if (touched_.count(h)) return nullptr;
    return &census_[h];
  }
  /// An UPDATE of host `h`'s unplaced stamps of kind `ts_kind` (wall_no_year or time_of_day,
  /// ?1 the host, ?2 the Placed that culprit_nearest() fills): every row it changes is placed, a
  /// zoneless stamp, so the census stays true from the count of changes and the latest instant
  /// placed — no second scan of the host's events (it cost as much as the UPDATE; RETURNING ts
  /// cost more: its rows go through a table of their own).
  std::string place_events(const std::string& h, std::string_view ts_kind, const std::string& sql) {
    std::string err;
    auto st = db_.prepare(sql, err);
    if (!st) return err;
    moved_ = true;
    Placed placed;
    st->bind(1, std::string_view(h));
    sqlite3_bind_pointer(st->handle(), 2, &placed, kPlacedPointer, nullptr);
    while (st->step()) {
    }
    if (!st->error().empty()) return st->error();
    HostCensus* c = census(h);
    if (c == nullptr) return {};
    const std::int64_t changed = sqlite3_changes64(db_.handle());
    std::int64_t& before = ts_kind == "wall_no_year" ? c->no_year_placed : c->time_placed;
    c->placed += changed;
    c->zoneless += changed;
    before += changed;
    if (placed.latest) c->max_ts = c->max_ts ? std::max(*c->max_ts, *placed.latest) : *placed.latest;
    return {};
  }
  /// exec_bound() of an UPDATE of host `h`'s events (?1): the census no longer speaks for it.
  std::string update_events(const std::string& h, const std::string& sql) {
    touched_.insert(h);
    moved_ = true;
    return db_.exec_bound(sql, {h});
  }

  /// The incident's dated stamps, and the fallback when there are none.
  void reference_times() {
    any_ref_ = any_dated_;  // SELECT max(ts) FROM events WHERE kDatedSql
    if (any_ref_) return;
    auto last = scalar(db_,
                       "SELECT ts_value FROM events WHERE ts_kind = 'wall_no_year' AND ts IS NULL AND ts_value IS NOT NULL"
                       " ORDER BY source_id DESC, line DESC LIMIT 1");
    if (!last) return;
    if (o_.default_year > 0) {
      fallback_ref_ = in_year(o_.default_year, *last);
      fallback_why_ = fmt::format("year {} from --year", o_.default_year);
      fallback_level_ = kMedium;
    } else {
      int y = year_of(now_);
      double t = in_year(y, *last);
      if (t > now_ + 2 * 86400) t = in_year(--y, *last);
      fallback_ref_ = t;
      fallback_why_ = fmt::format("year {} assumed (the latest not in the future; give --year)", y);
      fallback_level_ = kLow;
    }
  }

  /// The host's reference instant and how good it is as a source of years and dates.
  std::optional<double> reference(const std::string& h, std::string& why, int& level) {
    const HostCensus* c = census(h);
    if (c && c->dated_stale) c = nullptr;
    if (auto r = c ? c->dated_max : scalar(db_, std::string("SELECT max(ts) FROM events WHERE host = ?1 AND ") + kDatedSql, h)) {
      why = "the host's dated stamps";
      level = kHigh;
      return r;
    }
    if (any_ref_) {
      why = "other inputs' dated stamps";
      level = kMedium;
      return any_ref_;
    }
    why = fallback_why_;
    level = fallback_level_;
    return fallback_ref_;
  }

  std::string years(const std::string& h) {
    if (!has_kind(h, "wall_no_year")) return {};
    const std::string where = "host = ?1 AND ts IS NULL AND ts_kind = 'wall_no_year' AND ts_value IS NOT NULL";
    // Placed by their parser: from the source's own dated lines (year_from_line), else --year.
    // The census counts the placed (those with the field among them) and the ones to place.
    HostCensus* c = census(h);
    std::int64_t placed = c ? c->no_year_placed : 0, from_source = c ? c->no_year_from_source : 0,
                 unplaced = c ? c->no_year_unplaced : 0;
    if (c == nullptr) {
      auto counts = db_.query_bound(
          fmt::format("SELECT count(ts) AS placed, coalesce(sum(CASE WHEN ts IS NOT NULL AND {} THEN 1 ELSE 0 END), 0)"
                      " AS from_source, coalesce(sum(CASE WHEN ts IS NULL AND ts_value IS NOT NULL THEN 1 ELSE 0 END), 0)"
                      " AS unplaced FROM events WHERE host = ?1 AND ts_kind = 'wall_no_year'",
                      kYearFromSource),
          {h});
      if (!counts.error.empty()) return counts.error;
      const auto& row = counts.rows.at(0);
      placed = row["placed"].as_int().value_or(0);
      from_source = row["from_source"].as_int().value_or(0);
      unplaced = row["unplaced"].as_int().value_or(0);
    }
    if (from_source > 0) parts_[h].push_back({"years from the source's own dated lines", kHigh});
    if (placed - from_source > 0) parts_[h].push_back({"years from --year", kMedium});
    if (unplaced == 0) return {};
    std::string why;
    int level = kNone;
    auto ref = reference(h, why, level);
    if (!ref) {
      parts_[h].push_back({"stamps without a year undated (give --year)", kNone});
      return {};
    }
    const int y = year_of(*ref);
    if (auto err = place_events(h, "wall_no_year", fmt::format("UPDATE events SET ts = {} WHERE {}",
                                               fmt::format("culprit_nearest_year(ts_value, {}, {}, ?2)", y, num(*ref)),
                                               where));
        !err.empty())
      return err;
    // A stamp placed here may carry year_from_line (the census read it of placed rows only).
    if (c != nullptr) c->dated_stale = true;
    parts_[h].push_back({fmt::format("years from {}", why), std::min(level, int(kMedium))});
    return {};
  }

  std::string dates(const std::string& h) {
    if (!has_kind(h, "time_of_day")) return {};
    const std::string where = "host = ?1 AND ts IS NULL AND ts_kind = 'time_of_day' AND ts_value IS NOT NULL";
    const HostCensus* c = census(h);
    if ((c ? c->time_unplaced : count(db_, "SELECT count(*) FROM events WHERE " + where, h)) == 0) return {};
    std::string why;
    int level = kNone;
    auto ref = reference(h, why, level);
    if (!ref) {
      parts_[h].push_back({"time-only stamps undated (no input gives a date)", kNone});
      return {};
    }
    const double day = std::floor(*ref / 86400) * 86400;
    if (auto err = place_events(h, "time_of_day", fmt::format("UPDATE events SET ts = {} WHERE {}",
                                               nearest_sql(num(day - 86400) + " + ts_value", num(day) + " + ts_value",
                                                           num(day + 86400) + " + ts_value", *ref),
                                               where));
        !err.empty())
      return err;
    parts_[h].push_back({fmt::format("dates of time-only stamps from {}", why), std::min(level, int(kMedium))});
    return {};
  }

  std::string zone(const std::string& h) {
    const std::string zoneless = fmt::format(
        "host = ?1 AND ts IS NOT NULL AND (ts_kind IN ('wall_no_year', 'time_of_day') OR (ts_kind = 'wall' AND NOT {}))",
        kZoned);
    if (!has_kind(h, "wall") && !has_kind(h, "wall_no_year") && !has_kind(h, "time_of_day")) return {};
    // The placed stamps without a zone, and the wall stamps with one: the census's, else one scan.
    const HostCensus* c = census(h);
    std::int64_t n_zoneless = c ? c->zoneless : 0;
    std::int64_t n_zoned = c ? c->zoned : 0;
    if (c == nullptr) {
      auto counts = db_.query_bound(
          fmt::format("SELECT coalesce(sum(CASE WHEN ts_kind IN ('wall_no_year', 'time_of_day') OR (ts_kind = 'wall' AND NOT"
                      " {0}) THEN 1 ELSE 0 END), 0) AS zoneless, coalesce(sum(CASE WHEN ts_kind = 'wall' AND {0} THEN 1"
                      " ELSE 0 END), 0) AS zoned FROM events WHERE host = ?1 AND ts IS NOT NULL",
                      kZoned),
          {h});
      if (!counts.error.empty()) return counts.error;
      n_zoneless = counts.rows.at(0)["zoneless"].as_int().value_or(0);
      n_zoned = counts.rows.at(0)["zoned"].as_int().value_or(0);
    }
    if (n_zoned > 0) parts_[h].push_back({"zoned stamps", kHigh});
    if (n_zoneless == 0) return {};
    const double at = (c ? c->max_ts : scalar(db_, "SELECT max(ts) FROM events WHERE host = ?1 AND ts IS NOT NULL", h))
                          .value_or(now_);
    double off = 0;
    if (!o_.tz.empty()) {
      off = zone_offset(o_.tz, at).value_or(0);
      parts_[h].push_back({fmt::format("zoneless stamps in {} (--tz)", offset_text(off)), kHigh});
    } else if (auto inferred = inferred_offset(h)) {
      off = *inferred;
      parts_[h].push_back({fmt::format("zoneless stamps in {} (the host's zoned stamps)", offset_text(off)), kMedium});
    } else {
      parts_[h].push_back({"zoneless stamps read as UTC (else give --tz)", kMedium});
    }
    if (off != 0) {
      if (auto err = update_events(h, fmt::format("UPDATE events SET ts = ts - {} WHERE {}", num(off), zoneless));
          !err.empty())
        return err;
    }
    if (!h.empty())
      return db_.exec(fmt::format("UPDATE hosts SET clock_offset = {} WHERE name = {}", num(-off), sql_literal(h)));
    return {};
  }

  /// The most common non-zero offset among the host's zoned stamps (a host that prints
  /// `+02:00` in one log writes local time in its other logs too).
  std::optional<double> inferred_offset(const std::string& h) {
    // The census counted every zoned stamp; the query reads the first kMaxVotes in its own order,
    // so the census answers only where that is all of them.
    constexpr std::int64_t kMaxVotes = 5000;
    std::map<double, int> votes;
    if (const HostCensus* c = census(h); c && c->zoned <= kMaxVotes) {
      votes = c->votes;
    } else {
      auto r = db_.query_bound(
          fmt::format("SELECT ts_raw FROM events WHERE host = ?1 AND ts_kind = 'wall' AND ts IS NOT NULL AND {} LIMIT {}",
                      kZoned, kMaxVotes),
          {h});
      for (const auto& row : r.rows)
        if (auto off = stamp_offset(row["ts_raw"].as_text()); off && *off != 0) ++votes[*off];
    }
    std::optional<double> best;
    int n = 0;
    for (auto [off, c] : votes)
      if (c > n) {
        best = off;
        n = c;
      }
    return best;
  }

  std::string boot(const std::string& h) {
    if (!has_kind(h, "boot")) return {};
    const std::string where = "host = ?1 AND ts IS NULL AND ts_kind = 'boot' AND ts_value IS NOT NULL";
    if (count(db_, "SELECT count(*) FROM events WHERE " + where, h) == 0) return {};
    std::vector<Anchor> anchors;
    std::string why;
    int level = kNone;
    for (const auto& b : o_.boot_times) {
      auto bt = parse_boot_time(b, o_.tz);
      if (bt && bt->host == h) {
        anchors = {{0, bt->boot_wall, 1}};
        why = "--boot-time";
        level = kHigh;
      }
    }
    struct Source {
      const char* name;
      const char* what;
      int level;
    };
    static constexpr Source kSources[] = {
        {"journald", "journald's paired clocks", kHigh},
        {"syslog", "syslog lines quoting them", kMedium},
        {"rtc", "the kernel's RTC line (`setting system clock`)", kMedium},
    };
    for (const auto& s : kSources) {
      if (!anchors.empty()) break;
      anchors = runs_of(anchors_of(db_, h, s.name));
      if (!anchors.empty()) {
        std::int64_t n = 0;
        for (const auto& a : anchors) n += a.records;
        why = n > 1 ? fmt::format("{} ({} records)", s.what, n) : std::string(s.what);
        level = s.level;
      }
    }
    if (anchors.empty()) {
      anchors = runs_of(paired_dmesg_anchors(db_, h));
      if (!anchors.empty()) {
        why = "dmesg -T lines paired with raw ones (drifts after suspend)";
        level = kLow;
      }
    }
    if (anchors.empty()) {
      anchors = runs_of(launcher_anchors(db_, h));
      if (!anchors.empty()) {
        why = "a launcher's report of the killed pid's death (rough: it reports late)";
        level = kLow;
      }
    }
    if (anchors.empty()) {
      parts_[h].push_back({"boot stamps unplaced (no anchor: add kern.log or journalctl -o json, or --boot-time)", kLow});
      return {};
    }
    // Runs: the stamps from each anchor's boot second on use its offset (a suspend shifts what
    // follows); the ones before the first anchor use the first.
    for (std::size_t i = 0; i < anchors.size(); ++i) {
      const double offset = anchors[i].wall - anchors[i].boot;
      std::string range = where;
      if (i > 0) range += fmt::format(" AND ts_value >= {}", num(anchors[i].boot));
      if (i + 1 < anchors.size()) range += fmt::format(" AND ts_value < {}", num(anchors[i + 1].boot));
      if (auto err = update_events(h, fmt::format("UPDATE events SET ts = {} + ts_value WHERE {}", num(offset), range));
          !err.empty())
        return err;
    }
    if (anchors.size() > 1)
      why += fmt::format(", {} offset jumps (suspend or clock step)", anchors.size() - 1);
    parts_[h].push_back({"boot stamps via " + why, level});
    if (!h.empty())
      return db_.exec(fmt::format("UPDATE hosts SET boot_wall_ts = {} WHERE name = {}",
                                  num(anchors.back().wall - anchors.back().boot), sql_literal(h)));
    return {};
  }

  /// Issue 37, finding 16: a line without a stamp before a stamped one of its source (a
  /// `[rank3]:` traceback before torchrun's next glog line, Slurm's `Detected 1 oom_kill event`
  /// before its `CANCELLED AT …`) had happened by then: it takes the time of the next stamped
  /// event of its source, at most kNeighbourLines later — an upper bound, as a failure is logged
  /// by the next writer soon after. With none, a stamped failure at most kRecordLines before it
  /// (its record's rest); never a plain stamped line before it (a clock mark): that bound from
  /// below would put it ahead of a second-precision record of the same failure elsewhere (the
  /// kernel's segfault line). Its stamp stays absent (ts_kind none, `ts_from_line` names the
  /// line); a command typed at a prompt is left alone (it dates the job's start).
  std::string neighbours(const std::string& h) {
    if (!has_kind(h, "none")) return {};
    const std::string where = "host = ?1 AND ts IS NULL AND ts_kind = 'none' AND kind <> 'command'";
    if (count(db_, "SELECT count(*) FROM events WHERE " + where, h) == 0) return {};
    // The next stamped event after the block's last line; else a stamped event of the source's
    // own (no clock mark) of another kind a few lines before it: the lines after a failure's
    // stamped line are mostly the rest of its record (Ray's driver prints the worker's exception
    // and its "Memory on the node …" under one stamp); one of the same kind is another failure.
    auto neighbour = [](const char* column) {
      return fmt::format(
          "coalesce((SELECT n.{0} FROM events n WHERE n.source_id = events.source_id AND n.ts IS NOT NULL"
          " AND n.ts_kind <> 'none' AND n.line > events.line_end AND n.line <= events.line_end + {1}"
          " ORDER BY n.line, n.id LIMIT 1),"
          " (SELECT p.{0} FROM events p WHERE p.source_id = events.source_id AND p.ts IS NOT NULL"
          " AND p.ts_kind <> 'none' AND p.rule <> '{3}' AND p.kind <> events.kind"
          " AND p.line < events.line AND p.line >= events.line - {2}"
          " ORDER BY p.line DESC, p.id DESC LIMIT 1))",
          column, kNeighbourLines, kRecordLines, core::parser_rule::kClockMark);
    };
    const auto before = count(db_, "SELECT count(*) FROM events WHERE " + where, h);
    if (auto err = update_events(h, fmt::format("UPDATE events SET fields = json_set(fields, '$.ts_from_line', {0}),"
                                                " ts = {1} WHERE {2} AND {1} IS NOT NULL",
                                                neighbour("line"), neighbour("ts"), where));
        !err.empty())
      return err;
    const auto placed = before - count(db_, "SELECT count(*) FROM events WHERE " + where, h);
    if (placed > 0)
      parts_[h].push_back({fmt::format("{} unstamped line{} placed at the next stamped line of {} source, at most {} "
                                       "lines on (else a stamped failure just before)",
                                       placed, placed == 1 ? "" : "s", placed == 1 ? "its" : "their", kNeighbourLines),
                           kMedium});
    return {};
  }

  std::string record() {
    for (const auto& h : hosts_) {
      if (h.empty()) continue;
      auto& parts = parts_[h];
      std::string method;
      int level = kHigh;
      for (const auto& p : parts) {
        if (!method.empty()) method += "; ";
        method += p.text;
        level = std::min(level, p.level);
      }
      if (parts.empty()) {
        const HostCensus* c = census(h);
        const bool placed =
            (c ? c->placed : count(db_, "SELECT count(*) FROM events WHERE host = ?1 AND ts IS NOT NULL", h)) > 0;
        method = placed ? "wall-clock stamps" : "no wall clock: ordered by line only";
        level = placed ? kHigh : kNone;
      }
      if (auto err = db_.exec(fmt::format("UPDATE hosts SET clock_method = {}, clock_confidence = {} WHERE name = {}",
                                          sql_literal(method), sql_literal(level_name(level)), sql_literal(h)));
          !err.empty())
        return err;
    }
    if (auto err = db_.exec("UPDATE oom_reports SET ts = (SELECT ts FROM events WHERE id = oom_reports.event_id)"
                            " WHERE ts IS NULL");
        !err.empty())
      return err;
    return record_sources();
  }

  /// sources.first_ts / last_ts (min / max of its events' ts) and clock (the most common of
  /// kSourceClocks among its stamped events), from one read of the events (three subqueries a
  /// source read every event of it three times over): the census' (take_census tallies them as it
  /// reads) while no step has moved an event's time since, else one of its own.
  std::string record_sources() {
    SourceTallies scanned;
    std::string err;
    const bool own_read = moved_ || !census_tallied_;
    if (own_read) {
      auto st = db_.prepare("SELECT source_id, id, ts, ts_kind FROM events ORDER BY id", err);
      if (!st) return err;
      sqlite3_stmt* s = st->handle();
      TallyCursor sources(scanned);
      while (st->step()) {
        const auto* k = reinterpret_cast<const char*>(sqlite3_column_text(s, 3));
        const std::string_view kind = k ? std::string_view(k, static_cast<std::size_t>(sqlite3_column_bytes(s, 3))) : "";
        sources.add(sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_type(s, 2) != SQLITE_NULL,
                    sqlite3_column_double(s, 2), kind);
      }
      if (!st->error().empty()) return st->error();
    }
    const SourceTallies& tallies = own_read ? scanned : census_sources_;
    // Each source's row as it stands: only a row whose values change is written (a folder of
    // small files is mostly sources with no stamped event, and an UPDATE per source rewrote
    // each of them to what it already held: 11k instructions a source).
    auto rows = db_.prepare("SELECT id, first_ts, last_ts, clock FROM sources ORDER BY id", err);
    auto set = db_.prepare("UPDATE sources SET first_ts = ?1, last_ts = ?2, clock = ?3 WHERE id = ?4", err);
    if (!rows || !set) return err;
    struct Row {
      std::int64_t id;
      std::optional<double> first, last;
      std::string clock;
    };
    std::vector<Row> current;
    const auto optional_real = [&rows](int column) -> std::optional<double> {
      if (sqlite3_column_type(rows->handle(), column) == SQLITE_NULL) return std::nullopt;
      return sqlite3_column_double(rows->handle(), column);
    };
    while (rows->step()) {
      const auto* c = reinterpret_cast<const char*>(sqlite3_column_text(rows->handle(), 3));
      current.push_back({sqlite3_column_int64(rows->handle(), 0), optional_real(1), optional_real(2),
                         c ? std::string(c, static_cast<std::size_t>(sqlite3_column_bytes(rows->handle(), 3))) : ""});
    }
    if (!rows->error().empty()) return rows->error();
    static const SourceTally kNoEvents;
    for (const Row& row : current) {
      const std::int64_t id = row.id;
      const auto it = tallies.find(id);
      const SourceTally& tally = it == tallies.end() ? kNoEvents : it->second;
      std::string_view clock = kNoSourceClock;
      std::size_t best = kClockCount;
      for (std::size_t c = 0; c < kClockCount; ++c) {
        if (tally.count[c] == 0) continue;
        if (best == kClockCount || tally.count[c] > tally.count[best] ||
            (tally.count[c] == tally.count[best] && tally.first_id[c] < tally.first_id[best]))
          best = c;
      }
      if (best < kClockCount) clock = kSourceClocks[best];
      if (row.first == tally.first && row.last == tally.last && row.clock == clock) continue;
      set->reset();
      set->bind_opt(1, tally.first);
      set->bind_opt(2, tally.last);
      set->bind(3, std::string_view(clock));
      set->bind(4, id);
      set->step();
      if (!set->error().empty()) return set->error();
    }
    return {};
  }

  Database& db_;
  const ClockOptions& o_;
  double now_ = 0;
  std::vector<std::string> hosts_;
  std::set<std::pair<std::string, std::string>> kinds_;  // (host, ts_kind) pairs (take_census)
  std::map<std::string, HostCensus> census_;
  std::set<std::string> touched_;  // hosts whose events' times an UPDATE moved (census() is null)
  bool moved_ = false;             // an UPDATE placed or moved events' times since take_census
  SourceTallies census_sources_;   // record_sources' tallies as take_census read the events,
  bool census_tallied_ = true;     // unless it stopped (a stamp years() will place)
  std::optional<double> any_dated_;  // max(ts) of every host's kDatedSql rows
  std::map<std::string, std::vector<Part>> parts_;
  std::optional<double> any_ref_, fallback_ref_;
  std::string fallback_why_;
  int fallback_level_ = kNone;
};

}  // namespace

std::string align_clocks(Database& db, const ClockOptions& options) {
  Aligner aligner(db, options);
  return aligner.run();
}

}  // namespace culprit::store
