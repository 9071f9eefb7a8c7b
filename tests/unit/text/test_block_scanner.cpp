// BlockScanner against the per-line check it stands in for: a line of the block holds a hit
// exactly when LiteralSet::any says so for that line (the prefilter's contract, block-wide).
#include <catch2/catch.hpp>

#include <random>

#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/literal_set.hpp"

using culprit::text::BlockScanner;
using culprit::text::LiteralSet;

namespace {

/// Per line of `block` (split_lines' lines): whether hit_lines gave an offset inside it.
std::vector<bool> lines_hit(const BlockScanner& scanner, std::string_view block) {
  std::vector<std::size_t> ends;
  REQUIRE(scanner.hit_lines(block, ends));
  std::vector<bool> out;
  std::size_t next = 0;
  for (std::string_view line : culprit::text::split_lines(block)) {
    const auto begin = static_cast<std::size_t>(line.data() - block.data());
    while (next < ends.size() && ends[next] <= begin) ++next;
    out.push_back(next < ends.size() && ends[next] <= begin + line.size());
  }
  REQUIRE(next <= ends.size());
  return out;
}

std::vector<bool> lines_any(const LiteralSet& set, std::string_view block) {
  std::vector<bool> out;
  for (std::string_view line : culprit::text::split_lines(block)) out.push_back(set.any(line));
  return out;
}

}  // namespace

TEST_CASE("BlockScanner finds the lines a per-line LiteralSet finds", "[text]") {
  INFO("engine " << BlockScanner::engine());
  std::mt19937 rng(2024);
  const std::string alphabet = "abAB c(\n\n\r";
  for (int round = 0; round < 100; ++round) {
    std::vector<std::string> literals;
    const std::size_t n = 1 + rng() % 6;
    for (std::size_t k = 0; k < n; ++k) {
      std::string lit(1 + rng() % 4, ' ');
      for (char& c : lit) c = "abAB c("[rng() % 7];
      if (lit.find_first_not_of(' ') == std::string::npos) lit = "ab";
      literals.push_back(lit);
    }
    const BlockScanner scanner(literals, BlockScanner::Engine::hyperscan);
    const BlockScanner automaton(literals, BlockScanner::Engine::automaton);
    REQUIRE(scanner.usable());
    const LiteralSet set(literals);
    for (int t = 0; t < 10; ++t) {
      std::string block(rng() % 300, ' ');
      for (char& c : block) c = alphabet[rng() % alphabet.size()];
      INFO("round " << round << " block [" << block << "]");
      const auto want = lines_any(set, block);
      CHECK(lines_hit(scanner, block) == want);
      CHECK(lines_hit(automaton, block) == want);
    }
  }
}

TEST_CASE("BlockScanner folds ASCII case, compares spaces as given, and refuses what it cannot scan",
          "[text]") {
  const std::string block =
      "ok\nCUDA OUT OF MEMORY here\r\nnothing\rNVRM: xid (PCI)\n\xc3\x89T\xc3\x89\nlast \xc3\xa9t\xc3\xa9\nXid: 79";
  for (const auto engine : {BlockScanner::Engine::hyperscan, BlockScanner::Engine::automaton}) {
    const BlockScanner scanner({"out of memory", " Xid ", "\xc3\xa9t\xc3\xa9"}, engine);
    REQUIRE(scanner.usable());
    CHECK(lines_hit(scanner, block) == std::vector<bool>{false, true, false, true, false, true, false});
  }
  const BlockScanner scanner({"out of memory"});
  std::vector<std::size_t> ends;
  scanner.hit_lines("", ends);
  CHECK(ends.empty());
  CHECK_FALSE(BlockScanner({"a", ""}).usable());       // an empty literal: every line
  CHECK_FALSE(BlockScanner({"two\nlines"}).usable());  // a hit could span lines
  CHECK_FALSE(BlockScanner(std::vector<std::string>{}).usable());
}

