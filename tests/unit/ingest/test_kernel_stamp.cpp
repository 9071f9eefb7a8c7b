// Kernel-log transport prefixes (formats.md Part 2): one case per dmesg / syslog / journalctl /
// kmsg style, plus lines that only look like stamps (task rows, stack frames, dmesg text).
#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

#include "culprit/core/time.hpp"
#include "ingest/formats/kernel_stamp.hpp"

using culprit::core::civil_to_epoch;
using culprit::core::TsKind;
using culprit::ingest::kernel::KernelLine;
using culprit::ingest::kernel::parse_kernel_line;

TEST_CASE("dmesg raw boot stamps, wide uptimes, caller ids, -r and -x prefixes", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("[   93.118204] Out of memory: Killed process 1 (x)", 0);
  CHECK(a.ts_kind == TsKind::boot);
  CHECK(*a.ts_value == Approx(93.118204));
  CHECK(a.ts_raw == "[   93.118204]");
  CHECK(a.message == "Out of memory: Killed process 1 (x)");
  CHECK(a.host.empty());
  CHECK(a.kernel);

  KernelLine b = parse_kernel_line("[41230577.118342] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", 0);
  CHECK(*b.ts_value == Approx(41230577.118342));
  CHECK(b.message.substr(0, 9) == "NVRM: Xid");

  KernelLine c = parse_kernel_line("[  123.456789][ T1234] python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0", 0);
  CHECK(c.caller == "T1234");
  CHECK(c.message.substr(0, 6) == "python");

  KernelLine d = parse_kernel_line("<3>[  123.456789] Out of memory: Killed process 5 (y)", 0);
  CHECK(d.ts_kind == TsKind::boot);
  CHECK(d.message == "Out of memory: Killed process 5 (y)");

  KernelLine e = parse_kernel_line("kern  :err   : [  123.456789] Out of memory: Killed process 5 (y)", 0);
  CHECK(*e.ts_value == Approx(123.456789));
  CHECK(e.message == "Out of memory: Killed process 5 (y)");

  KernelLine f = parse_kernel_line("[  123.456789 <    0.000012>] delta style", 0);
  CHECK(*f.ts_value == Approx(123.456789));
  CHECK(f.message == "delta style");
}

TEST_CASE("dmesg -T, reltime and localised stamps", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("[Sun Mar  3 04:15:09 2024] python cpuset=/ mems_allowed=0-1", 0);
  CHECK(a.ts_kind == TsKind::wall);
  CHECK(*a.ts == Approx(civil_to_epoch(2024, 3, 3, 4, 15, 9)));
  CHECK(a.message == "python cpuset=/ mems_allowed=0-1");

  KernelLine b = parse_kernel_line("[Thu Apr  9 00:47:22 2026 <    0.000012>] msg", 0);
  CHECK(*b.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22)));
  CHECK(b.message == "msg");

  KernelLine c = parse_kernel_line("[  +0.000123] relative line", 0);
  CHECK(c.relative);
  CHECK(c.ts_kind == TsKind::none);
  CHECK(c.message == "relative line");

  KernelLine d = parse_kernel_line("[Apr 9 00:47] minute marker", 2026);
  CHECK(d.ts_kind == TsKind::wall_no_year);
  CHECK(*d.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 0)));
  CHECK(d.message == "minute marker");

  KernelLine e = parse_kernel_line("[dim. 19 avril 18:03:30 2026] Out of memory: Killed process 9 (z)", 0);
  CHECK(e.message == "Out of memory: Killed process 9 (z)");
  REQUIRE(e.ts.has_value());  // French month names are known (test_kernel_stamp_locale.cpp)
  CHECK(*e.ts == Approx(civil_to_epoch(2026, 4, 19, 18, 3, 30)));
  CHECK(e.ts_raw == "[dim. 19 avril 18:03:30 2026]");
}

