// `culprit timeline --json` / `--csv`: the timeline's events as data (timeline.hpp). One field
// list for both, so the two cannot disagree.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "culprit/core/time.hpp"
#include "culprit/report/csv_writer.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/timeline.hpp"
#include "report/wording.hpp"

namespace culprit::report {
namespace {

/// A field: text, an integer, or absent.
struct Field {
  const char* name;
  std::optional<std::string> text;
  std::optional<std::int64_t> number;
  bool is_number = false;
};

std::optional<std::string> non_empty(const std::string& s) { return s.empty() ? std::nullopt : std::optional(s); }

std::vector<Field> fields_of(const diagnose::TimelineEvent& e) {
  const bool placed = e.ts && std::isfinite(*e.ts);
  const bool marked = e.mark == "root" || e.mark == "echo";
  return {
      {"id", std::nullopt, e.event_id, true},
      {"time", placed ? std::optional(core::format_iso(*e.ts)) : std::nullopt, std::nullopt, false},
      {"time_text", event_time_text(e), std::nullopt, false},
      {"host", e.host, std::nullopt, false},
      {"kind", e.kind, std::nullopt, false},
      {"severity", non_empty(e.severity), std::nullopt, false},
      {"pid", std::nullopt, e.pid, true},
      {"rank", std::nullopt, e.rank, true},
      {"comm", non_empty(e.comm), std::nullopt, false},
      {"source", e.source, std::nullopt, false},
      {"line", std::nullopt, e.line > 0 ? std::optional(e.line) : std::nullopt, true},
      {"mark", marked ? std::optional(e.mark) : std::nullopt, std::nullopt, false},
      {"message", e.summary, std::nullopt, false},
  };
}

}  // namespace

std::string render_timeline_json(const std::vector<diagnose::TimelineEvent>& events) {
  JsonWriter w;
  w.begin_array();
  for (const auto& e : events) {
    w.begin_object();
    for (const auto& f : fields_of(e)) {
      w.key(f.name);
      if (f.is_number) w.value(f.number);
      else if (f.text) w.value(*f.text);
      else w.null();
    }
    w.end_object();
  }
  w.end_array();
  return w.take() + "\n";
}

std::string render_timeline_csv(const std::vector<diagnose::TimelineEvent>& events) {
  std::string out;
  std::vector<std::optional<std::string>> header;
  for (const auto& f : fields_of(diagnose::TimelineEvent{})) header.emplace_back(f.name);
  append_csv_record(out, header);
  for (const auto& e : events) {
    std::vector<std::optional<std::string>> record;
    for (const auto& f : fields_of(e))
      record.push_back(f.is_number ? (f.number ? std::optional(std::to_string(*f.number)) : std::nullopt) : f.text);
    append_csv_record(out, record);
  }
  return out;
}

}  // namespace culprit::report