TEST_CASE("A prebuilt database stands in for the compile, and a damaged one is refused", "[text]") {
  const std::vector<std::string> literals = {"out of memory", " Xid ", "NCCL WARN"};
  const std::string block = "ok\nCUDA OUT OF MEMORY\nnccl warn x\nquiet\n NVRM: Xid (PCI)\n";
  const std::string database = BlockScanner::serialize(literals);
  if (BlockScanner::engine() != "hyperscan") {
    CHECK(database.empty());  // nothing to prebuild without Hyperscan
    return;
  }
  REQUIRE_FALSE(database.empty());
  const std::string key = BlockScanner::key(literals);
  CHECK(key == "out of memory\n Xid \nNCCL WARN\n");  // as given
  const std::string damaged(database.size(), 'x');
  static std::vector<std::string> storage;  // the table's bytes live as long as the table
  storage = {key, database, BlockScanner::key({"never", "installed"}), damaged};
  const culprit::text::PrebuiltDatabase table[] = {{storage[2], storage[3]}, {storage[0], storage[1]}};
  BlockScanner::install_prebuilt(table, 2);
  const BlockScanner prebuilt(literals);  // automatic: ready at once, short blocks scanned
  CHECK(prebuilt.ready());
  CHECK(lines_hit(prebuilt, block) == std::vector<bool>{false, true, true, false, true});
  const BlockScanner refused({"never", "installed"});  // the damaged entry: compiled on demand
  CHECK_FALSE(refused.ready());
  std::vector<std::size_t> ends;
  CHECK_FALSE(refused.hit_lines("short: below the compile threshold\n", ends));
  BlockScanner::install_prebuilt(nullptr, 0);
  CHECK_FALSE(BlockScanner(literals).ready());  // no table: automatic waits for enough text
}

TEST_CASE("literal_ids names every literal a line holds, by the id it was given", "[text]") {
  const std::vector<std::string> literals = {"oom", "Killed process", " Xid ", "oom-kill"};
  const std::vector<std::uint32_t> ids = {7, 3, 5, 7};
  const BlockScanner scanner(literals, BlockScanner::Engine::hyperscan, BlockScanner::kCompileAfterBytes, ids);
  std::vector<std::uint32_t> out;
  if (BlockScanner::engine() != "hyperscan") {
    CHECK_FALSE(scanner.literal_ids("oom", out));  // the caller's automaton answers
    return;
  }
  REQUIRE(scanner.literal_ids("Memory cgroup out of memory: KILLED PROCESS 12 (python); OOM-kill", out));
  CHECK(out == std::vector<std::uint32_t>{3, 7});  // sorted, each once
  out.clear();
  REQUIRE(scanner.literal_ids("NVRM: Xid (PCI:0000:3b:00): 79", out));
  CHECK(out == std::vector<std::uint32_t>{5});
  out = {1};
  REQUIRE(scanner.literal_ids("nothing here", out));
  CHECK(out == std::vector<std::uint32_t>{1});  // appends; a line without a literal adds none
  const BlockScanner waiting(literals, BlockScanner::Engine::automatic, BlockScanner::kCompileAfterBytes, ids);
  CHECK_FALSE(waiting.literal_ids("oom", out));  // not prebuilt, not compiled yet
}

TEST_CASE("hit_line_ids gives each hit line its first hit's end and the OR of its hits' ids", "[text]") {
  // Ids as bits naming lists: "oom" is in lists 1 and 4, "Killed process" in 2, "Xid" in 4.
  const std::vector<std::string> literals = {"oom", "Killed process", "Xid"};
  const std::vector<std::uint32_t> ids = {1 | 4, 2, 4};
  const BlockScanner scanner(literals, BlockScanner::Engine::hyperscan, BlockScanner::kCompileAfterBytes, ids);
  std::vector<BlockScanner::LineIds> out;
  if (BlockScanner::engine() != "hyperscan") {
    CHECK_FALSE(scanner.hit_line_ids("oom", out));  // the automaton reports no ids: callers fall back
    return;
  }
  const std::string block =
      "plain line\n"                          // no hit
      "oom then KILLED PROCESS 7\r\n"         // two lists' hits in one line (CRLF)
      "NVRM: Xid 79\r"                        // a lone CR ends a line
      "another plain line\n"
      "oom";                                  // a last line without a terminator
  REQUIRE(scanner.hit_line_ids(block, out));
  REQUIRE(out.size() == 3);
  CHECK(out[0].end == block.find("oom") + 3);
  CHECK(out[0].ids == (1u | 2u | 4u));
  CHECK(out[1].end == block.find("Xid") + 3);
  CHECK(out[1].ids == 4u);
  CHECK(out[2].end == block.size());
  CHECK(out[2].ids == (1u | 4u));
  // The same lines as hit_lines, whose offsets are the first hits' ends.
  std::vector<std::size_t> ends;
  REQUIRE(scanner.hit_lines(block, ends));
  REQUIRE(ends.size() == out.size());
  for (std::size_t i = 0; i < ends.size(); ++i) CHECK(ends[i] == out[i].end);
  const BlockScanner waiting(literals, BlockScanner::Engine::automatic, BlockScanner::kCompileAfterBytes, ids);
  out.clear();
  CHECK_FALSE(waiting.hit_line_ids(block, out));  // not prebuilt, not compiled yet
  CHECK(out.empty());
}
