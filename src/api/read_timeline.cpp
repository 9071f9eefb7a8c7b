// culprit::read_timeline: `culprit timeline`'s events from a saved timeline or an analysis that
// kept one. The selection becomes a diagnose::TimelineQuery (`around` an event id or a time
// becomes a window), and the events are marked root / echo from the verdict when there is one,
// else from the findings saved in the file.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "api/saved_timeline.hpp"
#include "culprit/core/event.hpp"
#include "culprit/core/time.hpp"
#include "culprit/diagnose/report_data.hpp"
#include "culprit/text/spelling.hpp"
#include "culprit/timeline.hpp"

namespace culprit {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

/// `2026-04-09T00:47:13[.412][Z]`, `2026-04-09 00:47:13`, or `00:47:13[.412]` (a time of day,
/// on the day of the timeline's first placed event). UTC.
std::optional<double> parse_time(const std::string& text, store::Database& db) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double sec = 0;
  char sep = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%lf", &y, &mo, &d, &sep, &h, &mi, &sec) == 7 &&
      (sep == 'T' || sep == ' ')) {
    return core::civil_to_epoch(y, mo, d, h, mi, sec);
  }
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d", &y, &mo, &d, &sep, &h, &mi) == 6 && (sep == 'T' || sep == ' '))
    return core::civil_to_epoch(y, mo, d, h, mi, 0);
  if (std::sscanf(text.c_str(), "%2d:%2d:%lf", &h, &mi, &sec) >= 2 && text.find('-') == std::string::npos) {
    auto first = db.query("SELECT min(ts) AS t FROM events WHERE ts IS NOT NULL");
    if (first.rows.empty() || !first.rows[0]["t"].as_double()) return std::nullopt;
    const double day = std::floor(*first.rows[0]["t"].as_double() / 86400.0) * 86400.0;
    return day + h * 3600.0 + mi * 60.0 + sec;
  }
  return std::nullopt;
}

/// The marks of a saved timeline: each finding's first evidence event, `root` for the first
/// finding (findings are saved root first), `echo` for those saved as echoes.
std::map<std::int64_t, std::string> saved_marks(store::Database& db) {
  std::map<std::int64_t, std::string> marks;
  auto r = db.query(
      "SELECT f.id AS finding, f.echo, (SELECT e.id FROM json_each(f.evidence) j"
      " JOIN sources s ON s.name = json_extract(j.value, '$.source')"
      " JOIN events e ON e.source_id = s.id AND e.line = json_extract(j.value, '$.line') ORDER BY j.key LIMIT 1) AS event"
      " FROM findings f ORDER BY f.id");
  if (!r.error.empty()) return marks;
  bool first = true;
  for (const auto& row : r.rows) {
    const auto event = row["event"].as_int();
    const bool root = first;
    first = false;
    if (!event) continue;
    if (root) marks[*event] = "root";
    else if (row["echo"].as_int().value_or(0) != 0) marks.emplace(*event, "echo");
  }
  return marks;
}

/// Why `kinds` may not be selected, or empty: each must be a kind an event can have — one of
/// culprit's own (core::kind::kAll) or one the timeline holds (a parser's or a rule's) — else a
/// typo (`--kind cuda_oomm`) would quietly match nothing. Names the nearest and the kinds held.
std::string check_kinds(store::Database& db, const std::vector<std::string>& kinds) {
  if (kinds.empty()) return {};
  std::set<std::string> known(core::kind::kAll.begin(), core::kind::kAll.end());
  std::set<std::string> held;
  for (const auto& row : db.query(store::distinct_sql("events", "kind")).rows) held.insert(row["kind"].as_text());
  known.insert(held.begin(), held.end());
  for (const auto& kind : kinds) {
    if (known.count(kind)) continue;
    const auto near = text::near_word(kind, {known.begin(), known.end()});
    held.erase(std::string(core::kind::kLog));
    return fmt::format("--kind {}: no event has this kind{}; this timeline holds {}", kind,
                       near ? fmt::format(" (did you mean `{}`?)", *near) : std::string(),
                       held.empty() ? std::string("no events but plain log lines")
                                    : fmt::format("{}", fmt::join(held, ", ")));
  }
  return {};
}

/// Both read_timeline forms: `verdict` is the analysis's (marks and focus from it), or null for
/// a saved file (marks and focus from its findings).
Result<Timeline> read(const std::string& db_path, const TimelineSelection& selection,
                      const diagnose::Verdict* verdict) {
  auto opened = api::open_saved_timeline(db_path);
  if (opened.error) return *opened.error;
  store::Database& db = *opened.db;
  std::map<std::int64_t, std::string> marks;
  std::int64_t root_event = 0;
  if (!verdict) {
    marks = saved_marks(db);
    for (const auto& [id, mark] : marks)
      if (mark == "root") root_event = id;
  } else if (verdict->root) {
    root_event = verdict->root->event_id;
  }

  if (auto why = check_kinds(db, selection.kinds); !why.empty()) return Error{Errc::invalid_option, why, {}};
  diagnose::TimelineQuery query;
  query.hosts = selection.hosts;
  query.kinds = selection.kinds;
  query.include_log = selection.include_log;
  query.limit = selection.limit;
  query.incident = selection.incident;
  if (root_event) query.focus = root_event;
  if (!selection.around.empty()) {
    std::optional<double> centre;
    if (all_digits(selection.around)) {
      std::int64_t id = 0;
      const char* end = selection.around.data() + selection.around.size();
      const auto parsed = std::from_chars(selection.around.data(), end, id);
      if (parsed.ec != std::errc() || parsed.ptr != end)  // too many digits
        return Error{Errc::invalid_option, fmt::format("no event with id {}", selection.around), {}};
      auto ev = db.query(fmt::format("SELECT ts FROM events WHERE id = {}", id));
      if (ev.rows.empty()) return Error{Errc::invalid_option, fmt::format("no event with id {}", id), {}};
      centre = ev.rows[0]["ts"].as_double();
      query.focus = id;  // unplaced: the cap centres on it instead
    } else {
      centre = parse_time(selection.around, db);
      if (!centre)
        return Error{Errc::invalid_option,
                     fmt::format("--around {}: not an event id or a time such as 2026-04-09T00:47:13",
                                 selection.around),
                     {}};
      query.focus.reset();
    }
    if (centre) {
      query.from = *centre - selection.window;
      query.to = *centre + selection.window;
    }
  }
  Timeline out;
  out.events = diagnose::load_timeline(db, query, &out.total);
  out.hosts = diagnose::load_host_clocks(db, query.incident);
  if (verdict && (verdict->root || !verdict->echoes.empty())) {
    diagnose::mark_timeline(*verdict, out.events);
  } else {
    for (auto& e : out.events)
      if (const auto it = marks.find(e.event_id); it != marks.end()) e.mark = it->second;
  }
  return out;
}

}  // namespace

Result<Timeline> read_timeline(const std::string& db_path, const TimelineSelection& selection) {
  return read(db_path, selection, nullptr);
}

Result<Timeline> read_timeline(const Analysis& analysis, const TimelineSelection& selection) {
  if (analysis.db_path.empty())
    return Error{Errc::database, "the analysis kept no timeline (analyze with Options::db_path)", {}};
  return read(analysis.db_path, selection, &analysis.verdict);
}

}  // namespace culprit
