// The one read of a process's place (placement_load.hpp): bound SQL over processes, the GPU
// snapshots that list it, its kernel stack's driver frame, and its host's container listings.
#include "placement_load.hpp"

#include <string>
#include <vector>

#include "placement.hpp"

namespace culprit::diagnose {

void attach_place(store::Database& db, ProcessRef& p) {
  if (!p.pid) return;
  const std::string pid = std::to_string(*p.pid);
  auto r = db.query_bound(
      "SELECT p.nspid, p.cgroup, p.absent, p.state,"
      " EXISTS (SELECT 1 FROM gpu_snapshots g JOIN gpu_processes gp ON gp.snapshot_id = g.id"
      "  WHERE g.host = ?1 AND gp.pid = CAST(?2 AS INTEGER)) AS gpu_listed,"
      " (SELECT json_extract(e.fields, '$.driver_frame') FROM events e WHERE e.host = ?1"
      "  AND e.pid = CAST(?2 AS INTEGER) AND e.kind = 'process_stack'"
      "  AND json_extract(e.fields, '$.driver_frame') IS NOT NULL LIMIT 1) AS driver_frame"
      " FROM processes p WHERE p.host = ?1 AND p.pid = CAST(?2 AS INTEGER) LIMIT 1",
      {p.host, pid});
  if (r.rows.empty()) return;
  const auto& row = r.rows[0];
  PlaceFacts f;
  f.pid = *p.pid;
  f.nspid = row["nspid"].as_int();
  f.cgroup = row["cgroup"].as_text();
  f.absent = row["absent"].as_int().value_or(0) != 0;
  f.state = row["state"].as_text();
  f.gpu_listed = row["gpu_listed"].as_int().value_or(0) != 0;
  f.driver_frame = row["driver_frame"].as_text();
  std::vector<ListedContainer> listed;
  for (const auto& c : db.query_bound("SELECT id, name, pod, namespace FROM containers WHERE host = ?1", {p.host}).rows)
    listed.push_back({c["id"].as_text(), c["name"].as_text(), c["pod"].as_text(), c["namespace"].as_text()});
  p.place = place_process(f, listed);
  if (p.place && p.container.empty()) p.container = p.place->container_name;
}

}  // namespace culprit::diagnose
