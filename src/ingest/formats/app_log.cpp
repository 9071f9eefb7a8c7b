// The application-log parser: worker / launcher / serving-engine output (formats.md Parts 3–5).
// Each line is peeled (line_prefix), routed by writer to an open traceback (traceback), to an
// open torchrun failure summary (torchrun_block), to the table of memory users that Ray's
// memory monitor prints after its kill (ray_memory_table), or scanned by the line signals;
// allocator OOM messages are read in full (torch_oom). Pids named by the job's own log become
// job process sightings.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include "culprit/core/job_evidence.hpp"
#include "culprit/core/parser_rules.hpp"
#include "culprit/core/size.hpp"
#include "culprit/core/time.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/literal_set.hpp"
#include "culprit/text/signal_set.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/text_hash.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/formats/pid_words.hpp"
#include "ingest/formats/ray_memory_table.hpp"
#include "ingest/formats/torch_oom.hpp"
#include "ingest/formats/torchrun_block.hpp"
#include "ingest/formats/traceback.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {

const std::vector<std::string>& fast_path_markers() {
  // Keep in step with sight_message_pids() and the torchrun block: their anchors are markers.
  static const std::vector<std::string> kMarkers = [] {
    std::vector<std::string> markers = {
        "Traceback", "rror",     "CRITICAL", "atal",     "xception",     "FAILED", "Root Cause",
        "\xe2\x95\xad", "exitcode", "Killed",   "ignal",    "│",      "Failures:",
        "process ", "(pid",     "spawned",  "out of memory"};
    // c10's glog header at error level or above (line_prefix.cpp, layer_glog_bracket): `[E0412 `,
    // `[E409 `, the old `[E ProcessGroupNCCL.cpp:474]`, and F and C likewise. Not a bare `[E`:
    // markers compare case-folded, and `[engine.py:212]` (vLLM's logger) is no error.
    for (const char level : {'E', 'F', 'C'}) {
      markers.push_back(std::string{'[', level, ' '});
      for (char digit = '0'; digit <= '9'; ++digit) markers.push_back(std::string{'[', level, digit});
    }
    return text::hand_written_literals(markers);  // `process ` finds `process`; `[E ` stays
  }();
  return kMarkers;
}

namespace {

// The words skippable() asks of a line it would skip: whether it names a process.
constexpr std::string_view kNcclWord = "NCCL";
constexpr std::string_view kTorchPath = "torch/";

}  // namespace

const std::vector<std::string>& process_words() {
  // Not `pid`: it is in every line of a worker-prefixed log, and a hit a line costs the pass more
  // than the search skippable() makes for it.
  static const std::vector<std::string> kWords = {std::string(kNcclWord), std::string(kTorchPath)};
  return kWords;
}

namespace {

using Sv = std::string_view;

/// Longer lines are cut before peeling and scanning (a bound on work per line, not on input).
constexpr std::size_t kMaxLineBytes = 64 * 1024;
/// Open tracebacks kept at once (one per writer); the oldest is closed beyond this.
constexpr std::size_t kMaxOpenTracebacks = 512;
/// How many lines after a user-space OOM kill a Ray memory-users table may start (its header): the
/// kill's message, a wrapped line, a blank, then `PID  MEM  COMMAND`.
constexpr std::int64_t kRayTableReach = 4;
/// Lines the fast path peels anyway, at a source's start, looking for its first full date (a
/// year-less stamp takes its year from one): a bound on the extra work in a log that has none.
constexpr std::int64_t kYearProbeLines = 64;
/// How far from an unstamped event a stamped line is kept as a clock mark (core::parser_rule::
/// kClockMark), in lines: store/clock.cpp dates the event from marks this near. Marks per source
/// are capped: a log of unstamped errors between stamped lines must not double its rows.
constexpr std::int64_t kClockMarkReach = 50;
constexpr std::int64_t kMaxClockMarks = 2000;
/// Plain error lines kept as `log` events per source (signal events are never capped): a log
/// that repeats one error a million times must not become a million rows.
constexpr std::int64_t kMaxLogEvents = 20000;

// Fills what `p` lacks (writer identity, time) from `fallback` — a traceback's first line.
void merge_missing(PeeledLine& p, const PeeledLine& fallback) {
  if (p.host.empty()) p.host = fallback.host;
  if (!p.pid && fallback.pid) {
    p.pid = fallback.pid;
    p.pid_evidence = fallback.pid_evidence;
  }
  if (!p.rank) p.rank = fallback.rank;
  if (!p.local_rank) p.local_rank = fallback.local_rank;
  if (!p.srun_task) p.srun_task = fallback.srun_task;
  if (!p.tp_rank) p.tp_rank = fallback.tp_rank;
  if (!p.dp_rank) p.dp_rank = fallback.dp_rank;
  if (!p.pp_rank) p.pp_rank = fallback.pp_rank;
  if (!p.ep_rank) p.ep_rank = fallback.ep_rank;
  if (!p.cuda_dev) p.cuda_dev = fallback.cuda_dev;
  if (p.proc_name.empty()) p.proc_name = fallback.proc_name;
  if (p.time.kind == core::TsKind::none) p.time = fallback.time;
  if (!p.severity) p.severity = fallback.severity;
}

// Event kinds whose pid is a victim chosen by someone else, not evidence of the job's own pid.
bool victim_kind(Sv kind) {
  return kind == core::kind::kKernelOom || kind == core::kind::kOomKill ||
         kind == core::kind::kUserspaceOomKill || kind == core::kind::kContainerOom;
}

// Reads the digits after `anchor` in `s`; nullopt when absent.
std::optional<std::int64_t> pid_after(Sv s, Sv anchor, std::size_t* where = nullptr) {
  const std::size_t pos = s.find(anchor);
  if (pos == Sv::npos) return std::nullopt;
  std::size_t i = pos + anchor.size();
  const std::size_t start = i;
  std::int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 10) v = v * 10 + (s[i++] - '0');
  if (i == start) return std::nullopt;
  if (where) *where = i;
  return v;
}

