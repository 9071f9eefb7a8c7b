// detect::kernel_stamp_regex reads the common syslog / journalctl short header in bytes before
// its regexes (format_detect.cpp, syslog_header_fast): the shortcut may only say yes where the
// syslog pattern does. Headers as rsyslog's RSYSLOG_TraditionalFileFormat and journalctl
// `-o short` / `-o short-iso` print them (`%b %e %H:%M:%S host tag[pid]: `), and look-alikes that
// stop one byte short of the pattern.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "ingest/format_detect.hpp"
#include "ingest/formats/kernel_stamp.hpp"

using culprit::ingest::detect::kernel_stamp_regex;

TEST_CASE("syslog and journal short headers are kernel stamps however the tag reads", "[kernel_stamp]") {
  CHECK(kernel_stamp_regex("Apr  9 00:47:22 node-00 kernel: [    5.367152] IPv6: ADDRCONF(NETDEV_CHANGE): veth3ad2e9"));
  CHECK(kernel_stamp_regex("Apr 19 00:47:22 node-00 systemd[1]: Started Session 8302 of User root."));
  CHECK(kernel_stamp_regex("Apr 19 00:47:22.123456 gpu-node.example.org CRON[25587]: (root) CMD (true)"));
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22+0000 node-00 kernel: audit: type=1400"));
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22.123+02:00 node_00 systemd-oomd[734]: Killed /user.slice"));
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22,5Z h kubelet: x"));
  // ISO headers pass the ISO check asked before the byte reader (iso_stamp_may_match): with a
  // pid, a fraction and a zone of each form.
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22.123456+02:00 gpu-node.example.org containerd[1234]: x"));
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22Z h t[1]: "));
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22-0700 h slurmd: error: x"));
  CHECK(kernel_stamp_regex("Apr  9 00:47:22 node-00 tag: "));  // nothing after the tag's `: `
  CHECK(kernel_stamp_regex("Apr  9 00:47:22 h t: "));           // the shortest header there is
  CHECK(kernel_stamp_regex("Apr  9 00:47:22.5 h t[7]: "));
  // A cut zone is no syslog stamp, but the kernel tag's own alternative takes any stamp tail.
  CHECK(kernel_stamp_regex("2026-04-09T00:47:22+0 node-00 kernel: x"));
}

TEST_CASE("lines one byte short of a syslog header are no kernel stamp", "[kernel_stamp]") {
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22 node-00 tag[12 x: y"));     // an unclosed pid
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22 node-00 tag[]: y"));        // no pid digits
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22 node-00 tag:x"));           // no blank after the colon
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22 h t:"));                     // cut before the blank
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22. h t: x"));                  // a dot without a fraction
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47:22 node:00 tag: x"));          // a colon in the host
  CHECK_FALSE(kernel_stamp_regex("Apr  9 00:47 node-00 tag: x"));             // no seconds
  CHECK_FALSE(kernel_stamp_regex("INFO 04-09 00:47:22 [engine.py:291] Avg prompt throughput"));
  CHECK_FALSE(kernel_stamp_regex("2026-04-09T00:47:22.066773000Z stdout F INFO 04-09 00:47:22 [x.py:1] y"));
  CHECK_FALSE(kernel_stamp_regex("2026-04-09T00:47:22+0 node-00 systemd: x"));  // a cut zone
}

// kernel_line turns a line of `[` and a digit away once it is no boot stamp (format_detect.cpp,
// is_kernel_line): that holds only while the regex takes no other stamp opening so. Bracketed
// dates as SGLang, Python's `[%(asctime)s]` and DeepSpeed print them, numbers as task rows and
// -T look-alikes print them, and random heads of the bytes such stamps are made of.
TEST_CASE("after a bracket and a digit the kernel stamp regex takes a boot stamp only", "[kernel_stamp]") {
  using culprit::ingest::detect::kernel_line;
  using culprit::ingest::kernel::starts_with_boot_stamp;
  const std::string given[] = {
      "[2026-04-09 00:47:22 TP0] Prefill batch. #new-seq: 1, #new-token: 3413, #cached-token: 5422",
      "[2024-05-01 10:00:00,123] [INFO] [engine.py:12] started",
      "[2026-04-09 00:47:22] server_args=ServerArgs(model_path='Qwen/Qwen3.5-122B-A10B-FP8')",
      "[1 Mon 12:34:56 2026] localised -T look-alike with a digit first",
      "[12:34:56] a clock in brackets",
      "[1234]     0  1234   140288    42000      0             0 python3",
      "[123.4567 <    0.000012>] delta style without the leading blanks",
      "[123.456789] Out of memory: Killed process 1 (x)",
      "[41230577.118342] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
      "[1.] no fraction digits",
      "[1.2.3] two dots"};
  for (const auto& line : given) {
    INFO(line);
    CHECK(kernel_stamp_regex(line) == starts_with_boot_stamp(line));
  }
  CHECK_FALSE(kernel_line(given[0]));
  CHECK(kernel_line(given[7]));
  CHECK(kernel_line(given[8]));
  std::mt19937 random(7);
  const std::string bytes = "0123456789.:- ]]]<>,TMonApr";
  for (int n = 0; n < 20000; ++n) {
    std::string line = "[" + std::string(1, static_cast<char>('0' + random() % 10));
    const std::size_t head = 1 + random() % 30;
    for (std::size_t k = 0; k < head; ++k) line.push_back(bytes[random() % bytes.size()]);
    line += " some message text after the head";
    INFO(line);
    REQUIRE(kernel_stamp_regex(line) == starts_with_boot_stamp(line));
  }
}
