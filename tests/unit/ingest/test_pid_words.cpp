// PidWords (the app-log fast path's `pid` / `PID` check for the lines of one text, in order)
// against names_pid asked of each line on its own: random texts built of the spellings and
// their look-alikes, lines cut short as the fast path cuts them, lines asked out of order and
// views of other text.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/formats/pid_words.hpp"

using culprit::ingest::names_pid;
using culprit::ingest::PidWords;

TEST_CASE("names_pid: pid and PID, not Pid or pId", "[app_log][pid_words]") {
  CHECK(names_pid("(VllmWorker rank=0 pid=3300) INFO"));
  CHECK(names_pid("  PID USER"));
  CHECK(names_pid("pid"));
  CHECK_FALSE(names_pid("Pid 12"));
  CHECK_FALSE(names_pid("pId 12 PId"));
  CHECK_FALSE(names_pid("pi d"));
  CHECK_FALSE(names_pid(""));
  CHECK(names_pid("Pid rapid"));  // inside a word, as the search has always found it
}

TEST_CASE("PidWords: the same answer as names_pid for every line of random texts", "[app_log][pid_words]") {
  std::mt19937 rng(20261206);
  const std::vector<std::string> pieces = {"pid", "PID", "Pid", "pId", "piD", "pi", "id", "p", "d", "x", " ",
                                           "rapid", "\n", "\n", "\r\n", "INFO 04-09 00:47:22 [metrics.py:455] ",
                                           "(EngineCore pid=12) ", "0123456789abcdef"};
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
    const auto lines = culprit::text::split_lines(text);
    PidWords in_order(text);
    for (const auto line : lines) {
      // The fast path cuts long lines to their first bytes: a cut may end inside a `pid`.
      const std::string_view asked = rng() % 4 == 0 ? line.substr(0, rng() % (line.size() + 1)) : line;
      INFO("round " << round << ", line '" << std::string(asked) << "'");
      REQUIRE(in_order.in(asked) == names_pid(asked));
    }
    // Out of order (the first line again), and a line of another text: searched on their own.
    if (!lines.empty()) CHECK(in_order.in(lines.front()) == names_pid(lines.front()));
    const std::string other = "other pid text";
    CHECK(in_order.in(other));
  }
}