/// How far into a line a worker's `(… pid=N)` prefix may reach.
constexpr std::size_t kPidPrefixBytes = 160;

/// The `(Name … pid=N)` prefix a worker prints before each line, or empty: colour codes and all,
/// up to the `)` after the first `pid=` within the line's first kPidPrefixBytes.
Sv worker_prefix(Sv raw) {
  const Sv head = raw.substr(0, kPidPrefixBytes);
  const std::size_t at = text::find(head, "pid=");
  const std::size_t close = at == Sv::npos ? Sv::npos : head.find(')', at);
  return close == Sv::npos ? Sv() : raw.substr(0, close + 1);
}

/// The writer's prefix `raw` starts with, or empty: `worker` (its worker_prefix) where it has
/// one, else NCCL_DEBUG's `host:pid:tid [dev] `. `nccl_word` false: the line holds no `NCCL`
/// (the input's pass said so), so it has no such tag either — NCCL's debug.cc prints `NCCL INFO`,
/// `NCCL WARN` or `NCCL TRACE` after every tag (formats.md §3.4) — and none is looked for.
Sv pid_prefix(Sv raw, Sv worker, bool nccl_word = true) {
  if (!worker.empty()) return worker;
  return nccl_word ? raw.substr(0, nccl_prefix_length(raw)) : Sv();
}
Sv pid_prefix(Sv raw) { return pid_prefix(raw, worker_prefix(raw)); }

class AppLogParser {
 public:
  /// `text`: all the parser will read, whose pasted escapes (`^[[`) are looked for once here.
  AppLogParser(ParseContext& ctx, PeelOptions options, Sv text)
      : ctx_(ctx), options_(options), caret_escapes_(ctx.rare.may_hold('^') && text.find("^[[") != Sv::npos),
        may_escape_(ctx.rare.may_hold_control()), pid_words_(text) {
    options_.plain = !may_escape_ && !caret_escapes_;
  }

  /// `process_word`: false where the input's pass found no process word (process_words) in it.
  void line(std::int64_t seg, Sv raw, LiteralHit hit = LiteralHit::unknown, bool process_word = true);
  void finish();

 private:
  bool skippable(Sv raw, LiteralHit hit, bool process_word) const;
  struct Open {
    std::unique_ptr<TracebackBuilder> builder;
    PeeledLine exc_peel;  // prefixes of the latest exception line
    bool prefixed_body = false;  // its writer prefixes every line: a bare line is someone else's
    std::set<std::string, std::less<>> frame_signals{};  // frame-scope signals that already matched it
  };

  void route(std::int64_t seg, PeeledLine& p, Sv msg);
  /// The stamp of line seg - 1, for a bare traceback opening at line seg (Python's
  /// logger.exception): that line's own, where it was read, or where the fast path skipped it,
  /// its stamp peeled now; `none` where it had none. Asked only where a traceback opens, not
  /// before every line after a skipped one (one peel more for each event of a log).
  PeeledTime previous_stamp(std::int64_t seg, const PeeledTime& none) const;
  void handle(std::int64_t seg, const PeeledLine& p, Sv message, bool log_event);
  void handle_frame(std::int64_t seg, const PeeledLine& p, Sv message, Open& open);
  void close_traceback(const std::string& key);
  void emit_traceback(const Traceback& tb, const PeeledLine& exc_peel);
  void end_block();
  void emit_failure(const TorchrunFailure& f);
  void end_ray_table();
  void push(core::Event& e, const PeeledLine& p, Sv message);
  void place(const PeeledLine& p, core::Event& e) const;
  int year_for(const PeeledTime& t) const;
  void note_dated(const PeeledTime& t, std::int64_t seg);
  void clock_mark(std::int64_t seg, const PeeledLine& p);
  void sight(const std::string& host, std::int64_t pid, std::optional<double> ts, std::string evidence);
  void sight_message_pids(const core::Event& base, Sv message);
  std::string evidence_for(const core::Event& e, const PeeledLine& p, Sv message) const;

