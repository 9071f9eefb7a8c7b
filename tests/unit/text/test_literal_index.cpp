// LiteralIndex against a naive search: random texts over a small alphabet hit many overlapping
// literals, so any shortcut in the automaton or the pair skipping shows up as a difference.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>

#include <algorithm>
#include <random>

#include "text/literal_index.hpp"

using culprit::text::ascii_lower;

namespace {
/// The literals derive_prefilter gives for `regex` (the set the index looks for).
std::vector<std::string> derive_literals(std::string_view regex) { return culprit::text::derive_prefilter(regex).literals; }
}  // namespace
using culprit::text::LiteralIndex;

namespace {

std::vector<std::uint32_t> naive(const std::vector<std::vector<std::string>>& sets, std::string_view text) {
  const std::string folded = ascii_lower(text);
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < sets.size(); ++i)
    for (const auto& lit : sets[i])
      if (!lit.empty() && folded.find(ascii_lower(lit)) != std::string::npos) {
        out.push_back(i);
        break;
      }
  return out;
}

}  // namespace

TEST_CASE("LiteralIndex finds exactly the owners a naive search finds", "[text]") {
  std::mt19937 rng(12345);
  const std::string alphabet = "abAB c(";
  auto random_string = [&](std::size_t min, std::size_t max) {
    std::string s(min + rng() % (max - min + 1), ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<std::string>> sets(1 + rng() % 6);
    for (auto& set : sets) {
      const std::size_t n = 1 + rng() % 3;
      for (std::size_t k = 0; k < n; ++k) set.push_back(random_string(round % 2 ? 1 : 2, 5));
    }
    LiteralIndex index(sets);
    for (int t = 0; t < 30; ++t) {
      const std::string text = random_string(0, 40);
      std::vector<std::uint32_t> got;
      index.owners(text, got);
      const auto want = naive(sets, text);
      INFO("round " << round << " text [" << text << "]");
      REQUIRE(got == want);
      REQUIRE(index.any(text) == !want.empty());
    }
  }
}

TEST_CASE("LiteralIndex folds ASCII case only and handles edges", "[text]") {
  LiteralIndex index({{"Out Of Memory"}, {"xid ("}, {"\xc3\xa9t\xc3\xa9"}});
  std::vector<std::uint32_t> got;
  index.owners("CUDA OUT OF MEMORY", got);
  CHECK(got == std::vector<std::uint32_t>{0});
  got.clear();
  index.owners("NVRM: Xid (PCI:0000:03:00)", got);
  CHECK(got == std::vector<std::uint32_t>{1});
  CHECK(index.any("\xc3\xa9t\xc3\xa9"));
  CHECK_FALSE(index.any("\xc3\x89T\xc3\x89"));  // no Unicode folding
  CHECK_FALSE(index.any(""));
  CHECK_FALSE(index.any("x"));
  // Spaces are compared as given: a pattern's ` scheduler ` is not in vLLM's logger tag.
  const LiteralIndex spaced({{" scheduler "}});
  CHECK(spaced.any("Rank 0 Scheduler died during initialization"));
  CHECK_FALSE(spaced.any("INFO 04-09 00:47:22 [scheduler.py:84] Running: 1 reqs"));
  CHECK_FALSE(spaced.any("scheduler died"));
  CHECK(index.any("xid (") );
}

TEST_CASE("derive_literals returns required substrings, or nothing when unsure", "[text]") {
  CHECK(derive_literals("abc") == std::vector<std::string>{"abc"});
  const auto alt = derive_literals("(?:CUDA|HIP) out of memory");
  CHECK(alt.size() == 2);
  CHECK(derive_literals(R"(\d+ \w+)").empty());
  CHECK(derive_literals("ab").empty());               // shorter than the minimum atom
  CHECK(derive_literals("(?:abcdef)?xy").empty());    // nothing required
  CHECK(derive_literals("(").empty());                // does not compile
  CHECK(derive_literals(R"(\x{41}BCDEF)").empty());   // byte escapes are not filtered
}

TEST_CASE("derive_prefilter: each clause holds an atom of every line the regex matches", "[text]") {
  using Clause = std::vector<std::string>;
  const auto died = culprit::text::derive_prefilter(R"(Rank (\d+) scheduler (?:died during init|is dead))");
  REQUIRE_FALSE(died.literals.empty());
  std::vector<Clause> all = died.clauses;
  all.push_back(died.literals);
  for (Clause& clause : all) std::sort(clause.begin(), clause.end());
  // `rank ` and ` scheduler ` with either ending are two separate requirements.
  CHECK(all.size() == 2);
  CHECK(std::find(all.begin(), all.end(), Clause{"rank "}) != all.end());
  CHECK(std::find(all.begin(), all.end(), Clause{" scheduler died during init", " scheduler is dead"}) != all.end());
  // A line the regex matches meets every clause; `Scheduler hit an exception` misses one.
  const auto meets = [&](std::string line) {
    for (char& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::all_of(all.begin(), all.end(), [&](const Clause& clause) {
      return std::any_of(clause.begin(), clause.end(), [&](const std::string& a) { return line.find(a) != std::string::npos; });
    });
  };
  CHECK(meets("[2026-04-09] Rank 3 scheduler is dead."));
  CHECK_FALSE(meets("Scheduler hit an exception: Traceback"));
  // One alternation is one clause: nothing more to say.
  CHECK(culprit::text::derive_prefilter("(?:CUDA|HIP) out of memory").clauses.empty());
  CHECK(culprit::text::derive_prefilter(R"(\d+ \w+)").literals.empty());
}
