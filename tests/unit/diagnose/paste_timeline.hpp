// A paste ingested into an in-memory timeline with the shipped rules, as `culprit` does it:
// shared by the diagnose tests that need processes, snapshots and events together.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"

namespace culprit::test {

inline std::unique_ptr<store::Database> paste_timeline(const std::string& paste) {
  static const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules());
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  core::Diagnostics problems;
  store::TimelineWriter writer(*db);
  ingest::IngestInput in{"paste.txt", "", "paste.txt", paste};
  ingest::ingest(in, loaded.rules.signals, writer, problems);
  REQUIRE(writer.finish().empty());
  return db;
}

}  // namespace culprit::test