  ParseContext& ctx_;
  PeelOptions options_;
  std::map<std::string, Open> open_;
  std::string last_key_;
  std::optional<TorchrunFailureBlock> block_;
  std::string entrypoint_;
  std::int64_t title_line_ = -100;
  // Ray's memory-users table being read, the prefixes of its header line, and the last line
  // that made a user-space OOM kill event (segment and absolute): a table belongs to it.
  std::optional<RayMemoryTable> ray_table_;
  PeeledLine ray_table_peel_;
  std::int64_t kill_seg_ = -100;
  std::int64_t kill_line_ = 0;
  std::set<std::pair<std::string, std::int64_t>> sighted_;
  std::set<std::tuple<std::string, std::int64_t, bool>> oom_sighted_;
  bool noted_long_ = false;
  std::int64_t log_events_ = 0;
  PeeledTime prev_time_;          // the stamp of the previous line, if it had one
  // The source's latest full date (a stamp with its year) seen so far, and its line: year-less
  // stamps (glog `E0515`, vLLM `04-09`, syslog `May 15`) after it take their year from it.
  std::optional<PeeledTime> dated_;
  std::int64_t dated_seg_ = 0;
  std::int64_t year_probes_ = 0;  // skipped lines peeled for a first full date (kYearProbeLines)
  // Skipped lines to be peeled for a first full date, in order, when a date is next read or
  // written (settle_year_probes): a source whose events are all on its first lines, or that has
  // none (a small file of routine lines), reads no date, and its probes are never peeled.
  std::vector<std::pair<Sv, std::int64_t>> pending_year_probes_;
  void settle_year_probes();
  // Clock marks: until which line the first stamped one after an unstamped event is looked for.
  std::int64_t marked_seg_ = 0;       // the last line kept as a mark
  std::int64_t mark_until_ = 0;       // look for a stamped line up to this input line (0: none)
  std::int64_t marks_ = 0;
  std::int64_t stamped_pushed_ = 0;   // stamped events pushed so far (a line that made one needs no mark)
  std::int64_t prev_time_line_ = 0;
  // The `(VllmWorker rank=0 pid=3300)`-style prefixes already sighted (pid_prefix): one per rank
  // of a log that interleaves them, up to kMaxSightedPrefixes.
  // Hashed, looked up by a view of the line (the transparent hash and std::equal_to<>): a log
  // that interleaves its ranks looks one up a line, where an ordered set compared each line
  // with several prefixes.
  std::unordered_set<std::string, text::TextHash, std::equal_to<>> sighted_prefixes_;
  mutable Sv last_sighted_;  // the `pid=` prefix last looked up and sighted (an element of sighted_prefixes_)
  static constexpr std::size_t kMaxSightedPrefixes = 256;
  bool caret_escapes_;            // the text holds a pasted `^[[` somewhere (most never do)
  bool may_escape_;               // the census of the text leaves an ESC possible (no census: yes)
  mutable PidWords pid_words_;    // names_pid for the text's lines, in order (skippable)
  Sv read_line_;                  // the last line read (not skipped): where a message's bytes are found
  Sv skipped_raw_;                // the last line the fast path skipped (its stamp is peeled lazily)
  std::int64_t skipped_seg_ = 0;
};


// The fast path: most lines of a big worker log are routine (throughput, request logs). A line
// is skipped without peeling when no traceback or failure summary is open, no signal could
// match it (the literal prefilter), it holds no failure marker, and any pid prefix it carries
// repeats one already sighted. Skipping never drops an event: every kind of event needs a
// signal candidate, a traceback, a failure block, a new pid, or (Ray's table of memory users)
// a user-space OOM kill a few lines before, after which line() skips nothing. `process_word`
// false: the line holds no process word (the input's pass said so), so the searches for one
// below would all fail.
bool AppLogParser::skippable(Sv raw, LiteralHit hit, bool process_word) const {
  if (!open_.empty() || block_ || ray_table_) return false;
  if (!ctx_.signals || !ctx_.signals->prefilter()) return false;
  if (hit == LiteralHit::yes) return false;
  if (hit == LiteralHit::unknown) {
    if (ctx_.signals->candidate(raw)) return false;
    // One pass for all markers (case folded: a false yes only costs the slow path).
    static const text::LiteralSet kMarkers(fast_path_markers());
    if (kMarkers.any(raw)) return false;
  }
  // A colour code inside the text could split a literal the prefilter looks for; only a
  // sighted prefix's own codes and the reset code right after it are allowed.
  // A line that starts with the worker prefix sighted last has that prefix (worker_prefix finds
  // the same first `pid=` and `)` in the same bytes) and it is sighted: a run of one writer's
  // lines looks it up once. (Not an NCCL tag: a `pid=…)` after one would win there.)
  Sv prefix;
  bool sighted = false;
  bool pid_word = false;  // the line holds `pid` or `PID` (asked where no sighted prefix answers first)
  if (!last_sighted_.empty() && text::starts_with(raw, last_sighted_)) {
    prefix = raw.substr(0, last_sighted_.size());
    sighted = true;
  } else {
    pid_word = pid_words_.in(raw);
    const Sv worker = pid_word ? worker_prefix(raw) : Sv();  // a worker prefix holds `pid=`
    prefix = pid_prefix(raw, worker, process_word);
    const auto it = prefix.empty() ? sighted_prefixes_.end() : sighted_prefixes_.find(prefix);
    sighted = it != sighted_prefixes_.end();
    if (sighted && !worker.empty()) last_sighted_ = *it;  // a sighted prefix stays sighted
  }
  std::size_t text = sighted ? prefix.size() : 0;  // where the line's own text starts
  if (sighted && text < raw.size() && raw[text] == '\x1b') {  // the prefix's reset code, to its `m`
    const std::size_t m = raw.find('m', text);
    if (m == Sv::npos) return false;
    text = m + 1;
  }
  if ((may_escape_ && raw.find('\x1b', text) != Sv::npos) || (caret_escapes_ && text::contains(raw, "^[[")))
    return false;
  // A glog header names a process only in torch's formatter (its path under `torch/`: the
  // number is the pid; glog / absl print a thread id, line_prefix.cpp, layer_glog), and at E, F
  // or C it makes the line an error line (a `log` event) without a marker.
  const bool glog = raw.size() > 5 && std::string_view("IWEDCF").find(raw[0]) != Sv::npos && raw[1] >= '0' &&
                    raw[1] <= '9' &&
                    (std::string_view("ECF").find(raw[0]) != Sv::npos || (process_word && text::contains(raw, kTorchPath)));
  // NCCL names its writer's pid in a tag: at the line's start it is a prefix like a worker's;
  // anywhere else the line is peeled, as every line naming NCCL is.
  if (prefix.empty() && process_word && text::contains(raw, kNcclWord)) return false;
  // A line naming a pid (in its words or its writer's prefix) is skipped only behind a prefix
  // already sighted: its process is known.
  if (!prefix.empty() || glog || pid_word) return sighted;
  // A line after which a bare traceback could open takes this line's stamp: kept lazily below.
  return true;
}

