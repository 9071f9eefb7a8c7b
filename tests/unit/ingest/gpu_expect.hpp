// Checks what a parser recorded against a fixture's `<variant>.expect.json`.
//
// Expect file (every key optional):
//   "context":   {"host": "node-a", "year_hint": 2026}        how the test sets up ParseContext
//   "counts":    {"events": 3, "snapshots": 1, "processes": 2, "<kind>": n}   exact counts
//   "events":    [{kind, line, line_end, host, pid, rank, severity, rule, message,
//                  message_contains, ts_kind, ts_raw, ts, ts_value, fields: {k: v}}]
//   "snapshots": [{gpu, line, host, model, bus_id, mem_used, mem_total, unified, ts, ts_raw,
//                  process_count, processes: [{pid, name, type, mem_used}]}]
//   "processes": [{pid, job, host, name, evidence, user, cmdline, state, started, elapsed, rss}]
// Each expected item must match a distinct recorded one on every key it lists; `null` means
// "absent" (pid, rank, ts, mem_used, …). A number in `fields` must be a numeric field of equal
// value; a string must equal the field's text.
#pragma once

#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit/ingest/gpu_recording_sink.hpp"

namespace culprit::test {

using simdjson::dom::element;
using simdjson::dom::object;

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string json_text(element v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

inline bool number_of(element v, double& out) {
  if (v.is_int64()) return out = static_cast<double>(int64_t(v)), true;
  if (v.is_uint64()) return out = static_cast<double>(uint64_t(v)), true;
  if (v.is_double()) return out = double(v), true;
  return false;
}

// Byte counts must be exact; times (epoch seconds with fractions) within a millisecond.
inline bool same_number(double a, double b) {
  return std::fabs(a - b) <= 1e-3 + 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

// Optional integer-like value vs expectation (null = absent).
template <class T>
bool match_opt(const std::optional<T>& got, element want) {
  if (want.is_null()) return !got.has_value();
  double w = 0;
  if (!number_of(want, w) || !got) return false;
  return same_number(static_cast<double>(*got), w);
}

inline bool match_str(const std::string& got, element want) {
  return want.is_string() && got == std::string(std::string_view(want));
}

inline bool match_num(double got, element want) {
  double w = 0;
  return number_of(want, w) && same_number(got, w);
}

inline bool match_event(const core::Event& e, object want, std::string& why) {
  for (auto [key, v] : want) {
    bool ok = true;
    if (key == "kind") ok = match_str(e.kind, v);
    else if (key == "line") ok = match_num(static_cast<double>(e.line), v);
    else if (key == "line_end") ok = match_num(static_cast<double>(e.line_end), v);
    else if (key == "host") ok = match_str(e.host, v);
    else if (key == "pid") ok = match_opt(e.pid, v);
    else if (key == "rank") ok = match_opt(e.rank, v);
    else if (key == "severity") ok = match_str(std::string(core::to_string(e.severity)), v);
    else if (key == "rule") ok = match_str(e.rule, v);
    else if (key == "message") ok = match_str(e.message, v);
    else if (key == "message_contains")
      ok = v.is_string() && e.message.find(std::string_view(v)) != std::string::npos;
    else if (key == "ts_kind") ok = match_str(std::string(core::to_string(e.ts_kind)), v);
    else if (key == "ts_raw") ok = match_str(e.ts_raw, v);
    else if (key == "ts") ok = match_opt(e.ts, v);
    else if (key == "ts_value") ok = match_opt(e.ts_value, v);
    else if (key == "fields") {
      for (auto [fk, fv] : object(v)) {
        const core::Field* f = e.field(fk);
        if (fv.is_null()) {
          if (f) ok = false;
        } else if (!f) {
          ok = false;
        } else if (fv.is_string()) {
          ok = ok && f->value == std::string(std::string_view(fv));
        } else {
          double w = 0;
          ok = ok && f->numeric && number_of(fv, w) && same_number(std::stod(f->value), w);
        }
        if (!ok) {
          why = "field " + std::string(fk) + (f ? " = " + f->value : " absent");
          return false;
        }
      }
    } else {
      why = "unknown key " + std::string(key);
      return false;
    }
    if (!ok) {
      why = std::string(key);
      return false;
    }
  }
  return true;
}

inline bool match_process(const core::GpuProcess& p, object want) {
  for (auto [key, v] : want) {
    bool ok = true;
    if (key == "pid") ok = match_num(static_cast<double>(p.pid), v);
    else if (key == "name") ok = match_str(p.name, v);
    else if (key == "type") ok = match_str(p.type, v);
    else if (key == "mem_used") ok = match_opt(p.mem_used, v);
    else if (key == "gpu") ok = match_opt(p.gpu, v);
    else ok = false;
    if (!ok) return false;
  }
  return true;
}

inline bool match_snapshot(const core::GpuSnapshot& s, object want, std::string& why) {
  for (auto [key, v] : want) {
    bool ok = true;
    if (key == "gpu") ok = match_num(s.gpu, v);
    else if (key == "line") ok = match_num(static_cast<double>(s.line), v);
    else if (key == "host") ok = match_str(s.host, v);
    else if (key == "model") ok = match_str(s.model, v);
    else if (key == "bus_id") ok = match_str(s.bus_id, v);
    else if (key == "mem_used") ok = match_opt(s.mem_used, v);
    else if (key == "mem_total") ok = match_opt(s.mem_total, v);
    else if (key == "unified") ok = v.is_bool() && bool(v) == s.unified;
    else if (key == "ts") ok = match_opt(s.ts, v);
    else if (key == "ts_raw") ok = match_str(s.ts_raw, v);
    else if (key == "process_count") ok = match_num(static_cast<double>(s.processes.size()), v);
    else if (key == "processes") {
      std::vector<bool> used(s.processes.size(), false);
      for (element pw : v.get_array()) {
        bool found = false;
        for (std::size_t i = 0; i < s.processes.size() && !found; ++i)
          if (!used[i] && match_process(s.processes[i], pw)) used[i] = found = true;
        if (!found) {
          why = "process " + json_text(pw);
          return false;
        }
      }
    } else {
      why = "unknown key " + std::string(key);
      return false;
    }
    if (!ok) {
      why = std::string(key);
      return false;
    }
  }
  return true;
}

inline bool match_sighting(const core::ProcessSighting& p, object want) {
  for (auto [key, v] : want) {
    bool ok = true;
    if (key == "pid") ok = match_num(static_cast<double>(p.pid), v);
    else if (key == "job") ok = v.is_bool() && bool(v) == p.job;
    else if (key == "host") ok = match_str(p.host, v);
    else if (key == "name") ok = match_str(p.name, v);
    else if (key == "evidence") ok = match_str(p.evidence, v);
    else if (key == "user") ok = match_str(p.user, v);
    else if (key == "cmdline") ok = match_str(p.cmdline, v);
    else if (key == "state") ok = match_str(p.state, v);
    else if (key == "started") ok = match_opt(p.started, v);
    else if (key == "elapsed") ok = match_opt(p.elapsed, v);
    else if (key == "rss") ok = match_opt(p.rss, v);
    else if (key == "ppid") ok = match_opt(p.ppid, v);
    else ok = false;
    if (!ok) return false;
  }
  return true;
}

/// Every mismatch between `sink` and the expect document, as readable lines (empty: all good).
inline std::vector<std::string> check_expectations(const GpuRecordingSink& sink, element doc) {
  std::vector<std::string> problems;
  object root = doc;
  element counts;
  if (root["counts"].get(counts) == simdjson::SUCCESS) {
    for (auto [key, v] : object(counts)) {
      std::size_t got = 0;
      if (key == "events") got = sink.events.size();
      else if (key == "snapshots") got = sink.snapshots.size();
      else if (key == "processes") got = sink.processes.size();
      else got = sink.of_kind(key).size();
      if (!match_num(static_cast<double>(got), v))
        problems.push_back("count " + std::string(key) + ": got " + std::to_string(got) + ", want " + json_text(v));
    }
  }
  element list;
  if (root["events"].get(list) == simdjson::SUCCESS) {
    std::vector<bool> used(sink.events.size(), false);
    for (element want : list.get_array()) {
      bool found = false;
      std::string closest;
      for (std::size_t i = 0; i < sink.events.size() && !found; ++i) {
        std::string why;
        if (used[i]) continue;
        if (match_event(sink.events[i], want, why)) used[i] = found = true;
        else if (closest.empty() && why != "kind" && why != "line")
          closest = "line " + std::to_string(sink.events[i].line) + " differs on " + why;
      }
      if (!found) problems.push_back("no event matches " + json_text(want) + (closest.empty() ? "" : " (" + closest + ")"));
    }
  }
  if (root["snapshots"].get(list) == simdjson::SUCCESS) {
    std::vector<bool> used(sink.snapshots.size(), false);
    for (element want : list.get_array()) {
      bool found = false;
      std::string closest;
      for (std::size_t i = 0; i < sink.snapshots.size() && !found; ++i) {
        std::string why;
        if (used[i]) continue;
        if (match_snapshot(sink.snapshots[i], want, why)) used[i] = found = true;
        else if (closest.empty() && why != "gpu" && why != "line") closest = "differs on " + why;
      }
      if (!found) problems.push_back("no snapshot matches " + json_text(want) + (closest.empty() ? "" : " (" + closest + ")"));
    }
  }
  if (root["processes"].get(list) == simdjson::SUCCESS) {
    for (element want : list.get_array()) {
      bool found = false;
      for (const auto& p : sink.processes) found = found || match_sighting(p, want);
      if (!found) problems.push_back("no process sighting matches " + json_text(want));
    }
  }
  return problems;
}

}  // namespace culprit::test
