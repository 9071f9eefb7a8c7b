// detect::may_be_kernel_stamp is the byte check that keeps lines away from the kernel stamp and
// syslog header regexes (detect::kernel_stamp_regex) unless they may match: it must never say no
// where they match. Held to them on every line of every fixture (formats and incidents: real
// dmesg, journal, syslog and app-log text), on each stamp form, and on random edits of all those
// lines, which make near-misses of every shape.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "unit/ingest/fixture_files.hpp"

namespace fs = std::filesystem;
using culprit::ingest::detect::kernel_stamp_regex;
using culprit::ingest::detect::may_be_kernel_stamp;

namespace {

/// Every line of every text fixture.
std::vector<std::string> fixture_lines() {
  std::vector<std::string> lines;
  for (const fs::path& path : culprit::test::text_fixtures()) {
    const std::string all = culprit::test::read_fixture(path);
    for (const std::string_view line : culprit::text::split_lines(all)) lines.emplace_back(line);
  }
  return lines;
}

}  // namespace

TEST_CASE("may_be_kernel_stamp is never false where the kernel stamp regexes match", "[kernel]") {
  const std::vector<std::string> forms = {
      "[   42.123456] Out of memory: Killed process 1234 (python3)",
      "[\t42.1] tab inside the bracket",
      "<6>[   42.123456] kmsg console form",
      "[Thu Apr  9 00:47:19 2026] dmesg -T",
      "[Do Apr  9 00:47:19 2026] dmesg -T, German",
      "[jeu. avril  9 00:47:19 2026] dmesg -T, French",
      "Apr  9 00:47:19 node-3 kernel: [ 4242.1] NVRM: Xid",
      "Apr 09 00:46:51 ws-4090 systemd-oomd[734]: Killed /user.slice",
      "Mär 09 00:46:51 ws-4090 earlyoom[77]: sending SIGTERM",
      "Sept  9 00:46:51.123 ws kubelet[1]: evicted",
      "2024-04-09T00:46:51.123456+00:00 node-1 kernel: Out of memory",
      "2024-04-09T00:46:51+0000 node-1 slurmd[12]: error",
      "2024-04-09T00:46:51Z node-1 slurmstepd[12]: oom-kill",
      "2024-04-09T00:46:51,123456+00:00 Out of memory (dmesg --time-format iso)",
      "kern  :warn  : 2024-04-09T00:46:51,123456+00:00 Out of memory",
      "kern  :err   : [ 4242.123] NVRM: Xid (PCI:0000:3b:00): 79",
      "KERN  :ERR   : [ 4242.123] decoded, upper case",
      "user_1:\terr_2 : [ 4242.123] any words, tab between",
      "6,1234,5678901,-;Out of memory: Killed process 1",
      "4,99,123,c;continued record",
  };
  for (const std::string& line : forms) {
    INFO(line);
    CHECK(kernel_stamp_regex(line));
    CHECK(may_be_kernel_stamp(line));
  }
  std::vector<std::string> lines = fixture_lines();
  REQUIRE(lines.size() > 5000);
  lines.insert(lines.end(), forms.begin(), forms.end());
  std::vector<std::string> matched;
  for (const std::string& line : lines) {
    if (!kernel_stamp_regex(line)) continue;
    matched.push_back(line);
    INFO(line);
    CHECK(may_be_kernel_stamp(line));
  }
  CHECK(matched.size() > 500);
  // Random edits of the matching lines' first 40 bytes: replaced, inserted and deleted bytes from
  // the stamps' own alphabet.
  std::mt19937 random(2026);
  const std::string alphabet = "0123456789:.,;-+T Z[]<>\tkernKERNAprMäcwa_";
  int still = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string line = matched[random() % matched.size()];
    for (int edits = 1 + static_cast<int>(random() % 3); edits > 0 && !line.empty(); --edits) {
      const std::size_t at = random() % std::min<std::size_t>(line.size(), 40);
      const char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0: line[at] = c; break;
        case 1: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), c); break;
        default: line.erase(at, 1);
      }
    }
    if (!kernel_stamp_regex(line)) continue;
    ++still;
    INFO(line);
    REQUIRE(may_be_kernel_stamp(line));
  }
  CHECK(still > 10000);
}

TEST_CASE("starts_with_boot_stamp reads `[ secs.frac]` as its regex does, in every width", "[kernel]") {
  // Asked of every kernel line twice (the sniffer, the parser): every width of spaces, seconds
  // and fraction (dmesg prints `%5lu.%06lu`), and near misses of each, in short lines (read byte
  // by byte) and in lines of 32 bytes or more (read 32 bytes at once), with the stamp ending
  // on either side of byte 32.
  static const std::regex stamp(R"(^\[ *[0-9]+\.[0-9]+\].*)");
  const auto expect = [](const std::string& line) { return std::regex_match(line, stamp); };
  std::vector<std::string> lines;
  const std::string message = " nvidia-uvm: Loaded the UVM driver, major device number 508.";
  for (int spaces = 0; spaces <= 13; ++spaces)
    for (int secs = 0; secs <= 13; ++secs)
      for (int frac = 0; frac <= 13; ++frac) {
        std::string head = "[";
        head.append(static_cast<std::size_t>(spaces), ' ').append(static_cast<std::size_t>(secs), '7');
        head.append(".").append(static_cast<std::size_t>(frac), '3');
        for (const std::string& tail : {std::string(), message}) {
          lines.push_back(head + "] msg" + tail);
          lines.push_back(head + "]" + tail);
          lines.push_back(head + " ] msg" + tail);  // a space before the bracket
          lines.push_back(head + "x] msg" + tail);
          lines.push_back(head + tail);  // no bracket
        }
      }
  for (std::size_t size = 0; size <= 40; ++size) lines.push_back(std::string("[").append(size, ' '));
  std::mt19937 rng(37);
  const std::string alphabet = "[ 0123456789.]x";
  for (int round = 0; round < 50000; ++round) {
    std::string line = lines[rng() % lines.size()];
    line[rng() % std::min<std::size_t>(line.size(), 40)] = alphabet[rng() % alphabet.size()];  // one byte of the head changed
    lines.push_back(line);
  }
  std::size_t stamped = 0;
  for (const std::string& line : lines) {
    INFO("line '" << line << "'");
    REQUIRE(culprit::ingest::kernel::starts_with_boot_stamp(line) == expect(line));
    stamped += expect(line);
  }
  CHECK(stamped > 1000);  // the walk reaches both answers
}