void AppLogParser::line(std::int64_t seg, Sv raw, LiteralHit hit, bool process_word) {
  if (raw.size() > kMaxLineBytes) {
    if (!noted_long_) {
      ctx_.note("long-line", seg, "line longer than 64 KiB; only its start is scanned");
      noted_long_ = true;
    }
    raw = raw.substr(0, kMaxLineBytes);
  }
  // Lines just after a user-space OOM kill are all read: a Ray memory-users table may follow,
  // whose rows hold no literal or marker.
  if (seg - kill_seg_ > kRayTableReach && skippable(raw, hit, process_word)) {
    skipped_raw_ = raw;
    skipped_seg_ = seg;
    if (mark_until_ > 0 && ctx_.absolute_line(seg) <= mark_until_) {  // the first stamped line after an unstamped event
      settle_year_probes();
      const PeeledLine skipped = peel_line(raw, options_);
      note_dated(skipped.time, seg);
      if (skipped.time.kind != core::TsKind::none) clock_mark(seg, skipped);
    } else if (!dated_ && year_probes_ + static_cast<std::int64_t>(pending_year_probes_.size()) < kYearProbeLines) {
      pending_year_probes_.emplace_back(raw, seg);  // peeled if a date is read later
    }
    return;
  }
  settle_year_probes();
  read_line_ = raw;
  PeeledLine p = peel_line(raw, options_);
  const Sv msg = p.message;
  // A year-less stamp: a full date on a line the fast path skipped since the last one known is
  // newer (one peel per such line, not per skipped line); a year rolls over from it (Dec → Jan).
  if (p.time.kind == core::TsKind::wall_no_year && skipped_seg_ > dated_seg_ && skipped_seg_ < seg)
    note_dated(peel_line(skipped_raw_, options_).time, skipped_seg_);
  note_dated(p.time, seg);
  if (p.pid && sighted_prefixes_.size() < kMaxSightedPrefixes) {
    // Remember the writer's prefix (with its colour codes) so repeats can skip peeling.
    if (const Sv prefix = pid_prefix(raw); !prefix.empty()) sighted_prefixes_.emplace(prefix);
  }
  // A traceback opened on a bare line right after a stamped one (Python's logger.exception)
  // takes that stamp (in route()); remember this line's own stamp for the next one.
  const PeeledTime own_time = p.time;
  const std::int64_t stamped_before = stamped_pushed_;
  route(seg, p, msg);
  if (own_time.kind != core::TsKind::none) {
    prev_time_ = own_time;
    prev_time_line_ = seg;
    // The first stamped line after an unstamped event; one whose own event carries it needs none.
    if (mark_until_ > 0 && ctx_.absolute_line(seg) <= mark_until_) {
      if (stamped_pushed_ == stamped_before) clock_mark(seg, p);
      mark_until_ = 0;
    }
  }
}

void AppLogParser::route(std::int64_t seg, PeeledLine& p, Sv msg) {
  if (p.pid) {
    // The same host choice as apply_peeled: the line's own host unless it names the source's.
    const std::string& host = !p.host.empty() && !same_host(p.host, ctx_.host) ? p.host : ctx_.host;
    sight(host, *p.pid, stamp_epoch(p.time, year_for(p.time)), p.pid_evidence);
  }

  // A writer's open traceback. A bare line (no prefix at all) continues the most recent one:
  // SGLang prints the traceback text unprefixed after its `[… TP1] … Traceback` line. Not when
  // that traceback's body came prefixed (`[rank2]:` on every line): a bare line between them is
  // another writer's (the launcher's, rank 0's progress) and must not cut it short.
  std::string key = p.key();
  if (key.empty() && p.layers == 0 && !open_.count(key))
    if (auto last = open_.find(last_key_); last != open_.end() && !last->second.prefixed_body) key = last_key_;
  if (auto it = open_.find(key); it != open_.end()) {
    // A line with a logger header of its own (another log statement) is never traceback text;
    // lines repeating the traceback's own header (vLLM's NewLineFormatter) are.
    const PeeledLine& start = it->second.builder->start();
    const bool foreign_header = p.header && (!start.header || p.logger != start.logger ||
                                             p.severity != start.severity);
    const auto step = foreign_header ? TracebackBuilder::Step::rejected
                                     : it->second.builder->offer(seg, msg);
    if (step != TracebackBuilder::Step::rejected) {
      last_key_ = key;
      if (p.layers > 0 && !key.empty()) it->second.prefixed_body = true;
      if (step == TracebackBuilder::Step::taken) {
        handle_frame(seg, p, msg, it->second);
      } else {
        it->second.exc_peel = p;
        PeeledLine merged = p;
        merge_missing(merged, it->second.builder->start());
        handle(seg, merged, msg, false);
      }
      return;
    }
    close_traceback(key);
  }

  if (block_) {
    const auto offer = block_->offer(seg, msg);
    if (offer == TorchrunFailureBlock::Offer::consumed) return;
    if (offer == TorchrunFailureBlock::Offer::pass_through) {
      handle(seg, p, msg, false);
      return;
    }
    end_block();
  }
  if (ray_table_) {
    if (ray_table_->offer(seg, msg) == RayMemoryTable::Offer::consumed) return;
    end_ray_table();
  }
  if (seg - kill_seg_ <= kRayTableReach && RayMemoryTable::opens(msg)) {
    ray_table_.emplace(seg, msg);
    ray_table_peel_ = p;
    return;
  }
  if (TorchrunFailureBlock::opens(msg)) {
    block_.emplace(seg, msg, seg - title_line_ <= 3 ? entrypoint_ : std::string());
    return;
  }
  if (TorchrunFailureBlock::is_title(msg, &entrypoint_)) title_line_ = seg;

  std::size_t offset = 0;
  if (TracebackBuilder::opens(msg, &offset)) {
    const std::string own = p.key();
    if (open_.count(own)) close_traceback(own);
    if (offset > 0) handle(seg, p, msg.substr(0, offset), false);
    if (open_.size() >= kMaxOpenTracebacks) {
      auto oldest = std::min_element(open_.begin(), open_.end(), [](auto& a, auto& b) {
        return a.second.builder->first_line() < b.second.builder->first_line();
      });
      close_traceback(oldest->first);
    }
    if (p.time.kind == core::TsKind::none && p.layers == 0) p.time = previous_stamp(seg, p.time);
    open_[own] = Open{std::make_unique<TracebackBuilder>(seg, msg, p), PeeledLine{}};
    last_key_ = own;
    return;
  }
  handle(seg, p, msg, true);
}

