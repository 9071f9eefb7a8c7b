// Host and cgroup memory over time for the report's memory chart (see report_data.hpp): the
// timed host_memory rows (/proc/meminfo samples culprit stamped) and the `cgroup_memory` events
// (culprit's cgroup.txt samples), read with SQL here so that the renderers never run any.

#include "culprit/diagnose/report_data.hpp"

#include "culprit/core/parser_rules.hpp"

namespace culprit::diagnose {
namespace {

void keep_latest(std::vector<MemorySeries>& out) {
  for (auto& s : out)
    if (s.readings.size() > kReportMemoryReadings)
      s.readings.erase(s.readings.begin(), s.readings.end() - static_cast<std::ptrdiff_t>(kReportMemoryReadings));
}

}  // namespace

std::vector<MemorySeries> load_memory_series(store::Database& db) {
  std::vector<MemorySeries> out;
  auto host = db.query(
      "SELECT h.host, h.ts, h.line, h.total, h.used, h.available, s.name AS source"
      " FROM host_memory h JOIN sources s ON s.id = h.source_id"
      " WHERE h.ts IS NOT NULL AND (h.used IS NOT NULL OR h.total IS NOT NULL)"
      " ORDER BY h.host, h.ts, h.source_id, h.line");
  for (const auto& r : host.rows) {
    const std::string name = r["host"].as_text();
    if (out.empty() || out.back().host != name) out.push_back({name, "host", "", false, {}});
    out.back().readings.push_back({r["ts"].as_double().value_or(0), r["source"].as_text(), r["line"].as_int().value_or(0),
                                   r["used"].as_int(), r["total"].as_int(), r["available"].as_int()});
  }
  auto cgroup = db.query_bound(
      "SELECT e.host, e.ts, e.line, s.name AS source, json_extract(e.fields, '$.cgroup') AS cgroup,"
      " json_extract(e.fields, '$.usage_bytes') AS usage, json_extract(e.fields, '$.limit_bytes') AS lim,"
      " json_extract(e.fields, '$.limit_unlimited') AS unlimited"
      " FROM events e JOIN sources s ON s.id = e.source_id"
      " WHERE e.rule = ?1 AND e.ts IS NOT NULL"
      " ORDER BY e.host, cgroup, e.ts, e.source_id, e.line",
      {core::parser_rule::kCgroupMemory});
  const std::size_t first_cgroup = out.size();
  for (const auto& r : cgroup.rows) {
    const std::string name = r["host"].as_text(), path = r["cgroup"].as_text();
    if (out.size() == first_cgroup || out.back().host != name || out.back().cgroup != path)
      out.push_back({name, "cgroup", path, false, {}});
    MemorySeries& s = out.back();
    // The limit as the latest reading has it (a limit raised mid-run shows in each reading).
    s.unlimited = r["unlimited"].as_int().value_or(0) != 0;
    s.readings.push_back({r["ts"].as_double().value_or(0), r["source"].as_text(), r["line"].as_int().value_or(0),
                          r["usage"].as_int(), r["lim"].as_int(), std::nullopt});
  }
  keep_latest(out);
  return out;
}

}  // namespace culprit::diagnose
