// The kernel-log line driver, shared by the text kernel log (kernel_log.cpp) and journald JSON
// (journal_json.cpp): groups each host's OOM report lines into one block (kernel_oom_report) and
// runs the line signals on every other line. Private to the ingest module.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "ingest/signal_events.hpp"
#include "kernel_nvrm.hpp"
#include "kernel_oom_report.hpp"
#include "kernel_stamp.hpp"

namespace culprit::ingest::kernel {

/// Feeds kernel-log records one at a time; finish() emits what is still open. Records of
/// different hosts may interleave (a paste of two nodes' logs): blocks are kept per host.
class KernelLogParser {
 public:
  explicit KernelLogParser(ParseContext& ctx) : ctx_(ctx) {}

  /// One text line: its prefixes are peeled with parse_kernel_line(). `hit` is what a block
  /// scan of the segment said of `raw` (`no`: no signal can match it, so none is tried);
  /// `known_stamped`, that the scan found it opening with a boot stamp (false: not known).
  void line(std::int64_t seg_line, std::string_view raw, LiteralHit hit = LiteralHit::unknown,
            bool known_stamped = false);

  /// One record whose stamp and header are already known (journald JSON). `kl.message` must
  /// stay valid for the duration of the call; `raw` is offered as a wrapped-row continuation.
  /// `hit`: as for line(), of `kl.message` (`no`: no signal literal or marker lies in it).
  void record(std::int64_t seg_line, std::string_view raw, const KernelLine& kl, LiteralHit hit = LiteralHit::unknown);

  /// Emits every open block, then the clock anchors seen (see note_anchor).
  void finish();

 private:
  ProgramClock program_clock_;  ///< year and zone of year-less headers, from program stamps
  /// A run of records that carry a wall stamp and the kernel's boot stamp with (nearly) the
  /// same difference: one `clock_anchor` event per run, so clock alignment can place the
  /// host's boot-relative stamps although plain lines are not stored. A new run starts when
  /// the difference moves by more than a few seconds (a suspend, a clock step).
  struct AnchorRun {
    /// The record with the smallest difference (receive delays only add): what its event is
    /// made of, kept as data, so that the event is built once a run, at the end (in a kern.log
    /// nearly every line lowers the difference: its boot stamp moves within the wall second).
    struct Record {
      std::int64_t seg_line = 0;
      bool rtc = false;  ///< from the RTC line: wall and boot alone
      double wall = 0, boot = 0;
      /// The line's stamp (what apply_stamp reads), its texts in the copies below: the line's
      /// own text is gone by the end (stamp() points it at them).
      KernelLine line;
      std::string ts_raw, host, ident;
      KernelLine stamp() const;
    };
    std::string_view source;  ///< "syslog", "journald" or "rtc"
    Record best;
    double diff = 0;
    std::int64_t records = 0;
  };
  core::Event anchor_event(const AnchorRun& run) const;
  void note_anchor(std::int64_t seg_line, const KernelLine& kl);
  void emit_anchors();
  void signals(std::int64_t seg_line, const KernelLine& kl, bool inside_block);
  void record_line(std::int64_t seg_line, std::string_view raw, const KernelLine& kl);

  ParseContext& ctx_;
  std::map<std::string, OomBlock> blocks_;
  std::string last_key_;
  bool prev_kmsg_ = false;
  std::map<std::string, std::vector<AnchorRun>> anchors_;  // per host
  std::string last_anchor_host_;                            ///< the host note_anchor last asked for
  std::vector<AnchorRun>* last_anchor_runs_ = nullptr;      ///< its runs (map nodes do not move)
  FallOffTracker falls_;
  LiteralHit hit_ = LiteralHit::unknown;  ///< of the text line line() is reading
};

/// The words of the RTC line that anchors a boot's clock (`rtc_cmos 00:00: setting system clock
/// to …`).
inline constexpr std::string_view kRtcClockKey = "setting system clock to ";


}  // namespace culprit::ingest::kernel
