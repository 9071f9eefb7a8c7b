#include "culprit/store/hosts.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace culprit::store {
namespace {

// Launcher lines name the node a job's task ran on in an event field `node` (`srun: error:
// gpu-017: task 3: Out Of Memory`); a node list (`gpu-[017-018]`, `a,b`) names no one host.
constexpr const char* kNode = "json_extract(e.fields, '$.node')";
constexpr const char* kOneNode =
    "json_extract(e.fields, '$.node') IS NOT NULL AND json_extract(e.fields, '$.node') <> ''"
    " AND instr(json_extract(e.fields, '$.node'), '[') = 0 AND instr(json_extract(e.fields, '$.node'), ',') = 0";

// A paste segment read at a prompt (`user@login:~$ tail slurm-42.out`) whose launcher lines
// name one node is that node's output: the job ran there, not on the login node.
std::string settle_launcher_hosts(Database& db) {
  auto moved = db.query(fmt::format(
      "SELECT s.id AS id, s.host AS host, min({0}) AS node FROM sources s JOIN events e ON e.source_id = s.id"
      " WHERE s.host_from = 'prompt' AND {1} AND {0} <> s.host GROUP BY s.id HAVING count(DISTINCT {0}) = 1",
      kNode, kOneNode));
  if (!moved.error.empty()) return moved.error;
  for (const auto& r : moved.rows) {
    const std::int64_t id = r["id"].as_int().value_or(0);
    const std::string from = sql_literal(r["host"].as_text()), to = sql_literal(r["node"].as_text());
    if (auto err = db.exec(fmt::format(
            "UPDATE OR IGNORE process_records SET host = {1} WHERE host = {0}"
            " AND pid IN (SELECT pid FROM events WHERE source_id = {2} AND pid IS NOT NULL);"
            "UPDATE events SET host = {1} WHERE source_id = {2} AND host = {0};"
            "UPDATE gpu_snapshots SET host = {1} WHERE source_id = {2} AND host = {0};"
            "UPDATE host_memory SET host = {1} WHERE source_id = {2} AND host = {0};"
            "UPDATE oom_reports SET host = {1} WHERE host = {0} AND event_id IN (SELECT id FROM events WHERE source_id = {2});"
            "UPDATE sources SET host = {1}, host_from = 'launcher line' WHERE id = {2};"
            "INSERT OR IGNORE INTO hosts(name) VALUES({1});",
            from, to, id));
        !err.empty())
      return err;
  }
  return {};
}

/// Whether one of the sources the folder `name` gave its host to may have events naming a host
/// (HostsNamed): true unless `named` is complete and holds none of them.
bool folder_may_name(Database& db, const std::string& name, const HostsNamed& named) {
  if (!named.complete) return true;
  auto ids = db.query_bound("SELECT id FROM sources WHERE host = ?1 AND host_from = 'folder name'", {name});
  if (!ids.error.empty()) return true;
  return std::any_of(ids.rows.begin(), ids.rows.end(),
                     [&](const Row& r) { return named.sources.count(r["id"].as_int().value_or(0)) > 0; });
}

}  // namespace

std::string settle_folder_hosts(Database& db, const HostsNamed& hints) {
  auto weak = db.query("SELECT DISTINCT host FROM sources WHERE host_from = 'folder name' AND host <> '' ORDER BY host");
  if (!weak.error.empty()) return weak.error;
  for (const auto& w : weak.rows) {
    const std::string name = w["host"].as_text();
    const std::string folder = sql_literal(name);
    // The folder's events (where they may name a host), then a file of the same folder whose
    // host its own prompt names (a paste made there). The folder's name bound as ?1: one
    // statement for every folder of every incident.
    const std::string events_named =
        folder_may_name(db, name, hints)
            ? fmt::format("SELECT DISTINCT e.host AS host FROM events e JOIN sources s ON s.id = e.source_id"
                          " WHERE s.host = ?1 AND s.host_from = 'folder name' AND e.host <> '' AND e.host <> ?1"
                          " UNION SELECT DISTINCT {0} AS host FROM events e JOIN sources s ON s.id = e.source_id"
                          " WHERE s.host = ?1 AND s.host_from = 'folder name' AND {1} AND {0} <> ?1 UNION ",
                          kNode, kOneNode)
            : std::string();
    auto named = db.query_bound(
        events_named +
            "SELECT DISTINCT p.host AS host FROM sources p WHERE p.host_from = 'prompt' AND p.host <> ''"
            " AND p.host <> ?1 AND substr(p.name, 1, length(?1) + 1) = ?1 || '/'"
            " AND EXISTS (SELECT 1 FROM sources s WHERE s.host = ?1 AND s.host_from = 'folder name')",
        {name});
    if (!named.error.empty()) return named.error;
    if (named.rows.size() != 1) continue;
    const std::string h = sql_literal(named.rows[0]["host"].as_text());
    if (auto err = db.exec(fmt::format(
            "UPDATE sources SET host_from = 'log lines' WHERE host = {0} AND host_from = 'folder name';"
            "UPDATE sources SET host = {1} WHERE host = {0};"
            "UPDATE events SET host = {1} WHERE host = {0};"
            "UPDATE containers SET host = {1} WHERE host = {0};"
            "UPDATE host_memory SET host = {1} WHERE host = {0};"
            "UPDATE gpu_snapshots SET host = {1} WHERE host = {0};"
            "UPDATE oom_reports SET host = {1} WHERE host = {0};"
            "UPDATE OR IGNORE process_records SET host = {1} WHERE host = {0};"
            "DELETE FROM process_records WHERE host = {0};"
            "UPDATE hosts SET unified_memory = max(unified_memory,"
            " (SELECT unified_memory FROM hosts WHERE name = {0})) WHERE name = {1};"
            "UPDATE OR IGNORE hosts SET name = {1} WHERE name = {0};"
            "DELETE FROM hosts WHERE name = {0};",
            folder, h));
        !err.empty())
      return err;
  }
  return settle_launcher_hosts(db);
}

}  // namespace culprit::store
