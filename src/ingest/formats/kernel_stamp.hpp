// Kernel-log transport prefixes (formats.md Part 2): peels dmesg / syslog / journalctl / kmsg
// stamps and headers off one line, so the OOM grammar and the signals see the bare message.
// Private to the ingest module (kernel_log.cpp and its helpers).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "culprit/core/event.hpp"

namespace culprit::ingest::kernel {

/// One kernel-log line with its transport prefixes peeled. Views point into the input line.
///
/// Recognised (each alone or combined as the tools print them):
///   dmesg `[   93.118204] `, `[41230577.118342] `, caller `[ T1234]`, `-r` `<3>`, `-x`
///   `kern  :err   : `, `-T` `[Sun Mar  3 04:15:09 2024] `, reltime/delta `[  +0.000123] `,
///   `--time-format iso` `2025-06-02T08:12:09,331207+02:00 `;
///   syslog `Jun  2 08:12:09 host kernel: [ 1823087.561183] `, RFC 3339
///   `2026-04-09T00:47:22.123456+00:00 host kernel: `, journalctl short / short-precise /
///   short-iso (`+0000`, `+00:00`) / short-full / short-unix / short-monotonic, `host: ` without
///   identifier, `<kern.warning>` facility tokens, bare `kernel:`; /dev/kmsg `6,1234,5678901,-;`;
///   a VMware vmware.log guest line `2023-12-04T10:49:30.127Z In(05) vcpu-5 - Guest: <6>[…] `.
///
/// Wall stamps: `ts` is UTC (zone offset applied; no zone -> read as UTC). Stamps without a year
/// (`wall_no_year`) get `ts` only when `year_hint` is non-zero; `ts_value` is then the seconds
/// since the start of the year, counted as in a leap year (Mar 1 = day 60) so Feb 29 fits;
/// clock alignment subtracts a day for March..December of a non-leap year.
struct KernelLine {
  std::string_view message;        ///< text after every prefix (one separator space removed)
  std::string_view ts_raw;         ///< the primary stamp as written
  core::TsKind ts_kind = core::TsKind::none;
  std::optional<double> ts;        ///< wall-clock UTC seconds
  std::optional<double> ts_value;  ///< boot seconds, or seconds since the start of the year
  std::optional<double> boot_ts;   ///< a kernel `[seconds]` quoted after a wall stamp
  std::string_view host;           ///< the line's own host (syslog / journal); empty: none
  std::string_view ident;          ///< syslog identifier (`kernel`, `systemd`, …); empty: none
  std::optional<std::int64_t> ident_pid;
  std::string_view caller;         ///< printk caller id `T1234` / `C3`
  bool kernel = true;              ///< a kernel record: no identifier, or `kernel`/`vmunix`
  bool kmsg = false;               ///< a /dev/kmsg record (`prio,seq,usec,flag;`)
  std::optional<std::int64_t> kmsg_priority;  ///< kmsg: facility * 8 + level (`6` = kern.info)
  std::optional<std::int64_t> kmsg_seq;       ///< kmsg: the record's sequence number
  bool relative = false;           ///< dmesg reltime/delta stamp: no absolute time
};

/// Peels the prefixes of one line (no line terminator). Never fails: unknown text is a message
/// with no stamp.
KernelLine parse_kernel_line(std::string_view line, int year_hint);
/// parse_kernel_line without its shortcut for the traditional syslog header (a kern.log line
/// read in place): the walk through every prefix form, which the shortcut must agree with
/// (test_kernel_stamp_syslog.cpp holds it to it).
KernelLine parse_kernel_line_walk(std::string_view line, int year_hint);

/// The year and zone of one source's syslog stamps, from a program that stamps its own lines in
/// full (Go's slog and logrus text format, `time=2024-05-15T12:01:44.512+02:00`: Ollama,
/// containerd, dockerd). The header `May 15 12:01:44` is the host's local time without year or
/// zone; a program stamp of the same moment gives both, and from that line on every year-less
/// header of the source is placed with them (a later such line updates them: a year's turn).
class ProgramClock {
 public:
  /// Reads `line`'s program stamp, then places its year-less header when a year is known.
  void adopt(KernelLine& line);

 private:
  int year_ = 0;
  double offset_ = 0;  ///< seconds east of UTC
};

/// True when `raw` starts with a raw dmesg boot stamp, `[   12.345678]` (spaces, digits, a dot,
/// digits): the commonest kernel line, told by its bytes before any regex. Such a line carries
/// no wall-clock stamp.
bool starts_with_boot_stamp(std::string_view raw);

/// True when `raw` opens with dmesg -T's stamp in English, `[Www Mmm dD HH:MM:SS YYYY]`, byte for
/// byte as the ctime alternative of the sniffer's kernel-stamp regex reads it
/// (`\[(?:Mon|…|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]`): true only where that
/// alternative matches. Every line of a `dmesg -T` file is asked.
bool starts_with_ctime_stamp(std::string_view raw);

/// starts_with_ctime_stamp, where parse_kernel_line also reads the stamp as a wall-clock time
/// (an English month, a day 1-31, a clock to 24:59:60): the line is then a kernel record with
/// that stamp alone (no host, no boot stamp, no kmsg header).
bool starts_with_ctime_wall_stamp(std::string_view raw);

/// A /dev/kmsg dictionary line (` SUBSYSTEM=pci`, ` DEVICE=+pci:…`) that follows a record.
bool is_kmsg_dict_line(std::string_view line);

/// Copies the stamp, the line's host and (for non-kernel identifiers) comm/pid into `event`;
/// a quoted kernel stamp becomes the numeric field `boot_ts`.
void apply_stamp(const KernelLine& line, core::Event& event);

}  // namespace culprit::ingest::kernel
