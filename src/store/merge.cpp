// Copying incidents between timeline files with ATTACH. Column lists come from the schema
// itself (PRAGMA table_info), so a column added to schema.sql is carried without edits here.
#include "culprit/store/merge.hpp"

#include <fmt/format.h>

#include <map>

namespace culprit::store {
namespace {

const char* kTables[] = {"sources", "events", "hosts", "process_records", "process_roles", "containers", "gpu_snapshots",
                         "gpu_processes", "host_memory", "oom_reports", "oom_tasks", "findings"};

std::string quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::int64_t max_id(Database& db, const char* table, const char* column) {
  auto r = db.query(fmt::format("SELECT coalesce(max({}), 0) AS m FROM main.{}", column, table));
  return r.rows.empty() ? 0 : r.rows[0]["m"].as_int().value_or(0);
}

std::string copy_incident(Database& db, const IncidentPart& part, int to_incident) {
  // Offsets per id space: every id column of that space shifts by the same amount.
  std::map<std::string, std::int64_t> shift = {{"source", max_id(db, "sources", "id")},
                                               {"event", max_id(db, "events", "id")},
                                               {"snapshot", max_id(db, "gpu_snapshots", "id")},
                                               {"finding", max_id(db, "findings", "id")}};
  auto space_of = [](const std::string& table, const std::string& column) -> std::string {
    if (column == "source_id" || (table == "sources" && column == "id")) return "source";
    if (column == "event_id" || (table == "events" && column == "id")) return "event";
    if (column == "snapshot_id" || (table == "gpu_snapshots" && column == "id")) return "snapshot";
    if (table == "findings" && column == "id") return "finding";
    return {};
  };
  for (const char* table : kTables) {
    auto info = db.query(fmt::format("PRAGMA main.table_info({})", table));
    if (!info.error.empty()) return info.error;
    std::string cols, select;
    for (const auto& c : info.rows) {
      const std::string name = c["name"].as_text();
      if (!cols.empty()) {
        cols += ",";
        select += ",";
      }
      cols += name;
      const std::string space = space_of(table, name);
      if (name == "incident") select += std::to_string(to_incident);
      else if (!space.empty()) select += fmt::format("{} + {}", name, shift[space]);
      else select += name;
    }
    if (auto err = db.exec(fmt::format("INSERT INTO main.{0}({1}) SELECT {2} FROM part.{0} WHERE incident = {3}", table,
                                       cols, select, part.from_incident));
        !err.empty())
      return fmt::format("{} ({})", err, table);
  }
  return db.exec(fmt::format("INSERT INTO main.incidents(id, path, verdict, report) VALUES({}, {}, {}, {})", to_incident,
                             quote(part.name), quote(part.verdict), quote(part.report)));
}

}  // namespace

std::string write_scan_database(const std::string& path, const std::vector<IncidentPart>& parts,
                                double budget_seconds) {
  std::string error;
  auto db = Database::open(path, error);
  if (!db) return error;
  if (auto err = db->ensure_schema(); !err.empty()) return err;
  int n = 0;
  for (const auto& part : parts) {
    ++n;
    // Read-only and immutable (the shard is never changed), checked again as attached (list_incidents
    // checked it; the file may have changed since), and copied within the foreign-SQL budget.
    const std::string uri = sqlite_uri(part.db_path, "mode=ro&immutable=1");
    if (auto err = db->exec(fmt::format("ATTACH DATABASE {} AS part", quote(uri))); !err.empty())
      return fmt::format("{}: {}", part.db_path, err);
    if (auto why = db->check_timeline("part"); !why.empty()) {
      db->exec("DETACH DATABASE part");
      return fmt::format("{}: not a culprit timeline of this version ({})", part.db_path, why);
    }
    db->exec("BEGIN");
    db->set_deadline(budget_seconds);
    std::string err = copy_incident(*db, part, n);
    db->set_deadline(0);
    if (err.rfind("interrupted", 0) == 0)
      err = fmt::format("stopped after {} s, the time limit for copying one shard's incident", budget_seconds);
    db->exec(err.empty() ? "COMMIT" : "ROLLBACK");
    db->exec("DETACH DATABASE part");
    if (!err.empty()) return fmt::format("{}: {}", part.name, err);
  }
  return {};
}

std::vector<IncidentPart> list_incidents(const std::string& scan_db_path, std::string& error, double budget_seconds) {
  std::vector<IncidentPart> parts;
  auto db = Database::open_read_only(scan_db_path, error);
  if (!db) return parts;
  if (auto why = db->check_timeline(); !why.empty()) {
    error = "not a culprit timeline of this version (" + why + ")";
    return parts;
  }
  db->set_deadline(budget_seconds);
  auto rows = db->query("SELECT id, path, verdict, report FROM incidents ORDER BY id");
  if (!rows.error.empty()) {
    error = rows.error;
    return parts;
  }
  for (const auto& r : rows.rows)
    parts.push_back({scan_db_path, r["path"].as_text(), r["verdict"].as_text(), r["report"].as_text(),
                     static_cast<int>(r["id"].as_int().value_or(0))});
  return parts;
}

}  // namespace culprit::store