TEST_CASE("dmesg --time-format iso, with and without -x", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("2025-06-02T08:12:09,331207+02:00 usb 1-1: new high-speed USB device", 0);
  CHECK(a.ts_kind == TsKind::wall);
  CHECK(*a.ts == Approx(civil_to_epoch(2025, 6, 2, 6, 12, 9.331207)));
  CHECK(a.host.empty());  // dmesg iso has no host: `usb 1-1:` is message text
  CHECK(a.message == "usb 1-1: new high-speed USB device");

  KernelLine b = parse_kernel_line(
      "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f79 ip 00007f79", 0);
  CHECK(*b.ts == Approx(civil_to_epoch(2025, 1, 21, 4, 41, 44.285060)));
  CHECK(b.message.substr(0, 24) == "pt_main_thread[2536443]:");
  CHECK(b.kernel);
}

TEST_CASE("syslog traditional: no year, host from the line, quoted boot stamp", "[kernel_stamp]") {
  std::string_view line = "Jun  2 08:12:09 gpu-07 kernel: [ 1823087.561183] Out of memory: Killed process 1 (x)";
  KernelLine a = parse_kernel_line(line, 0);
  CHECK(a.ts_kind == TsKind::wall_no_year);
  CHECK_FALSE(a.ts.has_value());
  // Seconds since Jan 1 counted as in a leap year: Jun 2 is day 153 (0-based).
  CHECK(*a.ts_value == Approx(153 * 86400.0 + 8 * 3600 + 12 * 60 + 9));
  CHECK(a.ts_raw == "Jun  2 08:12:09");
  CHECK(a.host == "gpu-07");
  CHECK(a.ident == "kernel");
  CHECK(*a.boot_ts == Approx(1823087.561183));
  CHECK(a.message == "Out of memory: Killed process 1 (x)");

  KernelLine b = parse_kernel_line(line, 2025);
  CHECK(b.ts_kind == TsKind::wall_no_year);
  CHECK(*b.ts == Approx(civil_to_epoch(2025, 6, 2, 8, 12, 9)));
}

TEST_CASE("syslog variants: RFC 3339, facility token, no identifier, bare kernel:", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("2026-04-09T00:47:22.123456+00:00 gpu-node-17 kernel: Out of memory: x", 0);
  CHECK(a.ts_kind == TsKind::wall);
  CHECK(*a.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22.123456)));
  CHECK(a.host == "gpu-node-17");
  CHECK(a.message == "Out of memory: x");

  KernelLine b = parse_kernel_line("Apr 01 14:13:32 mysrv <kern.warning> kernel:doxygen invoked oom-killer: gfp_mask=0x0", 0);
  CHECK(b.host == "mysrv");
  CHECK(b.kernel);
  CHECK(b.message == "doxygen invoked oom-killer: gfp_mask=0x0");

  KernelLine c = parse_kernel_line("Apr 01 14:13:32 mysrv: sed cpuset=/ mems_allowed=0-1", 0);
  CHECK(c.host == "mysrv");
  CHECK(c.ident.empty());
  CHECK(c.message == "sed cpuset=/ mems_allowed=0-1");

  KernelLine d = parse_kernel_line("kernel:Killed process 6576 (mysqld) total-vm:33914892kB", 0);
  CHECK(d.message == "Killed process 6576 (mysqld) total-vm:33914892kB");
}

TEST_CASE("non-kernel syslog identifiers keep their name and pid", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("Jun  2 08:12:10 gpu-07 systemd[1]: docker-3f2a.scope: A process of this unit has been killed by the OOM killer.", 0);
  CHECK_FALSE(a.kernel);
  CHECK(a.ident == "systemd");
  CHECK(*a.ident_pid == 1);
  CHECK(a.host == "gpu-07");

  KernelLine b = parse_kernel_line("Apr 09 00:47:20 ws earlyoom[812]: sending SIGTERM to process 4242 uid 1000 \"python\": oom_score 900", 0);
  CHECK(b.ident == "earlyoom");
  CHECK(*b.ident_pid == 812);
  CHECK(b.message.substr(0, 12) == "sending SIGT");

  culprit::core::Event ev;
  ev.host = "ctx-host";
  culprit::ingest::kernel::apply_stamp(b, ev);
  CHECK(ev.comm == "earlyoom");
  CHECK(ev.pid == 812);
  CHECK(ev.host == "ws");
}

