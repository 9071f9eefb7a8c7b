// Shared helpers for the data-driven parser tests: list fixtures/formats/<format>/*.txt or every
// text fixture, and read files (found through CULPRIT_SOURCE_DIR).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace culprit::test {

inline std::vector<std::filesystem::path> format_fixtures(const std::string& format) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(CULPRIT_SOURCE_DIR) /
                                                                "fixtures/formats" / format))
    if (entry.path().extension() == ".txt") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Every text fixture (`.txt`, `.log`) under fixtures/formats and fixtures/incidents, sorted.
inline std::vector<std::filesystem::path> text_fixtures() {
  std::vector<std::filesystem::path> out;
  for (const char* root : {"fixtures/formats", "fixtures/incidents"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::filesystem::path(CULPRIT_SOURCE_DIR) / root)) {
      const auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".txt" || ext == ".log")) out.push_back(entry.path());
    }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string read_fixture(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace culprit::test
