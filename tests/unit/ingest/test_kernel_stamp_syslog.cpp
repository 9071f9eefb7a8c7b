// parse_kernel_line reads the traditional syslog header (`Apr  9 00:47:22 node-00 kernel:
// [    5.367152] …`, rsyslog's RSYSLOG_TraditionalFileFormat and `journalctl -o short`) in place
// before its walk through every prefix form (kernel_stamp.cpp, read_traditional_syslog): every
// field it gives must be the walk's. Held to parse_kernel_line_walk on every line of every
// fixture, on syslog lines of each header form, and on every one-byte edit and cut of them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "unit/ingest/fixture_files.hpp"

using culprit::ingest::kernel::KernelLine;
using culprit::ingest::kernel::parse_kernel_line;
using culprit::ingest::kernel::parse_kernel_line_walk;

namespace {

std::vector<std::string> syslog_lines_to_check() {
  std::vector<std::string> lines;
  for (const auto& path : culprit::test::text_fixtures()) {
    const std::string all = culprit::test::read_fixture(path);
    for (const std::string_view line : culprit::text::split_lines(all)) lines.emplace_back(line);
  }
  const std::vector<std::string> forms = {
      "Apr  9 00:47:22 node-00 kernel: [    5.367152] IPv6: ADDRCONF(NETDEV_CHANGE): veth3ad2e9: link becomes ready",
      "Dec 31 23:59:60 gpu-node.example.org kernel: [1234567.000001] [ T1234] NVRM: Xid (PCI:0000:3b:00): 79",
      "Apr 19 00:47:22 node-00 systemd[1]: Started Session 8302 of User root.",
      "Aug  1 12:00:00 h kernel: [ 1.5 ] x",
      "Feb 29 24:00:00 host_1 kernel: [  +0.000123] relative",
      "Jan  1 00:00:00 host kernel: [Thu Apr  9 00:47:22 2026] x",
      "May 15 12:01:44 host containerd[812]: time=\"2024-05-15T12:01:44.512+02:00\" level=info",
      "Sep  9 09:09:09 host: bare host",
      "Oct 10 10:10:10 host <kern.warning> kernel: [  1.0] x",
      "Nov 11 11:11:11.123456 host kernel: [  1.0] fraction",
      "Mar  3 03:03:03 host kernel: [" + std::string(70, ' ') + "1.0] far",
      "Jun  6 06:06:06 host kernel:[  1.0]",
      "Jul  7 07:07:07 host kernel: [  1.0]",
  };
  const std::string edits = std::string("[] :09AZaz+.-<>\t") + '\0';
  for (const std::string& form : forms) {
    lines.push_back(form);
    for (std::size_t at = 0; at < form.size() && at < 56; ++at)
      for (const char c : edits) {
        std::string edited = form;
        edited[at] = c;
        lines.push_back(edited);
      }
    for (std::size_t cut = 0; cut <= form.size() && cut < 60; ++cut) lines.push_back(form.substr(0, cut));
  }
  return lines;
}

/// A view's place in its line (-1: none), so that two parses of one line compare.
long place(std::string_view line, std::string_view part) {
  return part.data() == nullptr ? -1 : static_cast<long>(part.data() - line.data());
}

}  // namespace

TEST_CASE("the traditional syslog header read in place gives what the prefix walk gives", "[kernel_stamp]") {
  std::size_t compared = 0;
  for (const std::string& line : syslog_lines_to_check()) {
    for (const int year : {0, 2026}) {
      INFO(line << " (year hint " << year << ")");
      const KernelLine got = parse_kernel_line(line, year);
      const KernelLine want = parse_kernel_line_walk(line, year);
      ++compared;
      CHECK(got.message == want.message);
      CHECK(place(line, got.message) == place(line, want.message));
      CHECK(got.ts_raw == want.ts_raw);
      CHECK(got.ts_kind == want.ts_kind);
      CHECK(got.ts == want.ts);
      CHECK(got.ts_value == want.ts_value);
      CHECK(got.boot_ts == want.boot_ts);
      CHECK(got.host == want.host);
      CHECK(got.ident == want.ident);
      CHECK(got.ident_pid == want.ident_pid);
      CHECK(got.caller == want.caller);
      CHECK(got.kernel == want.kernel);
      CHECK(got.kmsg == want.kmsg);
      CHECK(got.kmsg_priority == want.kmsg_priority);
      CHECK(got.kmsg_seq == want.kmsg_seq);
      CHECK(got.relative == want.relative);
    }
  }
  CHECK(compared > 10000);
}
