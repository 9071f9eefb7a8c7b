// api::open_saved_timeline: the checks every saved-timeline function makes first.
#include "api/saved_timeline.hpp"

#include <filesystem>

namespace culprit::api {

OpenedTimeline open_saved_timeline(const std::string& path, bool read_only) {
  OpenedTimeline out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out.error = Error{Errc::not_found, path + ": no such file", {}};
    return out;
  }
  std::string why;
  auto db = read_only ? store::Database::open_read_only(path, why) : store::Database::open(path, why);
  if (!db) {
    out.error = Error{Errc::database, path + ": " + why, {}};
    return out;
  }
  const auto version = db->query("PRAGMA user_version");
  if (version.rows.empty() || version.rows[0].values.empty() ||
      version.rows[0].values[0].as_int().value_or(-1) != store::Database::schema_version()) {
    out.error = Error{Errc::not_a_timeline, path + " is not a culprit timeline of this version", {}};
    return out;
  }
  out.db = std::move(db);
  return out;
}

}  // namespace culprit::api
