// Line splitting and cleaning: CRLF files, tqdm's lone CR, real and pasted ANSI colour codes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "culprit/text/lines.hpp"

using namespace culprit::text;
using SV = std::vector<std::string_view>;

TEST_CASE("split_lines handles LF, CRLF and a lone CR", "[text]") {
  CHECK(split_lines("a\nb\n") == SV{"a", "b"});
  CHECK(split_lines("a\r\nb\r\n") == SV{"a", "b"});
  CHECK(split_lines("a\r\nb") == SV{"a", "b"});
  // tqdm redraws with a lone CR: each redraw is its own line.
  CHECK(split_lines("  0%|   | 0/10\r 50%|## | 5/10\r100%|###| 10/10\nKilled\n") ==
        SV{"  0%|   | 0/10", " 50%|## | 5/10", "100%|###| 10/10", "Killed"});
  CHECK(split_lines("x\r\r\ny") == SV{"x", "", "y"});
}

TEST_CASE("split_lines keeps empty lines and drops nothing at the edges", "[text]") {
  CHECK(split_lines("").empty());
  CHECK(split_lines("\n") == SV{""});
  CHECK(split_lines("a\n\nb") == SV{"a", "", "b"});
  CHECK(split_lines("no newline") == SV{"no newline"});
  CHECK(split_lines("\r") == SV{""});
}

TEST_CASE("strip_ansi removes real CSI sequences", "[text]") {
  // vLLM's worker prefix as written to files by older versions.
  CHECK(strip_ansi("\x1b[1;36m(VllmWorkerProcess pid=3242)\x1b[0;0m INFO 01-30 11:53:52 worker.py:1] x") ==
        "(VllmWorkerProcess pid=3242) INFO 01-30 11:53:52 worker.py:1] x");
  CHECK(strip_ansi("\x1b[36m(RayWorkerWrapper pid=123)\x1b[0m hello") ==
        "(RayWorkerWrapper pid=123) hello");
  CHECK(strip_ansi("\x1b[2K\x1b[1Gdone") == "done");
  CHECK(strip_ansi("\x1b]8;;http://x\x07link\x1b]8;;\x07") == "link");
}

TEST_CASE("strip_ansi removes the pasted caret form", "[text]") {
  CHECK(strip_ansi("^[[0;36m(EngineCore_DP0 pid=245)^[[0;0m ERROR 08-19 04:02:11 [core.py:1346] EngineCore failed to start.") ==
        "(EngineCore_DP0 pid=245) ERROR 08-19 04:02:11 [core.py:1346] EngineCore failed to start.");
  CHECK(strip_ansi("^[[32mINFO^[[0m ok") == "INFO ok");
  // Not a colour code: kept.
  CHECK(strip_ansi("x ^[[ y") == "x ^[[ y");
  CHECK(strip_ansi("a^[[") == "a^[[");
}

TEST_CASE("strip_ansi removes control bytes but keeps tabs and UTF-8", "[text]") {
  CHECK(strip_ansi("a\tb\x01" "c\x7f\rd") == "a\tbcd");
  CHECK(strip_ansi("caf\xc3\xa9 \xff") == "caf\xc3\xa9 \xff");
  CHECK(strip_ansi("cut off \x1b[1;3") == "cut off 1;3");
  CHECK(strip_ansi("\x1b") == "");
}

TEST_CASE("has_ansi says whether strip_ansi would change the line", "[text]") {
  CHECK(has_ansi("\x1b[0m"));
  CHECK(has_ansi("^[[0;36mx"));
  CHECK(has_ansi("bell\x07"));
  CHECK_FALSE(has_ansi("plain\ttext ^[[ not a code"));
  CHECK_FALSE(has_ansi(""));
}

TEST_CASE("trim and friends", "[text]") {
  CHECK(trim("  \t x y \r\n") == "x y");
  CHECK(trim("") == "");
  CHECK(trim(" \t ") == "");
  CHECK(trim_left("  a ") == "a ");
  CHECK(starts_with("[rank0]: x", "[rank0]:"));
  CHECK_FALSE(starts_with("ab", "abc"));
  CHECK(contains("NCCL WARN Cuda failure 'out of memory'", "out of memory"));
  CHECK_FALSE(contains("abc", "abd"));
}

TEST_CASE("strip_ansi removes APC strings such as Buildkite's per-line stamp", "[text]") {
  // Buildkite's raw job log: `ESC _bk;t=<epoch ms> BEL` before each line's text.
  CHECK(culprit::text::strip_ansi("\x1b_bk;t=1714557600123\x07step 1 done") == "step 1 done");
  CHECK(culprit::text::strip_ansi("\x1bPq#0;2;0;0;0\x1b\\after") == "after");  // a DCS (sixel) string
  // Unterminated: the text after it is kept.
  CHECK(culprit::text::strip_ansi("\x1b_bk;t=1 no end") == "bk;t=1 no end");
}

TEST_CASE("count_newlines agrees with a byte count at every length and density", "[text]") {
  std::mt19937 rng(17);
  for (const std::size_t size : {0u, 1u, 7u, 8u, 9u, 63u, 2039u, 2040u, 2041u, 5000u, 70000u}) {
    for (const unsigned percent : {0u, 1u, 50u, 100u}) {
      std::string text(size, 'x');
      for (char& c : text) c = rng() % 100 < percent ? '\n' : static_cast<char>(rng() % 256);
      INFO("size " << size << ", " << percent << "% newlines");
      CHECK(count_newlines(text) == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
    }
  }
}

TEST_CASE("block_has_ansi says yes wherever some line's has_ansi does", "[text]") {
  CHECK_FALSE(block_has_ansi("plain\r\nlines\twith tabs\n"));
  CHECK(block_has_ansi("ok\n\x1b[31mred\x1b[0m\n"));
  CHECK(block_has_ansi("pasted ^[[0;36mcolour\n"));
  CHECK(block_has_ansi(std::string("a NUL \0 byte\n", 13)));
  CHECK(block_has_ansi("a DEL \x7f byte"));
}