TEST_CASE("journalctl output modes", "[kernel_stamp]") {
  KernelLine s = parse_kernel_line("Apr 09 00:47:22 gpu-node-17 kernel: Out of memory: y", 2026);
  CHECK(s.ts_kind == TsKind::wall_no_year);
  CHECK(*s.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22)));
  CHECK(s.host == "gpu-node-17");

  KernelLine p = parse_kernel_line("Apr 09 00:47:22.123456 gpu-node-17 kernel: Out of memory: y", 2026);
  CHECK(*p.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22.123456)));

  KernelLine i1 = parse_kernel_line("2026-04-09T02:47:22+0200 host kernel: msg", 0);
  KernelLine i2 = parse_kernel_line("2026-04-09T02:47:22+02:00 host kernel: msg", 0);
  CHECK(*i1.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22)));
  CHECK(*i2.ts == Approx(*i1.ts));
  CHECK(i1.host == "host");
  CHECK(i1.message == "msg");

  KernelLine m = parse_kernel_line("[  123.456789] host kernel: msg", 0);
  CHECK(m.ts_kind == TsKind::boot);
  CHECK(m.host == "host");
  CHECK(m.message == "msg");

  KernelLine f = parse_kernel_line("Thu 2026-04-09 00:47:22 UTC host kernel: msg", 0);
  CHECK(f.ts_kind == TsKind::wall);
  CHECK(*f.ts == Approx(civil_to_epoch(2026, 4, 9, 0, 47, 22)));
  CHECK(f.host == "host");
  CHECK(f.message == "msg");

  KernelLine u = parse_kernel_line("1775695642.123456 host kernel: msg", 0);
  CHECK(u.ts_kind == TsKind::wall);
  CHECK(*u.ts == Approx(1775695642.123456));
  CHECK(u.host == "host");
}

TEST_CASE("/dev/kmsg records", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("6,1234,5678901,-;Out of memory: Killed process 1 (x)", 0);
  CHECK(a.kmsg);
  CHECK(a.ts_kind == TsKind::boot);
  CHECK(*a.ts_value == Approx(5.678901));
  CHECK(a.message == "Out of memory: Killed process 1 (x)");
  KernelLine b = parse_kernel_line("4,1235,5678902,c,caller=T812;python invoked oom-killer: x", 0);
  CHECK(b.caller == "T812");
  CHECK(b.message == "python invoked oom-killer: x");
  CHECK(culprit::ingest::kernel::is_kmsg_dict_line(" SUBSYSTEM=pci"));
  CHECK(culprit::ingest::kernel::is_kmsg_dict_line(" DEVICE=+pci:0000:3b:00.0"));
  CHECK_FALSE(culprit::ingest::kernel::is_kmsg_dict_line(" active_file:0 inactive_file:0"));
}

