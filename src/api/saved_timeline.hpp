// Opening a saved timeline for the public functions of culprit/timeline.hpp: the file must
// exist, open, and carry this version's schema; what fails is the typed Error they return.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "culprit/culprit.hpp"
#include "culprit/store/database.hpp"

namespace culprit::api {

/// The timeline at `path`, opened read-only (`read_only`) or read-write, with its schema version
/// checked: Errc::not_found (no such file), Errc::database (SQLite cannot open it: `PATH: why`)
/// or Errc::not_a_timeline (`PATH is not a culprit timeline of this version`).
struct OpenedTimeline {
  std::unique_ptr<store::Database> db;
  std::optional<Error> error;
};
OpenedTimeline open_saved_timeline(const std::string& path, bool read_only);

}  // namespace culprit::api
