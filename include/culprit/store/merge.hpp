// Many incidents' timelines in one SQLite file: `culprit scan --db` writes one, `culprit merge`
// joins several. Rows are copied table by table with their ids shifted, so the references
// between tables (source_id, event_id, snapshot_id) stay intact; `incident` numbers them.
#pragma once

#include <string>
#include <vector>

#include "culprit/store/database.hpp"

namespace culprit::store {

/// One incident to copy: a timeline file (`incident` 0 inside), or incident `from_incident` of
/// a scan database.
struct IncidentPart {
  std::string db_path;
  std::string name;      ///< the incident's path
  std::string verdict;
  std::string report;    ///< its diagnose JSON
  int from_incident = 0;
};

/// Creates `path` (must not exist) with the schema and copies every part in order as incidents
/// 1..N. Each part's file is attached read-only and immutable, checked (Database::check_timeline)
/// and copied within `budget_seconds` (0: none). Returns an error message or empty.
std::string write_scan_database(const std::string& path, const std::vector<IncidentPart>& parts,
                                double budget_seconds = 0);

/// The incidents of a scan database, in id order, as parts ready to copy. The file is opened
/// read-only and immutable and checked; reading it stops after `budget_seconds` (0: none).
std::vector<IncidentPart> list_incidents(const std::string& scan_db_path, std::string& error,
                                         double budget_seconds = 0);

}  // namespace culprit::store
