// dmesg -T's stamp read in bytes (kernel_stamp.hpp: starts_with_ctime_stamp, the sniffer's
// shortcut before its kernel-stamp regexes; starts_with_ctime_wall_stamp, the kernel parser's
// skip of a routine -T line). The first may only say yes where the regex's ctime alternative
// matches, and says yes wherever it does; the second only where parse_kernel_line reads a wall
// stamp alone. Held to the regex on every line of every fixture and on every one-byte edit of
// -T stamps (`dmesg -T` as util-linux prints it: `[%a %b %e %H:%M:%S %Y]`).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/text/lines.hpp"
#include "culprit/text/pattern.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "unit/ingest/fixture_files.hpp"

using culprit::ingest::kernel::parse_kernel_line;
using culprit::ingest::kernel::starts_with_ctime_stamp;
using culprit::ingest::kernel::starts_with_ctime_wall_stamp;

namespace {

/// The ctime alternative of detect::kernel_stamp_regex, alone.
const culprit::text::Pattern& ctime_alternative() {
  static const culprit::text::Pattern re(
      R"(^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\])");
  return re;
}

/// Every line of every fixture, and every one-byte edit of each stamp below within its first
/// 27 bytes (each byte replaced by one of a set that crosses every class the regex reads).
std::vector<std::string> ctime_lines_to_check() {
  std::vector<std::string> lines;
  for (const auto& path : culprit::test::text_fixtures()) {
    const std::string all = culprit::test::read_fixture(path);
    for (const std::string_view line : culprit::text::split_lines(all)) lines.emplace_back(line);
  }
  const std::vector<std::string> stamps = {
      "[Thu Apr  9 00:47:22 2026] IPv6: ADDRCONF(NETDEV_CHANGE): veth90722d: link becomes ready",
      "[Sun Mar 31 23:59:60 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
      "[Mon Dec 25 24:00:00 1999]",
      "[Wed Feb 29 12:00:00 2028 <    0.000012>] a delta after the stamp",
  };
  const std::string edits = std::string("[] :09AZaz+.-<>\t\xc3") + '\0';
  for (const std::string& stamp : stamps) {
    lines.push_back(stamp);
    for (std::size_t at = 0; at < 27 && at < stamp.size(); ++at)
      for (const char c : edits) {
        std::string edited = stamp;
        edited[at] = c;
        lines.push_back(edited);
      }
    for (std::size_t cut = 0; cut < 28 && cut < stamp.size(); ++cut) lines.push_back(stamp.substr(0, cut));
  }
  return lines;
}

}  // namespace

TEST_CASE("the -T stamp read in bytes agrees with the kernel stamp regex's ctime alternative", "[kernel_stamp]") {
  std::size_t stamped = 0;
  for (const std::string& line : ctime_lines_to_check()) {
    INFO(line);
    const bool fast = starts_with_ctime_stamp(line);
    REQUIRE(fast == ctime_alternative().matches(line));
    if (fast) {
      ++stamped;
      CHECK(culprit::ingest::detect::kernel_stamp_regex(line));
    }
  }
  CHECK(stamped > 100);  // the edits that keep the shape (a digit for a digit, a case for a case)
}

TEST_CASE("a -T wall stamp read in bytes is the stamp parse_kernel_line reads, and nothing else", "[kernel_stamp]") {
  std::size_t walls = 0;
  for (const std::string& line : ctime_lines_to_check()) {
    if (!starts_with_ctime_wall_stamp(line)) continue;
    INFO(line);
    ++walls;
    const auto kl = parse_kernel_line(line, 0);
    CHECK(kl.ts_kind == culprit::core::TsKind::wall);
    CHECK(kl.ts.has_value());
    CHECK(kl.kernel);
    CHECK_FALSE(kl.kmsg);
    CHECK_FALSE(kl.boot_ts.has_value());
    CHECK(kl.host.empty());
    CHECK(kl.ts_raw.substr(0, 26) == std::string_view(line).substr(0, 26));
  }
  CHECK(walls > 50);
  // Read by the regex but not as a time: no such month, day 0, minute 60.
  CHECK(starts_with_ctime_stamp("[Thu Xyz  9 00:47:22 2026] x"));
  CHECK_FALSE(starts_with_ctime_wall_stamp("[Thu Xyz  9 00:47:22 2026] x"));
  CHECK_FALSE(starts_with_ctime_wall_stamp("[Thu Apr 00 00:47:22 2026] x"));
  CHECK_FALSE(starts_with_ctime_wall_stamp("[Thu Apr  9 00:60:22 2026] x"));
  CHECK(starts_with_ctime_wall_stamp("[Thu Apr  9 00:47:22 2026] x"));
}
