// The kernel-log parser (dmesg in every style, kern.log / syslog, journalctl short*, /dev/kmsg,
// console captures): peels transport prefixes (kernel_stamp), groups the lines of each kernel
// OOM report per host into one structured event (kernel_oom_report), and runs the line signals
// (Xid, segfault, systemd-oomd, earlyoom, …) on every other line (signal_events); the driver's
// "fallen off the bus" reports become one Xid 79 per fall (kernel_nvrm).
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/literal_set.hpp"
#include "culprit/text/signal_set.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/signal_events.hpp"
#include "kernel_log_parser.hpp"

namespace culprit::ingest {
namespace kernel {
namespace {

constexpr std::int64_t kMaxBlockLines = 1 << 22;  // 4M: past 10^6 task rows; memory stays bounded by kMaxTasks
constexpr double kAnchorJump = 3.0;    // seconds: a larger change of (wall - boot) starts a new run
constexpr std::size_t kMaxAnchorRuns = 256;

/// `rtc_cmos 00:00: setting system clock to 2026-04-09T00:12:08 UTC (1775693528)` (older
/// kernels: `… to 2019-01-01 10:00:00 UTC (…)`): the RTC's wall time at a boot stamp.
std::optional<double> rtc_epoch(std::string_view message) {
  auto at = message.find(kRtcClockKey);
  if (at == std::string_view::npos) return std::nullopt;
  auto open = message.find(" UTC (", at);
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(open + 6);
  std::int64_t v = 0;
  std::size_t n = 0;
  while (n < rest.size() && n < 12 && rest[n] >= '0' && rest[n] <= '9') v = v * 10 + (rest[n++] - '0');
  if (n < 9 || n >= rest.size() || rest[n] != ')') return std::nullopt;
  return static_cast<double>(v);
}

/// Whether a line with no literal may still change the parser's state when read while nothing
/// is open (line()): a /dev/kmsg record (its dictionary lines follow; a kmsg header holds a
/// `;`), a program stamp that gives a syslog source its year and zone (ProgramClock: `time=`),
/// or a boot stamp `[  12.345…]` that a wall stamp before it pairs with (a clock anchor). False
/// only where the line holds none of those bytes: every other record without a literal opens no
/// block, matches no signal and ends no driver run (the RTC anchor's words are a marker).
bool may_carry_state(std::string_view raw) {
  // The boot stamp first: a kern.log line has one near its start.
  for (std::size_t at = raw.find('['); at != std::string_view::npos; at = raw.find('[', at + 1)) {
    std::size_t k = at + 1;
    while (k < raw.size() && raw[k] == ' ') ++k;
    const std::size_t digits = k;
    while (k < raw.size() && text::is_digit(raw[k])) ++k;
    if (k > digits && k < raw.size() && raw[k] == '.') return true;
  }
  return raw.find(';') != std::string_view::npos || raw.find("time=") != std::string_view::npos;
}

}  // namespace

void KernelLogParser::note_anchor(std::int64_t seg_line, const KernelLine& kl) {
  // The pair's two clocks first; the record is kept (as data) only where it starts a run or
  // lowers its run's offset, and the event is made once a run, in emit_anchors: every line of
  // a kern.log quotes the kernel stamp.
  std::optional<double> wall, boot;
  std::string_view source = ctx_.format == "journal_json" ? "journald" : "syslog";
  const bool paired = kl.boot_ts && (kl.ts || (kl.ts_kind == core::TsKind::wall_no_year && kl.ts_value));
  if (paired) {
    wall = kl.ts ? *kl.ts : *kl.ts_value;
    boot = kl.boot_ts;
  } else if (kl.ts_kind == core::TsKind::boot && kl.ts_value && kl.kernel) {
    wall = rtc_epoch(kl.message);
    if (!wall) return;
    boot = kl.ts_value;
    source = "rtc";
  } else {
    return;
  }
  const auto keep = [&](AnchorRun::Record& r) {
    r.seg_line = seg_line;
    r.rtc = !paired;
    r.wall = *wall;
    r.boot = *boot;
    r.line = kl;
    r.line.message = r.line.ts_raw = r.line.host = r.line.ident = r.line.caller = {};  // views of the line's text
    r.ts_raw.assign(kl.ts_raw);  // (assign: the run's strings are reused, not reallocated)
    r.host.assign(kl.host);
    r.ident.assign(kl.ident);
  };
  const double diff = *wall - *boot;
  // The event's host: the line's own, else the source's (make_event; apply_stamp likewise).
  // (The last host's runs are kept at hand: a file's lines are mostly one host's.)
  const std::string_view host = kl.host.empty() ? std::string_view(ctx_.host) : kl.host;
  if (last_anchor_runs_ == nullptr || host != last_anchor_host_) {
    last_anchor_host_.assign(host);
    last_anchor_runs_ = &anchors_[last_anchor_host_];
  }
  auto& runs = *last_anchor_runs_;
  if (runs.empty() || source == "rtc" || runs.back().source != source ||
      (std::fabs(diff - runs.back().diff) > kAnchorJump && runs.size() < kMaxAnchorRuns)) {
    runs.push_back({source, {}, diff, 1});
    keep(runs.back().best);
    return;
  }
  AnchorRun& run = runs.back();
  ++run.records;
  if (diff < run.diff) {
    keep(run.best);
    run.diff = diff;
  }
}

KernelLine KernelLogParser::AnchorRun::Record::stamp() const {
  KernelLine kl = line;
  kl.ts_raw = ts_raw;
  kl.host = host;
  kl.ident = ident;
  return kl;
}

core::Event KernelLogParser::anchor_event(const AnchorRun& run) const {
  const AnchorRun::Record& r = run.best;
  core::Event ev = ctx_.make_event(r.seg_line);
  if (!r.rtc) {
    apply_stamp(r.stamp(), ev);
  } else {
    if (!r.host.empty()) ev.host = r.host;
    ev.ts = r.wall;
    ev.ts_kind = core::TsKind::wall;
    ev.ts_raw = std::to_string(static_cast<std::int64_t>(r.wall));
    ev.set_number("boot_ts", r.boot);
  }
  ev.set("anchor", std::string(run.source));
  return ev;
}

void KernelLogParser::emit_anchors() {
  for (auto& [host, runs] : anchors_) {
    for (auto& run : runs) {
      core::Event e = anchor_event(run);
      e.kind = std::string(core::kind::kLog);
      e.rule = std::string(core::parser_rule::kKernelClockAnchor);
      e.severity = core::Severity::debug;
      e.set_int("records", run.records);
      const std::string source(run.source);
      e.message = source == "rtc"
                      ? std::string("clock anchor: the kernel set the system clock from the RTC at this boot stamp")
                      : fmt::format("clock anchor: {} kernel record{} carry both a wall-clock stamp and the kernel's "
                                    "boot stamp ({})",
                                    run.records, run.records == 1 ? "" : "s", source);
      ctx_.sink->add_event(e);
    }
  }
  anchors_.clear();
  last_anchor_runs_ = nullptr;
}

void KernelLogParser::line(std::int64_t seg_line, std::string_view raw, LiteralHit hit, bool known_stamped) {
  // A routine dmesg line (the block scan found no signal literal or marker in it) while no
  // report, kmsg record or run of driver lines is open changes nothing: it opens no block, makes
  // no event, ends no run and anchors no clock. Most lines of a big dmesg are this, and of a
  // `dmesg -T`: a wall stamp alone anchors no clock either (no boot stamp beside it).
  // Nor does any other such line that cannot hold what a record without a literal still acts on
  // (may_carry_state): a syslog / journal line of a host's daemons, a wall-stamped kernel line.
  if (hit == LiteralHit::no && blocks_.empty() && !prev_kmsg_ && falls_.idle() &&
      (known_stamped || starts_with_boot_stamp(raw) || starts_with_ctime_wall_stamp(raw) || !may_carry_state(raw)))
    return;
  KernelLine kl = parse_kernel_line(raw, ctx_.year_hint);
  program_clock_.adopt(kl);
  bool after_kmsg = prev_kmsg_;
  prev_kmsg_ = kl.kmsg || (after_kmsg && is_kmsg_dict_line(raw));
  if (after_kmsg && is_kmsg_dict_line(raw)) return;
  // Such a line that does carry a stamp pair (every kern.log line: the kernel's boot stamp
  // quoted after the wall one) only anchors the clock: record() would find no block to feed or
  // open, no signal to try and no driver run to end.
  if (hit == LiteralHit::no && blocks_.empty() && falls_.idle()) {
    note_anchor(seg_line, kl);
    return;
  }
  record(seg_line, raw, kl, hit);
}

void KernelLogParser::record(std::int64_t seg_line, std::string_view raw, const KernelLine& kl, LiteralHit hit) {
  hit_ = hit;
  record_line(seg_line, raw, kl);
  hit_ = LiteralHit::unknown;
}

void KernelLogParser::record_line(std::int64_t seg_line, std::string_view raw, const KernelLine& kl) {
  note_anchor(seg_line, kl);
  // A line with neither stamp nor host may be the terminal-wrapped tail of the previous
  // host's task-table row; otherwise lines group by their own host.
  bool bare = kl.host.empty() && kl.ts_kind == core::TsKind::none && !kl.relative && !kl.kmsg;
  std::string key(bare ? last_key_ : std::string(kl.host));
  if (auto it = blocks_.find(key); it != blocks_.end() && it->second.wants_continuation()) {
    if (it->second.continue_row(seg_line, raw, kl)) return;
  }
  if (bare) key.clear();
  if (kl.message.find_first_not_of(" \t") == std::string_view::npos) return;

  if (!kl.kernel) {  // systemd[1]:, earlyoom[812]:, kubelet[…]: in the same file
    signals(seg_line, kl, false);
    return;
  }
  if (auto it = blocks_.find(key); it != blocks_.end()) {
    OomBlock& block = it->second;
    if (!block.stale(kl) && block.lines() < kMaxBlockLines) {
      Feed f = block.feed(seg_line, kl);
      if (f != Feed::rejected) {
        last_key_ = key;
        if (f == Feed::absorbed) signals(seg_line, kl, true);
        return;
      }
    }
    block.finish(ctx_);
    blocks_.erase(it);
  }
  // A line the block scan found no literal in holds no opener word either (the kernel markers
  // hold them all), where its message is its own bytes: opens_block's word pass is skipped.
  const std::less_equal<const char*> before;  // (a total order on pointers)
  const bool message_of_raw =
      before(raw.data(), kl.message.data()) && before(kl.message.data() + kl.message.size(), raw.data() + raw.size());
  if (!(hit_ == LiteralHit::no && message_of_raw) && opens_block(kl.message)) {
    OomBlock block;
    block.feed(seg_line, kl);
    blocks_.emplace(key, std::move(block));
    last_key_ = key;
    return;
  }
  signals(seg_line, kl, false);
}

void KernelLogParser::finish() {
  for (auto& [host, block] : blocks_) block.finish(ctx_);
  blocks_.clear();
  falls_.finish(ctx_);
  emit_anchors();
}

/// Runs the line signals. Inside an OOM block only non-OOM kinds are kept (an Xid printed
/// in the middle of a report is still an Xid; the report itself is the block's event).
void KernelLogParser::signals(std::int64_t seg_line, const KernelLine& kl, bool inside_block) {
  if (ctx_.signals == nullptr || ctx_.sink == nullptr) return;
  std::string_view msg = kl.message;
  while (!msg.empty() && (msg.back() == ' ' || msg.back() == '\t')) msg.remove_suffix(1);
  if (hit_ == LiteralHit::no && msg.find("NVRM: ") == std::string_view::npos) {
    // The block scan found no signal literal in the line (the message is part of it): no signal
    // matches, so no event is built; a line that is not the driver's still ends a run of them.
    static const core::Event kUnused;
    std::vector<core::Event> none;
    falls_.line(seg_line, msg, kUnused, none, ctx_);
    return;
  }
  core::Event base = ctx_.make_event(seg_line);
  apply_stamp(kl, base);
  base.message = std::string(msg);
  std::vector<core::Event> events = events_from_signals(base, msg, ctx_);
  falls_.line(seg_line, msg, base, events, ctx_);  // one Xid 79 per GPU fall
  for (auto& ev : events) {
    if (inside_block && (ev.kind == core::kind::kKernelOom || ev.kind == core::kind::kOomKill)) continue;
    ctx_.sink->add_event(ev);
  }
}

}  // namespace kernel

const std::vector<std::string>& kernel_log_markers() {
  // What a line needs beyond a signal literal to make the parser do anything but read its stamp:
  // open an OOM report, be a driver line (a run of them is one GPU's fall), or anchor the clock
  // by the RTC (rtc_epoch).
  static const std::vector<std::string> kMarkers = [] {
    std::vector<std::string> words = kernel::block_opener_words();
    words.insert(words.end(), {"NVRM: ", std::string(kernel::kRtcClockKey)});
    return text::hand_written_literals(words);
  }();
  return kMarkers;
}

void parse_kernel_log(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  kernel::KernelLogParser parser(ctx);
  std::int64_t n = 0;
  // The log is scanned once, as a block, for every signal literal and marker (LiteralHits):
  // lines without one build no event and try no signal. A line with colour codes is read
  // without them, which may join a literal they split, so it keeps the per-line matching.
  LiteralHits hits(text, ctx, kKernelLogHit, kernel_log_markers());
  const bool ansi = text::block_has_ansi(text, ctx.rare);
  std::vector<std::string_view> storage;
  for (std::string_view raw : ctx.lines_of(text, storage)) {
    ++n;
    if (ansi && text::has_ansi(raw)) {
      std::string clean = text::strip_ansi(raw);
      parser.line(n, clean);
      continue;
    }
    const auto k = static_cast<std::size_t>(n - 1);
    parser.line(n, raw, hits.at(k, raw, raw.size()), hits.known_boot_stamped(k));
  }
  parser.finish();
}

}  // namespace culprit::ingest
