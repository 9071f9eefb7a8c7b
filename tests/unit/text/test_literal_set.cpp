// LiteralSet must never say no where an exact find() says yes (parsers use it to rule lines
// out); it may say yes for a case-folded hit.
#include <catch2/catch.hpp>

#include <random>

#include "culprit/text/literal_set.hpp"

using culprit::text::LiteralSet;

TEST_CASE("LiteralSet finds every literal an exact search finds", "[text][literal_set]") {
  const std::vector<std::string> words = {"Traceback", "rror", "NCCL", "\xe2\x94\x82", "(pid", "[E", "out of memory"};
  const LiteralSet set(words);
  CHECK(set.any("[rank0]: Traceback (most recent call last):"));
  CHECK(set.any("torch.OutOfMemoryError: CUDA out of memory."));
  CHECK(set.any("\xe2\x94\x82 /app/train.py:42 in <module>"));
  CHECK(set.any("[E412 11:02:51.207114 ProcessGroupNCCL.cpp:1895] x"));
  CHECK(set.any("ERROR 04-09 x"));  // folded: `rror` in `ERROR`
  CHECK_FALSE(set.any("INFO 04-09 00:47:01 metrics.py:341] Avg prompt throughput: 0.0 tokens/s"));
  CHECK_FALSE(set.any(""));

  std::mt19937 rng(7);
  const std::string alphabet = "rorENCL([pid \xe2\x94\x82" "abTcekx";
  for (int n = 0; n < 20000; ++n) {
    std::string line;
    const int len = static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) line += alphabet[rng() % alphabet.size()];
    bool exact = false;
    for (const auto& w : words) exact |= line.find(w) != std::string::npos;
    if (exact) REQUIRE(set.any(line));
  }
}

TEST_CASE("LiteralSet with an empty literal matches every line", "[text][literal_set]") {
  const LiteralSet set({"abc", ""});
  CHECK(set.any("zzz"));
  CHECK(set.any(""));
}

TEST_CASE("hand_written_literal drops surrounding spaces where three bytes or more remain", "[text][literal_set]") {
  using culprit::text::hand_written_literal;
  CHECK(hand_written_literal(" oom") == "oom");
  CHECK(hand_written_literal("NVRM: ") == "NVRM:");
  CHECK(hand_written_literal("  out of memory  ") == "out of memory");  // inner spaces stay
  CHECK(hand_written_literal("[E ") == "[E ");                          // `[E` alone: too common
  CHECK(hand_written_literal(" ab ") == " ab ");
  CHECK(hand_written_literal("   ") == "   ");
  CHECK(hand_written_literal("") == "");
  // LiteralSet itself compares as given: the caller reads a hand-written list through it.
  CHECK_FALSE(LiteralSet({" oom"}).any("oom-kill"));
  CHECK(LiteralSet(culprit::text::hand_written_literals({" oom"})).any("oom-kill"));
}
