// The input's one block pass (src/ingest/line_hits.hpp) stands in for three: the sniffer's
// anchor pass and the app-log and kernel-log parsers' own. Each of its bits must say, line by
// line, exactly what that list's own pass says, on every fixture; and its boot-stamp bit, which
// three checks read instead of asking, what kernel::starts_with_boot_stamp says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "api/prebuilt_databases.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "fixture_files.hpp"
#include "ingest/format_table.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/signal_events.hpp"

namespace {

using culprit::text::BlockScanner;

/// Per line of `lines`: whether `scanner`'s own pass over `text` puts a hit in it.
std::vector<bool> own_pass(const BlockScanner& scanner, std::string_view text, const std::vector<std::string_view>& lines) {
  std::vector<std::size_t> ends;
  REQUIRE(scanner.hit_lines(text, ends));
  std::vector<bool> out;
  std::size_t next = 0;
  for (std::string_view line : lines) {
    const auto begin = static_cast<std::size_t>(line.data() - text.data());
    while (next < ends.size() && ends[next] <= begin) ++next;
    out.push_back(next < ends.size() && ends[next] <= begin + line.size());
  }
  return out;
}

}  // namespace

TEST_CASE("the one pass's bits are each list's own pass, line by line, on every fixture", "[ingest][fixtures]") {
  if (BlockScanner::engine() != "hyperscan") return;  // the pass needs Hyperscan's ids
  culprit::api::install_prebuilt_databases();
  const auto loaded = culprit::rules::load_builtin_rules();
  const auto& signals = loaded.rules.signals;
  using culprit::ingest::kAnchorHit;
  using culprit::ingest::kAppLogHit;
  using culprit::ingest::kBootStampLine;
  using culprit::ingest::kKernelLogHit;
  const BlockScanner anchors(culprit::ingest::anchor_literals(), BlockScanner::Engine::hyperscan);
  const BlockScanner app(signals.block_literals(culprit::ingest::fast_path_markers()), BlockScanner::Engine::hyperscan);
  const BlockScanner kernel(signals.block_literals(culprit::ingest::kernel_log_markers()),
                            BlockScanner::Engine::hyperscan);
  namespace fs = std::filesystem;
  std::size_t files = 0, hit_lines = 0, stamped_lines = 0;
  for (const fs::path& path : culprit::test::text_fixtures()) {
    INFO(path.string());
    const std::string text = culprit::test::read_fixture(path);
    const auto lines = culprit::text::split_lines(text);
    std::vector<std::uint8_t> bits;
    REQUIRE(culprit::ingest::line_hits(text, lines, signals, bits));
    REQUIRE(bits.size() == lines.size());
    const auto a = own_pass(anchors, text, lines), p = own_pass(app, text, lines), k = own_pass(kernel, text, lines);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("line " << i + 1 << ": " << lines[i]);
      CHECK(((bits[i] & kAnchorHit) != 0) == a[i]);
      CHECK(((bits[i] & kAppLogHit) != 0) == p[i]);
      CHECK(((bits[i] & kKernelLogHit) != 0) == k[i]);
      CHECK(((bits[i] & kBootStampLine) != 0) == culprit::ingest::kernel::starts_with_boot_stamp(lines[i]));
      hit_lines += (bits[i] & (kAnchorHit | kAppLogHit | kKernelLogHit)) != 0;
      stamped_lines += (bits[i] & kBootStampLine) != 0;
    }
    ++files;
  }
  CHECK(files > 50);
  CHECK(hit_lines > 100);  // the fixtures hold plenty of each kind of hit
  CHECK(stamped_lines > 100);  // and of dmesg lines
}

