// Diagnosis tests run the libraries as `culprit` does on small inputs written in the test:
// ingest with the shipped rules into an in-memory timeline, align clocks, diagnose.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "culprit/diagnose/engine.hpp"
#include "culprit/diagnose/report_data.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"

namespace culprit::test {

struct TextInput {
  std::string name;
  std::string host;
  std::string text;
};

/// The verdict for `inputs`, each a file with its host, as `culprit` would give it; with
/// `report_data`, also what the reports show beside it (diagnose::add_report_data).
inline diagnose::Verdict diagnose_texts(const std::vector<TextInput>& inputs, bool report_data = false) {
  static const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules());
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  core::Diagnostics problems;
  {
    store::TimelineWriter writer(*db);
    for (const auto& in : inputs) {
      ingest::IngestInput i{in.name, in.host, in.name, in.text};
      ingest::ingest(i, loaded.rules.signals, writer, problems);
    }
    REQUIRE(writer.finish().empty());
  }
  REQUIRE(store::align_clocks(*db).empty());
  auto v = diagnose::diagnose(*db, loaded.rules, problems);
  if (report_data) diagnose::add_report_data(*db, v);
  return v;
}

}  // namespace culprit::test
