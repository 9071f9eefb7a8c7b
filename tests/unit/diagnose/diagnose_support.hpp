// Diagnosis tests run the libraries as `culprit` does on small inputs written in the test:
// ingest with the shipped rules into an in-memory timeline, align clocks, diagnose.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
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

/// The shipped rules, loaded once.
inline const rules::LoadResult& shipped_rules() {
  static const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules());
  return loaded;
}

/// `inputs`, each a file with its host, ingested into an in-memory timeline with the shipped
/// rules and their clocks aligned, as `culprit` does before it diagnoses; what the ingest noted
/// goes to `problems`.
inline std::unique_ptr<store::Database> timeline_of_texts(const std::vector<TextInput>& inputs,
                                                          core::Diagnostics& problems) {
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  {
    store::TimelineWriter writer(*db);
    for (const auto& in : inputs) {
      ingest::IngestInput i{in.name, in.host, in.name, in.text};
      ingest::ingest(i, shipped_rules().rules.signals, writer, problems);
    }
    REQUIRE(writer.finish().empty());
  }
  REQUIRE(store::align_clocks(*db).empty());
  return db;
}

/// The verdict for `inputs`, each a file with its host, as `culprit` would give it; with
/// `report_data`, also what the reports show beside it (diagnose::add_report_data).
inline diagnose::Verdict diagnose_texts(const std::vector<TextInput>& inputs, bool report_data = false) {
  core::Diagnostics problems;
  auto db = timeline_of_texts(inputs, problems);
  auto v = diagnose::diagnose(*db, shipped_rules().rules, problems);
  if (report_data) diagnose::add_report_data(*db, v);
  return v;
}

/// Whether a finding of the verdict `v` comes from the rule `rule`.
inline bool has_rule(const diagnose::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const auto& f) { return f.rule == rule; });
}

}  // namespace culprit::test