TEST_CASE("text that only looks like a stamp is left alone", "[kernel_stamp]") {
  KernelLine row = parse_kernel_line("[  390]     0   390    39012     6739      78       51             0 systemd-journal", 0);
  CHECK(row.ts_kind == TsKind::none);
  CHECK(row.message.substr(0, 7) == "[  390]");

  KernelLine frame = parse_kernel_line(" [<ffffffff816861ac>] dump_stack+0x19/0x1b", 0);
  CHECK(frame.ts_kind == TsKind::none);
  CHECK(frame.message == " [<ffffffff816861ac>] dump_stack+0x19/0x1b");

  KernelLine usb = parse_kernel_line("[    5.123456] usb 1-1: new high-speed USB device number 2", 0);
  CHECK(usb.host.empty());
  CHECK(usb.message == "usb 1-1: new high-speed USB device number 2");

  KernelLine seg = parse_kernel_line("[ 9.1] python3[50112]: segfault at 0 ip 00007f79 sp 00007ffe error 4", 0);
  CHECK(seg.host.empty());
  CHECK(seg.message.substr(0, 15) == "python3[50112]:");

  KernelLine plain = parse_kernel_line("Out of memory: Killed process 3 (z) total-vm:1kB", 0);
  CHECK(plain.ts_kind == TsKind::none);
  CHECK(plain.message == "Out of memory: Killed process 3 (z) total-vm:1kB");

  KernelLine dash = parse_kernel_line("-- Boot 3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d --", 0);
  CHECK(dash.message == "-- Boot 3f2a9c0d5e7b4a1f8c6d2e9b0a7f3c5d --");

  for (std::string_view junk : {"[", "[]", "[ 1.", "<", "<3", "1,2,3", "Jan", "2026-04-09T", "\xff\xfe[\x01]", ""})
    CHECK_NOTHROW(parse_kernel_line(junk, 2026));
}

TEST_CASE("dmesg -T in a locale whose month names match English still gives a time", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line("[Di Aug 12 03:54:03 2025] php-fpm invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0", 0);
  CHECK(a.ts_kind == TsKind::wall);
  CHECK(*a.ts == Approx(civil_to_epoch(2025, 8, 12, 3, 54, 3)));
  CHECK(a.message.substr(0, 7) == "php-fpm");
}

// Found by fuzz_segment (CI): an ISO stamp of exactly 19 characters at the very end of the
// text made the `,fraction` check read one byte past it. The stamps below sit in heap buffers
// with nothing after them, so ASan sees any read past the end.
TEST_CASE("an ISO stamp that ends the text is not read past", "[kernel_stamp]") {
  for (std::string_view stamp : {"2026-04-09T11:02:51", "2026-04-09T11:02:51Z", "<3>2026-04-09T11:02:51",
                                 "Apr 2026-04-09 11:02:51", "2026-04-09T11:02:51+02"}) {
    const std::vector<char> exact(stamp.begin(), stamp.end());
    KernelLine line = parse_kernel_line(std::string_view(exact.data(), exact.size()), 2026);
    CHECK(line.message.size() <= stamp.size());
  }
  const std::vector<char> bare{'2', '0', '2', '6', '-', '0', '4', '-', '0', '9', 'T', '1', '1', ':', '0', '2', ':', '5', '1'};
  KernelLine iso = parse_kernel_line(std::string_view(bare.data(), bare.size()), 0);
  CHECK(iso.ts_kind == TsKind::wall);
  CHECK(*iso.ts == Approx(civil_to_epoch(2026, 4, 9, 11, 2, 51)));
}

// VMware's vmware.log (Log_* in the VMX: `<ISO>Z <level>(<group>) <thread> - <message>`) carries
// the guest's kernel records as `Guest: <prio>[uptime] …`; the host's own lines are not kernel text.
TEST_CASE("VMware vmware.log guest lines peel to the guest's dmesg record", "[kernel_stamp]") {
  KernelLine a = parse_kernel_line(
      "2023-12-04T10:49:30.127Z In(05) vcpu-5 - Guest: <6>[39291577.009363] Tasks state (memory values in pages):", 0);
  CHECK(a.ts_kind == TsKind::wall);
  CHECK(*a.ts == Approx(civil_to_epoch(2023, 12, 4, 10, 49, 30.127)));
  REQUIRE(a.boot_ts);
  CHECK(*a.boot_ts == Approx(39291577.009363));
  CHECK(a.message == "Tasks state (memory values in pages):");
  CHECK(a.kernel);

  // The VMX's own line: the header is peeled no further (no Guest: record).
  KernelLine b = parse_kernel_line("2023-12-04T10:49:30.127Z In(05) vmx - VMXVmdb_SetToolsVersionStatus: status value set", 0);
  CHECK(b.message.find("VMXVmdb") != std::string_view::npos);
  CHECK_FALSE(b.boot_ts);
}
