// The build's prebuilt literal databases cover every list a run on the built-in rules
// block-scans: should the parsers' markers, the anchors or the signals' literals change without
// the generator following, a run would silently compile again (and short texts would lose the
// block pass); this says so instead.
#include <catch2/catch.hpp>

#include "api/prebuilt_databases.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/block_scanner.hpp"
#include "ingest/signal_events.hpp"

TEST_CASE("Every block-scanned literal list of the built-in rules has a prebuilt database", "[api]") {
  if (culprit::text::BlockScanner::engine() != "hyperscan") return;  // nothing is prebuilt then
  culprit::api::install_prebuilt_databases();
  const auto loaded = culprit::rules::load_builtin_rules();
  const auto lists = culprit::ingest::block_scan_literal_lists(loaded.rules.signals);
  REQUIRE(lists.size() == 6);  // two parsers', the anchors, the signals' own, the input's one pass, the piece ends'
  for (const auto& list : lists) {
    INFO("list of " << list.literals.size() << " literals, first " << list.literals.front());
    const culprit::text::BlockScanner scanner(list.literals, culprit::text::BlockScanner::Engine::automatic,
                                              culprit::text::BlockScanner::kCompileAfterBytes, list.ids);
    REQUIRE(scanner.usable());
    CHECK(scanner.ready());
  }
}