namespace {

/// The signals one of whose literals `text` holds, ASCII case folded: what a scan of `text` gives
/// as its candidates (SignalSet::match), by brute force.
std::vector<std::uint32_t> holders(std::string_view text, const std::vector<std::pair<std::string, std::uint32_t>>& folded) {
  std::string t(text);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::uint32_t> out;
  for (const auto& [literal, signal] : folded)
    if (t.find(literal) != std::string::npos && (out.empty() || out.back() != signal)) out.push_back(signal);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

// A message's candidate signals read from the pass's hits (candidates_from_pass) stand in for a
// scan of the message: they must be exactly the signals whose literals lie within it, for a whole
// line, for a line with a prefix peeled off, and for a part cut through a literal.
TEST_CASE("the pass's hits give a message's candidate signals exactly, on every fixture", "[ingest][fixtures]") {
  if (BlockScanner::engine() != "hyperscan") return;  // the pass needs Hyperscan's ids
  culprit::api::install_prebuilt_databases();
  const auto loaded = culprit::rules::load_builtin_rules();
  const auto& signals = loaded.rules.signals;
  std::vector<std::pair<std::string, std::uint32_t>> folded;  // (literal, its signal), in signal order
  const auto list = signals.candidate_literals();
  for (std::size_t i = 0; i < list.literals.size(); ++i) {
    std::string literal = list.literals[i];
    for (char& c : literal) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    folded.emplace_back(literal, list.ids[i]);
  }
  std::size_t told = 0, with_candidates = 0;
  for (const auto& path : culprit::test::text_fixtures()) {
    INFO(path.string());
    const std::string text = culprit::test::read_fixture(path);
    const auto lines = culprit::text::split_lines(text);
    std::vector<std::uint8_t> bits;
    culprit::ingest::PassHits pass;
    REQUIRE(culprit::ingest::line_hits(text, lines, signals, bits, culprit::text::RareBytes::all(), &pass));
    if (pass.hits.empty()) continue;  // none, or more than the bound
    for (std::string_view line : lines) {
      const std::size_t cut = std::min<std::size_t>(line.size(), 7);
      for (std::string_view part : {line, line.substr(cut), line.substr(0, line.size() - cut)}) {
        INFO("part: " << part);
        std::vector<std::uint32_t> candidates;
        REQUIRE(culprit::ingest::candidates_from_pass(pass, part, candidates));
        CHECK(candidates == holders(part, folded));
        ++told;
        with_candidates += !candidates.empty();
      }
    }
  }
  CHECK(told > 10000);
  CHECK(with_candidates > 300);
  // A message that is no part of the pass's text (a copy, a line with its colour codes
  // stripped) is not told: its own scan decides.
  std::string text = "INFO a line\nRuntimeError: CUDA error: out of memory\n";
  while (text.size() < 4096) text += "INFO step done, nothing to see in this line at all\n";
  const auto lines = culprit::text::split_lines(text);
  std::vector<std::uint8_t> bits;
  culprit::ingest::PassHits pass;
  REQUIRE(culprit::ingest::line_hits(text, lines, signals, bits, culprit::text::RareBytes::all(), &pass));
  REQUIRE_FALSE(pass.hits.empty());
  const std::string copy(lines[1]);
  std::vector<std::uint32_t> candidates;
  CHECK_FALSE(culprit::ingest::candidates_from_pass(pass, copy, candidates));
  CHECK(candidates.empty());
}

// The hits are kept while they number at most one per kBytesPerKeptHit bytes: a text crowded
// with literals keeps none, and its messages are scanned as before.
TEST_CASE("the pass keeps no hits past its bound", "[ingest]") {
  if (BlockScanner::engine() != "hyperscan") return;
  culprit::api::install_prebuilt_databases();
  const auto loaded = culprit::rules::load_builtin_rules();
  std::string crowded;
  while (crowded.size() < 8192) crowded += "out of memory OOM oom-kill\n";
  const auto lines = culprit::text::split_lines(crowded);
  std::vector<std::uint8_t> bits;
  culprit::ingest::PassHits pass;
  REQUIRE(culprit::ingest::line_hits(crowded, lines, loaded.rules.signals, bits, culprit::text::RareBytes::all(), &pass));
  CHECK(pass.hits.empty());
  CHECK((bits[0] & culprit::ingest::kAppLogHit) != 0);  // the lines' bits are kept all the same
  std::vector<std::uint32_t> candidates;
  CHECK_FALSE(culprit::ingest::candidates_from_pass(pass, lines[0], candidates));
  std::string sparse = "RuntimeError: CUDA error: out of memory\n";
  while (sparse.size() < 8192) sparse += "INFO step done, nothing to see in this line at all\n";
  const auto sparse_lines = culprit::text::split_lines(sparse);
  REQUIRE(culprit::ingest::line_hits(sparse, sparse_lines, loaded.rules.signals, bits, culprit::text::RareBytes::all(), &pass));
  CHECK_FALSE(pass.hits.empty());
  CHECK(culprit::ingest::candidates_from_pass(pass, sparse_lines[0], candidates));
  CHECK_FALSE(candidates.empty());
}
