// The input's one block pass (src/ingest/line_hits.hpp) stands in for three: the sniffer's
// anchor pass and the app-log and kernel-log parsers' own. Each of its bits must say, line by
// line, exactly what that list's own pass says, on every fixture; and its boot-stamp bit, which
// three checks read instead of asking, what kernel::starts_with_boot_stamp says.
#include <catch2/catch.hpp>

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
