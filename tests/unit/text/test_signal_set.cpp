// SignalSet: the literal prefilter may pass false candidates but never drops a match; formats
// restrict where a signal applies; results come in rule order.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/text/signal_set.hpp"
#include "unit/text/match_ids.hpp"

namespace signal_set_tests {

using namespace culprit::text;

namespace {

Signal make(std::string id, std::string regex, std::vector<std::string> formats = {},
            std::vector<std::string> literals = {}) {
  Signal s;
  s.id = id;
  s.kind = "log";
  s.pattern = std::make_shared<const Pattern>(regex);
  s.formats = std::move(formats);
  s.literals = std::move(literals);
  return s;
}

using culprit::test::ids;

SignalSet sample_set() {
  SignalSet set;
  set.add(make("torch_oom", R"((?:CUDA|HIP) out of memory\. Tried to allocate (?P<requested_size>\d+(?:\.\d+)? \w+))"));
  set.add(make("xid", R"(NVRM: Xid \((?P<pci>(?:PCI:)?[0-9a-fA-F:.]+)\): (?P<xid>\d+))", {"dmesg", "kern_log"}));
  set.add(make("killed", R"(Killed process (?P<pid>\d+) \((?P<name>.*)\) total-vm:)"));
  set.add(make("any_digit_line", R"(^\d+$)"));  // no literal: always tried
  set.add(make("declared", R"(exitcode: (?P<exitcode>-?\d+))", {}, {"exitcode"}));
  set.build();
  return set;
}

}  // namespace

TEST_CASE("build derives literals and keeps declared ones", "[text]") {
  SignalSet set = sample_set();
  const auto& s = set.signals();
  CHECK(s[0].literals_derived);
  CHECK_FALSE(s[0].literals.empty());
  for (const auto& lit : s[0].literals) CHECK(lit.find("out of memory") != std::string::npos);
  CHECK(s[4].literals == std::vector<std::string>{"exitcode"});
  CHECK_FALSE(s[4].literals_derived);
  CHECK(set.always_tried() == std::vector<std::uint32_t>{3});
}

TEST_CASE("declared literals are looked for as written, derived ones keep the spaces their regex requires",
          "[text]") {
  SignalSet set;
  // described.toml's second_instance_described cut to two of its words and one noun, and
  // gpu_oom_described's ` oom` alternative.
  set.add(make("declared", R"((?i:\b(?:two|second) (?:[\w.-]+ ){0,2}?instances?))", {}, {"two ", "second "}));
  set.add(make("derived", R"(Rank (\d+) scheduler (\w+))"));
  set.add(make("spaced", R"(\b(?:and|got) OOM\b)", {}, {" oom"}));
  set.build();
  CHECK(set.signals()[0].literals == std::vector<std::string>{"two ", "second "});
  CHECK(set.signals()[2].literals == std::vector<std::string>{" oom"});
  const auto& derived = set.signals()[1].literals;
  REQUIRE_FALSE(derived.empty());
  CHECK(derived == std::vector<std::string>{" scheduler "});
  // vLLM's logger tag names scheduler.py on every line: no candidate for the derived signal.
  CHECK_FALSE(set.candidate("INFO 04-09 00:47:22 [scheduler.py:84] Running: 1 reqs, Pending: 0 reqs"));
  // `seconds` and `network` hold `second` and `two`, not `second ` and `two `: no regex runs.
  // Real lines: fixtures/formats/app_log/vllm-old-ansi.txt line 6 (vLLM 0.6.6.post1) and
  // fixtures/incidents/nccl-init-socket-error/inputs/paste.txt line 7.
  CHECK_FALSE(set.candidate("INFO 01-30 11:53:57 worker.py:265] Memory profiling takes 4.62 seconds"));
  CHECK_FALSE(set.candidate("node-b:4121:4188 [0] NCCL INFO Using network Socket"));
  CHECK(set.match("we started a second vLLM instance on the same GPU", "").size() == 1);
  CHECK(set.match("the run got OOM at step 3", "").size() == 1);
  CHECK_FALSE(set.candidate("OOM at step 3"));  // ` oom` as declared: no space, no candidate
  CHECK(set.match("Rank 3 scheduler died", "").size() == 1);
  set.build();  // again: a declared literal read twice reads the same
  CHECK(set.signals()[0].literals == std::vector<std::string>{"two ", "second "});
}

TEST_CASE("match returns captures of every matching signal in rule order", "[text]") {
  SignalSet set = sample_set();
  auto ms = set.match("HIP out of memory. Tried to allocate 2.00 GiB; exitcode: -9", "");
  REQUIRE(ids(ms) == std::vector<std::string>{"torch_oom", "declared"});
  REQUIRE(ms[0].captures.size() == 1);
  CHECK(ms[0].captures[0].value == "2.00 GiB");
  CHECK(ms[1].captures[0].value == "-9");
}

TEST_CASE("formats restrict a signal: an empty list means every format", "[text]") {
  SignalSet set = sample_set();
  const std::string xid = "NVRM: Xid (PCI:0000:03:00): 31, pid=12083, name=python3, Ch 00000010";
  CHECK(ids(set.match(xid, "dmesg")) == std::vector<std::string>{"xid"});
  CHECK(set.match(xid, "python_log").empty());
}

TEST_CASE("the prefilter is case-insensitive, so odd casing is a candidate, not a miss", "[text]") {
  SignalSet set;
  set.add(make("ci", R"((?i)tried to allocate)"));
  set.add(make("cs", R"(Tried To Allocate)", {}, {"tried to allocate"}));
  set.build();
  CHECK(ids(set.match("TRIED TO ALLOCATE", "")) == std::vector<std::string>{"ci"});
  CHECK(ids(set.match("Tried To Allocate", "")) == std::vector<std::string>{"ci", "cs"});
}

TEST_CASE("prefilter on and off give the same matches", "[text]") {
  SignalSet on = sample_set();
  SignalSet off = sample_set();
  off.set_prefilter(false);
  const std::vector<std::string> lines = {
      "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total capacity;",
      "cuda out of memory. tried to allocate 20.00 MiB",
      "Out of memory: Killed process 49358 (grep) total-vm:9476316kB, anon-rss:6845824kB",
      "Killed process 1 (a) b) total-vm:1kB",
      "NVRM: Xid (0000:03:00): 14, Channel 00000001",
      "12345",
      "",
      std::string(100000, 'x') + "Killed process 7 (y) total-vm:",
      "exitcode: -9 (pid: 1246013)",
  };
  for (const auto& line : lines) {
    for (const char* fmt : {"", "dmesg"}) {
      INFO(line.substr(0, 80) << " / " << fmt);
      CHECK(ids(on.match(line, fmt)) == ids(off.match(line, fmt)));
    }
  }
}

TEST_CASE("candidate is a cheap literal test", "[text]") {
  SignalSet set;
  set.add(make("a", R"(Watchdog caught collective operation timeout)"));
  set.add(make("b", R"(DataLoader worker \(pid (?P<pid>\d+)\) is killed by signal)"));
  set.build();
  CHECK(set.always_tried().empty());
  CHECK(set.candidate("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1"));
  CHECK(set.candidate("RuntimeError: DataLoader worker (pid 48213) is killed by signal: Killed. "));
  CHECK_FALSE(set.candidate("INFO 07-11 06:18:32 [kv_cache_utils.py:646] GPU KV cache size"));
  // With an always-tried signal every line is a candidate.
  SignalSet all = sample_set();
  CHECK(all.candidate("nothing here"));
}

TEST_CASE("a pattern with non-ASCII bytes or byte escapes is always tried", "[text]") {
  SignalSet set;
  set.add(make("folded", R"((?i)\xC9chec total)"));
  set.add(make("utf8", "caf\xc3\xa9 crashed"));
  set.add(make("ci", R"((?i)killed process)"));
  set.build();
  CHECK(set.always_tried() == std::vector<std::uint32_t>{0, 1});
  CHECK(ids(set.match("\xe9" "CHEC TOTAL", "")) == std::vector<std::string>{"folded"});
  CHECK(ids(set.match("caf\xc3\xa9 crashed", "")) == std::vector<std::string>{"utf8"});
  CHECK(ids(set.match("KILLED PROCESS", "")) == std::vector<std::string>{"ci"});
}

TEST_CASE("a set without build still matches (every regex)", "[text]") {
  SignalSet set;
  set.add(make("a", R"(out of memory)"));
  CHECK(ids(set.match("CUDA error: out of memory", "")) == std::vector<std::string>{"a"});
  CHECK(set.candidate("x"));
}

TEST_CASE("an empty declared literal disables the filter for that signal", "[text]") {
  SignalSet set;
  set.add(make("a", R"(\d+ Killed)", {}, {""}));
  set.build();
  CHECK(set.always_tried() == std::vector<std::uint32_t>{0});
}

}  // namespace signal_set_tests