PeeledTime AppLogParser::previous_stamp(std::int64_t seg, const PeeledTime& none) const {
  if (prev_time_line_ == seg - 1) return prev_time_;
  if (skipped_seg_ == seg - 1 && skipped_seg_ > prev_time_line_)
    if (PeeledTime skipped = peel_line(skipped_raw_, options_).time; skipped.kind != core::TsKind::none) return skipped;
  return none;
}

void AppLogParser::handle(std::int64_t seg, const PeeledLine& p, Sv message, bool log_event) {
  core::Event base = ctx_.make_event(seg);
  place(p, base);
  base.message = std::string(message);
  base.rule = "app_log";
  std::vector<core::Event> events = events_from_signals(base, message, ctx_, {}, read_line_);

  if (is_torch_oom(message)) {
    if (auto oom = parse_torch_oom(message)) {
      const bool has = std::any_of(events.begin(), events.end(),
                                   [](const core::Event& e) { return e.kind == core::kind::kCudaOom; });
      if (!has) {
        core::Event e = base;
        e.kind = core::kind::kCudaOom;
        e.severity = core::Severity::error;
        e.rule = "torch_oom";
        events.push_back(std::move(e));
      }
      bool reported = false;
      for (auto& e : events) {
        if (e.kind != core::kind::kCudaOom) continue;
        set_torch_oom_fields(*oom, e);
        if (!reported) report_torch_oom(*oom, e, ctx_, &oom_sighted_);
        reported = true;
      }
    }
  }
  if (events.empty() && log_event && p.severity && *p.severity >= core::Severity::error) {
    if (++log_events_ <= kMaxLogEvents) {
      base.kind = core::kind::kLog;
      events.push_back(base);
    } else if (log_events_ == kMaxLogEvents + 1) {
      ctx_.note("log-events-capped", seg, "more than 20000 error lines; later ones are not kept as log events");
    }
  }
  for (auto& e : events) {
    if (e.kind == core::kind::kUserspaceOomKill) {
      kill_seg_ = seg;
      kill_line_ = e.line;
    }
    push(e, p, message);
  }
  sight_message_pids(base, message);
}

// A traceback's body line (a frame, a quoted source line): only the signals of the frame scope
// (text::kTracebackFrameScope) read it, with the traceback's first line filling what its own
// prefixes lack; each such signal yields one event per traceback (its outermost frame: the
// first CUDA use is one fact however many frames show it). It never becomes a log event.
void AppLogParser::handle_frame(std::int64_t seg, const PeeledLine& p, Sv message, Open& open) {
  if (ctx_.signals == nullptr || !ctx_.signals->candidate(message)) return;
  PeeledLine merged = p;
  merge_missing(merged, open.builder->start());
  core::Event base = ctx_.make_event(seg);
  place(merged, base);
  base.message = std::string(message);
  base.rule = "app_log";
  std::vector<core::Event> events = events_from_signals(base, message, ctx_, text::kTracebackFrameScope);
  for (auto& e : events)
    if (open.frame_signals.insert(e.rule).second) push(e, merged, message);
}

std::string AppLogParser::evidence_for(const core::Event& e, const PeeledLine& p, Sv message) const {
  if (p.pid && e.pid && *p.pid == *e.pid && !p.pid_evidence.empty()) return p.pid_evidence;
  if (message.find("local_rank:") != Sv::npos || message.find("closing signal") != Sv::npos)
    return "torchrun";
  if (message.find("DataLoader worker") != Sv::npos) return "DataLoader worker";
  return "app log signal " + e.rule;
}

