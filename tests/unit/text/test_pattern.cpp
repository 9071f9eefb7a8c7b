// Pattern: RE2 wrapper. Errors are values, named groups are the fields, captures come only from
// groups that took part in the match.
#include <catch2/catch.hpp>

#include "culprit/text/pattern.hpp"

using culprit::text::Capture;
using culprit::text::Pattern;

namespace {
std::string capture(const std::vector<Capture>& caps, const std::string& name) {
  for (const auto& c : caps)
    if (c.name == name) return c.value;
  return "<none>";
}
}  // namespace

TEST_CASE("Pattern captures named groups of a PyTorch OOM line", "[text]") {
  Pattern p(R"(CUDA out of memory\. Tried to allocate (?P<requested_size>\d+(?:\.\d+)? (?:bytes|KiB|MiB|GiB))(?:\. GPU (?P<gpu>\d+))?)");
  REQUIRE(p.ok());
  REQUIRE(p.group_names() == std::vector<std::string>{"requested_size", "gpu"});
  std::vector<Capture> caps;
  const std::string line =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has a total "
      "capacity of 15.77 GiB of which 514.19 MiB is free.";
  REQUIRE(p.matches(line));
  REQUIRE(p.match(line, caps));
  CHECK(capture(caps, "requested_size") == "546.00 MiB");
  CHECK(capture(caps, "gpu") == "0");
}

TEST_CASE("Pattern leaves out groups that did not take part", "[text]") {
  Pattern p(R"(Tried to allocate (?P<size>\S+ \w+)(?:\. GPU (?P<gpu>\d+))?)");
  std::vector<Capture> caps{{"stale", "x"}};
  REQUIRE(p.match("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total", caps));
  REQUIRE(caps.size() == 1);
  CHECK(caps[0].name == "size");
  CHECK(caps[0].value == "20.00 MiB");
}

TEST_CASE("Pattern with unnamed groups only captures nothing", "[text]") {
  Pattern p(R"((\d+) (bytes))");
  std::vector<Capture> caps;
  REQUIRE(p.match("you tried to allocate 1234 bytes", caps));
  CHECK(caps.empty());
  CHECK(p.group_names() == std::vector<std::string>{"", ""});
}

TEST_CASE("Pattern reports a bad regex as a value", "[text]") {
  Pattern p(R"(Tried to allocate (?P<size>\d+)");
  CHECK_FALSE(p.ok());
  CHECK(p.error().find("missing )") != std::string::npos);
  std::vector<Capture> caps;
  CHECK_FALSE(p.matches("Tried to allocate 12"));
  CHECK_FALSE(p.match("Tried to allocate 12", caps));
}

TEST_CASE("Pattern rejects Perl-only syntax RE2 does not support", "[text]") {
  Pattern lookahead(R"(out of memory(?!\.))");
  CHECK_FALSE(lookahead.ok());
  CHECK_FALSE(lookahead.error().empty());
}

TEST_CASE("Pattern matches bytes that are not UTF-8 without crashing", "[text]") {
  Pattern p(R"(Killed process (?P<pid>\d+) \((?P<name>.*)\) total-vm:)");
  std::string line = "Out of memory: Killed process 42 (py\xff\xfethon) total-vm:1kB";
  std::vector<Capture> caps;
  REQUIRE(p.match(line, caps));
  CHECK(capture(caps, "pid") == "42");
}

TEST_CASE("Pattern survives a move", "[text]") {
  Pattern a(R"(Xid \((?P<pci>[^)]*)\))");
  Pattern b = std::move(a);
  std::vector<Capture> caps;
  REQUIRE(b.match("NVRM: Xid (PCI:0000:03:00): 31", caps));
  CHECK(capture(caps, "pci") == "PCI:0000:03:00");
}
