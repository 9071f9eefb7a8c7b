// ingest::quiet_piece_end and reads_in_pieces: where a big input's piece may end. A piece ends
// only inside a quiet stretch (256 lines without a block opener before it, 64 from it on), at
// a line that does not go on from the one before (indented once its `[rankN]:` / `(VllmWorker pid=N)` prefixes are peeled), so that a
// traceback, a kernel OOM report or an nvidia-smi table lies whole in one piece.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/ingest/pipeline.hpp"

using culprit::ingest::quiet_piece_end;
using culprit::ingest::reads_in_pieces;

namespace {

/// 3000 NCCL_DEBUG lines that each hold a block opener (the app-log marker `rror`; NCCL's IB
/// transport warning, net_ib.cc). An `INFO Channel` line holds none: it held the kernel's
/// `Node ` anchor only while the prefilter's trim made that `node`, the host name's start.
std::string nccl_warnings() {
  std::string out;
  for (int i = 0; i < 3000; ++i)
    out += "node-3:4411:4490 [1] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<" + std::to_string(40000 + i) +
           "> with error 12, opcode 0, len 0, vendor err 129\n";
  return out;
}

std::string routine(int from, int count, std::string_view prefix = "") {
  std::string out;
  for (int i = from; i < from + count; ++i)
    out += std::string(prefix) + "INFO 04-09 05:10:11 [core.py:212] step " + std::to_string(i) + " done\n";
  return out;
}

// A traceback as torchrun's ranks print it (formats.md: `[rankN]:` prefixes).
const std::string kTraceback =
    "[rank1]: Traceback (most recent call last):\n"
    "[rank1]:   File \"/workspace/train.py\", line 88, in <module>\n"
    "[rank1]:     main()\n"
    "[rank1]:   File \"/workspace/train.py\", line 61, in main\n"
    "[rank1]:     loss = model(batch).loss\n"
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";

}  // namespace

TEST_CASE("a piece ends inside a quiet stretch, before a block still open at the text's end", "[ingest]") {
  const std::string head = routine(0, 2000);
  const std::string text = head + kTraceback + routine(2000, 100);
  const std::size_t end = quiet_piece_end(text);
  REQUIRE(end != 0);
  CHECK(end <= routine(0, 2000 - 64).size());   // 64 quiet lines before the traceback stay with it
  CHECK(end >= routine(0, 256).size());         // after 256 quiet lines
  CHECK((text[end - 1] == '\n'));               // at a line start
  SECTION("later once the block is 256 quiet lines behind") {
    const std::string longer = text + routine(2100, 300);
    const std::size_t later = quiet_piece_end(longer);
    CHECK(later > head.size() + kTraceback.size() + routine(2000, 256).size() - 1);
  }
}

TEST_CASE("no piece end where every line holds a block opener or the quiet lines are too few", "[ingest]") {
  const std::string nccl = nccl_warnings();
  CHECK(quiet_piece_end(nccl) == 0);
  CHECK(quiet_piece_end(routine(0, 255)) == 0);
}

TEST_CASE("a text with no quiet run of 64 lines is crowded: no end is near", "[ingest]") {
  bool crowded = false;
  SECTION("an opener on every line") {
    CHECK(quiet_piece_end(nccl_warnings(), false, &crowded) == 0);
    CHECK(crowded);
  }
  SECTION("an opener in every ten lines (a memory line in ten)") {
    std::string text;
    for (int i = 0; i < 300; ++i) text += routine(i * 9, 9) + kTraceback.substr(kTraceback.rfind("[rank1]: torch"));
    CHECK(quiet_piece_end(text, false, &crowded) == 0);
    CHECK(crowded);
  }
  SECTION("quiet runs of 100 lines, too few for an end, are not crowded") {
    std::string text;
    for (int i = 0; i < 30; ++i) text += routine(i * 100, 100) + kTraceback;
    CHECK(quiet_piece_end(text, false, &crowded) == 0);
    CHECK_FALSE(crowded);
  }
  SECTION("a text with an end is not crowded") {
    CHECK(quiet_piece_end(routine(0, 2000), false, &crowded) != 0);
    CHECK_FALSE(crowded);
  }
}

TEST_CASE("a piece never ends at a line that goes on from the one before", "[ingest]") {
  // 300 quiet lines, then only indented ones (bare, and under vLLM's worker prefix).
  std::string frames;
  for (int i = 0; i < 400; ++i)
    frames += i % 2 == 0 ? "    at frame " + std::to_string(i) + "\n"
                         : "(VllmWorker pid=3301)   frame " + std::to_string(i) + "\n";
  const std::string quiet = routine(0, 300);
  const std::size_t end = quiet_piece_end(quiet + frames);
  CHECK(end == routine(0, 299).size());  // the last unindented line start: quiet's last line
}

TEST_CASE("only line logs are read in pieces: tables and documents whole", "[ingest]") {
  CHECK(reads_in_pieces(routine(0, 50)));
  CHECK(reads_in_pieces("[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)\n"
                        "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz-6.8.0-45-generic\n"
                        "[ 5812.113208] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n"));
  CHECK_FALSE(reads_in_pieces("timestamp, index, memory.used [MiB], memory.total [MiB]\n"
                              "2026/04/09 05:10:10.000, 0, 80100 MiB, 81559 MiB\n"));
  // A terminal paste: the prompt's host holds for the output after it.
  CHECK_FALSE(reads_in_pieces("aurora@spark-a:~$ ssh spark-b 'tail -n 3 /var/log/sglang.log'\n" + routine(0, 50)));
  CHECK_FALSE(reads_in_pieces("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
                              "root           1  0.0  0.0 167744 11880 ?        Ss   Apr08   0:03 /sbin/init\n"));
}

TEST_CASE("a piece that must end ends after the longest quiet run", "[ingest]") {
  const std::string nccl = nccl_warnings();
  const std::string quiet = routine(0, 100);
  const std::string text = nccl + quiet + nccl.substr(0, nccl.size() / 4);
  CHECK(quiet_piece_end(text) == 0);
  // Deepest inside the 100 quiet lines: 80 before it and 20 from it on (after weighs 256/64).
  CHECK(quiet_piece_end(text, true) == nccl.size() + routine(0, 80).size());
  CHECK(quiet_piece_end(nccl, true) == nccl.size() - nccl.substr(nccl.rfind('\n', nccl.size() - 2) + 1).size());
}

TEST_CASE("a piece end past the search's last 64 KiB is found as the whole search finds it", "[ingest]") {
  // The search reads its last 64 KiB first and the rest only where those hold no quiet
  // stretch: the answer is the whole search's either way.
  std::string dense;
  for (int i = 0; i < 150; ++i) dense += kTraceback + routine(i * 5, 5);  // ~100 KiB, never 256 quiet lines
  REQUIRE(dense.size() > std::size_t{64} << 10);
  const std::string quiet = routine(0, 2000);
  SECTION("only before the last 64 KiB") {
    CHECK(quiet_piece_end(quiet + dense) == routine(0, 2000 - 64).size());
  }
  SECTION("in the last 64 KiB too: the latest") {
    const std::string tail = routine(5000, 400);
    CHECK(quiet_piece_end(quiet + dense + tail) == quiet.size() + dense.size() + routine(5000, 400 - 64).size());
  }
  SECTION("a quiet stretch across the last 64 KiB's start") {
    const std::string tail = routine(5000, 1800);  // longer than 64 KiB
    REQUIRE(tail.size() > std::size_t{64} << 10);
    CHECK(quiet_piece_end(quiet + dense + tail) == quiet.size() + dense.size() + routine(5000, 1800 - 64).size());
  }
}
