// Runs every fixture of one fixtures/formats/<folder> through a parser and checks it against
// its <variant>.expect.json (format in gpu_expect.hpp). Shared by the data-driven tests.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "unit/ingest/gpu_expect.hpp"
#include "unit/ingest/gpu_test_support.hpp"

namespace culprit::test {

namespace fs = std::filesystem;

inline std::vector<fs::path> fixtures_in(const std::string& folder) {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(CULPRIT_SOURCE_DIR) / "fixtures" / "formats" / folder;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".txt") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Runs every fixture of `folder` through `parse` with context format `format`.
inline void run_parser_fixtures(const std::string& folder, const std::string& format,
                                void (*parse)(std::string_view, culprit::ingest::ParseContext&)) {
  const auto files = fixtures_in(folder);
  REQUIRE(!files.empty());
  for (const auto& txt : files) {
    fs::path expect = txt;
    expect.replace_extension(".expect.json");
    DYNAMIC_SECTION(folder << "/" << txt.filename().string()) {
      REQUIRE(fs::exists(expect));
      simdjson::dom::parser json;
      const auto padded = simdjson::padded_string(culprit::test::read_file(expect.string()));
      simdjson::dom::element doc;
      REQUIRE(json.parse(padded).get(doc) == simdjson::SUCCESS);
      std::string host;
      int year_hint = 0;
      simdjson::dom::element ctx_json;
      if (doc["context"].get(ctx_json) == simdjson::SUCCESS) {
        std::string_view h;
        if (ctx_json["host"].get(h) == simdjson::SUCCESS) host = std::string(h);
        int64_t y = 0;
        if (ctx_json["year_hint"].get(y) == simdjson::SUCCESS) year_hint = static_cast<int>(y);
      }
      culprit::test::GpuRecordingSink sink;
      auto ctx = culprit::test::gpu_context(sink, format, host, year_hint);
      ctx.source_name = txt.filename().string();
      const std::string text = culprit::test::read_file(txt.string());
      parse(text, ctx);
      const auto problems = culprit::test::check_expectations(sink, doc);
      for (const auto& p : problems) {
        INFO(p);
        CHECK(false);
      }
      CHECK(problems.empty());
    }
  }
}

inline void run_fixture_folder(const std::string& folder, bool smi) {
  if (smi) run_parser_fixtures(folder, "nvidia_smi_table", &culprit::ingest::parse_nvidia_smi_table);
  else run_parser_fixtures(folder, "app_log", &culprit::ingest::parse_app_log);
}

}  // namespace culprit::test
