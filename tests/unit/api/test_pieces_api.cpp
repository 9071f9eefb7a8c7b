// Options::piece_bytes: a log past it is read and parsed in pieces, and the report must be the
// one it gives read whole. Every fixture incident is copied with its line logs padded by
// routine lines before and after their own, so that each spans several 128 KiB pieces with
// the fixture's blocks among the piece ends; the JSON report (verdict, ledger, evidence lines
// and their numbers, sources, notes) read in pieces, with one thread or two, equals the report
// read whole.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "culprit/culprit.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/input/reader.hpp"
#include "unit/api/api_samples.hpp"
#include "unit/ingest/fixture_files.hpp"

namespace fs = std::filesystem;

namespace {

/// Routine application lines: nothing a parser acts on, no stamp to move the timeline.
std::string padding(int from, int lines) {
  std::string out;
  for (int i = from; i < from + lines; ++i) out += "routine output " + std::to_string(i) + ": nothing to see here\n";
  return out;
}

/// A copy of `inputs` in `to`, each line log between 3000 routine lines before and 3000 after
/// (not the same lines: a block that repeats an earlier one of its input is read once).
void copy_padded(const fs::path& inputs, const fs::path& to) {
  const std::string before = padding(0, 3000), after = padding(3000, 3000);
  for (const auto& entry : fs::recursive_directory_iterator(inputs)) {
    const fs::path target = to / fs::relative(entry.path(), inputs);
    if (entry.is_directory()) {
      fs::create_directories(target);
      continue;
    }
    if (!entry.is_regular_file()) continue;
    std::string text = culprit::test::read_fixture(entry.path());
    if (culprit::ingest::reads_in_pieces(text)) {
      if (!text.empty() && text.back() != '\n') text += '\n';
      text = before + text + after;
    }
    fs::create_directories(target.parent_path());
    std::ofstream(target, std::ios::binary) << text;
  }
}

std::string report(const fs::path& inputs, std::int64_t piece_bytes, unsigned threads) {
  culprit::Options options;
  options.piece_bytes = piece_bytes;
  options.threads = threads;
  auto analysis = culprit::analyze({culprit::Input::file(inputs.string())}, options, culprit::test::builtin_rules());
  REQUIRE(analysis);
  return culprit::render(*analysis, culprit::Format::json);
}

}  // namespace

TEST_CASE("api: a fixture's logs read in pieces give the report they give read whole", "[api][pieces]") {
  const fs::path fixtures = fs::path(CULPRIT_SOURCE_DIR) / "fixtures" / "incidents";
  std::string tmpl = (fs::temp_directory_path() / "culprit-pieces-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(tmpl.data());
  int compared = 0;
  for (const auto& incident : fs::directory_iterator(fixtures)) {
    if (!fs::is_directory(incident.path() / "inputs")) continue;
    const fs::path copy = tmp / incident.path().filename();
    copy_padded(incident.path() / "inputs", copy);
    INFO(incident.path().filename().string());
    const std::string whole = report(copy, 0, 1);
    CHECK(report(copy, culprit::input::kMinPieceBytes, 1) == whole);
    CHECK(report(copy, culprit::input::kMinPieceBytes, 2) == whole);
    ++compared;
  }
  CHECK(compared >= 20);
  std::error_code ec;
  fs::remove_all(tmp, ec);
}
