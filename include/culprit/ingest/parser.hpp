// The contract every format parser follows: it reads one segment's text (a string, never a
// file), pushes events and records into the sink, and reports what it skipped as diagnostics.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/diagnostic.hpp"
#include "culprit/core/event.hpp"
#include "culprit/core/event_sink.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::ingest {

/// Where each line of a repaired text came from (ingest's text repair: gutters dropped, wrapped
/// lines joined, escaped newlines split). Repaired line k (1-based) is the input's lines
/// [first[k-1], last[k-1]], counted from the repaired text's own first line. Empty: line k is line k.
struct LineMap {
  std::vector<std::int64_t> first, last;
  bool empty() const { return first.empty(); }
  std::int64_t first_of(std::int64_t k) const { return in_range(k) ? first[static_cast<std::size_t>(k - 1)] : k; }
  std::int64_t last_of(std::int64_t k) const { return in_range(k) ? last[static_cast<std::size_t>(k - 1)] : k; }

 private:
  bool in_range(std::int64_t k) const { return k >= 1 && k <= static_cast<std::int64_t>(first.size()); }
};

struct PassHits;  // src/ingest/line_hits.hpp

/// Where a parser is and what it writes to. `first_line` maps segment line 1 to the source's
/// numbering (a paste segment starting at line 40 has first_line 40). When the text was
/// repaired, `line_map` (with `map_offset`, the source line before the repaired text's line 1)
/// turns that numbering back into the input's own lines, so evidence cites the file as it is.
struct ParseContext {
  core::EventSink* sink = nullptr;
  const text::SignalSet* signals = nullptr;
  core::Diagnostics* diagnostics = nullptr;
  std::int64_t source_id = 0;
  std::string source_name;
  std::string host;      ///< host of the source; a line's own host prefix overrides it
  std::string format;
  std::string command;   ///< the command typed at the prompt this segment is the output of ('' none)
  std::int64_t first_line = 1;
  int year_hint = 0;     ///< a year for stamps without one (0: unknown)
  const LineMap* line_map = nullptr;  ///< null or empty: the segment's lines are the input's
  std::int64_t map_offset = 0;
  /// The lines of `lines_text` as text::split_lines gives them, where the pipeline has them from
  /// the sniffer's split of the whole input (so a segment is split once); empty `lines_text`:
  /// none given.
  std::span<const std::string_view> lines;
  std::string_view lines_text;
  /// Per line of `lines`, the input's block pass (src/ingest/line_hits.hpp: which literal lists
  /// its literals are in); empty where the pass did not run.
  std::span<const std::uint8_t> line_hits;
  /// Every literal hit of that pass, where it kept them (src/ingest/line_hits.hpp): a message
  /// that is a part of the pass's text finds its candidate signals there, not in a scan of its
  /// own. Null where none were kept.
  const PassHits* pass_hits = nullptr;
  /// The census of the input's text (text::RareBytes) a segment is part of: a byte it says is
  /// not there is in no segment of it. all() where none was taken.
  text::RareBytes rare = text::RareBytes::all();

  /// The lines of `text` as text::split_lines gives them: the pipeline's where `text` is the
  /// very text they are of (a parser may hand a part of its segment on with this context), else
  /// split into `storage`.
  std::span<const std::string_view> lines_of(std::string_view text, std::vector<std::string_view>& storage) const;
  /// `line_hits` where `text` is the text they are of, else empty (the parser's own pass runs).
  std::span<const std::uint8_t> line_hits_of(std::string_view text) const {
    return lines_given_for(text) && line_hits.size() == lines.size() ? line_hits : std::span<const std::uint8_t>();
  }
  /// Whether `lines` (and `line_hits`) are of `text`: the very text the pipeline split.
  bool lines_given_for(std::string_view text) const {
    return !lines_text.empty() && text.data() == lines_text.data() && text.size() == lines_text.size();
  }

  /// An event with source, host and absolute line (and line_end: the last input line of a
  /// joined line) filled in. `seg_line` is 1-based in the segment.
  core::Event make_event(std::int64_t seg_line) const;
  /// The input's own line number of segment line `seg_line` (the first, for a joined line).
  std::int64_t absolute_line(std::int64_t seg_line) const {
    const std::int64_t k = first_line + seg_line - 1;
    return line_map && !line_map->empty() ? line_map->first_of(k - map_offset) + map_offset : k;
  }
  /// The last input line that segment line `seg_line` was made of (absolute_line unless joined).
  std::int64_t absolute_line_end(std::int64_t seg_line) const {
    const std::int64_t k = first_line + seg_line - 1;
    return line_map && !line_map->empty() ? line_map->last_of(k - map_offset) + map_offset : k;
  }
  void note(std::string code, std::int64_t seg_line, std::string message) const;
  /// A line of a structured segment that its parser does not read (a row that fits no header,
  /// a log line the sniffer took for a row): read as an application-log line, so the signals
  /// still see it. Sniffing may mistake a line's format; it must never swallow the line.
  void unparsed(std::int64_t seg_line, std::string_view line) const;
};

/// Parses `text` as format `ctx.format` with the parser its row of the format table names
/// (src/ingest/format_table.cpp). Unknown formats fall back to the app-log parser.
void parse_segment(std::string_view text, ParseContext& ctx);

// One entry point per format (src/ingest/formats/<name>.cpp), bound to its id by the format
// table; declared here so that tests can call a parser directly.
void parse_kernel_log(std::string_view text, ParseContext& ctx);     ///< dmesg, kern.log, journal short
void parse_app_log(std::string_view text, ParseContext& ctx);        ///< worker logs, tracebacks
void parse_nvidia_smi_table(std::string_view text, ParseContext& ctx);
void parse_free(std::string_view text, ParseContext& ctx);
void parse_meminfo(std::string_view text, ParseContext& ctx);        ///< cat /proc/meminfo
void parse_cgroup_memory(std::string_view text, ParseContext& ctx);  ///< culprit's cgroup.txt / head memory.*
void parse_docker_ps(std::string_view text, ParseContext& ctx);
void parse_journal_json(std::string_view text, ParseContext& ctx);   ///< journalctl -o json / json-pretty / json-seq
void parse_docker_inspect(std::string_view text, ParseContext& ctx); ///< docker inspect / kubectl get pod -o json
void parse_kubectl_describe(std::string_view text, ParseContext& ctx);  ///< kubectl describe pod
void parse_nvidia_smi_csv(std::string_view text, ParseContext& ctx);  ///< --query-gpu / --query-compute-apps CSV
void parse_nvidia_smi_q(std::string_view text, ParseContext& ctx);    ///< nvidia-smi -q (NVSMI LOG) text
void parse_nvidia_smi_xml(std::string_view text, ParseContext& ctx);  ///< nvidia-smi -q -x XML
void parse_gpustat(std::string_view text, ParseContext& ctx);         ///< gpustat (one line per GPU)
void parse_proc_stack(std::string_view text, ParseContext& ctx);      ///< cat /proc/PID/stack
void parse_proc_status(std::string_view text, ParseContext& ctx);  ///< /proc/N/status + cgroup (proc-status.txt)
void parse_ps(std::string_view text, ParseContext& ctx);              ///< ps aux / -ef / -eo (header-driven)
void parse_torchelastic_error(std::string_view text, ParseContext& ctx);  ///< torchrun's error file (JSON)
void parse_torch_memory_snapshot(std::string_view text, ParseContext& ctx);  ///< torch.cuda.memory._snapshot() as JSON

}  // namespace culprit::ingest
