// Kernel stamps printed in another locale (formats.md §2.2, §2.5: `%b` and `%a` follow LC_TIME):
// journalctl short and syslog with localised month names, dmesg -T with the day first or the
// month first, and words that are not months.
#include <catch2/catch.hpp>

#include "culprit/core/time.hpp"
#include "culprit/ingest/sniff.hpp"
#include "ingest/formats/kernel_stamp.hpp"

using culprit::core::civil_to_epoch;
using culprit::core::TsKind;
using culprit::ingest::kernel::KernelLine;
using culprit::ingest::kernel::parse_kernel_line;

TEST_CASE("journalctl short with localised month names", "[kernel_stamp][locale]") {
  // de_DE: `Mär` (UTF-8), fr_FR: `avr.` with its dot, es_ES `dic`, it_IT `mag`, nl_NL `mrt`.
  struct Case {
    const char* line;
    int month, day;
  } cases[] = {
      {"M\xc3\xa4r 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 3, 9},
      {"avr. 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 4, 9},
      {"dic 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 12, 9},
      {"mag  9 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 5, 9},
      {"mrt 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 3, 9},
      {"Okt 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 10, 9},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    KernelLine k = parse_kernel_line(c.line, 2026);
    CHECK(k.ts_kind == TsKind::wall_no_year);
    REQUIRE(k.ts.has_value());
    CHECK(*k.ts == Approx(civil_to_epoch(2026, c.month, c.day, 0, 47, 22)));
    CHECK(k.host == "gpu-node-17");
    CHECK(k.message == "Out of memory: Killed process 1 (x)");
    CHECK(culprit::ingest::sniff_format(std::string(c.line) + "\n") == "kernel_log");
  }
}

// clang-tidy found "d\xc3\xa9c" read as one out-of-range hex escape (\xa9c), so fr_FR December
// never matched; the literal is now split ("d\xc3\xa9" "c").
TEST_CASE("French December and February: d\u00e9c. and f\u00e9vr. (UTF-8)", "[kernel_stamp][locale]") {
  struct Case {
    const char* line;
    int month;
  } cases[] = {
      {"d\xc3\xa9" "c. 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 12},
      {"f\xc3\xa9vr. 09 00:47:22 gpu-node-17 kernel: Out of memory: Killed process 1 (x)", 2},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    KernelLine k = parse_kernel_line(c.line, 2026);
    REQUIRE(k.ts.has_value());
    CHECK(*k.ts == Approx(civil_to_epoch(2026, c.month, 9, 0, 47, 22)));
    CHECK(k.message == "Out of memory: Killed process 1 (x)");
  }
  KernelLine d = parse_kernel_line("[mer. 9 d\xc3\xa9" "c. 18:03:30 2026] Out of memory: Killed process 1 (x)", 0);
  REQUIRE(d.ts.has_value());
  CHECK(*d.ts == Approx(civil_to_epoch(2026, 12, 9, 18, 3, 30)));
}

TEST_CASE("dmesg -T in another locale: month first (strftime %a %b %e) and day first", "[kernel_stamp][locale]") {
  KernelLine a = parse_kernel_line("[dim. avr. 19 18:03:30 2026] Out of memory: Killed process 1 (x)", 0);
  CHECK(a.ts_kind == TsKind::wall);
  REQUIRE(a.ts.has_value());
  CHECK(*a.ts == Approx(civil_to_epoch(2026, 4, 19, 18, 3, 30)));
  CHECK(a.message == "Out of memory: Killed process 1 (x)");
  KernelLine b = parse_kernel_line("[dim. 19 avril 18:03:30 2026] Out of memory: Killed process 1 (x)", 0);
  CHECK(b.ts_kind == TsKind::wall);
  REQUIRE(b.ts.has_value());
  CHECK(*b.ts == Approx(civil_to_epoch(2026, 4, 19, 18, 3, 30)));
  CHECK(b.message == "Out of memory: Killed process 1 (x)");
  KernelLine c = parse_kernel_line("[Do M\xc3\xa4r  5 18:03:30 2026] NVRM: Xid (PCI:0000:47:00): 79, GPU has fallen off the bus.", 0);
  REQUIRE(c.ts.has_value());
  CHECK(*c.ts == Approx(civil_to_epoch(2026, 3, 5, 18, 3, 30)));
  CHECK(culprit::ingest::sniff_format("[dim. 19 avril 18:03:30 2026] usb 1-1: new device\n") == "kernel_log");
  // An unknown word keeps the stamp raw: the line still parses, without a time.
  KernelLine d = parse_kernel_line("[xyz. 19 zork 18:03:30 2026] text", 0);
  CHECK_FALSE(d.ts.has_value());
  CHECK(d.message == "text");
}

TEST_CASE("words that are not months do not make a stamp", "[kernel_stamp][locale]") {
  KernelLine a = parse_kernel_line("Killed 09 00:47:22 something", 2026);
  CHECK(a.ts_kind == TsKind::none);
  KernelLine b = parse_kernel_line("set 9 of 12 done", 2026);  // `set` is Italian September, but no clock
  CHECK(b.ts_kind == TsKind::none);
}