// Issue 37, finding 6: a log whose lines say `[2024-05-15 10:20:00,001]` and then `[E515 10:32:14…]`
// (c10's glog header, no year) is one log of one year; the year-less stamp takes the year that
// puts it nearest the source's latest full date before it (so Dec 31 → Jan 1 rolls over), and
// says so in `year_from_line` (clock alignment names the method). That beats --year, which the
// README gives for stamps "when no input gives one"; with neither, clock alignment decides.
int AppLogParser::year_for(const PeeledTime& t) const {
  if (t.kind != core::TsKind::wall_no_year || t.month == 0) return 0;
  if (!dated_) return ctx_.year_hint;
  const double ref = core::civil_to_epoch(dated_->year, dated_->month, dated_->day, 0, 0, dated_->seconds_of_day);
  int best = dated_->year;
  double best_gap = -1;
  for (int y = dated_->year - 1; y <= dated_->year + 1; ++y) {
    const double gap = std::fabs(core::civil_to_epoch(y, t.month, t.day, 0, 0, t.seconds_of_day) - ref);
    if (best_gap < 0 || gap < best_gap) {
      best = y;
      best_gap = gap;
    }
  }
  return best;
}

// The probes as if each had been peeled when its line was read: in order, until one gives a
// full date (after which none would have been made).
void AppLogParser::settle_year_probes() {
  for (const auto& [raw, seg] : pending_year_probes_) {
    if (dated_) break;
    ++year_probes_;
    note_dated(peel_line(raw, options_).time, seg);
  }
  pending_year_probes_.clear();
}

void AppLogParser::note_dated(const PeeledTime& t, std::int64_t seg) {
  if (t.kind != core::TsKind::wall || t.year == 0 || t.month == 0 || seg < dated_seg_) return;
  dated_ = t;
  dated_seg_ = seg;
}

// Issue 37, findings 6 and 16: a log's stamped lines that are no events (`[2024-05-15 10:18:31,001]
// [INFO] step 1200`) are all that dates a `[rank12]:` traceback before them. The first after an
// unstamped event (within kClockMarkReach lines, every one of them peeled) is kept as a clock
// mark: clock alignment dates the event by it, and its date is one of the host's.
void AppLogParser::clock_mark(std::int64_t seg, const PeeledLine& p) {
  mark_until_ = 0;
  if (!ctx_.sink || seg == marked_seg_ || p.time.kind == core::TsKind::none || ++marks_ > kMaxClockMarks) return;
  marked_seg_ = seg;
  core::Event e = ctx_.make_event(seg);
  place(p, e);
  e.kind = core::kind::kLog;
  e.severity = core::Severity::debug;
  e.rule = std::string(core::parser_rule::kClockMark);
  e.message = p.message.substr(0, 200);
  ctx_.sink->add_event(e);
}

// The line's prefixes into `e`, its year-less stamp placed by year_for().
void AppLogParser::place(const PeeledLine& p, core::Event& e) const {
  const int year = year_for(p.time);
  apply_peeled(p, e, year);
  if (year != 0 && dated_ && p.time.kind == core::TsKind::wall_no_year)
    e.set_int("year_from_line", ctx_.absolute_line(dated_seg_));
}

void AppLogParser::push(core::Event& e, const PeeledLine& p, Sv message) {
  if (e.ts_kind != core::TsKind::none) {
    ++stamped_pushed_;
  } else if (e.kind != core::kind::kCommand && e.kind != core::kind::kLog && marks_ < kMaxClockMarks) {
    // An unstamped failure: the first stamped line after it becomes a clock mark. (Not the one
    // before: which that is depends on the lines the fast path skipped, and a stamp before a
    // failure dates nothing — clock alignment uses only the next one.)
    mark_until_ = std::max(mark_until_, e.line_end + kClockMarkReach);
  }
  if (ctx_.sink) ctx_.sink->add_event(e);
  if (e.pid && !victim_kind(e.kind)) sight(e.host, *e.pid, e.ts, evidence_for(e, p, message));
}

void AppLogParser::sight(const std::string& host, std::int64_t pid, std::optional<double> ts,
                         std::string evidence) {
  if (!ctx_.sink || pid <= 0) return;
  if (!sighted_.emplace(host, pid).second) return;
  core::ProcessSighting s;
  s.host = host;
  s.pid = pid;
  s.ts = ts;
  s.job = true;
  s.evidence = std::move(evidence);
  ctx_.sink->add_process(s);
}

// Launcher lines that name a worker pid in their text (the line's own pid is the launcher's).
void AppLogParser::sight_message_pids(const core::Event& base, Sv message) {
  if (message.find("failed (exitcode: ") != Sv::npos) {
    if (auto pid = pid_after(message, "(pid: ")) sight(base.host, *pid, base.ts, "torchrun");
  }
  if (auto pid = pid_after(message, "Sending process ")) {
    if (message.find("closing signal") != Sv::npos) sight(base.host, *pid, base.ts, "torchrun");
  }
  if (auto pid = pid_after(message, "Unable to shutdown process ")) sight(base.host, *pid, base.ts, "torchrun");
  if (auto pid = pid_after(message, "SignalException: Process ")) sight(base.host, *pid, base.ts, "torchrun");
  if (auto pid = pid_after(message, "Killing subprocess ")) sight(base.host, *pid, base.ts, "DeepSpeed launcher");
  if (auto pid = pid_after(message, "Started engine process with PID "))
    sight(base.host, *pid, base.ts, core::job_evidence::kVllmEngineProcess);
  if (message.find(" spawned with command: ") != Sv::npos) {
    if (auto pid = pid_after(message, "process ")) sight(base.host, *pid, base.ts, "DeepSpeed launcher");
  }
  if (auto pid = pid_after(message, "DataLoader worker (pid ")) sight(base.host, *pid, base.ts, "DataLoader worker");
  std::size_t at = 0;
  if (auto pid = pid_after(message, "DataLoader worker (pid(s) ", &at)) {
    sight(base.host, *pid, base.ts, "DataLoader worker");
    while (at + 2 < message.size() && message.substr(at, 2) == ", ") {
      std::size_t next = 0;
      auto more = pid_after(message.substr(at), ", ", &next);
      if (!more) break;
      sight(base.host, *more, base.ts, "DataLoader worker");
      at += next;
    }
  }
}

