// culprit::write_scan_database and culprit::merge_scan_databases: many incidents' timelines in
// one file (store/merge.hpp copies them table by table, ids shifted).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "culprit/store/merge.hpp"
#include "culprit/timeline.hpp"

namespace culprit {

std::optional<Error> write_scan_database(const std::string& path, const std::vector<ScanIncident>& incidents) {
  // The store would add to a file that is there; the contract is a new file, so refuse it.
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return Error{Errc::database, path + " exists; refusing to overwrite it", {}};
  std::vector<store::IncidentPart> parts;
  parts.reserve(incidents.size());
  for (const auto& inc : incidents) parts.push_back({inc.db_path, inc.name, inc.verdict, inc.report_json});
  if (auto err = store::write_scan_database(path, parts); !err.empty()) return Error{Errc::database, err, {}};
  return std::nullopt;
}

Result<MergeSummary> merge_scan_databases(const std::vector<std::string>& inputs, const std::string& out_path) {
  std::vector<store::IncidentPart> parts;
  for (const auto& in : inputs) {
    std::string error;
    auto more = store::list_incidents(in, error, kForeignSqlSeconds);
    if (!error.empty()) return Error{Errc::database, in + ": " + error, {}};
    parts.insert(parts.end(), more.begin(), more.end());
  }
  // By path, as one unsharded scan orders them; an incident two shards both hold is kept once.
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  parts.erase(std::unique(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.name == b.name; }),
              parts.end());
  std::error_code ec;
  if (std::filesystem::exists(out_path, ec))
    return Error{Errc::database, out_path + " exists; refusing to overwrite it", {}};
  const std::string tmp = out_path + ".tmp";
  std::remove(tmp.c_str());
  if (auto err = store::write_scan_database(tmp, parts, kForeignSqlSeconds); !err.empty()) {
    std::remove(tmp.c_str());
    return Error{Errc::database, err, {}};
  }
  std::filesystem::rename(tmp, out_path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return Error{Errc::database, out_path + ": " + ec.message(), {}};
  }
  return MergeSummary{parts.size()};
}

}  // namespace culprit
