// The kernel-log parser (dmesg in every style, kern.log / syslog, journalctl short*, /dev/kmsg,
// console captures): peels transport prefixes (kernel_stamp), groups the lines of each kernel
// OOM report per host into one structured event (kernel_oom_report), and runs the line signals
// (Xid, segfault, systemd-oomd, earlyoom, …) on every other line (signal_events).
#include <map>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/signal_events.hpp"
#include "kernel_oom_report.hpp"
#include "kernel_stamp.hpp"

namespace culprit::ingest {
namespace {

using kernel::Feed;
using kernel::KernelLine;
using kernel::OomBlock;

constexpr std::int64_t kMaxBlockLines = 1 << 22;  // 4M: past 10^6 task rows; memory stays bounded by kMaxTasks

class KernelLogParser {
 public:
  explicit KernelLogParser(ParseContext& ctx) : ctx_(ctx) {}

  void line(std::int64_t seg_line, std::string_view raw) {
    KernelLine kl = kernel::parse_kernel_line(raw, ctx_.year_hint);
    bool after_kmsg = prev_kmsg_;
    prev_kmsg_ = kl.kmsg || (after_kmsg && kernel::is_kmsg_dict_line(raw));
    if (after_kmsg && kernel::is_kmsg_dict_line(raw)) return;

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
    if (kernel::opens_block(kl.message)) {
      OomBlock block;
      block.feed(seg_line, kl);
      blocks_.emplace(key, std::move(block));
      last_key_ = key;
      return;
    }
    signals(seg_line, kl, false);
  }

  void finish() {
    for (auto& [host, block] : blocks_) block.finish(ctx_);
    blocks_.clear();
  }

 private:
  /// Runs the line signals. Inside an OOM block only non-OOM kinds are kept (an Xid printed
  /// in the middle of a report is still an Xid; the report itself is the block's event).
  void signals(std::int64_t seg_line, const KernelLine& kl, bool inside_block) {
    if (ctx_.signals == nullptr || ctx_.sink == nullptr) return;
    std::string_view msg = kl.message;
    while (!msg.empty() && (msg.back() == ' ' || msg.back() == '\t')) msg.remove_suffix(1);
    core::Event base = ctx_.make_event(seg_line);
    kernel::apply_stamp(kl, base);
    base.message = std::string(msg);
    for (auto& ev : events_from_signals(base, msg, ctx_)) {
      if (inside_block && (ev.kind == core::kind::kKernelOom || ev.kind == core::kind::kOomKill)) continue;
      ctx_.sink->add_event(ev);
    }
  }

  ParseContext& ctx_;
  std::map<std::string, OomBlock> blocks_;
  std::string last_key_;
  bool prev_kmsg_ = false;
};

}  // namespace

void parse_kernel_log(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  KernelLogParser parser(ctx);
  std::int64_t n = 0;
  for (std::string_view raw : text::split_lines(text)) {
    ++n;
    if (text::has_ansi(raw)) {
      std::string clean = text::strip_ansi(raw);
      parser.line(n, clean);
    } else {
      parser.line(n, raw);
    }
  }
  parser.finish();
}

}  // namespace culprit::ingest