void AppLogParser::close_traceback(const std::string& key) {
  auto it = open_.find(key);
  if (it == open_.end()) return;
  emit_traceback(it->second.builder->result(), it->second.exc_peel);
  open_.erase(it);
}

void AppLogParser::emit_traceback(const Traceback& tb, const PeeledLine& exc_peel) {
  PeeledLine peel = tb.start;
  merge_missing(peel, exc_peel);
  core::Event e = ctx_.make_event(tb.first_line);
  e.line_end = ctx_.absolute_line_end(tb.last_line);
  place(peel, e);
  e.kind = core::kind::kTraceback;
  e.severity = core::Severity::error;
  e.rule = "traceback";
  if (!tb.exc_text.empty()) {
    e.message = tb.exc_text;
    e.set("exc_type", tb.exc_type);
    if (!tb.exc_message.empty()) e.set("exc_message", tb.exc_message);
    e.set_int("exc_line", ctx_.absolute_line(tb.exc_line));
  } else {
    e.message = tb.innermost ? "Traceback (truncated) in " + tb.innermost->file + ", line " +
                                   std::to_string(tb.innermost->line)
                             : std::string("Traceback (truncated)");
  }
  if (tb.innermost) {
    e.set("frame_file", tb.innermost->file);
    if (tb.innermost->line > 0) e.set_int("frame_line", tb.innermost->line);
    if (!tb.innermost->func.empty()) e.set("frame_func", tb.innermost->func);
  }
  if (tb.innermost_own && tb.innermost && tb.innermost_own->file != tb.innermost->file) {
    e.set("own_frame_file", tb.innermost_own->file);
    if (tb.innermost_own->line > 0) e.set_int("own_frame_line", tb.innermost_own->line);
    if (!tb.innermost_own->func.empty()) e.set("own_frame_func", tb.innermost_own->func);
  }
  e.set_int("frames", tb.frames);
  if (tb.chained) e.set_int("chained", 1);
  if (tb.truncated) {
    e.set_int("truncated", 1);
    ctx_.note("traceback_truncated", tb.first_line,
              "Python traceback without its exception line (cut?); kept as a truncated traceback");
  }
  if (tb.rich) e.set_int("rich", 1);
  if (tb.ipython) e.set_int("ipython", 1);
  if (!tb.preamble.empty()) e.set("preamble", tb.preamble);
  push(e, peel, e.message);
}

void AppLogParser::end_block() {
  if (!block_) return;
  for (const auto& f : block_->finish()) emit_failure(f);
  block_.reset();
}

void AppLogParser::emit_failure(const TorchrunFailure& f) {
  core::Event e = ctx_.make_event(f.first_line);
  e.line_end = ctx_.absolute_line_end(f.last_line);
  if (!f.host.empty() && !same_host(f.host, e.host)) e.host = f.host;
  PeeledTime t;
  if (!f.time.empty() && read_iso_stamp(f.time, t) == f.time.size()) {
    e.ts_kind = core::TsKind::wall;
    e.ts_raw = f.time;
    e.ts = stamp_epoch(t, 0);
  }
  e.pid = f.pid;
  e.rank = f.rank;
  // A death by signal is `signal_exit`; a child that exited with a status (it raised: look for
  // its traceback) is an error `log` event, as rules/README.md defines the kinds.
  e.kind = f.signal ? core::kind::kSignalExit : core::kind::kLog;
  e.severity = core::Severity::error;
  e.rule = std::string(core::parser_rule::kTorchrunChildFailed);
  std::string msg = f.entrypoint.empty() ? std::string("torchrun child failed")
                                         : f.entrypoint + " failed";
  msg += f.root_cause ? " (root cause)" : "";
  if (f.rank) msg += ": rank " + std::to_string(*f.rank);
  if (f.local_rank) msg += " (local_rank: " + std::to_string(*f.local_rank) + ")";
  if (f.exitcode) msg += ", exitcode " + std::to_string(*f.exitcode);
  if (f.pid) msg += " (pid: " + std::to_string(*f.pid) + ")";
  if (!f.host.empty()) msg += " on " + f.host;
  if (!f.traceback.empty()) msg += ": " + f.traceback;
  e.message = msg;
  if (f.exitcode) e.set_int("exitcode", *f.exitcode);
  if (f.pid) e.set_int("pid", *f.pid);
  if (f.rank) e.set_int("rank", *f.rank);
  if (f.local_rank) e.set_int("local_rank", *f.local_rank);
  if (!f.host.empty()) e.set("host", f.host);
  e.set_int("root_cause", f.root_cause ? 1 : 0);
  e.set_int("failure_index", f.index);
  if (f.signal) e.set_int("signal", *f.signal);
  if (!f.signal_name.empty()) e.set("signal_name", f.signal_name);
  if (!f.error_file.empty()) e.set("error_file", f.error_file);
  if (!f.traceback.empty()) e.set("traceback", f.traceback);
  if (!f.entrypoint.empty()) e.set("entrypoint", f.entrypoint);
  if (ctx_.sink) ctx_.sink->add_event(e);
  if (f.pid) sight(e.host, *f.pid, e.ts, "torchrun");
}

