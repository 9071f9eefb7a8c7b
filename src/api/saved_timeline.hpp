// Opening a saved timeline for the public functions of culprit/timeline.hpp: the file must
// exist, open, and be a culprit timeline of this version (Database::check_timeline); what fails
// is the typed Error they return. The file is only read, and never changed.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "culprit/culprit.hpp"
#include "culprit/store/database.hpp"

namespace culprit::api {

/// The timeline at `path`, opened read-only and immutable (Database::open_read_only), checked
/// (Database::check_timeline), and with kForeignSqlSeconds for all that runs on it:
/// Errc::not_found (no such file), Errc::database (SQLite cannot open it: `PATH: why`) or
/// Errc::not_a_timeline (`PATH is not a culprit timeline of this version (why)`).
struct OpenedTimeline {
  std::unique_ptr<store::Database> db;
  std::optional<Error> error;
};
OpenedTimeline open_saved_timeline(const std::string& path);

}  // namespace culprit::api
