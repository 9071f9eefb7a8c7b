// api::open_saved_timeline: the checks every saved-timeline function makes first.
#include "api/saved_timeline.hpp"

#include <filesystem>

namespace culprit::api {

OpenedTimeline open_saved_timeline(const std::string& path) {
  OpenedTimeline out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out.error = Error{Errc::not_found, path + ": no such file", {}};
    return out;
  }
  std::string why;
  auto db = store::Database::open_read_only(path, why);
  if (!db) {
    out.error = Error{Errc::database, path + ": " + why, {}};
    return out;
  }
  if (why = db->check_timeline(); !why.empty()) {
    out.error = Error{Errc::not_a_timeline, path + " is not a culprit timeline of this version (" + why + ")", {}};
    return out;
  }
  db->set_deadline(kForeignSqlSeconds);
  out.db = std::move(db);
  return out;
}

}  // namespace culprit::api