// One `log` event for the table (rule parser_rule::kRayMemoryTable, tied to its kill by
// `kill_line`), with its largest row read (`top_*`: pid, bytes, command, class, name, label) and
// the next largest (`next_*`); and each row as a process sighting with its rss and command. Rows
// are never summed: each process's rss counts the object store's shared mapping again.
void AppLogParser::end_ray_table() {
  if (!ray_table_) return;
  const RayMemoryTable table = std::move(*ray_table_);
  ray_table_.reset();
  const auto& rows = table.rows();
  if (rows.empty() || !ctx_.sink) return;
  core::Event e = ctx_.make_event(table.first_line());
  e.line_end = ctx_.absolute_line_end(table.last_line());
  place(ray_table_peel_, e);
  e.pid.reset();  // the prefix's pid is the writer's, not a row's
  e.rank.reset();
  e.kind = core::kind::kLog;
  e.severity = core::Severity::info;
  e.rule = std::string(core::parser_rule::kRayMemoryTable);
  // Ray prints the rows largest first; the largest is looked for all the same (first on a tie).
  std::size_t top = 0;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].bytes > rows[top].bytes) top = i;
  std::optional<std::size_t> next;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (i != top && (!next || rows[i].bytes > rows[*next].bytes)) next = i;
  const RayProcessKind kind = classify_ray_command(rows[top].command);
  e.message = "Ray's memory monitor's largest memory users (" + std::to_string(rows.size()) + " listed): pid " +
              std::to_string(rows[top].pid) + ", " + core::format_size(rows[top].bytes) + ", " + kind.label;
  if (next) e.message += "; next pid " + std::to_string(rows[*next].pid) + ", " + core::format_size(rows[*next].bytes);
  e.set_int("kill_line", kill_line_);
  e.set_int("rows", static_cast<std::int64_t>(rows.size()));
  e.set_int("top_pid", rows[top].pid);
  e.set_int("top_bytes", rows[top].bytes);
  e.set("top_command", rows[top].command);
  e.set("top_class", std::string(ray_class_word(kind.cls)));
  e.set("top_name", kind.name);
  e.set("top_label", kind.label);
  if (next) {
    e.set_int("next_pid", rows[*next].pid);
    e.set_int("next_bytes", rows[*next].bytes);
  }
  ctx_.sink->add_event(e);
  for (const auto& row : rows) {
    const RayProcessKind k = classify_ray_command(row.command);
    core::ProcessSighting s;
    s.host = e.host;
    s.pid = row.pid;
    s.name = k.name;
    s.cmdline = row.command;
    s.rss = row.bytes;
    s.ts = e.ts;
    // A `ray::` worker is the job's; the daemons and other programs are only listed here.
    s.job = k.cls == RayProcessClass::worker;
    s.evidence = "Ray memory monitor";
    ctx_.sink->add_process(s);
  }
}

void AppLogParser::finish() {
  std::vector<std::pair<std::int64_t, std::string>> order;
  for (auto& [key, open] : open_) order.emplace_back(open.builder->first_line(), key);
  std::sort(order.begin(), order.end());
  for (const auto& [line, key] : order) close_traceback(key);
  end_block();
  end_ray_table();
}

// The host a torchrun failure summary names (`  host      : gpu-node-17.cluster.local`) when the
// text has summaries from exactly one host: torchrun prints it on the machine whose log this is,
// so it names the source's host when nothing else did. Empty when absent or ambiguous.
std::string torchrun_summary_host(Sv text) {
  if (text.find("Root Cause") == Sv::npos) return {};
  std::string host;
  for (std::size_t pos = text.find("host"); pos != Sv::npos; pos = text.find("host", pos + 4)) {
    // Only `^ +host *: value`: walk back over the indent (spaces only, so linear overall).
    std::size_t b = pos;
    while (b > 0 && text[b - 1] == ' ') --b;
    if (b == pos || (b > 0 && text[b - 1] != '\n' && text[b - 1] != '\r')) continue;
    std::size_t i = pos + 4;
    while (i < text.size() && text[i] == ' ') ++i;
    if (text.substr(i, 2) != ": ") continue;
    i += 2;
    std::size_t end = i;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r' && text[end] != ' ') ++end;
    const Sv value = text.substr(i, end - i);
    if (value.empty() || value.size() > 255 || value == "localhost" || value[0] == '<' ||
        value.substr(0, 4) == "127." || value == "0.0.0.0" || value.find(':') != Sv::npos)
      continue;  // not a machine name (config dumps, `<N/A>`)
    if (host.empty()) host = std::string(value);
    else if (host != value) return {};
  }
  return host;
}

}  // namespace

void parse_app_log(std::string_view text, ParseContext& ctx) {
  ParseContext local = ctx;
  if (local.host.empty()) local.host = torchrun_summary_host(text);
  std::vector<Sv> storage;
  const auto lines = ctx.lines_of(text, storage);
  const auto hosts = pdsh_hosts(lines);
  PeelOptions options;
  options.pdsh_hosts = &hosts;
  AppLogParser parser(local, options, text);
  std::int64_t seg = 0;
  // The log is scanned once, as a block, for every signal literal and marker (LiteralHits): the
  // lines with none (most of them) skip both per-line literal passes. The per-line checks look
  // at a line's first kMaxLineBytes only (line() cuts it).
  LiteralHits hits(text, ctx, kAppLogHit, fast_path_markers());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::size_t read = std::min(lines[k].size(), kMaxLineBytes);
    parser.line(++seg, lines[k], hits.at(k, lines[k], read), hits.may_hold_process_word(k, lines[k], read));
  }
  parser.finish();
}

}  // namespace culprit::ingest
