// The ingest pipeline for one input: normalisation (with one note per kind of change),
// binary/empty check, segmentation, one source row per segment, then the segment's parser (and
// for a `culprit run` job's output, its last lines: job_output_tail.hpp), all writing through a
// sink that enforces the run's event budget.
#include "culprit/ingest/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <tuple>

#include "culprit/core/job_output.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/amd_smi.hpp"
#include "ingest/formats/nvitop.hpp"
#include "ingest/formats/rocm_smi.hpp"
#include "ingest/job_output_tail.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/normalize.hpp"
#include "ingest/own_report.hpp"
#include "ingest/repair.hpp"

namespace culprit::ingest {
namespace {

/// Forwards to the real sink until the budget is spent; then drops events (and the OOM
/// reports that would point at them) and notes the first loss once per run. It remembers the
/// last line an event of its input reached: a job's output tail starts after it.
class BudgetSink final : public core::EventSink {
 public:
  BudgetSink(core::EventSink& inner, EventBudget* budget, const std::string& name, core::Diagnostics& diagnostics)
      : inner_(inner), budget_(budget), name_(name), diagnostics_(diagnostics) {}

  std::int64_t add_source(const core::SourceInfo& source) override { return inner_.add_source(source); }
  std::int64_t add_event(const core::Event& event) override {
    last_event_line_ = std::max(last_event_line_, event.line_end);
    if (budget_ && budget_->max > 0 && budget_->used >= budget_->max) {
      if (budget_->dropped++ == 0)
        diagnostics_.push_back(
            {core::DiagLevel::warning, std::string(code::kMaxEvents), fmt::format("{}:{}", name_, event.line),
             fmt::format("the run reached --max-events {}; events from here on (this line and later "
                         "inputs) are not recorded",
                         budget_->max)});
      return kDropped;
    }
    const std::int64_t id = inner_.add_event(event);
    // An event the sink keeps no row of (id 0: the timeline counts one that restates a fact it
    // holds alike) spends none of the budget, which is the events the run records.
    if (budget_ && id != 0) ++budget_->used;
    return id;
  }
  void add_gpu_snapshot(const core::GpuSnapshot& snapshot) override { inner_.add_gpu_snapshot(snapshot); }
  void add_host_memory(const core::HostMemory& memory) override { inner_.add_host_memory(memory); }
  void add_oom_report(const core::OomReport& report) override {
    if (report.event_id != kDropped) inner_.add_oom_report(report);
  }
  void add_process(const core::ProcessSighting& process) override { inner_.add_process(process); }
  void add_container(const core::ContainerInfo& container) override { inner_.add_container(container); }
  /// The last input line an event of this input reached (0: none yet).
  std::int64_t last_event_line() const { return last_event_line_; }

 private:
  static constexpr std::int64_t kDropped = -1;
  core::EventSink& inner_;
  EventBudget* budget_;
  const std::string& name_;
  core::Diagnostics& diagnostics_;
  std::int64_t last_event_line_ = 0;
};

void note(core::Diagnostics& d, std::string_view code, std::string where, std::string message,
          core::DiagLevel level = core::DiagLevel::note) {
  d.push_back({level, std::string(code), std::move(where), std::move(message)});
}

std::string human(std::int64_t bytes) {
  if (bytes >= (1LL << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1LL << 20));
  if (bytes >= (1LL << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1LL << 10));
  return fmt::format("{} bytes", bytes);
}

/// One note per kind of change normalisation made, naming the input and the first line.
void report_changes(const IngestInput& input, const detail::NormalizeReport& r, std::size_t max_line_bytes,
                    core::Diagnostics& d) {
  const std::int64_t off = input.first_line - 1;  // normalisation counts lines from the text's start
  if (!r.encoding.empty())
    note(d, code::kEncoding, input.name,
         fmt::format("decoded from {} ({})", r.encoding,
                     r.encoding_from_bom ? "byte-order mark" : "no byte-order mark; guessed from its NUL bytes"));
  if (r.nul_bytes > 0)
    note(d, code::kNul, fmt::format("{}:{}", input.name, r.first_nul_line + off),
         fmt::format("{} NUL byte{} ignored (first on this line; a block zero-filled by a crash?)", r.nul_bytes,
                     r.nul_bytes == 1 ? "" : "s"));
  if (r.invalid_utf8_lines > 0)
    note(d, code::kInvalidUtf8, fmt::format("{}:{}", input.name, r.first_invalid_line + off),
         fmt::format("invalid UTF-8 on {} line{} (first this one); those bytes read as U+FFFD", r.invalid_utf8_lines,
                     r.invalid_utf8_lines == 1 ? "" : "s"));
  if (r.cut_lines > 0)
    note(d, code::kLongLine, fmt::format("{}:{}", input.name, r.first_cut_line + off),
         r.cut_lines == 1
             ? fmt::format("line is {} long; only its first {} is read (per-line limit)", human(r.first_cut_bytes),
                           human(static_cast<std::int64_t>(max_line_bytes)))
             : fmt::format("line is {} long; it and {} more line{} over {} are cut to that length (per-line limit)",
                           human(r.first_cut_bytes), r.cut_lines - 1, r.cut_lines == 2 ? "" : "s",
                           human(static_cast<std::int64_t>(max_line_bytes))),
         core::DiagLevel::warning);
}

/// One note per kind of repair, naming the input and the first line repaired (input numbering).
void report_repairs(const IngestInput& input, const detail::RepairReport& r, std::int64_t line_offset,
                    core::Diagnostics& d) {
  auto one = [&](const detail::RepairReport::Kind& k, std::string_view what) {
    if (k.lines == 0) return;
    note(d, code::kRepaired, fmt::format("{}:{}", input.name, k.first_line + line_offset),
         fmt::format("{} {} (first here)", k.lines, what));
  };
  one(r.fence, "Markdown fence line(s) dropped");
  one(r.quote, "line(s) read without their `> ` quote marker");
  one(r.ci_chrome, "line(s) of CI viewer chrome dropped or peeled (Buildkite `Actions for L<n>`, GitHub `##[group]`)");
  one(r.terminal, "tmux / screen status line(s) dropped");
  one(r.gutter, "line(s) read without their line-number gutter");
  one(r.ansi_text, "line(s) with colour codes written as text (`#033[`, `\\033[`, `\\x1b[`) read as escapes");
  one(r.unescape, "line(s) with escaped newlines (`\\n`) in a quoted value read as the lines they hold");
  one(r.join, "wrapped line(s) joined where a message was cut (terminal width or by hand)");
}

/// A repeated segment shorter than this is read again: a one-line `Killed` after the same
/// prompt twice may be two runs; a block of this size pasted twice is one.
constexpr std::size_t kRepeatMinBytes = 64;

/// When `text` is one text twice (A + A, A ending in a newline), the length of A; else 0.
std::size_t repeated_half(std::string_view text) {
  if (text.size() < 2 * kRepeatMinBytes || text.size() % 2 != 0) return 0;
  const std::size_t half = text.size() / 2;
  if (text[half - 1] != '\n' || text.substr(0, half) != text.substr(half)) return 0;
  return half;
}

/// Lines in `text` as text::split_lines counts them (\n, \r\n, lone \r; a last line without
/// a terminator counts), and the offset where line `from` (1-based) starts.
std::int64_t count_lines(std::string_view text, std::int64_t from, size_t& from_offset) {
  std::int64_t line = 1;
  from_offset = 0;
  const bool has_cr = std::memchr(text.data(), '\r', text.size()) != nullptr;
  size_t i = 0;
  if (!has_cr) {
    // Whole chunks whose \n all lie before the last byte and before line `from` are counted at
    // once (text::count_newlines), not found one memchr at a time.
    constexpr size_t kChunk = 4096;
    const size_t chunks_end = text.size() == 0 ? 0 : (text.size() - 1) / kChunk * kChunk;
    for (; i < chunks_end; i += kChunk) {
      const auto n = static_cast<std::int64_t>(text::count_newlines(text.substr(i, kChunk)));
      if (from > line && line + n >= from) break;  // line `from` starts in this chunk
      line += n;
    }
  }
  for (; i < text.size(); ++i) {
    if (!has_cr) {
      const void* nl = std::memchr(text.data() + i, '\n', text.size() - i);
      if (!nl) break;
      i = static_cast<size_t>(static_cast<const char*>(nl) - text.data());
    } else if (text[i] != '\n' && text[i] != '\r') {
      continue;
    }
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    if (i + 1 < text.size() && ++line == from) from_offset = i + 1;
  }
  return line;
}

}  // namespace

IngestStats ingest(const IngestInput& input, const text::SignalSet& signals, core::EventSink& real_sink,
                   core::Diagnostics& diagnostics, const IngestOptions& options) {
  IngestStats stats;
  BudgetSink sink(real_sink, options.budget, input.name, diagnostics);
  std::string storage;
  detail::NormalizeReport changes;
  // One census of the rare bytes (\r, NUL, `#`, `\`, `@`, `^`) serves every whole-text check
  // below; of a part of the text (the per-input line limit, a repeat's first half) it may say
  // a byte is there that is not, which only costs the check its scan.
  text::RareBytes rare = text::RareBytes::all();
  const std::string_view text = detail::normalize_text(input.text, options.max_line_bytes, storage, changes, &rare);
  if (input.cut_line != 0 && changes.first_cut_line == input.cut_line) changes.first_cut_bytes = input.cut_line_bytes;
  const std::string_view head = text.substr(0, std::min<size_t>(text.size(), kSniffHeadBytes));
  // A text no longer than the head (a paste, a small file) is sniffed through the split, the
  // block pass and the segmentation its parsers read: made once, and kept below where the
  // text is read as it is (no repair, no line limit, no repeat).
  std::vector<std::string_view> lines;
  std::vector<std::uint8_t> hits;
  PassHits pass_hits;  // the pass's every hit, for the parsers' signal candidates
  bool have_hits = false;
  std::vector<Segment> segments;
  // The split of `t` (unless `lines` holds it already), the one block pass for the sniffer's
  // anchors and the parsers' literals (where it runs), and the segments they give.
  const auto segment = [&](std::string_view t) {
    if (lines.empty()) lines = text::split_lines(t, rare);
    hits.clear();
    have_hits = line_hits(t, lines, signals, hits, rare, &pass_hits);
    segments = segment_text(t, lines, have_hits ? &hits : nullptr, rare);
  };
  const auto sniff_whole = [&]() {
    if (std::string kind = not_text_format(text); !kind.empty()) return kind;
    segment(text);
    return majority_format(segments);
  };
  const std::string kind = changes.binary            ? std::string(format::kBinary)
                           : is_culprit_report(head) ? std::string(format::kCulpritReport)
                           : head.size() == text.size() ? sniff_whole()
                                                         : sniff_format(head);
  if (kind == format::kBinary || kind == format::kEmpty || kind == format::kCulpritReport) {
    stats.skipped = true;
    const bool only_nul = kind == format::kEmpty && changes.nul_bytes > 0 && text.empty();
    if (kind == format::kCulpritReport)
      note(diagnostics, code::kOwnReport, input.name,
           "a report culprit wrote (an earlier run's output), not a log; skipped", core::DiagLevel::warning);
    else if (kind == format::kBinary)
      note(diagnostics, code::kBinary, input.name,
           fmt::format("binary data ({}% of its first bytes are control bytes), "
                       "not a log; skipped",
                       std::max(changes.binary_percent, 1)),
           core::DiagLevel::warning);
    else
      note(diagnostics, code::kEmpty, input.name,
           only_nul ? fmt::format("only NUL bytes ({}; a file zero-filled by a crash?); nothing to read",
                                  human(changes.nul_bytes))
                    : std::string("empty input; nothing to read"),
           core::DiagLevel::warning);
    core::SourceInfo info;
    info.name = input.name;
    info.host = input.host;
    info.host_from = input.host_from;
    info.format = kind;
    info.bytes = input.bytes >= 0 ? input.bytes : static_cast<std::int64_t>(input.text.size());
    info.origin = input.origin;
    sink.add_source(info);
    return stats;
  }
  report_changes(input, changes, options.max_line_bytes, diagnostics);
  std::string_view body = text;
  bool sniffed = !lines.empty();  // lines, hits and segments are the body's
  std::int64_t line_offset = input.first_line - 1;  // segment line 1 is this source line + 1
  if (options.max_lines > 0 && static_cast<std::int64_t>(text.size()) > options.max_lines) {
    size_t from_offset = 0;
    const std::int64_t total = count_lines(text, 0, from_offset);
    if (total > options.max_lines) {
      const std::int64_t from = total - options.max_lines + 1;
      count_lines(text, from, from_offset);
      body = text.substr(from_offset);
      line_offset += from - 1;
      sniffed = false;
      lines.clear();
      note(diagnostics, code::kTooManyLines, fmt::format("{}:{}", input.name, line_offset + 1),
           fmt::format("{} lines; only the last {} are read, from this one on (per-input line limit)",
                       total + input.first_line - 1, options.max_lines),
           core::DiagLevel::warning);
    }
  }
  // Repair (gutters, chrome, escapes, wraps); `map` takes repaired lines back to the input's.
  std::string repaired_storage;
  LineMap map;
  detail::RepairReport repairs;
  detail::RepairOptions repair_options;
  // A document or a tool's table: its cells are its parser's (a `ps` row's command line may
  // hold a `\n` that is no newline; splitting it would lose the row).
  repair_options.structured = kind == format::kJournalJson || kind == format::kDockerInspect ||
                              kind == format::kNvidiaSmiXml || kind == format::kPs || kind == format::kDockerPs ||
                              kind == format::kNvidiaSmiTable || kind == format::kNvidiaSmiCsv ||
                              kind == format::kNvidiaSmiQ || kind == format::kFree || kind == format::kProcStack ||
                              kind == format::kMeminfo || kind == format::kCgroupMemory || kind == format::kGpustat ||
                              kind == format::kTorchelasticError || kind == kNvitopFormat || kind == kRocmSmiFormat ||
                              kind == kAmdSmiFormat || kind == format::kTorchMemorySnapshot;
  // One split of the text serves the repair, the sniffer and the parsers: the sniff's or the
  // repair's own where it changed nothing (the common case), else one of the repaired text.
  repair_options.rare = rare;
  body = detail::repair_text(body, &signals, repaired_storage, map, repairs, repair_options, &lines);
  if (body.data() == repaired_storage.data()) {  // a new text
    rare = text::RareBytes::of(body);
    sniffed = false;
  }
  if (repairs.any()) report_repairs(input, repairs, line_offset, diagnostics);
  // The same text twice (`cat p p`, a block pasted again): read once, or every event, holder and
  // evidence line counts twice and the registry sees each process as two sightings.
  if (const std::size_t half = repeated_half(body); half != 0) {
    size_t unused = 0;
    const std::int64_t first_lines = count_lines(body.substr(0, half), 0, unused);
    note(diagnostics, code::kRepeat, fmt::format("{}:{}", input.name, line_offset + first_lines + 1),
         // The input's own line numbers, as the cited line: a piece of a big input starts past line 1.
         fmt::format("lines {}-{} repeat lines {}-{} (pasted twice?); read once", line_offset + first_lines + 1,
                     line_offset + 2 * first_lines, line_offset + 1, line_offset + first_lines));
    body = body.substr(0, half);
    lines.clear();
    sniffed = false;
  }
  if (!sniffed) segment(body);
  std::set<std::tuple<std::string, std::string, std::string_view>> seen;  // (host, format, text)
  // Without a \r every line end is a \n, so a segment's newlines follow from its lines (the
  // split's, which end at each \n): no second pass over its text.
  const bool body_has_cr = rare.holds('\r', body);
  // The job's own output (`culprit run`) keeps its last lines, after the last segment is parsed.
  const bool job_output = !input.more && core::job_output::is_output_name(input.name);
  ParseContext last;
  for (const auto& seg : segments) {
    if (seg.text.size() >= kRepeatMinBytes && !seen.emplace(seg.host, seg.format, seg.text).second) {
      note(diagnostics, code::kRepeat, fmt::format("{}:{}", input.name, seg.first_line + line_offset),
           "a block that repeats an earlier one of this input (pasted twice?); read once");
      continue;
    }
    core::SourceInfo info;
    info.name = input.name;
    info.host = seg.host.empty() ? input.host : seg.host;
    info.host_from = seg.host.empty() ? input.host_from : std::string("prompt");  // input::host_from::kPrompt
    info.format = seg.format;
    info.bytes = static_cast<std::int64_t>(seg.text.size());
    if (input.more && &seg == &segments.back())  // to the piece's end: the segment goes on in the next
      info.bytes = static_cast<std::int64_t>(body.data() + body.size() - seg.text.data());
    const auto seg_lines = static_cast<std::int64_t>(
        body_has_cr ? text::count_newlines(seg.text) + 1 : seg.line_count + (!seg.text.empty() && seg.text.back() == '\n'));
    info.origin = input.origin;
    ParseContext ctx;
    ctx.first_line = seg.first_line + line_offset;
    ctx.line_map = &map;
    ctx.map_offset = line_offset;
    info.first_line = ctx.absolute_line(1);
    info.lines = seg_lines;
    if (!map.empty()) {  // the input lines the segment's repaired lines came from
      const std::int64_t real = seg_lines - (!seg.text.empty() && seg.text.back() == '\n' ? 1 : 0);
      info.lines = ctx.absolute_line_end(real) - info.first_line + 1 + (seg_lines - real);
    }
    ctx.sink = &sink;
    ctx.signals = &signals;
    ctx.diagnostics = &diagnostics;
    ctx.source_id = sink.add_source(info);
    ctx.source_name = input.name;
    ctx.host = info.host;
    ctx.format = seg.format;
    ctx.command = seg.command;
    ctx.year_hint = options.year_hint;
    ctx.lines = std::span<const std::string_view>(lines).subspan(static_cast<std::size_t>(seg.first_line - 1),
                                                                 seg.line_count);
    ctx.lines_text = seg.text;
    ctx.rare = rare;
    if (have_hits) {
      ctx.line_hits = std::span<const std::uint8_t>(hits).subspan(static_cast<std::size_t>(seg.first_line - 1),
                                                                  seg.line_count);
      if (!pass_hits.hits.empty()) ctx.pass_hits = &pass_hits;
    }
    if (!seg.command.empty()) {
      // The prompt's command, on the line before the output (the prompt line is not the
      // segment's): the job's identity reads it (diagnose/roles.cpp).
      core::Event command;
      command.source_id = ctx.source_id;
      command.line = command.line_end = std::max<std::int64_t>(1, info.first_line - 1);
      command.host = info.host;
      command.kind = std::string(core::kind::kCommand);
      command.rule = "prompt";
      command.message = seg.command;
      sink.add_event(command);
    }
    parse_segment(seg.text, ctx);
    stats.lines += info.lines;
    ++stats.segments;
    if (job_output) last = ctx;
  }
  if (job_output && last.sink) add_job_output_tail(last, last.lines, sink.last_event_line());
  return stats;
}

}  // namespace culprit::ingest
